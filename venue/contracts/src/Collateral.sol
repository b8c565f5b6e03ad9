// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Collateral — the sandbox's "Polymarket USD" (pUSD), a 6-decimal ERC20.
/// @notice Only the sandbox operator can mint: the sandbox control API funds
/// wallets through it, nothing else creates money.
/// @dev The contract is placed at the pUSD address through the genesis
/// allocation (runtime code only, no constructor run), so `operator` lives in
/// storage slot 0 and is written by the genesis allocation. Keep it first.
contract Collateral {
    address public operator; // slot 0 (set in genesis)
    uint256 public totalSupply; // slot 1
    mapping(address => uint256) public balanceOf; // slot 2
    mapping(address => mapping(address => uint256)) public allowance; // slot 3

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error NotOperator();
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address owner, address spender, uint256 allowance, uint256 needed);
    error ZeroAddress();

    function name() external pure returns (string memory) {
        return "Polymarket USD";
    }

    function symbol() external pure returns (string memory) {
        return "pUSD";
    }

    function decimals() external pure returns (uint8) {
        return 6;
    }

    /// @notice Creates `amount` base units for `to`. Operator only.
    function mint(address to, uint256 amount) external {
        if (msg.sender != operator) revert NotOperator();
        if (to == address(0)) revert ZeroAddress();
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    /// @dev An allowance of type(uint256).max is treated as infinite (not
    /// decremented), like OpenZeppelin's ERC20, which the venue approvals use.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance(from, msg.sender, allowed, amount);
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ZeroAddress();
        uint256 bal = balanceOf[from];
        if (bal < amount) revert InsufficientBalance(from, bal, amount);
        unchecked {
            balanceOf[from] = bal - amount;
        }
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}
