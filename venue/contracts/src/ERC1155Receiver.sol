// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ERC1155Receiver — accepts conditional-token transfers.
/// @dev Every contract that holds outcome tokens (wallets, the exchange, the
/// neg-risk adapter) inherits it: the CTF refuses safe transfers to contracts
/// that do not answer the ERC-1155 acceptance hooks.
abstract contract ERC1155Receiver {
    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }

    /// @dev ERC-165 for ERC1155TokenReceiver (0x4e2312e0) and ERC-165 itself.
    function supportsInterface(bytes4 interfaceId) public view virtual returns (bool) {
        return interfaceId == 0x4e2312e0 || interfaceId == 0x01ffc9a7;
    }
}
