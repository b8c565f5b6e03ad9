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

// DepositWalletMetaData contains all meta data concerning the DepositWallet contract.
var DepositWalletMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"AlreadyInitialized\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"name\":\"CallFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Expired\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotOwner\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"name\":\"Executed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"Initialized\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"execute\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"executeWithSignature\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"},{\"internalType\":\"uint256\",\"name\":\"_nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"name\":\"getExecuteHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_owner\",\"type\":\"address\"}],\"name\":\"initialize\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"isValidSignature\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"nonce\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155BatchReceived\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155Received\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b50610cf88061001c5f395ff3fe60806040526004361061009d575f3560e01c8063b61d27f611610062578063b61d27f61461018d578063bc197c81146101a0578063c4d66de8146101ce578063c9b0cef6146101ef578063f23a6e611461020e578063f698da251461023a575f5ffd5b806301ffc9a7146100a85780630993d763146100dc5780631626ba7e146100fc5780638da5cb5b14610134578063affed0e01461016a575f5ffd5b366100a457005b5f5ffd5b3480156100b3575f5ffd5b506100c76100c2366004610822565b61024e565b60405190151581526020015b60405180910390f35b6100ef6100ea3660046108a9565b610284565b6040516100d3919061093b565b348015610107575f5ffd5b5061011b610116366004610970565b61032e565b6040516001600160e01b031990911681526020016100d3565b34801561013f575f5ffd5b505f54610152906001600160a01b031681565b6040516001600160a01b0390911681526020016100d3565b348015610175575f5ffd5b5061017f60015481565b6040519081526020016100d3565b6100ef61019b3660046109b8565b610389565b3480156101ab575f5ffd5b5061011b6101ba366004610a4f565b63bc197c8160e01b98975050505050505050565b3480156101d9575f5ffd5b506101ed6101e8366004610b0e565b6103cb565b005b3480156101fa575f5ffd5b5061017f610209366004610b27565b610461565b348015610219575f5ffd5b5061011b610228366004610b8e565b63f23a6e6160e01b9695505050505050565b348015610245575f5ffd5b5061017f610559565b5f630271189760e51b6001600160e01b03198316148061027e57506301ffc9a760e01b6001600160e01b03198316145b92915050565b6060831580159061029457508342115b156102b257604051630407b05b60e31b815260040160405180910390fd5b5f6102c3898989896001548a610461565b90505f6102d18286866105fd565b90506001600160a01b03811615806102f657505f546001600160a01b03828116911614155b1561031457604051638baa579f60e01b815260040160405180910390fd5b6103208a8a8a8a61072e565b9a9950505050505050505050565b5f80546001600160a01b03166103458585856105fd565b6001600160a01b031614801561036457505f546001600160a01b031615155b610376576001600160e01b031961037f565b630b135d3f60e11b5b90505b9392505050565b5f546060906001600160a01b031633146103b6576040516330cd747160e01b815260040160405180910390fd5b6103c28585858561072e565b95945050505050565b5f546001600160a01b0316156103f35760405162dc149f60e41b815260040160405180910390fd5b6001600160a01b03811661041a576040516330cd747160e01b815260040160405180910390fd5b5f80546001600160a01b0319166001600160a01b038316908117825560405190917f908408e307fc569b417f6cbec5d5a06f44a0a505ac0479b47d421a4b2fd6a1e691a250565b5f5f7fc7bebd14569681206f6c231f5fc7f6cf73a72dd47bc5b7bea3d21ad0080a2ff788888888604051610496929190610c01565b6040519081900381206104de94939291899089906020019586526001600160a01b0394909416602086015260408501929092526060840152608083015260a082015260c00190565b60408051601f1981840301815291905280516020909101209050601960f81b600160f81b61050a610559565b6040516001600160f81b03199384166020820152929091166021830152602282015260428101829052606201604051602081830303815290604052805190602001209150509695505050505050565b604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527fd682b529a17cda19aa275f3a050608f9e9401fadd1b0d233d81519972295828b918101919091527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b5f6041821461060d57505f610382565b5f61061b6020828587610c10565b61062491610c37565b90505f610635604060208688610c10565b61063e91610c37565b90505f8585604081811061065457610654610c54565b919091013560f81c915050601b81101561067657610673601b82610c7c565b90505b8060ff16601b1415801561068e57508060ff16601c14155b806106b857507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082115b156106c8575f9350505050610382565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa158015610718573d5f5f3e3d5ffd5b5050604051601f19015198975050505050505050565b600180546060915f91908261074283610c95565b9190505590505f866001600160a01b0316868686604051610764929190610c01565b5f6040518083038185875af1925050503d805f811461079e576040519150601f19603f3d011682016040523d82523d5f602084013e6107a3565b606091505b5093509050806107d1578260405163a5fa8d2b60e01b81526004016107c8919061093b565b60405180910390fd5b866001600160a01b03167f172496cba6934f7ad29d2663464f0cd2fe4d2d42e6959038639c71c6d0ce0318878787866040516108109493929190610cad565b60405180910390a25050949350505050565b5f60208284031215610832575f5ffd5b81356001600160e01b031981168114610382575f5ffd5b80356001600160a01b038116811461085f575f5ffd5b919050565b5f5f83601f840112610874575f5ffd5b50813567ffffffffffffffff81111561088b575f5ffd5b6020830191508360208285010111156108a2575f5ffd5b9250929050565b5f5f5f5f5f5f5f60a0888a0312156108bf575f5ffd5b6108c888610849565b965060208801359550604088013567ffffffffffffffff8111156108ea575f5ffd5b6108f68a828b01610864565b90965094505060608801359250608088013567ffffffffffffffff81111561091c575f5ffd5b6109288a828b01610864565b989b979a50959850939692959293505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f5f5f60408486031215610982575f5ffd5b83359250602084013567ffffffffffffffff81111561099f575f5ffd5b6109ab86828701610864565b9497909650939450505050565b5f5f5f5f606085870312156109cb575f5ffd5b6109d485610849565b935060208501359250604085013567ffffffffffffffff8111156109f6575f5ffd5b610a0287828801610864565b95989497509550505050565b5f5f83601f840112610a1e575f5ffd5b50813567ffffffffffffffff811115610a35575f5ffd5b6020830191508360208260051b85010111156108a2575f5ffd5b5f5f5f5f5f5f5f5f60a0898b031215610a66575f5ffd5b610a6f89610849565b9750610a7d60208a01610849565b9650604089013567ffffffffffffffff811115610a98575f5ffd5b610aa48b828c01610a0e565b909750955050606089013567ffffffffffffffff811115610ac3575f5ffd5b610acf8b828c01610a0e565b909550935050608089013567ffffffffffffffff811115610aee575f5ffd5b610afa8b828c01610864565b999c989b5096995094979396929594505050565b5f60208284031215610b1e575f5ffd5b61038282610849565b5f5f5f5f5f5f60a08789031215610b3c575f5ffd5b610b4587610849565b955060208701359450604087013567ffffffffffffffff811115610b67575f5ffd5b610b7389828a01610864565b979a9699509760608101359660809091013595509350505050565b5f5f5f5f5f5f60a08789031215610ba3575f5ffd5b610bac87610849565b9550610bba60208801610849565b94506040870135935060608701359250608087013567ffffffffffffffff811115610be3575f5ffd5b610bef89828a01610864565b979a9699509497509295939492505050565b818382375f9101908152919050565b5f5f85851115610c1e575f5ffd5b83861115610c2a575f5ffd5b5050820193919092039150565b8035602083101561027e575f19602084900360031b1b1692915050565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52601160045260245ffd5b60ff818116838216019081111561027e5761027e610c68565b5f60018201610ca657610ca6610c68565b5060010190565b84815260606020820152826060820152828460808301375f608084830101525f6080601f19601f86011683010190508260408301529594505050505056fea164736f6c634300081c000a",
}

// DepositWalletABI is the input ABI used to generate the binding from.
// Deprecated: Use DepositWalletMetaData.ABI instead.
var DepositWalletABI = DepositWalletMetaData.ABI

// DepositWalletBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use DepositWalletMetaData.Bin instead.
var DepositWalletBin = DepositWalletMetaData.Bin

// DeployDepositWallet deploys a new Ethereum contract, binding an instance of DepositWallet to it.
func DeployDepositWallet(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *DepositWallet, error) {
	parsed, err := DepositWalletMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(DepositWalletBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &DepositWallet{DepositWalletCaller: DepositWalletCaller{contract: contract}, DepositWalletTransactor: DepositWalletTransactor{contract: contract}, DepositWalletFilterer: DepositWalletFilterer{contract: contract}}, nil
}

// DepositWallet is an auto generated Go binding around an Ethereum contract.
type DepositWallet struct {
	DepositWalletCaller     // Read-only binding to the contract
	DepositWalletTransactor // Write-only binding to the contract
	DepositWalletFilterer   // Log filterer for contract events
}

// DepositWalletCaller is an auto generated read-only Go binding around an Ethereum contract.
type DepositWalletCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositWalletTransactor is an auto generated write-only Go binding around an Ethereum contract.
type DepositWalletTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositWalletFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type DepositWalletFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositWalletSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type DepositWalletSession struct {
	Contract     *DepositWallet    // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// DepositWalletCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type DepositWalletCallerSession struct {
	Contract *DepositWalletCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts        // Call options to use throughout this session
}

// DepositWalletTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type DepositWalletTransactorSession struct {
	Contract     *DepositWalletTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts        // Transaction auth options to use throughout this session
}

// DepositWalletRaw is an auto generated low-level Go binding around an Ethereum contract.
type DepositWalletRaw struct {
	Contract *DepositWallet // Generic contract binding to access the raw methods on
}

// DepositWalletCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type DepositWalletCallerRaw struct {
	Contract *DepositWalletCaller // Generic read-only contract binding to access the raw methods on
}

// DepositWalletTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type DepositWalletTransactorRaw struct {
	Contract *DepositWalletTransactor // Generic write-only contract binding to access the raw methods on
}

// NewDepositWallet creates a new instance of DepositWallet, bound to a specific deployed contract.
func NewDepositWallet(address common.Address, backend bind.ContractBackend) (*DepositWallet, error) {
	contract, err := bindDepositWallet(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &DepositWallet{DepositWalletCaller: DepositWalletCaller{contract: contract}, DepositWalletTransactor: DepositWalletTransactor{contract: contract}, DepositWalletFilterer: DepositWalletFilterer{contract: contract}}, nil
}

// NewDepositWalletCaller creates a new read-only instance of DepositWallet, bound to a specific deployed contract.
func NewDepositWalletCaller(address common.Address, caller bind.ContractCaller) (*DepositWalletCaller, error) {
	contract, err := bindDepositWallet(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &DepositWalletCaller{contract: contract}, nil
}

// NewDepositWalletTransactor creates a new write-only instance of DepositWallet, bound to a specific deployed contract.
func NewDepositWalletTransactor(address common.Address, transactor bind.ContractTransactor) (*DepositWalletTransactor, error) {
	contract, err := bindDepositWallet(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &DepositWalletTransactor{contract: contract}, nil
}

// NewDepositWalletFilterer creates a new log filterer instance of DepositWallet, bound to a specific deployed contract.
func NewDepositWalletFilterer(address common.Address, filterer bind.ContractFilterer) (*DepositWalletFilterer, error) {
	contract, err := bindDepositWallet(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &DepositWalletFilterer{contract: contract}, nil
}

// bindDepositWallet binds a generic wrapper to an already deployed contract.
func bindDepositWallet(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := DepositWalletMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_DepositWallet *DepositWalletRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _DepositWallet.Contract.DepositWalletCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_DepositWallet *DepositWalletRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositWallet.Contract.DepositWalletTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_DepositWallet *DepositWalletRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _DepositWallet.Contract.DepositWalletTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_DepositWallet *DepositWalletCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _DepositWallet.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_DepositWallet *DepositWalletTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositWallet.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_DepositWallet *DepositWalletTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _DepositWallet.Contract.contract.Transact(opts, method, params...)
}

// DomainSeparator is a free data retrieval call binding the contract method 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (_DepositWallet *DepositWalletCaller) DomainSeparator(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "domainSeparator")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// DomainSeparator is a free data retrieval call binding the contract method 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (_DepositWallet *DepositWalletSession) DomainSeparator() ([32]byte, error) {
	return _DepositWallet.Contract.DomainSeparator(&_DepositWallet.CallOpts)
}

// DomainSeparator is a free data retrieval call binding the contract method 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (_DepositWallet *DepositWalletCallerSession) DomainSeparator() ([32]byte, error) {
	return _DepositWallet.Contract.DomainSeparator(&_DepositWallet.CallOpts)
}

// GetExecuteHash is a free data retrieval call binding the contract method 0xc9b0cef6.
//
// Solidity: function getExecuteHash(address to, uint256 value, bytes data, uint256 _nonce, uint256 deadline) view returns(bytes32)
func (_DepositWallet *DepositWalletCaller) GetExecuteHash(opts *bind.CallOpts, to common.Address, value *big.Int, data []byte, _nonce *big.Int, deadline *big.Int) ([32]byte, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "getExecuteHash", to, value, data, _nonce, deadline)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetExecuteHash is a free data retrieval call binding the contract method 0xc9b0cef6.
//
// Solidity: function getExecuteHash(address to, uint256 value, bytes data, uint256 _nonce, uint256 deadline) view returns(bytes32)
func (_DepositWallet *DepositWalletSession) GetExecuteHash(to common.Address, value *big.Int, data []byte, _nonce *big.Int, deadline *big.Int) ([32]byte, error) {
	return _DepositWallet.Contract.GetExecuteHash(&_DepositWallet.CallOpts, to, value, data, _nonce, deadline)
}

// GetExecuteHash is a free data retrieval call binding the contract method 0xc9b0cef6.
//
// Solidity: function getExecuteHash(address to, uint256 value, bytes data, uint256 _nonce, uint256 deadline) view returns(bytes32)
func (_DepositWallet *DepositWalletCallerSession) GetExecuteHash(to common.Address, value *big.Int, data []byte, _nonce *big.Int, deadline *big.Int) ([32]byte, error) {
	return _DepositWallet.Contract.GetExecuteHash(&_DepositWallet.CallOpts, to, value, data, _nonce, deadline)
}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_DepositWallet *DepositWalletCaller) IsValidSignature(opts *bind.CallOpts, hash [32]byte, signature []byte) ([4]byte, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "isValidSignature", hash, signature)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_DepositWallet *DepositWalletSession) IsValidSignature(hash [32]byte, signature []byte) ([4]byte, error) {
	return _DepositWallet.Contract.IsValidSignature(&_DepositWallet.CallOpts, hash, signature)
}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_DepositWallet *DepositWalletCallerSession) IsValidSignature(hash [32]byte, signature []byte) ([4]byte, error) {
	return _DepositWallet.Contract.IsValidSignature(&_DepositWallet.CallOpts, hash, signature)
}

// Nonce is a free data retrieval call binding the contract method 0xaffed0e0.
//
// Solidity: function nonce() view returns(uint256)
func (_DepositWallet *DepositWalletCaller) Nonce(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "nonce")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Nonce is a free data retrieval call binding the contract method 0xaffed0e0.
//
// Solidity: function nonce() view returns(uint256)
func (_DepositWallet *DepositWalletSession) Nonce() (*big.Int, error) {
	return _DepositWallet.Contract.Nonce(&_DepositWallet.CallOpts)
}

// Nonce is a free data retrieval call binding the contract method 0xaffed0e0.
//
// Solidity: function nonce() view returns(uint256)
func (_DepositWallet *DepositWalletCallerSession) Nonce() (*big.Int, error) {
	return _DepositWallet.Contract.Nonce(&_DepositWallet.CallOpts)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_DepositWallet *DepositWalletCaller) OnERC1155BatchReceived(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "onERC1155BatchReceived", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_DepositWallet *DepositWalletSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _DepositWallet.Contract.OnERC1155BatchReceived(&_DepositWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_DepositWallet *DepositWalletCallerSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _DepositWallet.Contract.OnERC1155BatchReceived(&_DepositWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_DepositWallet *DepositWalletCaller) OnERC1155Received(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "onERC1155Received", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_DepositWallet *DepositWalletSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _DepositWallet.Contract.OnERC1155Received(&_DepositWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_DepositWallet *DepositWalletCallerSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _DepositWallet.Contract.OnERC1155Received(&_DepositWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_DepositWallet *DepositWalletCaller) Owner(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "owner")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_DepositWallet *DepositWalletSession) Owner() (common.Address, error) {
	return _DepositWallet.Contract.Owner(&_DepositWallet.CallOpts)
}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_DepositWallet *DepositWalletCallerSession) Owner() (common.Address, error) {
	return _DepositWallet.Contract.Owner(&_DepositWallet.CallOpts)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_DepositWallet *DepositWalletCaller) SupportsInterface(opts *bind.CallOpts, interfaceId [4]byte) (bool, error) {
	var out []interface{}
	err := _DepositWallet.contract.Call(opts, &out, "supportsInterface", interfaceId)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_DepositWallet *DepositWalletSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _DepositWallet.Contract.SupportsInterface(&_DepositWallet.CallOpts, interfaceId)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_DepositWallet *DepositWalletCallerSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _DepositWallet.Contract.SupportsInterface(&_DepositWallet.CallOpts, interfaceId)
}

// Execute is a paid mutator transaction binding the contract method 0xb61d27f6.
//
// Solidity: function execute(address to, uint256 value, bytes data) payable returns(bytes)
func (_DepositWallet *DepositWalletTransactor) Execute(opts *bind.TransactOpts, to common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	return _DepositWallet.contract.Transact(opts, "execute", to, value, data)
}

// Execute is a paid mutator transaction binding the contract method 0xb61d27f6.
//
// Solidity: function execute(address to, uint256 value, bytes data) payable returns(bytes)
func (_DepositWallet *DepositWalletSession) Execute(to common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	return _DepositWallet.Contract.Execute(&_DepositWallet.TransactOpts, to, value, data)
}

// Execute is a paid mutator transaction binding the contract method 0xb61d27f6.
//
// Solidity: function execute(address to, uint256 value, bytes data) payable returns(bytes)
func (_DepositWallet *DepositWalletTransactorSession) Execute(to common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	return _DepositWallet.Contract.Execute(&_DepositWallet.TransactOpts, to, value, data)
}

// ExecuteWithSignature is a paid mutator transaction binding the contract method 0x0993d763.
//
// Solidity: function executeWithSignature(address to, uint256 value, bytes data, uint256 deadline, bytes signature) payable returns(bytes)
func (_DepositWallet *DepositWalletTransactor) ExecuteWithSignature(opts *bind.TransactOpts, to common.Address, value *big.Int, data []byte, deadline *big.Int, signature []byte) (*types.Transaction, error) {
	return _DepositWallet.contract.Transact(opts, "executeWithSignature", to, value, data, deadline, signature)
}

// ExecuteWithSignature is a paid mutator transaction binding the contract method 0x0993d763.
//
// Solidity: function executeWithSignature(address to, uint256 value, bytes data, uint256 deadline, bytes signature) payable returns(bytes)
func (_DepositWallet *DepositWalletSession) ExecuteWithSignature(to common.Address, value *big.Int, data []byte, deadline *big.Int, signature []byte) (*types.Transaction, error) {
	return _DepositWallet.Contract.ExecuteWithSignature(&_DepositWallet.TransactOpts, to, value, data, deadline, signature)
}

// ExecuteWithSignature is a paid mutator transaction binding the contract method 0x0993d763.
//
// Solidity: function executeWithSignature(address to, uint256 value, bytes data, uint256 deadline, bytes signature) payable returns(bytes)
func (_DepositWallet *DepositWalletTransactorSession) ExecuteWithSignature(to common.Address, value *big.Int, data []byte, deadline *big.Int, signature []byte) (*types.Transaction, error) {
	return _DepositWallet.Contract.ExecuteWithSignature(&_DepositWallet.TransactOpts, to, value, data, deadline, signature)
}

// Initialize is a paid mutator transaction binding the contract method 0xc4d66de8.
//
// Solidity: function initialize(address _owner) returns()
func (_DepositWallet *DepositWalletTransactor) Initialize(opts *bind.TransactOpts, _owner common.Address) (*types.Transaction, error) {
	return _DepositWallet.contract.Transact(opts, "initialize", _owner)
}

// Initialize is a paid mutator transaction binding the contract method 0xc4d66de8.
//
// Solidity: function initialize(address _owner) returns()
func (_DepositWallet *DepositWalletSession) Initialize(_owner common.Address) (*types.Transaction, error) {
	return _DepositWallet.Contract.Initialize(&_DepositWallet.TransactOpts, _owner)
}

// Initialize is a paid mutator transaction binding the contract method 0xc4d66de8.
//
// Solidity: function initialize(address _owner) returns()
func (_DepositWallet *DepositWalletTransactorSession) Initialize(_owner common.Address) (*types.Transaction, error) {
	return _DepositWallet.Contract.Initialize(&_DepositWallet.TransactOpts, _owner)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_DepositWallet *DepositWalletTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositWallet.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_DepositWallet *DepositWalletSession) Receive() (*types.Transaction, error) {
	return _DepositWallet.Contract.Receive(&_DepositWallet.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_DepositWallet *DepositWalletTransactorSession) Receive() (*types.Transaction, error) {
	return _DepositWallet.Contract.Receive(&_DepositWallet.TransactOpts)
}

// DepositWalletExecutedIterator is returned from FilterExecuted and is used to iterate over the raw logs and unpacked data for Executed events raised by the DepositWallet contract.
type DepositWalletExecutedIterator struct {
	Event *DepositWalletExecuted // Event containing the contract specifics and raw log

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
func (it *DepositWalletExecutedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(DepositWalletExecuted)
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
		it.Event = new(DepositWalletExecuted)
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
func (it *DepositWalletExecutedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *DepositWalletExecutedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// DepositWalletExecuted represents a Executed event raised by the DepositWallet contract.
type DepositWalletExecuted struct {
	To    common.Address
	Value *big.Int
	Data  []byte
	Nonce *big.Int
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterExecuted is a free log retrieval operation binding the contract event 0x172496cba6934f7ad29d2663464f0cd2fe4d2d42e6959038639c71c6d0ce0318.
//
// Solidity: event Executed(address indexed to, uint256 value, bytes data, uint256 nonce)
func (_DepositWallet *DepositWalletFilterer) FilterExecuted(opts *bind.FilterOpts, to []common.Address) (*DepositWalletExecutedIterator, error) {

	var toRule []interface{}
	for _, toItem := range to {
		toRule = append(toRule, toItem)
	}

	logs, sub, err := _DepositWallet.contract.FilterLogs(opts, "Executed", toRule)
	if err != nil {
		return nil, err
	}
	return &DepositWalletExecutedIterator{contract: _DepositWallet.contract, event: "Executed", logs: logs, sub: sub}, nil
}

// WatchExecuted is a free log subscription operation binding the contract event 0x172496cba6934f7ad29d2663464f0cd2fe4d2d42e6959038639c71c6d0ce0318.
//
// Solidity: event Executed(address indexed to, uint256 value, bytes data, uint256 nonce)
func (_DepositWallet *DepositWalletFilterer) WatchExecuted(opts *bind.WatchOpts, sink chan<- *DepositWalletExecuted, to []common.Address) (event.Subscription, error) {

	var toRule []interface{}
	for _, toItem := range to {
		toRule = append(toRule, toItem)
	}

	logs, sub, err := _DepositWallet.contract.WatchLogs(opts, "Executed", toRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(DepositWalletExecuted)
				if err := _DepositWallet.contract.UnpackLog(event, "Executed", log); err != nil {
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

// ParseExecuted is a log parse operation binding the contract event 0x172496cba6934f7ad29d2663464f0cd2fe4d2d42e6959038639c71c6d0ce0318.
//
// Solidity: event Executed(address indexed to, uint256 value, bytes data, uint256 nonce)
func (_DepositWallet *DepositWalletFilterer) ParseExecuted(log types.Log) (*DepositWalletExecuted, error) {
	event := new(DepositWalletExecuted)
	if err := _DepositWallet.contract.UnpackLog(event, "Executed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// DepositWalletInitializedIterator is returned from FilterInitialized and is used to iterate over the raw logs and unpacked data for Initialized events raised by the DepositWallet contract.
type DepositWalletInitializedIterator struct {
	Event *DepositWalletInitialized // Event containing the contract specifics and raw log

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
func (it *DepositWalletInitializedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(DepositWalletInitialized)
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
		it.Event = new(DepositWalletInitialized)
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
func (it *DepositWalletInitializedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *DepositWalletInitializedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// DepositWalletInitialized represents a Initialized event raised by the DepositWallet contract.
type DepositWalletInitialized struct {
	Owner common.Address
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterInitialized is a free log retrieval operation binding the contract event 0x908408e307fc569b417f6cbec5d5a06f44a0a505ac0479b47d421a4b2fd6a1e6.
//
// Solidity: event Initialized(address indexed owner)
func (_DepositWallet *DepositWalletFilterer) FilterInitialized(opts *bind.FilterOpts, owner []common.Address) (*DepositWalletInitializedIterator, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _DepositWallet.contract.FilterLogs(opts, "Initialized", ownerRule)
	if err != nil {
		return nil, err
	}
	return &DepositWalletInitializedIterator{contract: _DepositWallet.contract, event: "Initialized", logs: logs, sub: sub}, nil
}

// WatchInitialized is a free log subscription operation binding the contract event 0x908408e307fc569b417f6cbec5d5a06f44a0a505ac0479b47d421a4b2fd6a1e6.
//
// Solidity: event Initialized(address indexed owner)
func (_DepositWallet *DepositWalletFilterer) WatchInitialized(opts *bind.WatchOpts, sink chan<- *DepositWalletInitialized, owner []common.Address) (event.Subscription, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _DepositWallet.contract.WatchLogs(opts, "Initialized", ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(DepositWalletInitialized)
				if err := _DepositWallet.contract.UnpackLog(event, "Initialized", log); err != nil {
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

// ParseInitialized is a log parse operation binding the contract event 0x908408e307fc569b417f6cbec5d5a06f44a0a505ac0479b47d421a4b2fd6a1e6.
//
// Solidity: event Initialized(address indexed owner)
func (_DepositWallet *DepositWalletFilterer) ParseInitialized(log types.Log) (*DepositWalletInitialized, error) {
	event := new(DepositWalletInitialized)
	if err := _DepositWallet.contract.UnpackLog(event, "Initialized", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
