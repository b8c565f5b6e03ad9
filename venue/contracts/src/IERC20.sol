// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @dev The ERC20 subset the sandbox contracts call on the collateral.
interface IERC20 {
    function balanceOf(address account) external view returns (uint256);
    function allowance(address owner, address spender) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}
