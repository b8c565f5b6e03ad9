// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {SafeProxy} from "./SafeProxy.sol";
import {Safe} from "./Safe.sol";

/// @title SafeFactory — the sandbox's Safe factory ("Polymarket Contract Proxy
/// Factory"), placed at the mainnet factory address.
/// @notice Creates an owner's 1-of-1 Safe with CREATE2, salt
/// keccak256(abi.encode(owner)) and init code SafeProxy.creationCode ‖
/// abi.encode(singleton) — the same derivation the venue client uses, with
/// the sandbox's own init-code hash (network.SandboxSafeInitCodeHash).
/// Anyone may create an owner's Safe: it only obeys the owner's signature.
/// @dev `singleton` lives in storage slot 0, written by the genesis allocation.
contract SafeFactory {
    address public singleton; // slot 0

    event ProxyCreation(address proxy, address owner);

    error DeploymentFailed();

    /// @notice Returns the owner's Safe, creating and setting it up first
    /// when absent.
    function createProxy(address owner) external returns (address proxy) {
        proxy = computeProxyAddress(owner);
        if (proxy.code.length > 0) return proxy;
        bytes memory code = _initCode();
        bytes32 salt = keccak256(abi.encode(owner));
        address created;
        assembly {
            created := create2(0, add(code, 0x20), mload(code), salt)
        }
        if (created == address(0) || created != proxy) revert DeploymentFailed();
        Safe(payable(created)).setup(owner);
        emit ProxyCreation(created, owner);
    }

    /// @notice The CREATE2 address of `owner`'s Safe (deployed or not).
    function computeProxyAddress(address owner) public view returns (address) {
        bytes32 h = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), keccak256(abi.encode(owner)), keccak256(_initCode()))
        );
        return address(uint160(uint256(h)));
    }

    /// @notice keccak256 of the Safe init code.
    function initCodeHash() external view returns (bytes32) {
        return keccak256(_initCode());
    }

    function _initCode() private view returns (bytes memory) {
        return abi.encodePacked(type(SafeProxy).creationCode, abi.encode(singleton));
    }
}
