// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC1155Receiver} from "./ERC1155Receiver.sol";

/// @title Safe — the singleton of the sandbox's 1-of-1 Gnosis-style Safe
/// (signature type 2 wallets).
/// @notice Implements the Gnosis Safe surface the venue client uses:
/// `execTransaction` with the owner's EIP-712 SafeTx signature (same
/// typehash and domain `EIP712Domain(uint256 chainId,address
/// verifyingContract)` as Gnosis Safe 1.3), `nonce()`, `getOwners()`,
/// `getThreshold()`. Only 65-byte ECDSA signatures (v = 27/28) of the single
/// owner are accepted; gas refunds (gasPrice > 0) are not supported.
/// @dev Storage layout: slot 0 is the proxy's singleton pointer, then owner
/// and nonce. Instances are SafeProxy contracts created by SafeFactory.
contract Safe is ERC1155Receiver {
    address internal singleton; // slot 0 (SafeProxy)
    address internal owner; // slot 1
    uint256 public nonce; // slot 2

    /// @dev keccak256("EIP712Domain(uint256 chainId,address verifyingContract)")
    bytes32 internal constant DOMAIN_SEPARATOR_TYPEHASH =
        0x47e79534a245952e8b16893a336b85a3d9ea9fa8c573f3d803afb92a79469218;
    /// @dev keccak256("SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)")
    bytes32 internal constant SAFE_TX_TYPEHASH = 0xbb8310d486368db6bd6f849402fdd73ad53d316b5a4b2644ad6efe0f941286d8;
    /// @dev secp256k1 order / 2: higher s values are malleable duplicates.
    uint256 internal constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    event SafeSetup(address indexed initiator, address owner);
    event ExecutionSuccess(bytes32 txHash, uint256 payment);
    event ExecutionFailure(bytes32 txHash, uint256 payment);

    error AlreadySetUp();
    error InvalidOwner();
    error InvalidSignature();
    error RefundsNotSupported();
    error InvalidOperation();
    error ExecutionFailed();

    receive() external payable {}

    /// @notice Sets the single owner. Called once by SafeFactory in the
    /// transaction that creates the proxy.
    function setup(address _owner) external {
        if (owner != address(0)) revert AlreadySetUp();
        if (_owner == address(0)) revert InvalidOwner();
        owner = _owner;
        emit SafeSetup(msg.sender, _owner);
    }

    function getOwners() external view returns (address[] memory owners) {
        owners = new address[](1);
        owners[0] = owner;
    }

    function getThreshold() external pure returns (uint256) {
        return 1;
    }

    function isOwner(address account) external view returns (bool) {
        return account != address(0) && account == owner;
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_SEPARATOR_TYPEHASH, block.chainid, address(this)));
    }

    /// @notice The EIP-712 digest the owner signs for a SafeTx.
    function getTransactionHash(
        address to,
        uint256 value,
        bytes calldata data,
        uint8 operation,
        uint256 safeTxGas,
        uint256 baseGas,
        uint256 gasPrice,
        address gasToken,
        address refundReceiver,
        uint256 _nonce
    ) public view returns (bytes32) {
        bytes32 safeTxHash = keccak256(
            abi.encode(
                SAFE_TX_TYPEHASH,
                to,
                value,
                keccak256(data),
                operation,
                safeTxGas,
                baseGas,
                gasPrice,
                gasToken,
                refundReceiver,
                _nonce
            )
        );
        return keccak256(abi.encodePacked(bytes1(0x19), bytes1(0x01), domainSeparator(), safeTxHash));
    }

    /// @notice Executes a transaction signed by the owner. Anyone may submit
    /// it (and pay the gas). Operation 0 = CALL, 1 = DELEGATECALL.
    function execTransaction(
        address to,
        uint256 value,
        bytes calldata data,
        uint8 operation,
        uint256 safeTxGas,
        uint256 baseGas,
        uint256 gasPrice,
        address gasToken,
        address payable refundReceiver,
        bytes calldata signatures
    ) external payable returns (bool success) {
        if (gasPrice != 0) revert RefundsNotSupported();
        if (operation > 1) revert InvalidOperation();
        bytes32 txHash = getTransactionHash(
            to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce
        );
        _checkSignature(txHash, signatures);
        nonce++;
        uint256 gasLimit = safeTxGas == 0 ? gasleft() : safeTxGas;
        if (operation == 0) {
            (success,) = to.call{value: value, gas: gasLimit}(data);
        } else {
            (success,) = to.delegatecall{gas: gasLimit}(data);
        }
        // As Gnosis Safe: without safeTxGas or gasPrice a failed call reverts
        // the whole transaction (nonce included).
        if (!success && safeTxGas == 0) revert ExecutionFailed();
        if (success) emit ExecutionSuccess(txHash, 0);
        else emit ExecutionFailure(txHash, 0);
    }

    function _checkSignature(bytes32 digest, bytes calldata sig) private view {
        if (sig.length != 65) revert InvalidSignature();
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v != 27 && v != 28) revert InvalidSignature();
        if (uint256(s) > HALF_N) revert InvalidSignature();
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != owner) revert InvalidSignature();
    }
}
