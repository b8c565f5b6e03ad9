// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DepositWallet} from "./DepositWallet.sol";

/// @title DepositWalletFactory — creates deposit wallets (signature type 3),
/// placed at the mainnet deposit-wallet factory address.
/// @notice One wallet per owner at a deterministic address: an EIP-1167
/// clone of the implementation created with CREATE2 and salt
/// keccak256(abi.encode(owner)). `walletOf(owner)` predicts it before
/// deployment. Anyone may deploy an owner's wallet (e.g. a relayer); the
/// wallet only obeys its owner. Mainnet uses beacon proxies; the addresses
/// here are sandbox-specific.
/// @dev `implementation` lives in storage slot 0, written by the genesis allocation.
contract DepositWalletFactory {
    address public implementation; // slot 0

    event WalletDeployed(address indexed owner, address wallet);

    error DeploymentFailed();

    /// @notice Returns the owner's wallet, deploying it first when absent.
    function deploy(address owner) external returns (address wallet) {
        wallet = walletOf(owner);
        if (wallet.code.length > 0) return wallet;
        bytes memory code = _initCode();
        bytes32 salt = keccak256(abi.encode(owner));
        address created;
        assembly {
            created := create2(0, add(code, 0x20), mload(code), salt)
        }
        if (created == address(0) || created != wallet) revert DeploymentFailed();
        DepositWallet(payable(created)).initialize(owner);
        emit WalletDeployed(owner, created);
    }

    /// @notice The address of `owner`'s wallet (deployed or not).
    function walletOf(address owner) public view returns (address) {
        bytes32 h = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), keccak256(abi.encode(owner)), keccak256(_initCode()))
        );
        return address(uint160(uint256(h)));
    }

    /// @dev EIP-1167 minimal proxy creation code for `implementation`.
    function _initCode() private view returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }
}
