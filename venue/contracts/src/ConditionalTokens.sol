// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "./IERC20.sol";

interface IERC1155TokenReceiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data)
        external
        returns (bytes4);
    function onERC1155BatchReceived(
        address operator,
        address from,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external returns (bytes4);
}

/// @title ConditionalTokens — the sandbox's Gnosis Conditional Tokens (ERC1155).
/// @notice Same external interface, events and position-id formula as the
/// Gnosis CTF Polymarket uses, so the venue client's calls and event decoding
/// are identical on Polygon and in the sandbox.
/// @dev One deliberate simplification: `getCollectionId` uses the original
/// (pre-elliptic-curve) Gnosis construction
///     collectionId = parentCollectionId + keccak256(conditionId ‖ indexSet)  (mod 2^256)
/// instead of the alt_bn128 point addition of the deployed CTF. Both are
/// deterministic functions of the same inputs; only the resulting numbers
/// differ, and sandbox token ids are always taken from the sandbox itself.
/// The contract has no configuration, so it needs no genesis storage.
contract ConditionalTokens {
    // ERC1155 state.
    mapping(uint256 => mapping(address => uint256)) private _balances;
    mapping(address => mapping(address => bool)) private _operatorApprovals;

    /// @notice Payout vector per condition; its length is the outcome slot count.
    mapping(bytes32 => uint256[]) public payoutNumerators;
    /// @notice Sum of the payout vector; non-zero once the condition is resolved.
    mapping(bytes32 => uint256) public payoutDenominator;

    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    event ConditionPreparation(
        bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount
    );
    event ConditionResolution(
        bytes32 indexed conditionId,
        address indexed oracle,
        bytes32 indexed questionId,
        uint256 outcomeSlotCount,
        uint256[] payoutNumerators
    );
    event PositionSplit(
        address indexed stakeholder,
        address collateralToken,
        bytes32 indexed parentCollectionId,
        bytes32 indexed conditionId,
        uint256[] partition,
        uint256 amount
    );
    event PositionsMerge(
        address indexed stakeholder,
        address collateralToken,
        bytes32 indexed parentCollectionId,
        bytes32 indexed conditionId,
        uint256[] partition,
        uint256 amount
    );
    event PayoutRedemption(
        address indexed redeemer,
        address indexed collateralToken,
        bytes32 indexed parentCollectionId,
        bytes32 conditionId,
        uint256[] indexSets,
        uint256 payout
    );

    // ---------------------------------------------------------------- conditions

    /// @notice Registers a condition with `outcomeSlotCount` outcomes that
    /// `oracle` will resolve.
    function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount) external {
        require(outcomeSlotCount <= 256, "too many outcome slots");
        require(outcomeSlotCount > 1, "there should be more than one outcome slot");
        bytes32 conditionId = getConditionId(oracle, questionId, outcomeSlotCount);
        require(payoutNumerators[conditionId].length == 0, "condition already prepared");
        payoutNumerators[conditionId] = new uint256[](outcomeSlotCount);
        emit ConditionPreparation(conditionId, oracle, questionId, outcomeSlotCount);
    }

    /// @notice Resolves the caller's condition for `questionId`; the caller is the oracle.
    function reportPayouts(bytes32 questionId, uint256[] calldata payouts) external {
        uint256 outcomeSlotCount = payouts.length;
        require(outcomeSlotCount > 1, "there should be more than one outcome slot");
        bytes32 conditionId = getConditionId(msg.sender, questionId, outcomeSlotCount);
        require(payoutNumerators[conditionId].length == outcomeSlotCount, "condition not prepared or found");
        require(payoutDenominator[conditionId] == 0, "payout denominator already set");
        uint256 den = 0;
        for (uint256 i = 0; i < outcomeSlotCount; i++) {
            den += payouts[i];
            payoutNumerators[conditionId][i] = payouts[i];
        }
        require(den > 0, "payout is all zeroes");
        payoutDenominator[conditionId] = den;
        emit ConditionResolution(conditionId, msg.sender, questionId, outcomeSlotCount, payouts);
    }

    /// @notice Outcome slot count of a prepared condition (0 when unknown).
    function getOutcomeSlotCount(bytes32 conditionId) external view returns (uint256) {
        return payoutNumerators[conditionId].length;
    }

    // ---------------------------------------------------------------- positions

    /// @notice Splits collateral (or a parent/union position) into the
    /// positions of `partition`.
    function splitPosition(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external {
        (uint256[] memory positionIds, uint256 freeIndexSet, uint256 fullIndexSet) =
            _partitionPositions(collateralToken, parentCollectionId, conditionId, partition);
        if (freeIndexSet == 0) {
            if (parentCollectionId == bytes32(0)) {
                require(
                    IERC20(collateralToken).transferFrom(msg.sender, address(this), amount),
                    "could not receive collateral tokens"
                );
            } else {
                _burn(msg.sender, getPositionId(collateralToken, parentCollectionId), amount);
            }
        } else {
            _burn(
                msg.sender,
                getPositionId(
                    collateralToken, getCollectionId(parentCollectionId, conditionId, fullIndexSet ^ freeIndexSet)
                ),
                amount
            );
        }
        _mintBatch(msg.sender, positionIds, _fill(partition.length, amount));
        emit PositionSplit(msg.sender, collateralToken, parentCollectionId, conditionId, partition, amount);
    }

    /// @notice Inverse of splitPosition: burns the partition's positions and
    /// returns collateral (or the parent/union position).
    function mergePositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external {
        (uint256[] memory positionIds, uint256 freeIndexSet, uint256 fullIndexSet) =
            _partitionPositions(collateralToken, parentCollectionId, conditionId, partition);
        _burnBatch(msg.sender, positionIds, _fill(partition.length, amount));
        if (freeIndexSet == 0) {
            if (parentCollectionId == bytes32(0)) {
                require(IERC20(collateralToken).transfer(msg.sender, amount), "could not send collateral tokens");
            } else {
                _mint(msg.sender, getPositionId(collateralToken, parentCollectionId), amount);
            }
        } else {
            _mint(
                msg.sender,
                getPositionId(
                    collateralToken, getCollectionId(parentCollectionId, conditionId, fullIndexSet ^ freeIndexSet)
                ),
                amount
            );
        }
        emit PositionsMerge(msg.sender, collateralToken, parentCollectionId, conditionId, partition, amount);
    }

    /// @notice Burns all of the caller's positions in `indexSets` of a
    /// resolved condition and pays their share of the payout. Zero balances
    /// are skipped, not rejected (as in the Gnosis CTF).
    function redeemPositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata indexSets
    ) external {
        uint256 den = payoutDenominator[conditionId];
        require(den > 0, "result for condition not received yet");
        uint256 outcomeSlotCount = payoutNumerators[conditionId].length;
        require(outcomeSlotCount > 0, "condition not prepared yet");
        uint256 fullIndexSet = (1 << outcomeSlotCount) - 1;
        uint256 totalPayout = 0;
        for (uint256 i = 0; i < indexSets.length; i++) {
            uint256 indexSet = indexSets[i];
            require(indexSet > 0 && indexSet < fullIndexSet, "got invalid index set");
            uint256 positionId =
                getPositionId(collateralToken, getCollectionId(parentCollectionId, conditionId, indexSet));
            uint256 payoutNumerator = 0;
            for (uint256 j = 0; j < outcomeSlotCount; j++) {
                if (indexSet & (1 << j) != 0) {
                    payoutNumerator += payoutNumerators[conditionId][j];
                }
            }
            uint256 stake = _balances[positionId][msg.sender];
            if (stake > 0) {
                totalPayout += (stake * payoutNumerator) / den;
                _burn(msg.sender, positionId, stake);
            }
        }
        if (totalPayout > 0) {
            if (parentCollectionId == bytes32(0)) {
                require(IERC20(collateralToken).transfer(msg.sender, totalPayout), "could not transfer payout to message sender");
            } else {
                _mint(msg.sender, getPositionId(collateralToken, parentCollectionId), totalPayout);
            }
        }
        emit PayoutRedemption(msg.sender, collateralToken, parentCollectionId, conditionId, indexSets, totalPayout);
    }

    // ---------------------------------------------------------------- ids

    function getConditionId(address oracle, bytes32 questionId, uint256 outcomeSlotCount)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encodePacked(oracle, questionId, outcomeSlotCount));
    }

    /// @dev Simple keccak construction; see the contract comment.
    function getCollectionId(bytes32 parentCollectionId, bytes32 conditionId, uint256 indexSet)
        public
        pure
        returns (bytes32)
    {
        unchecked {
            return bytes32(uint256(parentCollectionId) + uint256(keccak256(abi.encodePacked(conditionId, indexSet))));
        }
    }

    function getPositionId(address collateralToken, bytes32 collectionId) public pure returns (uint256) {
        return uint256(keccak256(abi.encodePacked(collateralToken, collectionId)));
    }

    // ---------------------------------------------------------------- ERC1155

    function balanceOf(address owner, uint256 id) public view returns (uint256) {
        return _balances[id][owner];
    }

    function balanceOfBatch(address[] calldata owners, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory balances)
    {
        require(owners.length == ids.length, "owners and IDs must have same lengths");
        balances = new uint256[](owners.length);
        for (uint256 i = 0; i < owners.length; i++) {
            balances[i] = _balances[ids[i]][owners[i]];
        }
    }

    function setApprovalForAll(address operator, bool approved) external {
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) public view returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        require(to != address(0), "ERC1155: target address must be non-zero");
        require(from == msg.sender || isApprovedForAll(from, msg.sender), "ERC1155: need operator approval");
        _move(from, to, id, value);
        emit TransferSingle(msg.sender, from, to, id, value);
        _checkSingle(msg.sender, from, to, id, value, data);
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external {
        require(ids.length == values.length, "ERC1155: IDs and values must have same lengths");
        require(to != address(0), "ERC1155: target address must be non-zero");
        require(from == msg.sender || isApprovedForAll(from, msg.sender), "ERC1155: need operator approval");
        for (uint256 i = 0; i < ids.length; i++) {
            _move(from, to, ids[i], values[i]);
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
        _checkBatch(msg.sender, from, to, ids, values, data);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        // ERC-165, ERC-1155.
        return interfaceId == 0x01ffc9a7 || interfaceId == 0xd9b67a26;
    }

    function _move(address from, address to, uint256 id, uint256 value) private {
        uint256 bal = _balances[id][from];
        require(bal >= value, "ERC1155: insufficient balance for transfer");
        unchecked {
            _balances[id][from] = bal - value;
        }
        _balances[id][to] += value;
    }

    function _mint(address to, uint256 id, uint256 value) private {
        _balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
        _checkSingle(msg.sender, address(0), to, id, value, "");
    }

    function _mintBatch(address to, uint256[] memory ids, uint256[] memory values) private {
        for (uint256 i = 0; i < ids.length; i++) {
            _balances[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, values);
        _checkBatch(msg.sender, address(0), to, ids, values, "");
    }

    function _burn(address from, uint256 id, uint256 value) private {
        uint256 bal = _balances[id][from];
        require(bal >= value, "ERC1155: insufficient balance for burn");
        unchecked {
            _balances[id][from] = bal - value;
        }
        emit TransferSingle(msg.sender, from, address(0), id, value);
    }

    function _burnBatch(address from, uint256[] memory ids, uint256[] memory values) private {
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 bal = _balances[ids[i]][from];
            require(bal >= values[i], "ERC1155: insufficient balance for burn");
            unchecked {
                _balances[ids[i]][from] = bal - values[i];
            }
        }
        emit TransferBatch(msg.sender, from, address(0), ids, values);
    }

    function _checkSingle(address operator, address from, address to, uint256 id, uint256 value, bytes memory data)
        private
    {
        if (to.code.length > 0) {
            require(
                IERC1155TokenReceiver(to).onERC1155Received(operator, from, id, value, data)
                    == IERC1155TokenReceiver.onERC1155Received.selector,
                "ERC1155: got unknown value from onERC1155Received"
            );
        }
    }

    function _checkBatch(
        address operator,
        address from,
        address to,
        uint256[] memory ids,
        uint256[] memory values,
        bytes memory data
    ) private {
        if (to.code.length > 0) {
            require(
                IERC1155TokenReceiver(to).onERC1155BatchReceived(operator, from, ids, values, data)
                    == IERC1155TokenReceiver.onERC1155BatchReceived.selector,
                "ERC1155: got unknown value from onERC1155BatchReceived"
            );
        }
    }

    function _partitionPositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition
    ) private view returns (uint256[] memory positionIds, uint256 freeIndexSet, uint256 fullIndexSet) {
        require(partition.length > 1, "got empty or singleton partition");
        uint256 outcomeSlotCount = payoutNumerators[conditionId].length;
        require(outcomeSlotCount > 0, "condition not prepared yet");
        fullIndexSet = (1 << outcomeSlotCount) - 1;
        freeIndexSet = fullIndexSet;
        positionIds = new uint256[](partition.length);
        for (uint256 i = 0; i < partition.length; i++) {
            uint256 indexSet = partition[i];
            require(indexSet > 0 && indexSet < fullIndexSet, "got invalid index set");
            require((indexSet & freeIndexSet) == indexSet, "partition not disjoint");
            freeIndexSet ^= indexSet;
            positionIds[i] = getPositionId(collateralToken, getCollectionId(parentCollectionId, conditionId, indexSet));
        }
    }

    function _fill(uint256 n, uint256 value) private pure returns (uint256[] memory out) {
        out = new uint256[](n);
        for (uint256 i = 0; i < n; i++) {
            out[i] = value;
        }
    }
}
