// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "./IERC20.sol";
import {ERC1155Receiver} from "./ERC1155Receiver.sol";

interface IConditionalTokens {
    function balanceOf(address owner, uint256 id) external view returns (uint256);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external;
}

/// @title Exchange — the sandbox's CLOB V2 settlement contract.
/// @notice One contract, placed at both V2 exchange addresses (normal and
/// neg-risk). The sandbox CLOB matches orders off chain and the operator
/// settles each match here. Order signatures (EOA, proxy, Safe and the
/// ERC-7739-wrapped POLY_1271 kind) are verified off chain by the sandbox
/// CLOB before matching, not by this contract; what this contract enforces is
/// that assets really move: collateral with `transferFrom` and outcome tokens
/// with `safeTransferFrom`, so makers need the same approvals as on Polygon.
/// @dev Only same-token matches are settled (a BUY against SELLs of the same
/// token, or a SELL against BUYs); complementary MINT/MERGE matches are not.
/// Assets go through the exchange, as on Polygon: the taker's side is pulled
/// first, each maker fill pulls the maker's side and pays the maker, then the
/// taker is paid. The events are the V2 ones: one OrderFilled per filled
/// order (maker fills first, taker = the taker order's maker; then the taker
/// order with taker = this contract), then one OrdersMatched.
/// Fees are charged in the asset the order's maker receives and paid to the
/// operator. Configuration lives in storage slots 0-2 written by the genesis
/// allocation (runtime code is placed without running a constructor).
contract Exchange is ERC1155Receiver {
    address public operator; // slot 0
    IERC20 public collateral; // slot 1
    IConditionalTokens public ctf; // slot 2

    uint8 internal constant BUY = 0;
    uint8 internal constant SELL = 1;

    /// @notice One order's part in a match. Amounts are in 6-decimal base
    /// units with the order's own orientation: for a BUY, makerAmount is
    /// collateral paid and takerAmount tokens received; for a SELL the
    /// reverse.
    struct Fill {
        bytes32 orderHash;
        address maker;
        uint8 side;
        uint256 tokenId;
        uint256 makerAmount;
        uint256 takerAmount;
        uint256 fee;
        bytes32 builder;
        bytes32 metadata;
    }

    event OrderFilled(
        bytes32 indexed orderHash,
        address indexed maker,
        address indexed taker,
        uint8 side,
        uint256 tokenId,
        uint256 makerAmountFilled,
        uint256 takerAmountFilled,
        uint256 fee,
        bytes32 builder,
        bytes32 metadata
    );
    event OrdersMatched(
        bytes32 indexed takerOrderHash,
        address indexed takerOrderMaker,
        uint8 side,
        uint256 tokenId,
        uint256 makerAmountFilled,
        uint256 takerAmountFilled
    );

    error NotOperator();
    error InvalidMatch(string reason);
    /// @notice `account` holds less than `needed` of `tokenId` (0 = collateral).
    error InsufficientBalance(address account, uint256 tokenId, uint256 balance, uint256 needed);
    /// @notice `account` has not let the exchange move `needed` of `tokenId`
    /// (0 = collateral allowance; otherwise the ERC1155 operator approval).
    error InsufficientAllowance(address account, uint256 tokenId, uint256 allowance, uint256 needed);

    /// @notice Settles a taker order against one or more maker orders.
    /// The sums must balance exactly: what the makers give is what the taker
    /// receives and vice versa (the taker fills at the makers' prices).
    function matchOrders(Fill calldata takerFill, Fill[] calldata makerFills) external {
        if (msg.sender != operator) revert NotOperator();
        if (makerFills.length == 0) revert InvalidMatch("no maker orders");
        if (takerFill.side > SELL) revert InvalidMatch("bad side");
        if (takerFill.tokenId == 0) revert InvalidMatch("token id is zero");
        if (takerFill.makerAmount == 0 || takerFill.takerAmount == 0) revert InvalidMatch("zero amount");

        uint256 makersGive;
        uint256 makersGet;
        for (uint256 i = 0; i < makerFills.length; i++) {
            Fill calldata m = makerFills[i];
            if (m.side == takerFill.side || m.side > SELL) revert InvalidMatch("maker side must oppose taker side");
            if (m.tokenId != takerFill.tokenId) revert InvalidMatch("token id mismatch");
            if (m.maker == takerFill.maker) revert InvalidMatch("self trade");
            makersGive += m.makerAmount;
            makersGet += m.takerAmount;
        }
        if (makersGive != takerFill.takerAmount || makersGet != takerFill.makerAmount) {
            revert InvalidMatch("amounts do not balance");
        }

        // Pull the taker's side into the exchange.
        _pull(takerFill.maker, _giveAsset(takerFill), takerFill.makerAmount);
        // Each maker gives its side and is paid from what the taker brought.
        for (uint256 i = 0; i < makerFills.length; i++) {
            Fill calldata m = makerFills[i];
            _pull(m.maker, _giveAsset(m), m.makerAmount);
            _pay(m.maker, _getAsset(m), m.takerAmount, m.fee);
            emit OrderFilled(
                m.orderHash,
                m.maker,
                takerFill.maker,
                m.side,
                m.tokenId,
                m.makerAmount,
                m.takerAmount,
                m.fee,
                m.builder,
                m.metadata
            );
        }
        _pay(takerFill.maker, _getAsset(takerFill), takerFill.takerAmount, takerFill.fee);
        emit OrderFilled(
            takerFill.orderHash,
            takerFill.maker,
            address(this),
            takerFill.side,
            takerFill.tokenId,
            takerFill.makerAmount,
            takerFill.takerAmount,
            takerFill.fee,
            takerFill.builder,
            takerFill.metadata
        );
        emit OrdersMatched(
            takerFill.orderHash,
            takerFill.maker,
            takerFill.side,
            takerFill.tokenId,
            takerFill.makerAmount,
            takerFill.takerAmount
        );
    }

    /// @dev Asset id the order gives: 0 = collateral for a BUY, the token for a SELL.
    function _giveAsset(Fill calldata f) private pure returns (uint256) {
        return f.side == BUY ? 0 : f.tokenId;
    }

    /// @dev Asset id the order receives.
    function _getAsset(Fill calldata f) private pure returns (uint256) {
        return f.side == BUY ? f.tokenId : 0;
    }

    function _pull(address from, uint256 asset, uint256 amount) private {
        if (asset == 0) {
            uint256 bal = collateral.balanceOf(from);
            if (bal < amount) revert InsufficientBalance(from, 0, bal, amount);
            uint256 allowed = collateral.allowance(from, address(this));
            if (allowed < amount) revert InsufficientAllowance(from, 0, allowed, amount);
            require(collateral.transferFrom(from, address(this), amount), "collateral transfer failed");
        } else {
            uint256 bal = ctf.balanceOf(from, asset);
            if (bal < amount) revert InsufficientBalance(from, asset, bal, amount);
            if (!ctf.isApprovedForAll(from, address(this))) revert InsufficientAllowance(from, asset, 0, amount);
            ctf.safeTransferFrom(from, address(this), asset, amount, "");
        }
    }

    function _pay(address to, uint256 asset, uint256 amount, uint256 fee) private {
        if (fee > amount) revert InvalidMatch("fee exceeds proceeds");
        _send(to, asset, amount - fee);
        _send(operator, asset, fee);
    }

    function _send(address to, uint256 asset, uint256 amount) private {
        if (amount == 0) return;
        if (asset == 0) {
            require(collateral.transfer(to, amount), "collateral transfer failed");
        } else {
            ctf.safeTransferFrom(address(this), to, asset, amount, "");
        }
    }
}
