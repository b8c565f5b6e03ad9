// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = errors.New
	_ = big.NewInt
	_ = strings.NewReader
	_ = ethereum.NotFound
	_ = bind.Bind
	_ = common.Big1
	_ = types.BloomLookup
	_ = event.NewSubscription
	_ = abi.ConvertType
	_ = time.Tick
	_ = context.Background
)

// NegRiskAdapterMetaData contains all meta data concerning the NegRiskAdapter contract.
var NegRiskAdapterMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"NotOperator\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"questionId\",\"type\":\"bytes32\"}],\"name\":\"ConditionPrepared\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"questionId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"outcome\",\"type\":\"bool\"}],\"name\":\"OutcomeReported\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"redeemer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"payout\",\"type\":\"uint256\"}],\"name\":\"PayoutRedemption\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"stakeholder\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PositionSplit\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"stakeholder\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PositionsMerge\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"col\",\"outputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"ctf\",\"outputs\":[{\"internalType\":\"contractICTF\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"questionId\",\"type\":\"bytes32\"}],\"name\":\"getConditionId\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"internalType\":\"bool\",\"name\":\"outcome\",\"type\":\"bool\"}],\"name\":\"getPositionId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mergePositions\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155BatchReceived\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155Received\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"operator\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"questionId\",\"type\":\"bytes32\"}],\"name\":\"prepareCondition\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"collateralToken\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"parentCollectionId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"indexSets\",\"type\":\"uint256[]\"}],\"name\":\"redeemPositions\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"}],\"name\":\"redeemPositions\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"questionId\",\"type\":\"bytes32\"},{\"internalType\":\"bool\",\"name\":\"outcome\",\"type\":\"bool\"}],\"name\":\"reportOutcome\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"conditionId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"splitPosition\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506117c38061001c5f395ff3fe608060405234801561000f575f5ffd5b50600436106100e5575f3560e01c8063a78695b011610088578063dbeccb2311610063578063dbeccb231461020b578063e200affd1461021e578063f23a6e6114610231578063f9bc8d3214610251575f5ffd5b8063a78695b0146101aa578063b10c5c17146101bd578063bc197c81146101d0575f5ffd5b806322a9339f116100c357806322a9339f14610147578063570ca73514610172578063752b5ba514610184578063a3d7da1d14610197575f5ffd5b806301b7037c146100e957806301ffc9a7146100fe57806304329c0314610126575b5f5ffd5b6100fc6100f73660046111d3565b610264565b005b61011161010c366004611236565b6104ea565b60405190151581526020015b60405180910390f35b61013961013436600461125d565b610520565b60405190815260200161011d565b60015461015a906001600160a01b031681565b6040516001600160a01b03909116815260200161011d565b5f5461015a906001600160a01b031681565b610139610192366004611284565b610598565b6100fc6101a53660046112b2565b6106aa565b60025461015a906001600160a01b031681565b6100fc6101cb3660046112b2565b610868565b6101f26101de366004611310565b63bc197c8160e01b98975050505050505050565b6040516001600160e01b0319909116815260200161011d565b6100fc6102193660046113cf565b610a0d565b6100fc61022c366004611284565b610a4f565b6101f261023f366004611417565b63f23a6e6160e01b9695505050505050565b61013961025f36600461125d565b610b6b565b6002546001600160a01b038681169116146102bf5760405162461bcd60e51b81526020600482015260166024820152751d5b9cdd5c1c1bdc9d19590818dbdb1b185d195c985b60521b60448201526064015b60405180910390fd5b831561030d5760405162461bcd60e51b815260206004820152601d60248201527f756e737570706f7274656420706172656e7420636f6c6c656374696f6e00000060448201526064016102b6565b60028114801561035057508181600181811061032b5761032b61148a565b9050602002013582825f8181106103445761034461148a565b90506020020135176003145b801561038d57508181600181811061036a5761036a61148a565b9050602002013582825f8181106103835761038361148a565b9050602002013514155b6103d95760405162461bcd60e51b815260206004820152601960248201527f696e6465782073657473206d757374206265205b312c20325d0000000000000060448201526064016102b6565b5f6103e384610c3a565b6040805160028082526060820183529293505f92909160208301908036833701905050905033815f8151811061041b5761041b61148a565b60200260200101906001600160a01b031690816001600160a01b031681525050338160018151811061044f5761044f61148a565b6001600160a01b0392831660209182029290920101526001546040516313849cfd60e21b81525f929190911690634e1273f49061049290859087906004016114ec565b5f60405180830381865afa1580156104ac573d5f5f3e3d5ffd5b505050506040513d5f823e601f3d908101601f191682016040526104d3919081019061154c565b90506104e0338783610cb1565b5050505050505050565b5f630271189760e51b6001600160e01b03198316148061051a57506301ffc9a760e01b6001600160e01b03198316145b92915050565b600154604051634296357160e11b815230600482015260248101839052600260448201525f916001600160a01b03169063852c6ae290606401602060405180830381865afa158015610574573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061051a9190611614565b6001546002545f916001600160a01b03908116916339dd753091168263856296f78588886105c75760026105ca565b60015b6040516001600160e01b031960e086901b1681526004810193909352602483019190915260ff166044820152606401602060405180830381865afa158015610614573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906106389190611614565b6040516001600160e01b031960e085901b1681526001600160a01b0390921660048301526024820152604401602060405180830381865afa15801561067f573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906106a39190611614565b9392505050565b6002546040516323b872dd60e01b8152336004820152306024820152604481018390526001600160a01b03909116906323b872dd906064016020604051808303815f875af11580156106fe573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610722919061162b565b61073e5760405162461bcd60e51b81526004016102b690611646565b61074781610fa4565b6001546002546001600160a01b03918216916372ce427591165f8561076a6110a7565b866040518663ffffffff1660e01b815260040161078b95949392919061167d565b5f604051808303815f87803b1580156107a2575f5ffd5b505af11580156107b4573d5f5f3e3d5ffd5b50506001546001600160a01b03169150632eb2c2d6905030336107d686610c3a565b6107e0868761110b565b6040518563ffffffff1660e01b81526004016107ff94939291906116bb565b5f604051808303815f87803b158015610816575f5ffd5b505af1158015610828573d5f5f3e3d5ffd5b50506040518381528492503391507fbbed930dbfb7907ae2d60ddf78345610214f26419a0128df39b6cc3d9e5df9b0906020015b60405180910390a35050565b6001546001600160a01b0316632eb2c2d6333061088486610c3a565b61088e868761110b565b6040518563ffffffff1660e01b81526004016108ad94939291906116bb565b5f604051808303815f87803b1580156108c4575f5ffd5b505af11580156108d6573d5f5f3e3d5ffd5b50506001546002546001600160a01b039182169350639e7212ad9250165f856108fd6110a7565b866040518663ffffffff1660e01b815260040161091e95949392919061167d565b5f604051808303815f87803b158015610935575f5ffd5b505af1158015610947573d5f5f3e3d5ffd5b505060025460405163a9059cbb60e01b8152336004820152602481018590526001600160a01b03909116925063a9059cbb91506044016020604051808303815f875af1158015610999573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906109bd919061162b565b6109d95760405162461bcd60e51b81526004016102b690611646565b604051818152829033907fba33ac50d8894676597e6e35dc09cff59854708b642cd069d21eb9c7ca072a049060200161085c565b610a4a33848484808060200260200160405190810160405280939291908181526020018383602002808284375f92019190915250610cb192505050565b505050565b5f546001600160a01b03163314610a7957604051631f0853c160e21b815260040160405180910390fd5b6040805160028082526060820183525f9260208301908036833701905050905060018183610aa8576001610aaa565b5f5b60ff1681518110610abd57610abd61148a565b6020908102919091010152600154604051633124a62b60e21b81526001600160a01b039091169063c49298ac90610afa9086908590600401611714565b5f604051808303815f87803b158015610b11575f5ffd5b505af1158015610b23573d5f5f3e3d5ffd5b5050505082610b3184610520565b60405184151581527f9e9fa7fd355160bd4cd3f22d4333519354beff1f5689bde87f2c5e63d8d484b29060200160405180910390a3505050565b5f80546001600160a01b03163314610b9657604051631f0853c160e21b815260040160405180910390fd5b60015460405163365bb9d560e21b815230600482015260248101849052600260448201526001600160a01b039091169063d96ee754906064015f604051808303815f87803b158015610be6575f5ffd5b505af1158015610bf8573d5f5f3e3d5ffd5b50505050610c0582610520565b905081817fc61b37207e3005c0ffa70d49e80c6a2e55f008af2388d2f30443e7ac5d3e280d60405160405180910390a3919050565b6040805160028082526060808301845292602083019080368337019050509050610c65826001610598565b815f81518110610c7757610c7761148a565b602002602001018181525050610c8d825f610598565b81600181518110610ca057610ca061148a565b602002602001018181525050919050565b8051600214610d025760405162461bcd60e51b815260206004820152601960248201527f616d6f756e7473206d757374206265205b7965732c206e6f5d0000000000000060448201526064016102b6565b6001546001600160a01b0316632eb2c2d68430610d1e86610c3a565b856040518563ffffffff1660e01b8152600401610d3e94939291906116bb565b5f604051808303815f87803b158015610d55575f5ffd5b505af1158015610d67573d5f5f3e3d5ffd5b50506002546040516370a0823160e01b81523060048201525f93506001600160a01b0390911691506370a0823190602401602060405180830381865afa158015610db3573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610dd79190611614565b6001546002549192506001600160a01b03908116916301b7037c91165f86610dfd6110a7565b6040518563ffffffff1660e01b8152600401610e1c9493929190611734565b5f604051808303815f87803b158015610e33575f5ffd5b505af1158015610e45573d5f5f3e3d5ffd5b50506002546040516370a0823160e01b81523060048201525f93508492506001600160a01b03909116906370a0823190602401602060405180830381865afa158015610e93573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610eb79190611614565b610ec19190611760565b90508015610f595760025460405163a9059cbb60e01b81526001600160a01b038781166004830152602482018490529091169063a9059cbb906044016020604051808303815f875af1158015610f19573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610f3d919061162b565b610f595760405162461bcd60e51b81526004016102b690611646565b83856001600160a01b03167f9140a6a270ef945260c03894b3c6b3b2695e9d5101feef0ff24fec960cfd32248584604051610f9592919061177f565b60405180910390a35050505050565b6002546001546040516001600160a01b039182166024820152604481018490525f928392169060640160408051601f198184030181529181526020820180516001600160e01b031663095ea7b360e01b1790525161100291906117a0565b5f604051808303815f865af19150503d805f811461103b576040519150601f19603f3d011682016040523d82523d5f602084013e611040565b606091505b509150915081801561106a57508051158061106a57508080602001905181019061106a919061162b565b610a4a5760405162461bcd60e51b815260206004820152600e60248201526d185c1c1c9bdd994819985a5b195960921b60448201526064016102b6565b60408051600280825260608083018452926020830190803683370190505090506001815f815181106110db576110db61148a565b6020026020010181815250506002816001815181106110fc576110fc61148a565b60200260200101818152505090565b604080516002808252606080830184529260208301908036833701905050905082815f8151811061113e5761113e61148a565b602002602001018181525050818160018151811061115e5761115e61148a565b60200260200101818152505092915050565b80356001600160a01b0381168114611186575f5ffd5b919050565b5f5f83601f84011261119b575f5ffd5b50813567ffffffffffffffff8111156111b2575f5ffd5b6020830191508360208260051b85010111156111cc575f5ffd5b9250929050565b5f5f5f5f5f608086880312156111e7575f5ffd5b6111f086611170565b94506020860135935060408601359250606086013567ffffffffffffffff811115611219575f5ffd5b6112258882890161118b565b969995985093965092949392505050565b5f60208284031215611246575f5ffd5b81356001600160e01b0319811681146106a3575f5ffd5b5f6020828403121561126d575f5ffd5b5035919050565b8015158114611281575f5ffd5b50565b5f5f60408385031215611295575f5ffd5b8235915060208301356112a781611274565b809150509250929050565b5f5f604083850312156112c3575f5ffd5b50508035926020909101359150565b5f5f83601f8401126112e2575f5ffd5b50813567ffffffffffffffff8111156112f9575f5ffd5b6020830191508360208285010111156111cc575f5ffd5b5f5f5f5f5f5f5f5f60a0898b031215611327575f5ffd5b61133089611170565b975061133e60208a01611170565b9650604089013567ffffffffffffffff811115611359575f5ffd5b6113658b828c0161118b565b909750955050606089013567ffffffffffffffff811115611384575f5ffd5b6113908b828c0161118b565b909550935050608089013567ffffffffffffffff8111156113af575f5ffd5b6113bb8b828c016112d2565b999c989b5096995094979396929594505050565b5f5f5f604084860312156113e1575f5ffd5b83359250602084013567ffffffffffffffff8111156113fe575f5ffd5b61140a8682870161118b565b9497909650939450505050565b5f5f5f5f5f5f60a0878903121561142c575f5ffd5b61143587611170565b955061144360208801611170565b94506040870135935060608701359250608087013567ffffffffffffffff81111561146c575f5ffd5b61147889828a016112d2565b979a9699509497509295939492505050565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52604160045260245ffd5b5f8151808452602084019350602083015f5b828110156114e25781518652602095860195909101906001016114c4565b5093949350505050565b604080825283519082018190525f9060208501906060840190835b8181101561152e5783516001600160a01b0316835260209384019390920191600101611507565b5050838103602085015261154281866114b2565b9695505050505050565b5f6020828403121561155c575f5ffd5b815167ffffffffffffffff811115611572575f5ffd5b8201601f81018413611582575f5ffd5b805167ffffffffffffffff81111561159c5761159c61149e565b8060051b604051601f19603f830116810181811067ffffffffffffffff821117156115c9576115c961149e565b6040529182526020818401810192908101878411156115e6575f5ffd5b6020850194505b83851015611609578451808252602095860195909350016115ed565b509695505050505050565b5f60208284031215611624575f5ffd5b5051919050565b5f6020828403121561163b575f5ffd5b81516106a381611274565b6020808252601a908201527f636f6c6c61746572616c207472616e73666572206661696c6564000000000000604082015260600190565b60018060a01b038616815284602082015283604082015260a060608201525f6116a960a08301856114b2565b90508260808301529695505050505050565b6001600160a01b0385811682528416602082015260a0604082018190525f906116e6908301856114b2565b82810360608401526116f881856114b2565b83810360809094019390935250505f8152602001949350505050565b828152604060208201525f61172c60408301846114b2565b949350505050565b60018060a01b0385168152836020820152826040820152608060608201525f61154260808301846114b2565b8181038181111561051a57634e487b7160e01b5f52601160045260245ffd5b604081525f61179160408301856114b2565b90508260208301529392505050565b5f82518060208501845e5f92019182525091905056fea164736f6c634300081c000a",
}

// NegRiskAdapterABI is the input ABI used to generate the binding from.
// Deprecated: Use NegRiskAdapterMetaData.ABI instead.
var NegRiskAdapterABI = NegRiskAdapterMetaData.ABI

// NegRiskAdapterBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use NegRiskAdapterMetaData.Bin instead.
var NegRiskAdapterBin = NegRiskAdapterMetaData.Bin

// DeployNegRiskAdapter deploys a new Ethereum contract, binding an instance of NegRiskAdapter to it.
func DeployNegRiskAdapter(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *NegRiskAdapter, error) {
	parsed, err := NegRiskAdapterMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(NegRiskAdapterBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &NegRiskAdapter{NegRiskAdapterCaller: NegRiskAdapterCaller{contract: contract}, NegRiskAdapterTransactor: NegRiskAdapterTransactor{contract: contract}, NegRiskAdapterFilterer: NegRiskAdapterFilterer{contract: contract}}, nil
}

// NegRiskAdapter is an auto generated Go binding around an Ethereum contract.
type NegRiskAdapter struct {
	NegRiskAdapterCaller     // Read-only binding to the contract
	NegRiskAdapterTransactor // Write-only binding to the contract
	NegRiskAdapterFilterer   // Log filterer for contract events
}

// NegRiskAdapterCaller is an auto generated read-only Go binding around an Ethereum contract.
type NegRiskAdapterCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// NegRiskAdapterTransactor is an auto generated write-only Go binding around an Ethereum contract.
type NegRiskAdapterTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// NegRiskAdapterFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type NegRiskAdapterFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// NegRiskAdapterSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type NegRiskAdapterSession struct {
	Contract     *NegRiskAdapter   // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// NegRiskAdapterCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type NegRiskAdapterCallerSession struct {
	Contract *NegRiskAdapterCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts         // Call options to use throughout this session
}

// NegRiskAdapterTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type NegRiskAdapterTransactorSession struct {
	Contract     *NegRiskAdapterTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts         // Transaction auth options to use throughout this session
}

// NegRiskAdapterRaw is an auto generated low-level Go binding around an Ethereum contract.
type NegRiskAdapterRaw struct {
	Contract *NegRiskAdapter // Generic contract binding to access the raw methods on
}

// NegRiskAdapterCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type NegRiskAdapterCallerRaw struct {
	Contract *NegRiskAdapterCaller // Generic read-only contract binding to access the raw methods on
}

// NegRiskAdapterTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type NegRiskAdapterTransactorRaw struct {
	Contract *NegRiskAdapterTransactor // Generic write-only contract binding to access the raw methods on
}

// NewNegRiskAdapter creates a new instance of NegRiskAdapter, bound to a specific deployed contract.
func NewNegRiskAdapter(address common.Address, backend bind.ContractBackend) (*NegRiskAdapter, error) {
	contract, err := bindNegRiskAdapter(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapter{NegRiskAdapterCaller: NegRiskAdapterCaller{contract: contract}, NegRiskAdapterTransactor: NegRiskAdapterTransactor{contract: contract}, NegRiskAdapterFilterer: NegRiskAdapterFilterer{contract: contract}}, nil
}

// NewNegRiskAdapterCaller creates a new read-only instance of NegRiskAdapter, bound to a specific deployed contract.
func NewNegRiskAdapterCaller(address common.Address, caller bind.ContractCaller) (*NegRiskAdapterCaller, error) {
	contract, err := bindNegRiskAdapter(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterCaller{contract: contract}, nil
}

// NewNegRiskAdapterTransactor creates a new write-only instance of NegRiskAdapter, bound to a specific deployed contract.
func NewNegRiskAdapterTransactor(address common.Address, transactor bind.ContractTransactor) (*NegRiskAdapterTransactor, error) {
	contract, err := bindNegRiskAdapter(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterTransactor{contract: contract}, nil
}

// NewNegRiskAdapterFilterer creates a new log filterer instance of NegRiskAdapter, bound to a specific deployed contract.
func NewNegRiskAdapterFilterer(address common.Address, filterer bind.ContractFilterer) (*NegRiskAdapterFilterer, error) {
	contract, err := bindNegRiskAdapter(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterFilterer{contract: contract}, nil
}

// bindNegRiskAdapter binds a generic wrapper to an already deployed contract.
func bindNegRiskAdapter(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := NegRiskAdapterMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_NegRiskAdapter *NegRiskAdapterRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _NegRiskAdapter.Contract.NegRiskAdapterCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_NegRiskAdapter *NegRiskAdapterRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.NegRiskAdapterTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_NegRiskAdapter *NegRiskAdapterRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.NegRiskAdapterTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_NegRiskAdapter *NegRiskAdapterCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _NegRiskAdapter.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_NegRiskAdapter *NegRiskAdapterTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_NegRiskAdapter *NegRiskAdapterTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.contract.Transact(opts, method, params...)
}

// Col is a free data retrieval call binding the contract method 0xa78695b0.
//
// Solidity: function col() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterCaller) Col(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "col")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Col is a free data retrieval call binding the contract method 0xa78695b0.
//
// Solidity: function col() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterSession) Col() (common.Address, error) {
	return _NegRiskAdapter.Contract.Col(&_NegRiskAdapter.CallOpts)
}

// Col is a free data retrieval call binding the contract method 0xa78695b0.
//
// Solidity: function col() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) Col() (common.Address, error) {
	return _NegRiskAdapter.Contract.Col(&_NegRiskAdapter.CallOpts)
}

// Ctf is a free data retrieval call binding the contract method 0x22a9339f.
//
// Solidity: function ctf() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterCaller) Ctf(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "ctf")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Ctf is a free data retrieval call binding the contract method 0x22a9339f.
//
// Solidity: function ctf() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterSession) Ctf() (common.Address, error) {
	return _NegRiskAdapter.Contract.Ctf(&_NegRiskAdapter.CallOpts)
}

// Ctf is a free data retrieval call binding the contract method 0x22a9339f.
//
// Solidity: function ctf() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) Ctf() (common.Address, error) {
	return _NegRiskAdapter.Contract.Ctf(&_NegRiskAdapter.CallOpts)
}

// GetConditionId is a free data retrieval call binding the contract method 0x04329c03.
//
// Solidity: function getConditionId(bytes32 questionId) view returns(bytes32)
func (_NegRiskAdapter *NegRiskAdapterCaller) GetConditionId(opts *bind.CallOpts, questionId [32]byte) ([32]byte, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "getConditionId", questionId)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetConditionId is a free data retrieval call binding the contract method 0x04329c03.
//
// Solidity: function getConditionId(bytes32 questionId) view returns(bytes32)
func (_NegRiskAdapter *NegRiskAdapterSession) GetConditionId(questionId [32]byte) ([32]byte, error) {
	return _NegRiskAdapter.Contract.GetConditionId(&_NegRiskAdapter.CallOpts, questionId)
}

// GetConditionId is a free data retrieval call binding the contract method 0x04329c03.
//
// Solidity: function getConditionId(bytes32 questionId) view returns(bytes32)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) GetConditionId(questionId [32]byte) ([32]byte, error) {
	return _NegRiskAdapter.Contract.GetConditionId(&_NegRiskAdapter.CallOpts, questionId)
}

// GetPositionId is a free data retrieval call binding the contract method 0x752b5ba5.
//
// Solidity: function getPositionId(bytes32 conditionId, bool outcome) view returns(uint256)
func (_NegRiskAdapter *NegRiskAdapterCaller) GetPositionId(opts *bind.CallOpts, conditionId [32]byte, outcome bool) (*big.Int, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "getPositionId", conditionId, outcome)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// GetPositionId is a free data retrieval call binding the contract method 0x752b5ba5.
//
// Solidity: function getPositionId(bytes32 conditionId, bool outcome) view returns(uint256)
func (_NegRiskAdapter *NegRiskAdapterSession) GetPositionId(conditionId [32]byte, outcome bool) (*big.Int, error) {
	return _NegRiskAdapter.Contract.GetPositionId(&_NegRiskAdapter.CallOpts, conditionId, outcome)
}

// GetPositionId is a free data retrieval call binding the contract method 0x752b5ba5.
//
// Solidity: function getPositionId(bytes32 conditionId, bool outcome) view returns(uint256)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) GetPositionId(conditionId [32]byte, outcome bool) (*big.Int, error) {
	return _NegRiskAdapter.Contract.GetPositionId(&_NegRiskAdapter.CallOpts, conditionId, outcome)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_NegRiskAdapter *NegRiskAdapterCaller) OnERC1155BatchReceived(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "onERC1155BatchReceived", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_NegRiskAdapter *NegRiskAdapterSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _NegRiskAdapter.Contract.OnERC1155BatchReceived(&_NegRiskAdapter.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _NegRiskAdapter.Contract.OnERC1155BatchReceived(&_NegRiskAdapter.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_NegRiskAdapter *NegRiskAdapterCaller) OnERC1155Received(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "onERC1155Received", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_NegRiskAdapter *NegRiskAdapterSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _NegRiskAdapter.Contract.OnERC1155Received(&_NegRiskAdapter.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _NegRiskAdapter.Contract.OnERC1155Received(&_NegRiskAdapter.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// Operator is a free data retrieval call binding the contract method 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterCaller) Operator(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "operator")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Operator is a free data retrieval call binding the contract method 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterSession) Operator() (common.Address, error) {
	return _NegRiskAdapter.Contract.Operator(&_NegRiskAdapter.CallOpts)
}

// Operator is a free data retrieval call binding the contract method 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) Operator() (common.Address, error) {
	return _NegRiskAdapter.Contract.Operator(&_NegRiskAdapter.CallOpts)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_NegRiskAdapter *NegRiskAdapterCaller) SupportsInterface(opts *bind.CallOpts, interfaceId [4]byte) (bool, error) {
	var out []interface{}
	err := _NegRiskAdapter.contract.Call(opts, &out, "supportsInterface", interfaceId)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_NegRiskAdapter *NegRiskAdapterSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _NegRiskAdapter.Contract.SupportsInterface(&_NegRiskAdapter.CallOpts, interfaceId)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_NegRiskAdapter *NegRiskAdapterCallerSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _NegRiskAdapter.Contract.SupportsInterface(&_NegRiskAdapter.CallOpts, interfaceId)
}

// MergePositions is a paid mutator transaction binding the contract method 0xb10c5c17.
//
// Solidity: function mergePositions(bytes32 conditionId, uint256 amount) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactor) MergePositions(opts *bind.TransactOpts, conditionId [32]byte, amount *big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.contract.Transact(opts, "mergePositions", conditionId, amount)
}

// MergePositions is a paid mutator transaction binding the contract method 0xb10c5c17.
//
// Solidity: function mergePositions(bytes32 conditionId, uint256 amount) returns()
func (_NegRiskAdapter *NegRiskAdapterSession) MergePositions(conditionId [32]byte, amount *big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.MergePositions(&_NegRiskAdapter.TransactOpts, conditionId, amount)
}

// MergePositions is a paid mutator transaction binding the contract method 0xb10c5c17.
//
// Solidity: function mergePositions(bytes32 conditionId, uint256 amount) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactorSession) MergePositions(conditionId [32]byte, amount *big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.MergePositions(&_NegRiskAdapter.TransactOpts, conditionId, amount)
}

// PrepareCondition is a paid mutator transaction binding the contract method 0xf9bc8d32.
//
// Solidity: function prepareCondition(bytes32 questionId) returns(bytes32 conditionId)
func (_NegRiskAdapter *NegRiskAdapterTransactor) PrepareCondition(opts *bind.TransactOpts, questionId [32]byte) (*types.Transaction, error) {
	return _NegRiskAdapter.contract.Transact(opts, "prepareCondition", questionId)
}

// PrepareCondition is a paid mutator transaction binding the contract method 0xf9bc8d32.
//
// Solidity: function prepareCondition(bytes32 questionId) returns(bytes32 conditionId)
func (_NegRiskAdapter *NegRiskAdapterSession) PrepareCondition(questionId [32]byte) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.PrepareCondition(&_NegRiskAdapter.TransactOpts, questionId)
}

// PrepareCondition is a paid mutator transaction binding the contract method 0xf9bc8d32.
//
// Solidity: function prepareCondition(bytes32 questionId) returns(bytes32 conditionId)
func (_NegRiskAdapter *NegRiskAdapterTransactorSession) PrepareCondition(questionId [32]byte) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.PrepareCondition(&_NegRiskAdapter.TransactOpts, questionId)
}

// RedeemPositions is a paid mutator transaction binding the contract method 0x01b7037c.
//
// Solidity: function redeemPositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactor) RedeemPositions(opts *bind.TransactOpts, collateralToken common.Address, parentCollectionId [32]byte, conditionId [32]byte, indexSets []*big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.contract.Transact(opts, "redeemPositions", collateralToken, parentCollectionId, conditionId, indexSets)
}

// RedeemPositions is a paid mutator transaction binding the contract method 0x01b7037c.
//
// Solidity: function redeemPositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets) returns()
func (_NegRiskAdapter *NegRiskAdapterSession) RedeemPositions(collateralToken common.Address, parentCollectionId [32]byte, conditionId [32]byte, indexSets []*big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.RedeemPositions(&_NegRiskAdapter.TransactOpts, collateralToken, parentCollectionId, conditionId, indexSets)
}

// RedeemPositions is a paid mutator transaction binding the contract method 0x01b7037c.
//
// Solidity: function redeemPositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactorSession) RedeemPositions(collateralToken common.Address, parentCollectionId [32]byte, conditionId [32]byte, indexSets []*big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.RedeemPositions(&_NegRiskAdapter.TransactOpts, collateralToken, parentCollectionId, conditionId, indexSets)
}

// RedeemPositions0 is a paid mutator transaction binding the contract method 0xdbeccb23.
//
// Solidity: function redeemPositions(bytes32 conditionId, uint256[] amounts) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactor) RedeemPositions0(opts *bind.TransactOpts, conditionId [32]byte, amounts []*big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.contract.Transact(opts, "redeemPositions0", conditionId, amounts)
}

// RedeemPositions0 is a paid mutator transaction binding the contract method 0xdbeccb23.
//
// Solidity: function redeemPositions(bytes32 conditionId, uint256[] amounts) returns()
func (_NegRiskAdapter *NegRiskAdapterSession) RedeemPositions0(conditionId [32]byte, amounts []*big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.RedeemPositions0(&_NegRiskAdapter.TransactOpts, conditionId, amounts)
}

// RedeemPositions0 is a paid mutator transaction binding the contract method 0xdbeccb23.
//
// Solidity: function redeemPositions(bytes32 conditionId, uint256[] amounts) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactorSession) RedeemPositions0(conditionId [32]byte, amounts []*big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.RedeemPositions0(&_NegRiskAdapter.TransactOpts, conditionId, amounts)
}

// ReportOutcome is a paid mutator transaction binding the contract method 0xe200affd.
//
// Solidity: function reportOutcome(bytes32 questionId, bool outcome) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactor) ReportOutcome(opts *bind.TransactOpts, questionId [32]byte, outcome bool) (*types.Transaction, error) {
	return _NegRiskAdapter.contract.Transact(opts, "reportOutcome", questionId, outcome)
}

// ReportOutcome is a paid mutator transaction binding the contract method 0xe200affd.
//
// Solidity: function reportOutcome(bytes32 questionId, bool outcome) returns()
func (_NegRiskAdapter *NegRiskAdapterSession) ReportOutcome(questionId [32]byte, outcome bool) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.ReportOutcome(&_NegRiskAdapter.TransactOpts, questionId, outcome)
}

// ReportOutcome is a paid mutator transaction binding the contract method 0xe200affd.
//
// Solidity: function reportOutcome(bytes32 questionId, bool outcome) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactorSession) ReportOutcome(questionId [32]byte, outcome bool) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.ReportOutcome(&_NegRiskAdapter.TransactOpts, questionId, outcome)
}

// SplitPosition is a paid mutator transaction binding the contract method 0xa3d7da1d.
//
// Solidity: function splitPosition(bytes32 conditionId, uint256 amount) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactor) SplitPosition(opts *bind.TransactOpts, conditionId [32]byte, amount *big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.contract.Transact(opts, "splitPosition", conditionId, amount)
}

// SplitPosition is a paid mutator transaction binding the contract method 0xa3d7da1d.
//
// Solidity: function splitPosition(bytes32 conditionId, uint256 amount) returns()
func (_NegRiskAdapter *NegRiskAdapterSession) SplitPosition(conditionId [32]byte, amount *big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.SplitPosition(&_NegRiskAdapter.TransactOpts, conditionId, amount)
}

// SplitPosition is a paid mutator transaction binding the contract method 0xa3d7da1d.
//
// Solidity: function splitPosition(bytes32 conditionId, uint256 amount) returns()
func (_NegRiskAdapter *NegRiskAdapterTransactorSession) SplitPosition(conditionId [32]byte, amount *big.Int) (*types.Transaction, error) {
	return _NegRiskAdapter.Contract.SplitPosition(&_NegRiskAdapter.TransactOpts, conditionId, amount)
}

// NegRiskAdapterConditionPreparedIterator is returned from FilterConditionPrepared and is used to iterate over the raw logs and unpacked data for ConditionPrepared events raised by the NegRiskAdapter contract.
type NegRiskAdapterConditionPreparedIterator struct {
	Event *NegRiskAdapterConditionPrepared // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *NegRiskAdapterConditionPreparedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(NegRiskAdapterConditionPrepared)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(NegRiskAdapterConditionPrepared)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *NegRiskAdapterConditionPreparedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *NegRiskAdapterConditionPreparedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// NegRiskAdapterConditionPrepared represents a ConditionPrepared event raised by the NegRiskAdapter contract.
type NegRiskAdapterConditionPrepared struct {
	ConditionId [32]byte
	QuestionId  [32]byte
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterConditionPrepared is a free log retrieval operation binding the contract event 0xc61b37207e3005c0ffa70d49e80c6a2e55f008af2388d2f30443e7ac5d3e280d.
//
// Solidity: event ConditionPrepared(bytes32 indexed conditionId, bytes32 indexed questionId)
func (_NegRiskAdapter *NegRiskAdapterFilterer) FilterConditionPrepared(opts *bind.FilterOpts, conditionId [][32]byte, questionId [][32]byte) (*NegRiskAdapterConditionPreparedIterator, error) {

	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}
	var questionIdRule []interface{}
	for _, questionIdItem := range questionId {
		questionIdRule = append(questionIdRule, questionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.FilterLogs(opts, "ConditionPrepared", conditionIdRule, questionIdRule)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterConditionPreparedIterator{contract: _NegRiskAdapter.contract, event: "ConditionPrepared", logs: logs, sub: sub}, nil
}

// WatchConditionPrepared is a free log subscription operation binding the contract event 0xc61b37207e3005c0ffa70d49e80c6a2e55f008af2388d2f30443e7ac5d3e280d.
//
// Solidity: event ConditionPrepared(bytes32 indexed conditionId, bytes32 indexed questionId)
func (_NegRiskAdapter *NegRiskAdapterFilterer) WatchConditionPrepared(opts *bind.WatchOpts, sink chan<- *NegRiskAdapterConditionPrepared, conditionId [][32]byte, questionId [][32]byte) (event.Subscription, error) {

	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}
	var questionIdRule []interface{}
	for _, questionIdItem := range questionId {
		questionIdRule = append(questionIdRule, questionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.WatchLogs(opts, "ConditionPrepared", conditionIdRule, questionIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(NegRiskAdapterConditionPrepared)
				if err := _NegRiskAdapter.contract.UnpackLog(event, "ConditionPrepared", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseConditionPrepared is a log parse operation binding the contract event 0xc61b37207e3005c0ffa70d49e80c6a2e55f008af2388d2f30443e7ac5d3e280d.
//
// Solidity: event ConditionPrepared(bytes32 indexed conditionId, bytes32 indexed questionId)
func (_NegRiskAdapter *NegRiskAdapterFilterer) ParseConditionPrepared(log types.Log) (*NegRiskAdapterConditionPrepared, error) {
	event := new(NegRiskAdapterConditionPrepared)
	if err := _NegRiskAdapter.contract.UnpackLog(event, "ConditionPrepared", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// NegRiskAdapterOutcomeReportedIterator is returned from FilterOutcomeReported and is used to iterate over the raw logs and unpacked data for OutcomeReported events raised by the NegRiskAdapter contract.
type NegRiskAdapterOutcomeReportedIterator struct {
	Event *NegRiskAdapterOutcomeReported // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *NegRiskAdapterOutcomeReportedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(NegRiskAdapterOutcomeReported)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(NegRiskAdapterOutcomeReported)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *NegRiskAdapterOutcomeReportedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *NegRiskAdapterOutcomeReportedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// NegRiskAdapterOutcomeReported represents a OutcomeReported event raised by the NegRiskAdapter contract.
type NegRiskAdapterOutcomeReported struct {
	ConditionId [32]byte
	QuestionId  [32]byte
	Outcome     bool
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterOutcomeReported is a free log retrieval operation binding the contract event 0x9e9fa7fd355160bd4cd3f22d4333519354beff1f5689bde87f2c5e63d8d484b2.
//
// Solidity: event OutcomeReported(bytes32 indexed conditionId, bytes32 indexed questionId, bool outcome)
func (_NegRiskAdapter *NegRiskAdapterFilterer) FilterOutcomeReported(opts *bind.FilterOpts, conditionId [][32]byte, questionId [][32]byte) (*NegRiskAdapterOutcomeReportedIterator, error) {

	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}
	var questionIdRule []interface{}
	for _, questionIdItem := range questionId {
		questionIdRule = append(questionIdRule, questionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.FilterLogs(opts, "OutcomeReported", conditionIdRule, questionIdRule)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterOutcomeReportedIterator{contract: _NegRiskAdapter.contract, event: "OutcomeReported", logs: logs, sub: sub}, nil
}

// WatchOutcomeReported is a free log subscription operation binding the contract event 0x9e9fa7fd355160bd4cd3f22d4333519354beff1f5689bde87f2c5e63d8d484b2.
//
// Solidity: event OutcomeReported(bytes32 indexed conditionId, bytes32 indexed questionId, bool outcome)
func (_NegRiskAdapter *NegRiskAdapterFilterer) WatchOutcomeReported(opts *bind.WatchOpts, sink chan<- *NegRiskAdapterOutcomeReported, conditionId [][32]byte, questionId [][32]byte) (event.Subscription, error) {

	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}
	var questionIdRule []interface{}
	for _, questionIdItem := range questionId {
		questionIdRule = append(questionIdRule, questionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.WatchLogs(opts, "OutcomeReported", conditionIdRule, questionIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(NegRiskAdapterOutcomeReported)
				if err := _NegRiskAdapter.contract.UnpackLog(event, "OutcomeReported", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseOutcomeReported is a log parse operation binding the contract event 0x9e9fa7fd355160bd4cd3f22d4333519354beff1f5689bde87f2c5e63d8d484b2.
//
// Solidity: event OutcomeReported(bytes32 indexed conditionId, bytes32 indexed questionId, bool outcome)
func (_NegRiskAdapter *NegRiskAdapterFilterer) ParseOutcomeReported(log types.Log) (*NegRiskAdapterOutcomeReported, error) {
	event := new(NegRiskAdapterOutcomeReported)
	if err := _NegRiskAdapter.contract.UnpackLog(event, "OutcomeReported", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// NegRiskAdapterPayoutRedemptionIterator is returned from FilterPayoutRedemption and is used to iterate over the raw logs and unpacked data for PayoutRedemption events raised by the NegRiskAdapter contract.
type NegRiskAdapterPayoutRedemptionIterator struct {
	Event *NegRiskAdapterPayoutRedemption // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *NegRiskAdapterPayoutRedemptionIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(NegRiskAdapterPayoutRedemption)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(NegRiskAdapterPayoutRedemption)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *NegRiskAdapterPayoutRedemptionIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *NegRiskAdapterPayoutRedemptionIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// NegRiskAdapterPayoutRedemption represents a PayoutRedemption event raised by the NegRiskAdapter contract.
type NegRiskAdapterPayoutRedemption struct {
	Redeemer    common.Address
	ConditionId [32]byte
	Amounts     []*big.Int
	Payout      *big.Int
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterPayoutRedemption is a free log retrieval operation binding the contract event 0x9140a6a270ef945260c03894b3c6b3b2695e9d5101feef0ff24fec960cfd3224.
//
// Solidity: event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)
func (_NegRiskAdapter *NegRiskAdapterFilterer) FilterPayoutRedemption(opts *bind.FilterOpts, redeemer []common.Address, conditionId [][32]byte) (*NegRiskAdapterPayoutRedemptionIterator, error) {

	var redeemerRule []interface{}
	for _, redeemerItem := range redeemer {
		redeemerRule = append(redeemerRule, redeemerItem)
	}
	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.FilterLogs(opts, "PayoutRedemption", redeemerRule, conditionIdRule)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterPayoutRedemptionIterator{contract: _NegRiskAdapter.contract, event: "PayoutRedemption", logs: logs, sub: sub}, nil
}

// WatchPayoutRedemption is a free log subscription operation binding the contract event 0x9140a6a270ef945260c03894b3c6b3b2695e9d5101feef0ff24fec960cfd3224.
//
// Solidity: event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)
func (_NegRiskAdapter *NegRiskAdapterFilterer) WatchPayoutRedemption(opts *bind.WatchOpts, sink chan<- *NegRiskAdapterPayoutRedemption, redeemer []common.Address, conditionId [][32]byte) (event.Subscription, error) {

	var redeemerRule []interface{}
	for _, redeemerItem := range redeemer {
		redeemerRule = append(redeemerRule, redeemerItem)
	}
	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.WatchLogs(opts, "PayoutRedemption", redeemerRule, conditionIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(NegRiskAdapterPayoutRedemption)
				if err := _NegRiskAdapter.contract.UnpackLog(event, "PayoutRedemption", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParsePayoutRedemption is a log parse operation binding the contract event 0x9140a6a270ef945260c03894b3c6b3b2695e9d5101feef0ff24fec960cfd3224.
//
// Solidity: event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)
func (_NegRiskAdapter *NegRiskAdapterFilterer) ParsePayoutRedemption(log types.Log) (*NegRiskAdapterPayoutRedemption, error) {
	event := new(NegRiskAdapterPayoutRedemption)
	if err := _NegRiskAdapter.contract.UnpackLog(event, "PayoutRedemption", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// NegRiskAdapterPositionSplitIterator is returned from FilterPositionSplit and is used to iterate over the raw logs and unpacked data for PositionSplit events raised by the NegRiskAdapter contract.
type NegRiskAdapterPositionSplitIterator struct {
	Event *NegRiskAdapterPositionSplit // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *NegRiskAdapterPositionSplitIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(NegRiskAdapterPositionSplit)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(NegRiskAdapterPositionSplit)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *NegRiskAdapterPositionSplitIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *NegRiskAdapterPositionSplitIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// NegRiskAdapterPositionSplit represents a PositionSplit event raised by the NegRiskAdapter contract.
type NegRiskAdapterPositionSplit struct {
	Stakeholder common.Address
	ConditionId [32]byte
	Amount      *big.Int
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterPositionSplit is a free log retrieval operation binding the contract event 0xbbed930dbfb7907ae2d60ddf78345610214f26419a0128df39b6cc3d9e5df9b0.
//
// Solidity: event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)
func (_NegRiskAdapter *NegRiskAdapterFilterer) FilterPositionSplit(opts *bind.FilterOpts, stakeholder []common.Address, conditionId [][32]byte) (*NegRiskAdapterPositionSplitIterator, error) {

	var stakeholderRule []interface{}
	for _, stakeholderItem := range stakeholder {
		stakeholderRule = append(stakeholderRule, stakeholderItem)
	}
	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.FilterLogs(opts, "PositionSplit", stakeholderRule, conditionIdRule)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterPositionSplitIterator{contract: _NegRiskAdapter.contract, event: "PositionSplit", logs: logs, sub: sub}, nil
}

// WatchPositionSplit is a free log subscription operation binding the contract event 0xbbed930dbfb7907ae2d60ddf78345610214f26419a0128df39b6cc3d9e5df9b0.
//
// Solidity: event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)
func (_NegRiskAdapter *NegRiskAdapterFilterer) WatchPositionSplit(opts *bind.WatchOpts, sink chan<- *NegRiskAdapterPositionSplit, stakeholder []common.Address, conditionId [][32]byte) (event.Subscription, error) {

	var stakeholderRule []interface{}
	for _, stakeholderItem := range stakeholder {
		stakeholderRule = append(stakeholderRule, stakeholderItem)
	}
	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.WatchLogs(opts, "PositionSplit", stakeholderRule, conditionIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(NegRiskAdapterPositionSplit)
				if err := _NegRiskAdapter.contract.UnpackLog(event, "PositionSplit", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParsePositionSplit is a log parse operation binding the contract event 0xbbed930dbfb7907ae2d60ddf78345610214f26419a0128df39b6cc3d9e5df9b0.
//
// Solidity: event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)
func (_NegRiskAdapter *NegRiskAdapterFilterer) ParsePositionSplit(log types.Log) (*NegRiskAdapterPositionSplit, error) {
	event := new(NegRiskAdapterPositionSplit)
	if err := _NegRiskAdapter.contract.UnpackLog(event, "PositionSplit", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// NegRiskAdapterPositionsMergeIterator is returned from FilterPositionsMerge and is used to iterate over the raw logs and unpacked data for PositionsMerge events raised by the NegRiskAdapter contract.
type NegRiskAdapterPositionsMergeIterator struct {
	Event *NegRiskAdapterPositionsMerge // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *NegRiskAdapterPositionsMergeIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(NegRiskAdapterPositionsMerge)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(NegRiskAdapterPositionsMerge)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *NegRiskAdapterPositionsMergeIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *NegRiskAdapterPositionsMergeIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// NegRiskAdapterPositionsMerge represents a PositionsMerge event raised by the NegRiskAdapter contract.
type NegRiskAdapterPositionsMerge struct {
	Stakeholder common.Address
	ConditionId [32]byte
	Amount      *big.Int
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterPositionsMerge is a free log retrieval operation binding the contract event 0xba33ac50d8894676597e6e35dc09cff59854708b642cd069d21eb9c7ca072a04.
//
// Solidity: event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)
func (_NegRiskAdapter *NegRiskAdapterFilterer) FilterPositionsMerge(opts *bind.FilterOpts, stakeholder []common.Address, conditionId [][32]byte) (*NegRiskAdapterPositionsMergeIterator, error) {

	var stakeholderRule []interface{}
	for _, stakeholderItem := range stakeholder {
		stakeholderRule = append(stakeholderRule, stakeholderItem)
	}
	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.FilterLogs(opts, "PositionsMerge", stakeholderRule, conditionIdRule)
	if err != nil {
		return nil, err
	}
	return &NegRiskAdapterPositionsMergeIterator{contract: _NegRiskAdapter.contract, event: "PositionsMerge", logs: logs, sub: sub}, nil
}

// WatchPositionsMerge is a free log subscription operation binding the contract event 0xba33ac50d8894676597e6e35dc09cff59854708b642cd069d21eb9c7ca072a04.
//
// Solidity: event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)
func (_NegRiskAdapter *NegRiskAdapterFilterer) WatchPositionsMerge(opts *bind.WatchOpts, sink chan<- *NegRiskAdapterPositionsMerge, stakeholder []common.Address, conditionId [][32]byte) (event.Subscription, error) {

	var stakeholderRule []interface{}
	for _, stakeholderItem := range stakeholder {
		stakeholderRule = append(stakeholderRule, stakeholderItem)
	}
	var conditionIdRule []interface{}
	for _, conditionIdItem := range conditionId {
		conditionIdRule = append(conditionIdRule, conditionIdItem)
	}

	logs, sub, err := _NegRiskAdapter.contract.WatchLogs(opts, "PositionsMerge", stakeholderRule, conditionIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(NegRiskAdapterPositionsMerge)
				if err := _NegRiskAdapter.contract.UnpackLog(event, "PositionsMerge", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParsePositionsMerge is a log parse operation binding the contract event 0xba33ac50d8894676597e6e35dc09cff59854708b642cd069d21eb9c7ca072a04.
//
// Solidity: event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)
func (_NegRiskAdapter *NegRiskAdapterFilterer) ParsePositionsMerge(log types.Log) (*NegRiskAdapterPositionsMerge, error) {
	event := new(NegRiskAdapterPositionsMerge)
	if err := _NegRiskAdapter.contract.UnpackLog(event, "PositionsMerge", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
