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

// ProxyWalletWalletCall is an auto generated low-level Go binding around an user-defined struct.
type ProxyWalletWalletCall struct {
	TypeCode uint8
	To       common.Address
	Value    *big.Int
	Data     []byte
}

// ProxyWalletMetaData contains all meta data concerning the ProxyWallet contract.
var ProxyWalletMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"InvalidCallType\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotFactory\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"factory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"f\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155BatchReceived\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155Received\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"enumProxyWallet.CallType\",\"name\":\"typeCode\",\"type\":\"uint8\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structProxyWallet.WalletCall[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"proxy\",\"outputs\":[{\"internalType\":\"bytes[]\",\"name\":\"returnValues\",\"type\":\"bytes[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506107c28061001c5f395ff3fe60806040526004361061004c575f3560e01c806301ffc9a71461005757806334ee97911461008b578063bc197c81146100ab578063c45a0155146100f2578063f23a6e6114610138575f5ffd5b3661005357005b5f5ffd5b348015610062575f5ffd5b5061007661007136600461040e565b610164565b60405190151581526020015b60405180910390f35b61009e610099366004610484565b61019a565b60405161008291906104c3565b3480156100b6575f5ffd5b506100d96100c53660046105a0565b63bc197c8160e01b98975050505050505050565b6040516001600160e01b03199091168152602001610082565b3480156100fd575f5ffd5b507f220b32358f0d97cbed6ba94f7ea5525019b04c7474c7e243440d7694c05bf86e546040516001600160a01b039091168152602001610082565b348015610143575f5ffd5b506100d961015236600461065f565b63f23a6e6160e01b9695505050505050565b5f630271189760e51b6001600160e01b03198316148061019457506301ffc9a760e01b6001600160e01b03198316145b92915050565b60606101c47f220b32358f0d97cbed6ba94f7ea5525019b04c7474c7e243440d7694c05bf86e5490565b6001600160a01b0316336001600160a01b0316146101f557604051631966391b60e11b815260040160405180910390fd5b8167ffffffffffffffff81111561020e5761020e6106d2565b60405190808252806020026020018201604052801561024157816020015b606081526020019060019003908161022c5790505b5090505f5b828110156104075736848483818110610261576102616106e6565b905060200281019061027391906106fa565b90505f60606001610287602085018561072c565b600281111561029857610298610718565b03610320576102ad604084016020850161074a565b6001600160a01b031660408401356102c86060860186610763565b6040516102d69291906107a6565b5f6040518083038185875af1925050503d805f8114610310576040519150601f19603f3d011682016040523d82523d5f602084013e610315565b606091505b5090925090506103d1565b600261032f602085018561072c565b600281111561034057610340610718565b036103b157610355604084016020850161074a565b6001600160a01b031661036b6060850185610763565b6040516103799291906107a6565b5f60405180830381855af49150503d805f8114610310576040519150601f19603f3d011682016040523d82523d5f602084013e610315565b60405163171b19ff60e31b81526004810185905260240160405180910390fd5b816103de57805160208201fd5b808585815181106103f1576103f16106e6565b6020908102919091010152505050600101610246565b5092915050565b5f6020828403121561041e575f5ffd5b81356001600160e01b031981168114610435575f5ffd5b9392505050565b5f5f83601f84011261044c575f5ffd5b50813567ffffffffffffffff811115610463575f5ffd5b6020830191508360208260051b850101111561047d575f5ffd5b9250929050565b5f5f60208385031215610495575f5ffd5b823567ffffffffffffffff8111156104ab575f5ffd5b6104b78582860161043c565b90969095509350505050565b5f602082016020835280845180835260408501915060408160051b8601019250602086015f5b8281101561053b57603f19878603018452815180518087528060208301602089015e5f602082890101526020601f19601f830116880101965050506020820191506020840193506001810190506104e9565b50929695505050505050565b80356001600160a01b038116811461055d575f5ffd5b919050565b5f5f83601f840112610572575f5ffd5b50813567ffffffffffffffff811115610589575f5ffd5b60208301915083602082850101111561047d575f5ffd5b5f5f5f5f5f5f5f5f60a0898b0312156105b7575f5ffd5b6105c089610547565b97506105ce60208a01610547565b9650604089013567ffffffffffffffff8111156105e9575f5ffd5b6105f58b828c0161043c565b909750955050606089013567ffffffffffffffff811115610614575f5ffd5b6106208b828c0161043c565b909550935050608089013567ffffffffffffffff81111561063f575f5ffd5b61064b8b828c01610562565b999c989b5096995094979396929594505050565b5f5f5f5f5f5f60a08789031215610674575f5ffd5b61067d87610547565b955061068b60208801610547565b94506040870135935060608701359250608087013567ffffffffffffffff8111156106b4575f5ffd5b6106c089828a01610562565b979a9699509497509295939492505050565b634e487b7160e01b5f52604160045260245ffd5b634e487b7160e01b5f52603260045260245ffd5b5f8235607e1983360301811261070e575f5ffd5b9190910192915050565b634e487b7160e01b5f52602160045260245ffd5b5f6020828403121561073c575f5ffd5b813560038110610435575f5ffd5b5f6020828403121561075a575f5ffd5b61043582610547565b5f5f8335601e19843603018112610778575f5ffd5b83018035915067ffffffffffffffff821115610792575f5ffd5b60200191503681900382131561047d575f5ffd5b818382375f910190815291905056fea164736f6c634300081c000a",
}

// ProxyWalletABI is the input ABI used to generate the binding from.
// Deprecated: Use ProxyWalletMetaData.ABI instead.
var ProxyWalletABI = ProxyWalletMetaData.ABI

// ProxyWalletBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use ProxyWalletMetaData.Bin instead.
var ProxyWalletBin = ProxyWalletMetaData.Bin

// DeployProxyWallet deploys a new Ethereum contract, binding an instance of ProxyWallet to it.
func DeployProxyWallet(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *ProxyWallet, error) {
	parsed, err := ProxyWalletMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(ProxyWalletBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &ProxyWallet{ProxyWalletCaller: ProxyWalletCaller{contract: contract}, ProxyWalletTransactor: ProxyWalletTransactor{contract: contract}, ProxyWalletFilterer: ProxyWalletFilterer{contract: contract}}, nil
}

// ProxyWallet is an auto generated Go binding around an Ethereum contract.
type ProxyWallet struct {
	ProxyWalletCaller     // Read-only binding to the contract
	ProxyWalletTransactor // Write-only binding to the contract
	ProxyWalletFilterer   // Log filterer for contract events
}

// ProxyWalletCaller is an auto generated read-only Go binding around an Ethereum contract.
type ProxyWalletCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ProxyWalletTransactor is an auto generated write-only Go binding around an Ethereum contract.
type ProxyWalletTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ProxyWalletFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type ProxyWalletFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ProxyWalletSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type ProxyWalletSession struct {
	Contract     *ProxyWallet      // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// ProxyWalletCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type ProxyWalletCallerSession struct {
	Contract *ProxyWalletCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts      // Call options to use throughout this session
}

// ProxyWalletTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type ProxyWalletTransactorSession struct {
	Contract     *ProxyWalletTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts      // Transaction auth options to use throughout this session
}

// ProxyWalletRaw is an auto generated low-level Go binding around an Ethereum contract.
type ProxyWalletRaw struct {
	Contract *ProxyWallet // Generic contract binding to access the raw methods on
}

// ProxyWalletCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type ProxyWalletCallerRaw struct {
	Contract *ProxyWalletCaller // Generic read-only contract binding to access the raw methods on
}

// ProxyWalletTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type ProxyWalletTransactorRaw struct {
	Contract *ProxyWalletTransactor // Generic write-only contract binding to access the raw methods on
}

// NewProxyWallet creates a new instance of ProxyWallet, bound to a specific deployed contract.
func NewProxyWallet(address common.Address, backend bind.ContractBackend) (*ProxyWallet, error) {
	contract, err := bindProxyWallet(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &ProxyWallet{ProxyWalletCaller: ProxyWalletCaller{contract: contract}, ProxyWalletTransactor: ProxyWalletTransactor{contract: contract}, ProxyWalletFilterer: ProxyWalletFilterer{contract: contract}}, nil
}

// NewProxyWalletCaller creates a new read-only instance of ProxyWallet, bound to a specific deployed contract.
func NewProxyWalletCaller(address common.Address, caller bind.ContractCaller) (*ProxyWalletCaller, error) {
	contract, err := bindProxyWallet(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletCaller{contract: contract}, nil
}

// NewProxyWalletTransactor creates a new write-only instance of ProxyWallet, bound to a specific deployed contract.
func NewProxyWalletTransactor(address common.Address, transactor bind.ContractTransactor) (*ProxyWalletTransactor, error) {
	contract, err := bindProxyWallet(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletTransactor{contract: contract}, nil
}

// NewProxyWalletFilterer creates a new log filterer instance of ProxyWallet, bound to a specific deployed contract.
func NewProxyWalletFilterer(address common.Address, filterer bind.ContractFilterer) (*ProxyWalletFilterer, error) {
	contract, err := bindProxyWallet(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &ProxyWalletFilterer{contract: contract}, nil
}

// bindProxyWallet binds a generic wrapper to an already deployed contract.
func bindProxyWallet(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := ProxyWalletMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ProxyWallet *ProxyWalletRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ProxyWallet.Contract.ProxyWalletCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ProxyWallet *ProxyWalletRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ProxyWallet.Contract.ProxyWalletTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ProxyWallet *ProxyWalletRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ProxyWallet.Contract.ProxyWalletTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ProxyWallet *ProxyWalletCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ProxyWallet.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ProxyWallet *ProxyWalletTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ProxyWallet.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ProxyWallet *ProxyWalletTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ProxyWallet.Contract.contract.Transact(opts, method, params...)
}

// Factory is a free data retrieval call binding the contract method 0xc45a0155.
//
// Solidity: function factory() view returns(address f)
func (_ProxyWallet *ProxyWalletCaller) Factory(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _ProxyWallet.contract.Call(opts, &out, "factory")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Factory is a free data retrieval call binding the contract method 0xc45a0155.
//
// Solidity: function factory() view returns(address f)
func (_ProxyWallet *ProxyWalletSession) Factory() (common.Address, error) {
	return _ProxyWallet.Contract.Factory(&_ProxyWallet.CallOpts)
}

// Factory is a free data retrieval call binding the contract method 0xc45a0155.
//
// Solidity: function factory() view returns(address f)
func (_ProxyWallet *ProxyWalletCallerSession) Factory() (common.Address, error) {
	return _ProxyWallet.Contract.Factory(&_ProxyWallet.CallOpts)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_ProxyWallet *ProxyWalletCaller) OnERC1155BatchReceived(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _ProxyWallet.contract.Call(opts, &out, "onERC1155BatchReceived", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_ProxyWallet *ProxyWalletSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _ProxyWallet.Contract.OnERC1155BatchReceived(&_ProxyWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_ProxyWallet *ProxyWalletCallerSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _ProxyWallet.Contract.OnERC1155BatchReceived(&_ProxyWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_ProxyWallet *ProxyWalletCaller) OnERC1155Received(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _ProxyWallet.contract.Call(opts, &out, "onERC1155Received", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_ProxyWallet *ProxyWalletSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _ProxyWallet.Contract.OnERC1155Received(&_ProxyWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_ProxyWallet *ProxyWalletCallerSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _ProxyWallet.Contract.OnERC1155Received(&_ProxyWallet.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_ProxyWallet *ProxyWalletCaller) SupportsInterface(opts *bind.CallOpts, interfaceId [4]byte) (bool, error) {
	var out []interface{}
	err := _ProxyWallet.contract.Call(opts, &out, "supportsInterface", interfaceId)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_ProxyWallet *ProxyWalletSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _ProxyWallet.Contract.SupportsInterface(&_ProxyWallet.CallOpts, interfaceId)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_ProxyWallet *ProxyWalletCallerSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _ProxyWallet.Contract.SupportsInterface(&_ProxyWallet.CallOpts, interfaceId)
}

// Proxy is a paid mutator transaction binding the contract method 0x34ee9791.
//
// Solidity: function proxy((uint8,address,uint256,bytes)[] calls) payable returns(bytes[] returnValues)
func (_ProxyWallet *ProxyWalletTransactor) Proxy(opts *bind.TransactOpts, calls []ProxyWalletWalletCall) (*types.Transaction, error) {
	return _ProxyWallet.contract.Transact(opts, "proxy", calls)
}

// Proxy is a paid mutator transaction binding the contract method 0x34ee9791.
//
// Solidity: function proxy((uint8,address,uint256,bytes)[] calls) payable returns(bytes[] returnValues)
func (_ProxyWallet *ProxyWalletSession) Proxy(calls []ProxyWalletWalletCall) (*types.Transaction, error) {
	return _ProxyWallet.Contract.Proxy(&_ProxyWallet.TransactOpts, calls)
}

// Proxy is a paid mutator transaction binding the contract method 0x34ee9791.
//
// Solidity: function proxy((uint8,address,uint256,bytes)[] calls) payable returns(bytes[] returnValues)
func (_ProxyWallet *ProxyWalletTransactorSession) Proxy(calls []ProxyWalletWalletCall) (*types.Transaction, error) {
	return _ProxyWallet.Contract.Proxy(&_ProxyWallet.TransactOpts, calls)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_ProxyWallet *ProxyWalletTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ProxyWallet.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_ProxyWallet *ProxyWalletSession) Receive() (*types.Transaction, error) {
	return _ProxyWallet.Contract.Receive(&_ProxyWallet.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_ProxyWallet *ProxyWalletTransactorSession) Receive() (*types.Transaction, error) {
	return _ProxyWallet.Contract.Receive(&_ProxyWallet.TransactOpts)
}
