// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC1155Receiver} from "./ERC1155Receiver.sol";

/// @title ProxyWallet — implementation behind every Polymarket proxy wallet
/// (signature type 1) in the sandbox.
/// @notice Each user's wallet is a minimal proxy (created by
/// ProxyWalletFactory) delegating here. The wallet executes batches only
/// when called by the factory, which identifies the owner as msg.sender.
/// @dev The factory address is written into the wallet's storage during
/// creation: the clone's init code delegatecalls the factory's
/// `cloneConstructor(bytes)`, which stores msg.sender (the factory) in
/// FACTORY_SLOT. A dedicated slot keeps it clear of anything else.
contract ProxyWallet is ERC1155Receiver {
    /// @dev keccak256("ats.sandbox.proxywallet.factory")
    bytes32 internal constant FACTORY_SLOT = keccak256("ats.sandbox.proxywallet.factory");

    enum CallType {
        INVALID,
        CALL,
        DELEGATECALL
    }

    /// @notice Same ABI shape as the factory's ProxyCall, so the selector of
    /// `proxy` is 0x34ee9791 on both (the name differs only to keep the Go
    /// bindings' struct types apart).
    struct WalletCall {
        CallType typeCode;
        address to;
        uint256 value;
        bytes data;
    }

    error NotFactory();
    error InvalidCallType(uint256 index);

    receive() external payable {}

    /// @notice The factory this wallet obeys.
    function factory() public view returns (address f) {
        bytes32 slot = FACTORY_SLOT;
        assembly {
            f := sload(slot)
        }
    }

    /// @notice Executes `calls` in order; any failure reverts the batch with
    /// the callee's revert data.
    function proxy(WalletCall[] calldata calls) external payable returns (bytes[] memory returnValues) {
        if (msg.sender != factory()) revert NotFactory();
        returnValues = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            WalletCall calldata c = calls[i];
            bool ok;
            bytes memory ret;
            if (c.typeCode == CallType.CALL) {
                (ok, ret) = c.to.call{value: c.value}(c.data);
            } else if (c.typeCode == CallType.DELEGATECALL) {
                (ok, ret) = c.to.delegatecall(c.data);
            } else {
                revert InvalidCallType(i);
            }
            if (!ok) {
                assembly {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
            returnValues[i] = ret;
        }
    }
}
