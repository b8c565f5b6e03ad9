// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ProxyWalletFactory — the sandbox's Polymarket Proxy Wallet Factory.
/// @notice Placed at the mainnet factory address. `proxy(calls)` finds the
/// caller's wallet, creates it on first use and forwards the batch to it.
/// Wallets are created with CREATE2 using exactly the creation code of
/// Polymarket's PolyProxyLib (a 99-byte minimal proxy embedding this factory
/// and the implementation, followed by `cloneConstructor(bytes)` call data
/// with empty bytes) and salt keccak256(abi.encodePacked(owner)), so a
/// wallet's sandbox address equals its mainnet address for the same owner.
/// @dev `implementation` lives in storage slot 0, written by the genesis
/// allocation (runtime code is placed without running a constructor).
/// GSN relaying of the mainnet factory is not reproduced.
contract ProxyWalletFactory {
    address public implementation; // slot 0

    /// @dev Must match ProxyWallet.FACTORY_SLOT.
    bytes32 internal constant FACTORY_SLOT = keccak256("ats.sandbox.proxywallet.factory");

    enum CallType {
        INVALID,
        CALL,
        DELEGATECALL
    }

    struct ProxyCall {
        CallType typeCode;
        address to;
        uint256 value;
        bytes data;
    }

    event WalletCreated(address indexed owner, address wallet);

    error DeploymentFailed();
    error NotInConstruction();

    /// @notice Mainnet-compatible name of the implementation getter.
    function getImplementation() external view returns (address) {
        return implementation;
    }

    /// @notice Runs `calls` from the caller's proxy wallet, deploying it first
    /// when absent. Selector 0x34ee9791.
    function proxy(ProxyCall[] calldata calls) external payable returns (bytes[] memory returnValues) {
        address wallet = _walletFor(msg.sender);
        // ProxyCall and ProxyWallet.WalletCall share their ABI encoding.
        (bool ok, bytes memory ret) = wallet.call{value: msg.value}(abi.encodeWithSelector(0x34ee9791, calls));
        if (!ok) {
            assembly {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        returnValues = abi.decode(ret, (bytes[]));
    }

    /// @notice Deploys `owner`'s wallet if it does not exist yet and returns
    /// its address. Anyone may call it: the wallet only obeys its owner.
    function maybeMakeWallet(address owner) external returns (address) {
        return _walletFor(owner);
    }

    /// @notice The CREATE2 address of `owner`'s wallet (deployed or not).
    function computeProxyAddress(address owner) public view returns (address) {
        bytes32 h = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), _salt(owner), keccak256(_creationCode()))
        );
        return address(uint160(uint256(h)));
    }

    /// @notice Runs inside a new wallet's init code (by delegatecall) and
    /// binds the wallet to this factory. Reverts outside construction, so
    /// calling it on the factory itself does nothing.
    function cloneConstructor(bytes calldata) external {
        if (address(this).code.length != 0) revert NotInConstruction();
        bytes32 slot = FACTORY_SLOT;
        address f = msg.sender;
        assembly {
            sstore(slot, f)
        }
    }

    function _walletFor(address owner) private returns (address wallet) {
        wallet = computeProxyAddress(owner);
        if (wallet.code.length > 0) return wallet;
        bytes memory code = _creationCode();
        bytes32 salt = _salt(owner);
        address created;
        assembly {
            created := create2(0, add(code, 0x20), mload(code), salt)
        }
        if (created == address(0) || created != wallet) revert DeploymentFailed();
        emit WalletCreated(owner, wallet);
    }

    function _salt(address owner) private pure returns (bytes32) {
        return keccak256(abi.encodePacked(owner));
    }

    /// @dev PolyProxyLib._computeCreationCode(address(this), implementation).
    function _creationCode() private view returns (bytes memory clone) {
        address deployer = address(this);
        address target = implementation;
        bytes memory consData = abi.encodeWithSignature("cloneConstructor(bytes)", new bytes(0));
        bytes memory buffer = new bytes(99);
        assembly {
            mstore(add(buffer, 0x20), 0x3d3d606380380380913d393d73bebebebebebebebebebebebebebebebebebebe)
            mstore(add(buffer, 0x2d), mul(deployer, 0x01000000000000000000000000))
            mstore(add(buffer, 0x41), 0x5af4602a57600080fd5b602d8060366000396000f3363d3d373d3d3d363d73be)
            mstore(add(buffer, 0x60), mul(target, 0x01000000000000000000000000))
            mstore(add(buffer, 116), 0x5af43d82803e903d91602b57fd5bf30000000000000000000000000000000000)
        }
        clone = abi.encodePacked(buffer, consData);
    }
}
