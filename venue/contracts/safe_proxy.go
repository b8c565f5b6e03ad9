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

// SafeProxyMetaData contains all meta data concerning the SafeProxy contract.
var SafeProxyMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_singleton\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"stateMutability\":\"payable\",\"type\":\"fallback\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b5060405161010f38038061010f833981016040819052602b9160a7565b6001600160a01b03811660845760405162461bcd60e51b815260206004820152601960248201527f696e76616c69642073696e676c65746f6e206164647265737300000000000000604482015260640160405180910390fd5b5f80546001600160a01b0319166001600160a01b039290921691909117905560d2565b5f6020828403121560b6575f5ffd5b81516001600160a01b038116811460cb575f5ffd5b9392505050565b6031806100de5f395ff3fe60806040525f54365f5f375f5f365f845af490503d5f5f3e80601f573d5ffd5b503d5ff3fea164736f6c634300081c000a",
}

// SafeProxyABI is the input ABI used to generate the binding from.
// Deprecated: Use SafeProxyMetaData.ABI instead.
var SafeProxyABI = SafeProxyMetaData.ABI

// SafeProxyBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SafeProxyMetaData.Bin instead.
var SafeProxyBin = SafeProxyMetaData.Bin

// DeploySafeProxy deploys a new Ethereum contract, binding an instance of SafeProxy to it.
func DeploySafeProxy(auth *bind.TransactOpts, backend bind.ContractBackend, _singleton common.Address) (common.Address, *types.Transaction, *SafeProxy, error) {
	parsed, err := SafeProxyMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SafeProxyBin), backend, _singleton)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SafeProxy{SafeProxyCaller: SafeProxyCaller{contract: contract}, SafeProxyTransactor: SafeProxyTransactor{contract: contract}, SafeProxyFilterer: SafeProxyFilterer{contract: contract}}, nil
}

// SafeProxy is an auto generated Go binding around an Ethereum contract.
type SafeProxy struct {
	SafeProxyCaller     // Read-only binding to the contract
	SafeProxyTransactor // Write-only binding to the contract
	SafeProxyFilterer   // Log filterer for contract events
}

// SafeProxyCaller is an auto generated read-only Go binding around an Ethereum contract.
type SafeProxyCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SafeProxyTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SafeProxyTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SafeProxyFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SafeProxyFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SafeProxySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SafeProxySession struct {
	Contract     *SafeProxy        // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// SafeProxyCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SafeProxyCallerSession struct {
	Contract *SafeProxyCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts    // Call options to use throughout this session
}

// SafeProxyTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SafeProxyTransactorSession struct {
	Contract     *SafeProxyTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts    // Transaction auth options to use throughout this session
}

// SafeProxyRaw is an auto generated low-level Go binding around an Ethereum contract.
type SafeProxyRaw struct {
	Contract *SafeProxy // Generic contract binding to access the raw methods on
}

// SafeProxyCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SafeProxyCallerRaw struct {
	Contract *SafeProxyCaller // Generic read-only contract binding to access the raw methods on
}

// SafeProxyTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SafeProxyTransactorRaw struct {
	Contract *SafeProxyTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSafeProxy creates a new instance of SafeProxy, bound to a specific deployed contract.
func NewSafeProxy(address common.Address, backend bind.ContractBackend) (*SafeProxy, error) {
	contract, err := bindSafeProxy(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SafeProxy{SafeProxyCaller: SafeProxyCaller{contract: contract}, SafeProxyTransactor: SafeProxyTransactor{contract: contract}, SafeProxyFilterer: SafeProxyFilterer{contract: contract}}, nil
}

// NewSafeProxyCaller creates a new read-only instance of SafeProxy, bound to a specific deployed contract.
func NewSafeProxyCaller(address common.Address, caller bind.ContractCaller) (*SafeProxyCaller, error) {
	contract, err := bindSafeProxy(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SafeProxyCaller{contract: contract}, nil
}

// NewSafeProxyTransactor creates a new write-only instance of SafeProxy, bound to a specific deployed contract.
func NewSafeProxyTransactor(address common.Address, transactor bind.ContractTransactor) (*SafeProxyTransactor, error) {
	contract, err := bindSafeProxy(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SafeProxyTransactor{contract: contract}, nil
}

// NewSafeProxyFilterer creates a new log filterer instance of SafeProxy, bound to a specific deployed contract.
func NewSafeProxyFilterer(address common.Address, filterer bind.ContractFilterer) (*SafeProxyFilterer, error) {
	contract, err := bindSafeProxy(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SafeProxyFilterer{contract: contract}, nil
}

// bindSafeProxy binds a generic wrapper to an already deployed contract.
func bindSafeProxy(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SafeProxyMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SafeProxy *SafeProxyRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SafeProxy.Contract.SafeProxyCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SafeProxy *SafeProxyRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SafeProxy.Contract.SafeProxyTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SafeProxy *SafeProxyRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SafeProxy.Contract.SafeProxyTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SafeProxy *SafeProxyCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SafeProxy.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SafeProxy *SafeProxyTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SafeProxy.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SafeProxy *SafeProxyTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SafeProxy.Contract.contract.Transact(opts, method, params...)
}

// Fallback is a paid mutator transaction binding the contract fallback function.
//
// Solidity: fallback() payable returns()
func (_SafeProxy *SafeProxyTransactor) Fallback(opts *bind.TransactOpts, calldata []byte) (*types.Transaction, error) {
	return _SafeProxy.contract.RawTransact(opts, calldata)
}

// Fallback is a paid mutator transaction binding the contract fallback function.
//
// Solidity: fallback() payable returns()
func (_SafeProxy *SafeProxySession) Fallback(calldata []byte) (*types.Transaction, error) {
	return _SafeProxy.Contract.Fallback(&_SafeProxy.TransactOpts, calldata)
}

// Fallback is a paid mutator transaction binding the contract fallback function.
//
// Solidity: fallback() payable returns()
func (_SafeProxy *SafeProxyTransactorSession) Fallback(calldata []byte) (*types.Transaction, error) {
	return _SafeProxy.Contract.Fallback(&_SafeProxy.TransactOpts, calldata)
}
