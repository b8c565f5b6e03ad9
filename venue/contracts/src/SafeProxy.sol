// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title SafeProxy — the per-user proxy of the sandbox's 1-of-1 Safe.
/// @notice Delegates every call to the Safe singleton whose address is its
/// constructor argument, like Gnosis Safe's proxy. Its creation code plus the
/// ABI-encoded singleton address is the Safe init code; its keccak256 is
/// network.SandboxSafeInitCodeHash.
/// @dev Do not change this contract casually: any byte changed here changes
/// every sandbox Safe address and the init-code hash pinned in the network
/// package (a test catches the mismatch).
contract SafeProxy {
    address internal singleton; // slot 0, shared with Safe's layout

    constructor(address _singleton) {
        require(_singleton != address(0), "invalid singleton address");
        singleton = _singleton;
    }

    fallback() external payable {
        assembly {
            let target := sload(0)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), target, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
