package chain

import (
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// The client carries its own minimal ABIs rather than depending on generated
// bindings: it needs a handful of methods, and it must speak to the live
// venue's contracts as well as to the sandbox's, which share only these
// signatures.

var (
	erc20ABI = mustABI(`[
	{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"a","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"allowance","stateMutability":"view","inputs":[{"name":"o","type":"address"},{"name":"s","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"approve","stateMutability":"nonpayable","inputs":[{"name":"s","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]}
	]`)

	ctfABI = mustABI(`[
	{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"a","type":"address"},{"name":"id","type":"uint256"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"isApprovedForAll","stateMutability":"view","inputs":[{"name":"o","type":"address"},{"name":"op","type":"address"}],"outputs":[{"name":"","type":"bool"}]},
	{"type":"function","name":"setApprovalForAll","stateMutability":"nonpayable","inputs":[{"name":"op","type":"address"},{"name":"ok","type":"bool"}],"outputs":[]},
	{"type":"function","name":"payoutDenominator","stateMutability":"view","inputs":[{"name":"c","type":"bytes32"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"redeemPositions","stateMutability":"nonpayable","inputs":[{"name":"collateralToken","type":"address"},{"name":"parentCollectionId","type":"bytes32"},{"name":"conditionId","type":"bytes32"},{"name":"indexSets","type":"uint256[]"}],"outputs":[]},
	{"type":"event","name":"PayoutRedemption","anonymous":false,"inputs":[{"name":"redeemer","type":"address","indexed":true},{"name":"collateralToken","type":"address","indexed":true},{"name":"parentCollectionId","type":"bytes32","indexed":true},{"name":"conditionId","type":"bytes32","indexed":false},{"name":"indexSets","type":"uint256[]","indexed":false},{"name":"payout","type":"uint256","indexed":false}]}
	]`)

	negRiskAdapterABI = mustABI(`[
	{"type":"function","name":"redeemPositions","stateMutability":"nonpayable","inputs":[{"name":"conditionId","type":"bytes32"},{"name":"amounts","type":"uint256[]"}],"outputs":[]}
	]`)

	proxyFactoryABI = mustABI(`[
	{"type":"function","name":"proxy","stateMutability":"payable","inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"typeCode","type":"uint8"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}],"outputs":[{"name":"returnValues","type":"bytes[]"}]}
	]`)

	safeABI = mustABI(`[
	{"type":"function","name":"nonce","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"execTransaction","stateMutability":"payable","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"},{"name":"operation","type":"uint8"},{"name":"safeTxGas","type":"uint256"},{"name":"baseGas","type":"uint256"},{"name":"gasPrice","type":"uint256"},{"name":"gasToken","type":"address"},{"name":"refundReceiver","type":"address"},{"name":"signatures","type":"bytes"}],"outputs":[{"name":"success","type":"bool"}]}
	]`)

	depositWalletABI = mustABI(`[
	{"type":"function","name":"owner","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]},
	{"type":"function","name":"execute","stateMutability":"payable","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}],"outputs":[{"name":"","type":"bytes"}]}
	]`)

	depositFactoryABI = mustABI(`[
	{"type":"function","name":"walletOf","stateMutability":"view","inputs":[{"name":"owner","type":"address"}],"outputs":[{"name":"","type":"address"}]}
	]`)

	exchangeABI = mustABI(`[
	{"type":"event","name":"OrderFilled","anonymous":false,"inputs":[{"name":"orderHash","type":"bytes32","indexed":true},{"name":"maker","type":"address","indexed":true},{"name":"taker","type":"address","indexed":true},{"name":"side","type":"uint8","indexed":false},{"name":"tokenId","type":"uint256","indexed":false},{"name":"makerAmountFilled","type":"uint256","indexed":false},{"name":"takerAmountFilled","type":"uint256","indexed":false},{"name":"fee","type":"uint256","indexed":false},{"name":"builder","type":"bytes32","indexed":false},{"name":"metadata","type":"bytes32","indexed":false}]}
	]`)
)

func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic("chain: bad built-in ABI: " + err.Error())
	}
	return a
}
