// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC1155Receiver} from "./ERC1155Receiver.sol";

/// @title DepositWallet — implementation of the sandbox's deposit wallets
/// (signature type 3, POLY_1271).
/// @notice A contract wallet owned by one EOA. The owner transacts directly
/// with `execute`, or signs an EIP-712 `Execute` message that anyone (a
/// relayer paying the gas) submits through `executeWithSignature`.
/// ERC-1271 `isValidSignature` accepts the owner's plain 65-byte signature
/// over the given hash. The ERC-7739 `TypedDataSign` wrapper that CLOB V2
/// orders carry is unwrapped and verified off chain by the sandbox CLOB, not
/// here.
/// @dev Instances are EIP-1167 clones created by DepositWalletFactory, which
/// calls `initialize` in the creating transaction. The implementation's own
/// storage is locked at genesis (owner = 0x…dEaD) so it cannot be claimed.
contract DepositWallet is ERC1155Receiver {
    address public owner; // slot 0
    uint256 public nonce; // slot 1

    /// @dev keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    bytes32 internal constant DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 internal constant EXECUTE_TYPEHASH =
        keccak256("Execute(address to,uint256 value,bytes data,uint256 nonce,uint256 deadline)");
    uint256 internal constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    event Initialized(address indexed owner);
    event Executed(address indexed to, uint256 value, bytes data, uint256 nonce);

    error AlreadyInitialized();
    error NotOwner();
    error InvalidSignature();
    error Expired();
    error CallFailed(bytes returnData);

    receive() external payable {}

    function initialize(address _owner) external {
        if (owner != address(0)) revert AlreadyInitialized();
        if (_owner == address(0)) revert NotOwner();
        owner = _owner;
        emit Initialized(_owner);
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("DepositWallet"), keccak256("1"), block.chainid, address(this))
        );
    }

    /// @notice ERC-1271: 0x1626ba7e when `signature` is the owner's 65-byte
    /// ECDSA signature of `hash`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _recover(hash, signature) == owner && owner != address(0) ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    /// @notice Calls `to` from the wallet. Owner only.
    function execute(address to, uint256 value, bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender != owner) revert NotOwner();
        return _call(to, value, data);
    }

    /// @notice The EIP-712 digest the owner signs for executeWithSignature.
    function getExecuteHash(address to, uint256 value, bytes calldata data, uint256 _nonce, uint256 deadline)
        public
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(abi.encode(EXECUTE_TYPEHASH, to, value, keccak256(data), _nonce, deadline));
        return keccak256(abi.encodePacked(bytes1(0x19), bytes1(0x01), domainSeparator(), structHash));
    }

    /// @notice Relayed execution: anyone submits a call the owner signed.
    /// `deadline` is a unix time after which the signature is void (0 = none).
    function executeWithSignature(
        address to,
        uint256 value,
        bytes calldata data,
        uint256 deadline,
        bytes calldata signature
    ) external payable returns (bytes memory) {
        if (deadline != 0 && block.timestamp > deadline) revert Expired();
        bytes32 digest = getExecuteHash(to, value, data, nonce, deadline);
        address signer = _recover(digest, signature);
        if (signer == address(0) || signer != owner) revert InvalidSignature();
        return _call(to, value, data);
    }

    function _call(address to, uint256 value, bytes calldata data) private returns (bytes memory ret) {
        uint256 n = nonce++;
        bool ok;
        (ok, ret) = to.call{value: value}(data);
        if (!ok) revert CallFailed(ret);
        emit Executed(to, value, data, n);
    }

    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address) {
        if (sig.length != 65) return address(0);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v < 27) v += 27;
        if ((v != 27 && v != 28) || uint256(s) > HALF_N) return address(0);
        return ecrecover(digest, v, r, s);
    }
}
