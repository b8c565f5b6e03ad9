// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "./IERC20.sol";
import {ERC1155Receiver} from "./ERC1155Receiver.sol";

interface ICTF {
    function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount) external;
    function reportPayouts(bytes32 questionId, uint256[] calldata payouts) external;
    function splitPosition(address, bytes32, bytes32, uint256[] calldata, uint256) external;
    function mergePositions(address, bytes32, bytes32, uint256[] calldata, uint256) external;
    function redeemPositions(address, bytes32, bytes32, uint256[] calldata) external;
    function getConditionId(address, bytes32, uint256) external pure returns (bytes32);
    function getCollectionId(bytes32, bytes32, uint256) external pure returns (bytes32);
    function getPositionId(address, bytes32) external pure returns (uint256);
    function safeBatchTransferFrom(address, address, uint256[] calldata, uint256[] calldata, bytes calldata) external;
    function setApprovalForAll(address operator, bool approved) external;
}

interface ICTFView {
    function balanceOfBatch(address[] calldata owners, uint256[] calldata ids) external view returns (uint256[] memory);
}

/// @title NegRiskAdapter — the sandbox's neg-risk adapter.
/// @notice Exposes the adapter entry points the venue client uses on Polygon:
/// `redeemPositions(bytes32 conditionId, uint256[] amounts)`, and
/// `splitPosition`/`mergePositions(bytes32 conditionId, uint256 amount)`.
/// The adapter is the oracle of neg-risk conditions: the operator prepares
/// and resolves them through it. Unlike Polygon there is no wrapped
/// collateral: sandbox positions are keyed to the collateral token itself,
/// so a neg-risk market's token ids are getPositionId(pUSD, collection).
/// @dev Configuration lives in storage slots 0-2, written by the genesis
/// allocation. The adapter never keeps outcome tokens between transactions,
/// so redeeming all of its balance redeems exactly what it just pulled.
contract NegRiskAdapter is ERC1155Receiver {
    address public operator; // slot 0
    ICTF public ctf; // slot 1
    IERC20 public col; // slot 2

    event ConditionPrepared(bytes32 indexed conditionId, bytes32 indexed questionId);
    event OutcomeReported(bytes32 indexed conditionId, bytes32 indexed questionId, bool outcome);
    event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount);
    event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount);
    event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout);

    error NotOperator();

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator();
        _;
    }

    /// @notice Prepares the binary CTF condition of a neg-risk question with
    /// this adapter as oracle. Operator only.
    function prepareCondition(bytes32 questionId) external onlyOperator returns (bytes32 conditionId) {
        ctf.prepareCondition(address(this), questionId, 2);
        conditionId = getConditionId(questionId);
        emit ConditionPrepared(conditionId, questionId);
    }

    /// @notice Resolves a neg-risk question: `outcome` true pays the first
    /// (YES) position, false the second (NO). Operator only.
    function reportOutcome(bytes32 questionId, bool outcome) external onlyOperator {
        uint256[] memory payouts = new uint256[](2);
        payouts[outcome ? 0 : 1] = 1;
        ctf.reportPayouts(questionId, payouts);
        emit OutcomeReported(getConditionId(questionId), questionId, outcome);
    }

    /// @notice The CTF condition id of a neg-risk question.
    function getConditionId(bytes32 questionId) public view returns (bytes32) {
        return ctf.getConditionId(address(this), questionId, 2);
    }

    /// @notice The token id of a condition's outcome (true = YES, index set 1).
    function getPositionId(bytes32 conditionId, bool outcome) public view returns (uint256) {
        return ctf.getPositionId(address(col), ctf.getCollectionId(bytes32(0), conditionId, outcome ? 1 : 2));
    }

    /// @notice Splits `amount` collateral of the caller into YES and NO.
    function splitPosition(bytes32 conditionId, uint256 amount) external {
        require(col.transferFrom(msg.sender, address(this), amount), "collateral transfer failed");
        _approveCTF(amount);
        ctf.splitPosition(address(col), bytes32(0), conditionId, _partition(), amount);
        ctf.safeBatchTransferFrom(address(this), msg.sender, _ids(conditionId), _pair(amount, amount), "");
        emit PositionSplit(msg.sender, conditionId, amount);
    }

    /// @notice Merges `amount` YES and NO of the caller back into collateral.
    function mergePositions(bytes32 conditionId, uint256 amount) external {
        ctf.safeBatchTransferFrom(msg.sender, address(this), _ids(conditionId), _pair(amount, amount), "");
        ctf.mergePositions(address(col), bytes32(0), conditionId, _partition(), amount);
        require(col.transfer(msg.sender, amount), "collateral transfer failed");
        emit PositionsMerge(msg.sender, conditionId, amount);
    }

    /// @notice Redeems `amounts` = [yes, no] of the caller's tokens of a
    /// resolved condition and pays the collateral to the caller. The caller
    /// must have approved this adapter on the CTF (setApprovalForAll).
    function redeemPositions(bytes32 conditionId, uint256[] calldata amounts) external {
        _redeem(msg.sender, conditionId, amounts);
    }

    function _redeem(address holder, bytes32 conditionId, uint256[] memory amounts) private {
        require(amounts.length == 2, "amounts must be [yes, no]");
        ctf.safeBatchTransferFrom(holder, address(this), _ids(conditionId), amounts, "");
        uint256 before = col.balanceOf(address(this));
        ctf.redeemPositions(address(col), bytes32(0), conditionId, _partition());
        uint256 payout = col.balanceOf(address(this)) - before;
        if (payout > 0) {
            require(col.transfer(holder, payout), "collateral transfer failed");
        }
        emit PayoutRedemption(holder, conditionId, amounts, payout);
    }

    /// @notice Collateral-adapter form of redeem (the signature Polygon's
    /// NegRiskCtfCollateralAdapter exposes, so one client call works on both
    /// networks): redeems all of the caller's YES and NO of a resolved
    /// condition and pays the collateral to the caller. Only
    /// collateralToken = pUSD, parentCollectionId = 0 and index sets [1, 2]
    /// (in any order) are meaningful here.
    function redeemPositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] calldata indexSets)
        external
    {
        require(collateralToken == address(col), "unsupported collateral");
        require(parentCollectionId == bytes32(0), "unsupported parent collection");
        require(
            indexSets.length == 2 && indexSets[0] | indexSets[1] == 3 && indexSets[0] != indexSets[1],
            "index sets must be [1, 2]"
        );
        uint256[] memory ids = _ids(conditionId);
        address[] memory owners = new address[](2);
        owners[0] = msg.sender;
        owners[1] = msg.sender;
        uint256[] memory amounts = ICTFView(address(ctf)).balanceOfBatch(owners, ids);
        _redeem(msg.sender, conditionId, amounts);
    }

    function _approveCTF(uint256 amount) private {
        // Exact allowance per split keeps the adapter from ever holding a
        // standing approval over collateral in transit.
        (bool ok, bytes memory ret) =
            address(col).call(abi.encodeWithSignature("approve(address,uint256)", address(ctf), amount));
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "approve failed");
    }

    function _ids(bytes32 conditionId) private view returns (uint256[] memory ids) {
        ids = new uint256[](2);
        ids[0] = getPositionId(conditionId, true);
        ids[1] = getPositionId(conditionId, false);
    }

    function _partition() private pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    function _pair(uint256 a, uint256 b) private pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = a;
        p[1] = b;
    }
}
