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

// ProxyWalletFactoryProxyCall is an auto generated low-level Go binding around an user-defined struct.
type ProxyWalletFactoryProxyCall struct {
	TypeCode uint8
	To       common.Address
	Value    *big.Int
	Data     []byte
}

// ProxyWalletFactoryMetaData contains all meta data concerning the ProxyWalletFactory contract.
var ProxyWalletFactoryMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"DeploymentFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotInConstruction\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"wallet\",\"type\":\"address\"}],\"name\":\"WalletCreated\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"cloneConstructor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"computeProxyAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getImplementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"implementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"maybeMakeWallet\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"enumProxyWalletFactory.CallType\",\"name\":\"typeCode\",\"type\":\"uint8\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structProxyWalletFactory.ProxyCall[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"proxy\",\"outputs\":[{\"internalType\":\"bytes[]\",\"name\":\"returnValues\",\"type\":\"bytes[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506109bb8061001c5f395ff3fe608060405260043610610054575f3560e01c806334ee97911461005857806352e831dd146100815780635c60da1b146100a2578063aaf10f42146100d8578063bffaced4146100f4578063d600539a14610113575b5f5ffd5b61006b61006636600461051d565b610132565b60405161007891906105bc565b60405180910390f35b34801561008c575f5ffd5b506100a061009b36600461061f565b61020d565b005b3480156100ad575f5ffd5b505f546100c0906001600160a01b031681565b6040516001600160a01b039091168152602001610078565b3480156100e3575f5ffd5b505f546001600160a01b03166100c0565b3480156100ff575f5ffd5b506100c061010e366004610698565b610254565b34801561011e575f5ffd5b506100c061012d366004610698565b610264565b60605f61013e336102ec565b90505f5f826001600160a01b0316346334ee97918888604051602401610165929190610729565b6040516020818303038152906040529060e01b6020820180516001600160e01b03838183161783525050505060405161019e9190610808565b5f6040518083038185875af1925050503d805f81146101d8576040519150601f19603f3d011682016040523d82523d5f602084013e6101dd565b606091505b5091509150816101ef57805160208201fd5b808060200190518101906102039190610858565b9695505050505050565b303b1561022d5760405163a72b848560e01b815260040160405180910390fd5b5050337f220b32358f0d97cbed6ba94f7ea5525019b04c7474c7e243440d7694c05bf86e55565b5f61025e826102ec565b92915050565b5f806001600160f81b031930610279856103be565b6102816103fc565b80516020918201206040516102cd95949392016001600160f81b031994909416845260609290921b6bffffffffffffffffffffffff191660018401526015830152603582015260550190565b60408051601f1981840301815291905280516020909101209392505050565b5f6102f682610264565b90506001600160a01b0381163b1561030d57919050565b5f6103166103fc565b90505f610322846103be565b90505f818351602085015ff590506001600160a01b03811615806103585750836001600160a01b0316816001600160a01b031614155b1561037657604051633011642560e01b815260040160405180910390fd5b6040516001600160a01b0385811682528616907f5b03bfed1c14a02bdeceb5fa582eb1a5765fc0bc64ca0e6af4c20afc9487f0819060200160405180910390a2505050919050565b6040516bffffffffffffffffffffffff19606083901b1660208201525f90603401604051602081830303815290604052805190602001209050919050565b5f8054604080518381526020810190915260609230926001600160a01b0316916104299060448101610980565b60408051601f19818403018152918152602080830180516001600160e01b03166352e831dd60e01b1790528151606380825260a082019093529293505f929190820181803683370190505090507f3d3d606380380380913d393d73bebebebebebebebebebebebebebebebebebebe6020820152600160601b8402602d8201527f5af4602a57600080fd5b602d8060366000396000f3363d3d373d3d3d363d73be6041820152600160601b830260608201526e5af43d82803e903d91602b57fd5bf360881b60748201528082604051602001610505929190610992565b60405160208183030381529060405294505050505090565b5f5f6020838503121561052e575f5ffd5b823567ffffffffffffffff811115610544575f5ffd5b8301601f81018513610554575f5ffd5b803567ffffffffffffffff81111561056a575f5ffd5b8560208260051b840101111561057e575f5ffd5b6020919091019590945092505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b5f602082016020835280845180835260408501915060408160051b8601019250602086015f5b8281101561061357603f198786030184526105fe85835161058e565b945060209384019391909101906001016105e2565b50929695505050505050565b5f5f60208385031215610630575f5ffd5b823567ffffffffffffffff811115610646575f5ffd5b8301601f81018513610656575f5ffd5b803567ffffffffffffffff81111561066c575f5ffd5b85602082840101111561057e575f5ffd5b80356001600160a01b0381168114610693575f5ffd5b919050565b5f602082840312156106a8575f5ffd5b6106b18261067d565b9392505050565b5f5f8335601e198436030181126106cd575f5ffd5b830160208101925035905067ffffffffffffffff8111156106ec575f5ffd5b8036038213156106fa575f5ffd5b9250929050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b602080825281018290525f6040600584901b830181019083018583607e1936839003015b878210156107e457868503603f19018452823581811261076b575f5ffd5b890180356003811080159061077e575f5ffd5b5086526001600160a01b036107956020830161067d565b166020870152604081013560408701526107b260608201826106b8565b9150608060608801526107c9608088018383610701565b9650505060208301925060208401935060018201915061074d565b5092979650505050505050565b5f81518060208401855e5f93019283525090919050565b5f6106b182846107f1565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f1916810167ffffffffffffffff8111828210171561085057610850610813565b604052919050565b5f60208284031215610868575f5ffd5b815167ffffffffffffffff81111561087e575f5ffd5b8201601f8101841361088e575f5ffd5b805167ffffffffffffffff8111156108a8576108a8610813565b8060051b6108b860208201610827565b918252602081840181019290810190878411156108d3575f5ffd5b6020850192505b8383101561097557825167ffffffffffffffff8111156108f8575f5ffd5b8501603f81018913610908575f5ffd5b602081015167ffffffffffffffff81111561092557610925610813565b610938601f8201601f1916602001610827565b8181526040838301018b101561094c575f5ffd5b8160408401602083015e5f602083830101528085525050506020820191506020830192506108da565b979650505050505050565b602081525f6106b1602083018461058e565b5f6109a66109a083866107f1565b846107f1565b94935050505056fea164736f6c634300081c000a",
}

// ProxyWalletFactoryABI is the input ABI used to generate the binding from.
// Deprecated: Use ProxyWalletFactoryMetaData.ABI instead.
var ProxyWalletFactoryABI = ProxyWalletFactoryMetaData.ABI

// ProxyWalletFactoryBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use ProxyWalletFactoryMetaData.Bin instead.
var ProxyWalletFactoryBin = ProxyWalletFactoryMetaData.Bin

// DeployProxyWalletFactory deploys a new Ethereum contract, binding an instance of ProxyWalletFactory to it.
func DeployProxyWalletFactory(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *ProxyWalletFactory, error) {
	parsed, err := ProxyWalletFactoryMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(ProxyWalletFactoryBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &ProxyWalletFactory{ProxyWalletFactoryCaller: ProxyWalletFactoryCaller{contract: contract}, ProxyWalletFactoryTransactor: ProxyWalletFactoryTransactor{contract: contract}, ProxyWalletFactoryFilterer: ProxyWalletFactoryFilterer{contract: contract}}, nil
}

// ProxyWalletFactory is an auto generated Go binding around an Ethereum contract.
type ProxyWalletFactory struct {
	ProxyWalletFactoryCaller     // Read-only binding to the contract
	ProxyWalletFactoryTransactor // Write-only binding to the contract
	ProxyWalletFactoryFilterer   // Log filterer for contract events
}

// ProxyWalletFactoryCaller is an auto generated read-only Go binding around an Ethereum contract.
type ProxyWalletFactoryCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ProxyWalletFactoryTransactor is an auto generated write-only Go binding around an Ethereum contract.
type ProxyWalletFactoryTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ProxyWalletFactoryFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type ProxyWalletFactoryFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ProxyWalletFactorySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type ProxyWalletFactorySession struct {
	Contract     *ProxyWalletFactory // Generic contract binding to set the session for
	CallOpts     bind.CallOpts       // Call options to use throughout this session
	TransactOpts bind.TransactOpts   // Transaction auth options to use throughout this session
}

// ProxyWalletFactoryCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type ProxyWalletFactoryCallerSession struct {
	Contract *ProxyWalletFactoryCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts             // Call options to use throughout this session
}

// ProxyWalletFactoryTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type ProxyWalletFactoryTransactorSession struct {
	Contract     *ProxyWalletFactoryTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts             // Transaction auth options to use throughout this session
}

// ProxyWalletFactoryRaw is an auto generated low-level Go binding around an Ethereum contract.
type ProxyWalletFactoryRaw struct {
	Contract *ProxyWalletFactory // Generic contract binding to access the raw methods on
}

// ProxyWalletFactoryCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type ProxyWalletFactoryCallerRaw struct {
	Contract *ProxyWalletFactoryCaller // Generic read-only contract binding to access the raw methods on
}

// ProxyWalletFactoryTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type ProxyWalletFactoryTransactorRaw struct {
	Contract *ProxyWalletFactoryTransactor // Generic write-only contract binding to access the raw methods on
}

// NewProxyWalletFactory creates a new instance of ProxyWalletFactory, bound to a specific deployed contract.
func NewProxyWalletFactory(address common.Address, backend bind.ContractBackend) (*ProxyWalletFactory, error) {
	contract, err := bindProxyWalletFactory(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletFactory{ProxyWalletFactoryCaller: ProxyWalletFactoryCaller{contract: contract}, ProxyWalletFactoryTransactor: ProxyWalletFactoryTransactor{contract: contract}, ProxyWalletFactoryFilterer: ProxyWalletFactoryFilterer{contract: contract}}, nil
}

// NewProxyWalletFactoryCaller creates a new read-only instance of ProxyWalletFactory, bound to a specific deployed contract.
func NewProxyWalletFactoryCaller(address common.Address, caller bind.ContractCaller) (*ProxyWalletFactoryCaller, error) {
	contract, err := bindProxyWalletFactory(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletFactoryCaller{contract: contract}, nil
}

// NewProxyWalletFactoryTransactor creates a new write-only instance of ProxyWalletFactory, bound to a specific deployed contract.
func NewProxyWalletFactoryTransactor(address common.Address, transactor bind.ContractTransactor) (*ProxyWalletFactoryTransactor, error) {
	contract, err := bindProxyWalletFactory(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletFactoryTransactor{contract: contract}, nil
}

// NewProxyWalletFactoryFilterer creates a new log filterer instance of ProxyWalletFactory, bound to a specific deployed contract.
func NewProxyWalletFactoryFilterer(address common.Address, filterer bind.ContractFilterer) (*ProxyWalletFactoryFilterer, error) {
	contract, err := bindProxyWalletFactory(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletFactoryFilterer{contract: contract}, nil
}

// bindProxyWalletFactory binds a generic wrapper to an already deployed contract.
func bindProxyWalletFactory(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := ProxyWalletFactoryMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ProxyWalletFactory *ProxyWalletFactoryRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ProxyWalletFactory.Contract.ProxyWalletFactoryCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ProxyWalletFactory *ProxyWalletFactoryRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.ProxyWalletFactoryTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ProxyWalletFactory *ProxyWalletFactoryRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.ProxyWalletFactoryTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ProxyWalletFactory *ProxyWalletFactoryCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ProxyWalletFactory.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ProxyWalletFactory *ProxyWalletFactoryTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ProxyWalletFactory *ProxyWalletFactoryTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.contract.Transact(opts, method, params...)
}

// ComputeProxyAddress is a free data retrieval call binding the contract method 0xd600539a.
//
// Solidity: function computeProxyAddress(address owner) view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryCaller) ComputeProxyAddress(opts *bind.CallOpts, owner common.Address) (common.Address, error) {
	var out []interface{}
	err := _ProxyWalletFactory.contract.Call(opts, &out, "computeProxyAddress", owner)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// ComputeProxyAddress is a free data retrieval call binding the contract method 0xd600539a.
//
// Solidity: function computeProxyAddress(address owner) view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactorySession) ComputeProxyAddress(owner common.Address) (common.Address, error) {
	return _ProxyWalletFactory.Contract.ComputeProxyAddress(&_ProxyWalletFactory.CallOpts, owner)
}

// ComputeProxyAddress is a free data retrieval call binding the contract method 0xd600539a.
//
// Solidity: function computeProxyAddress(address owner) view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryCallerSession) ComputeProxyAddress(owner common.Address) (common.Address, error) {
	return _ProxyWalletFactory.Contract.ComputeProxyAddress(&_ProxyWalletFactory.CallOpts, owner)
}

// GetImplementation is a free data retrieval call binding the contract method 0xaaf10f42.
//
// Solidity: function getImplementation() view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryCaller) GetImplementation(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _ProxyWalletFactory.contract.Call(opts, &out, "getImplementation")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// GetImplementation is a free data retrieval call binding the contract method 0xaaf10f42.
//
// Solidity: function getImplementation() view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactorySession) GetImplementation() (common.Address, error) {
	return _ProxyWalletFactory.Contract.GetImplementation(&_ProxyWalletFactory.CallOpts)
}

// GetImplementation is a free data retrieval call binding the contract method 0xaaf10f42.
//
// Solidity: function getImplementation() view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryCallerSession) GetImplementation() (common.Address, error) {
	return _ProxyWalletFactory.Contract.GetImplementation(&_ProxyWalletFactory.CallOpts)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryCaller) Implementation(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _ProxyWalletFactory.contract.Call(opts, &out, "implementation")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactorySession) Implementation() (common.Address, error) {
	return _ProxyWalletFactory.Contract.Implementation(&_ProxyWalletFactory.CallOpts)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryCallerSession) Implementation() (common.Address, error) {
	return _ProxyWalletFactory.Contract.Implementation(&_ProxyWalletFactory.CallOpts)
}

// CloneConstructor is a paid mutator transaction binding the contract method 0x52e831dd.
//
// Solidity: function cloneConstructor(bytes ) returns()
func (_ProxyWalletFactory *ProxyWalletFactoryTransactor) CloneConstructor(opts *bind.TransactOpts, arg0 []byte) (*types.Transaction, error) {
	return _ProxyWalletFactory.contract.Transact(opts, "cloneConstructor", arg0)
}

// CloneConstructor is a paid mutator transaction binding the contract method 0x52e831dd.
//
// Solidity: function cloneConstructor(bytes ) returns()
func (_ProxyWalletFactory *ProxyWalletFactorySession) CloneConstructor(arg0 []byte) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.CloneConstructor(&_ProxyWalletFactory.TransactOpts, arg0)
}

// CloneConstructor is a paid mutator transaction binding the contract method 0x52e831dd.
//
// Solidity: function cloneConstructor(bytes ) returns()
func (_ProxyWalletFactory *ProxyWalletFactoryTransactorSession) CloneConstructor(arg0 []byte) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.CloneConstructor(&_ProxyWalletFactory.TransactOpts, arg0)
}

// MaybeMakeWallet is a paid mutator transaction binding the contract method 0xbffaced4.
//
// Solidity: function maybeMakeWallet(address owner) returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryTransactor) MaybeMakeWallet(opts *bind.TransactOpts, owner common.Address) (*types.Transaction, error) {
	return _ProxyWalletFactory.contract.Transact(opts, "maybeMakeWallet", owner)
}

// MaybeMakeWallet is a paid mutator transaction binding the contract method 0xbffaced4.
//
// Solidity: function maybeMakeWallet(address owner) returns(address)
func (_ProxyWalletFactory *ProxyWalletFactorySession) MaybeMakeWallet(owner common.Address) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.MaybeMakeWallet(&_ProxyWalletFactory.TransactOpts, owner)
}

// MaybeMakeWallet is a paid mutator transaction binding the contract method 0xbffaced4.
//
// Solidity: function maybeMakeWallet(address owner) returns(address)
func (_ProxyWalletFactory *ProxyWalletFactoryTransactorSession) MaybeMakeWallet(owner common.Address) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.MaybeMakeWallet(&_ProxyWalletFactory.TransactOpts, owner)
}

// Proxy is a paid mutator transaction binding the contract method 0x34ee9791.
//
// Solidity: function proxy((uint8,address,uint256,bytes)[] calls) payable returns(bytes[] returnValues)
func (_ProxyWalletFactory *ProxyWalletFactoryTransactor) Proxy(opts *bind.TransactOpts, calls []ProxyWalletFactoryProxyCall) (*types.Transaction, error) {
	return _ProxyWalletFactory.contract.Transact(opts, "proxy", calls)
}

// Proxy is a paid mutator transaction binding the contract method 0x34ee9791.
//
// Solidity: function proxy((uint8,address,uint256,bytes)[] calls) payable returns(bytes[] returnValues)
func (_ProxyWalletFactory *ProxyWalletFactorySession) Proxy(calls []ProxyWalletFactoryProxyCall) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.Proxy(&_ProxyWalletFactory.TransactOpts, calls)
}

// Proxy is a paid mutator transaction binding the contract method 0x34ee9791.
//
// Solidity: function proxy((uint8,address,uint256,bytes)[] calls) payable returns(bytes[] returnValues)
func (_ProxyWalletFactory *ProxyWalletFactoryTransactorSession) Proxy(calls []ProxyWalletFactoryProxyCall) (*types.Transaction, error) {
	return _ProxyWalletFactory.Contract.Proxy(&_ProxyWalletFactory.TransactOpts, calls)
}

// ProxyWalletFactoryWalletCreatedIterator is returned from FilterWalletCreated and is used to iterate over the raw logs and unpacked data for WalletCreated events raised by the ProxyWalletFactory contract.
type ProxyWalletFactoryWalletCreatedIterator struct {
	Event *ProxyWalletFactoryWalletCreated // Event containing the contract specifics and raw log

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
func (it *ProxyWalletFactoryWalletCreatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(ProxyWalletFactoryWalletCreated)
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
		it.Event = new(ProxyWalletFactoryWalletCreated)
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
func (it *ProxyWalletFactoryWalletCreatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *ProxyWalletFactoryWalletCreatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// ProxyWalletFactoryWalletCreated represents a WalletCreated event raised by the ProxyWalletFactory contract.
type ProxyWalletFactoryWalletCreated struct {
	Owner  common.Address
	Wallet common.Address
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterWalletCreated is a free log retrieval operation binding the contract event 0x5b03bfed1c14a02bdeceb5fa582eb1a5765fc0bc64ca0e6af4c20afc9487f081.
//
// Solidity: event WalletCreated(address indexed owner, address wallet)
func (_ProxyWalletFactory *ProxyWalletFactoryFilterer) FilterWalletCreated(opts *bind.FilterOpts, owner []common.Address) (*ProxyWalletFactoryWalletCreatedIterator, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _ProxyWalletFactory.contract.FilterLogs(opts, "WalletCreated", ownerRule)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletFactoryWalletCreatedIterator{contract: _ProxyWalletFactory.contract, event: "WalletCreated", logs: logs, sub: sub}, nil
}

// WatchWalletCreated is a free log subscription operation binding the contract event 0x5b03bfed1c14a02bdeceb5fa582eb1a5765fc0bc64ca0e6af4c20afc9487f081.
//
// Solidity: event WalletCreated(address indexed owner, address wallet)
func (_ProxyWalletFactory *ProxyWalletFactoryFilterer) WatchWalletCreated(opts *bind.WatchOpts, sink chan<- *ProxyWalletFactoryWalletCreated, owner []common.Address) (event.Subscription, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _ProxyWalletFactory.contract.WatchLogs(opts, "WalletCreated", ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(ProxyWalletFactoryWalletCreated)
				if err := _ProxyWalletFactory.contract.UnpackLog(event, "WalletCreated", log); err != nil {
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

// ParseWalletCreated is a log parse operation binding the contract event 0x5b03bfed1c14a02bdeceb5fa582eb1a5765fc0bc64ca0e6af4c20afc9487f081.
//
// Solidity: event WalletCreated(address indexed owner, address wallet)
func (_ProxyWalletFactory *ProxyWalletFactoryFilterer) ParseWalletCreated(log types.Log) (*ProxyWalletFactoryWalletCreated, error) {
	event := new(ProxyWalletFactoryWalletCreated)
	if err := _ProxyWalletFactory.contract.UnpackLog(event, "WalletCreated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
