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

// DepositWalletFactoryMetaData contains all meta data concerning the DepositWalletFactory contract.
var DepositWalletFactoryMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"DeploymentFailed\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"wallet\",\"type\":\"address\"}],\"name\":\"WalletDeployed\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"deploy\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"wallet\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"implementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"walletOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506103338061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061003f575f3560e01c80631982640c146100435780634c96a389146100725780635c60da1b14610085575b5f5ffd5b6100566100513660046102f9565b610097565b6040516001600160a01b03909116815260200160405180910390f35b6100566100803660046102f9565b610144565b5f54610056906001600160a01b031681565b604080516001600160a01b03831660208201525f9182916001600160f81b031991309101604051602081830303815290604052805190602001206100d961028f565b805160209182012060405161012595949392016001600160f81b031994909416845260609290921b6bffffffffffffffffffffffff191660018401526015830152603582015260550190565b60408051601f1981840301815291905280516020909101209392505050565b5f61014e82610097565b90506001600160a01b0381163b1561016557919050565b5f61016e61028f565b604080516001600160a01b03861660208201529192505f91016040516020818303038152906040528051906020012090505f818351602085015ff590506001600160a01b03811615806101d35750836001600160a01b0316816001600160a01b031614155b156101f157604051633011642560e01b815260040160405180910390fd5b60405163189acdbd60e31b81526001600160a01b03868116600483015282169063c4d66de8906024015f604051808303815f87803b158015610231575f5ffd5b505af1158015610243573d5f5f3e3d5ffd5b50506040516001600160a01b038481168252881692507ff25144576b87c0db53fd13e964c2b18299ee19d7d44d4b2636144644acff745b915060200160405180910390a2505050919050565b5f54604051733d602d80600a3d3981f3363d3d373d3d3d363d7360601b60208201526bffffffffffffffffffffffff19606092831b1660348201526e5af43d82803e903d91602b57fd5bf360881b6048820152605701604051602081830303815290604052905090565b5f60208284031215610309575f5ffd5b81356001600160a01b038116811461031f575f5ffd5b939250505056fea164736f6c634300081c000a",
}

// DepositWalletFactoryABI is the input ABI used to generate the binding from.
// Deprecated: Use DepositWalletFactoryMetaData.ABI instead.
var DepositWalletFactoryABI = DepositWalletFactoryMetaData.ABI

// DepositWalletFactoryBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use DepositWalletFactoryMetaData.Bin instead.
var DepositWalletFactoryBin = DepositWalletFactoryMetaData.Bin

// DeployDepositWalletFactory deploys a new Ethereum contract, binding an instance of DepositWalletFactory to it.
func DeployDepositWalletFactory(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *DepositWalletFactory, error) {
	parsed, err := DepositWalletFactoryMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(DepositWalletFactoryBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &DepositWalletFactory{DepositWalletFactoryCaller: DepositWalletFactoryCaller{contract: contract}, DepositWalletFactoryTransactor: DepositWalletFactoryTransactor{contract: contract}, DepositWalletFactoryFilterer: DepositWalletFactoryFilterer{contract: contract}}, nil
}

// DepositWalletFactory is an auto generated Go binding around an Ethereum contract.
type DepositWalletFactory struct {
	DepositWalletFactoryCaller     // Read-only binding to the contract
	DepositWalletFactoryTransactor // Write-only binding to the contract
	DepositWalletFactoryFilterer   // Log filterer for contract events
}

// DepositWalletFactoryCaller is an auto generated read-only Go binding around an Ethereum contract.
type DepositWalletFactoryCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositWalletFactoryTransactor is an auto generated write-only Go binding around an Ethereum contract.
type DepositWalletFactoryTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositWalletFactoryFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type DepositWalletFactoryFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositWalletFactorySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type DepositWalletFactorySession struct {
	Contract     *DepositWalletFactory // Generic contract binding to set the session for
	CallOpts     bind.CallOpts         // Call options to use throughout this session
	TransactOpts bind.TransactOpts     // Transaction auth options to use throughout this session
}

// DepositWalletFactoryCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type DepositWalletFactoryCallerSession struct {
	Contract *DepositWalletFactoryCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts               // Call options to use throughout this session
}

// DepositWalletFactoryTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type DepositWalletFactoryTransactorSession struct {
	Contract     *DepositWalletFactoryTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts               // Transaction auth options to use throughout this session
}

// DepositWalletFactoryRaw is an auto generated low-level Go binding around an Ethereum contract.
type DepositWalletFactoryRaw struct {
	Contract *DepositWalletFactory // Generic contract binding to access the raw methods on
}

// DepositWalletFactoryCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type DepositWalletFactoryCallerRaw struct {
	Contract *DepositWalletFactoryCaller // Generic read-only contract binding to access the raw methods on
}

// DepositWalletFactoryTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type DepositWalletFactoryTransactorRaw struct {
	Contract *DepositWalletFactoryTransactor // Generic write-only contract binding to access the raw methods on
}

// NewDepositWalletFactory creates a new instance of DepositWalletFactory, bound to a specific deployed contract.
func NewDepositWalletFactory(address common.Address, backend bind.ContractBackend) (*DepositWalletFactory, error) {
	contract, err := bindDepositWalletFactory(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &DepositWalletFactory{DepositWalletFactoryCaller: DepositWalletFactoryCaller{contract: contract}, DepositWalletFactoryTransactor: DepositWalletFactoryTransactor{contract: contract}, DepositWalletFactoryFilterer: DepositWalletFactoryFilterer{contract: contract}}, nil
}

// NewDepositWalletFactoryCaller creates a new read-only instance of DepositWalletFactory, bound to a specific deployed contract.
func NewDepositWalletFactoryCaller(address common.Address, caller bind.ContractCaller) (*DepositWalletFactoryCaller, error) {
	contract, err := bindDepositWalletFactory(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &DepositWalletFactoryCaller{contract: contract}, nil
}

// NewDepositWalletFactoryTransactor creates a new write-only instance of DepositWalletFactory, bound to a specific deployed contract.
func NewDepositWalletFactoryTransactor(address common.Address, transactor bind.ContractTransactor) (*DepositWalletFactoryTransactor, error) {
	contract, err := bindDepositWalletFactory(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &DepositWalletFactoryTransactor{contract: contract}, nil
}

// NewDepositWalletFactoryFilterer creates a new log filterer instance of DepositWalletFactory, bound to a specific deployed contract.
func NewDepositWalletFactoryFilterer(address common.Address, filterer bind.ContractFilterer) (*DepositWalletFactoryFilterer, error) {
	contract, err := bindDepositWalletFactory(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &DepositWalletFactoryFilterer{contract: contract}, nil
}

// bindDepositWalletFactory binds a generic wrapper to an already deployed contract.
func bindDepositWalletFactory(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := DepositWalletFactoryMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_DepositWalletFactory *DepositWalletFactoryRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _DepositWalletFactory.Contract.DepositWalletFactoryCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_DepositWalletFactory *DepositWalletFactoryRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositWalletFactory.Contract.DepositWalletFactoryTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_DepositWalletFactory *DepositWalletFactoryRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _DepositWalletFactory.Contract.DepositWalletFactoryTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_DepositWalletFactory *DepositWalletFactoryCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _DepositWalletFactory.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_DepositWalletFactory *DepositWalletFactoryTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositWalletFactory.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_DepositWalletFactory *DepositWalletFactoryTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _DepositWalletFactory.Contract.contract.Transact(opts, method, params...)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_DepositWalletFactory *DepositWalletFactoryCaller) Implementation(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _DepositWalletFactory.contract.Call(opts, &out, "implementation")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_DepositWalletFactory *DepositWalletFactorySession) Implementation() (common.Address, error) {
	return _DepositWalletFactory.Contract.Implementation(&_DepositWalletFactory.CallOpts)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_DepositWalletFactory *DepositWalletFactoryCallerSession) Implementation() (common.Address, error) {
	return _DepositWalletFactory.Contract.Implementation(&_DepositWalletFactory.CallOpts)
}

// WalletOf is a free data retrieval call binding the contract method 0x1982640c.
//
// Solidity: function walletOf(address owner) view returns(address)
func (_DepositWalletFactory *DepositWalletFactoryCaller) WalletOf(opts *bind.CallOpts, owner common.Address) (common.Address, error) {
	var out []interface{}
	err := _DepositWalletFactory.contract.Call(opts, &out, "walletOf", owner)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// WalletOf is a free data retrieval call binding the contract method 0x1982640c.
//
// Solidity: function walletOf(address owner) view returns(address)
func (_DepositWalletFactory *DepositWalletFactorySession) WalletOf(owner common.Address) (common.Address, error) {
	return _DepositWalletFactory.Contract.WalletOf(&_DepositWalletFactory.CallOpts, owner)
}

// WalletOf is a free data retrieval call binding the contract method 0x1982640c.
//
// Solidity: function walletOf(address owner) view returns(address)
func (_DepositWalletFactory *DepositWalletFactoryCallerSession) WalletOf(owner common.Address) (common.Address, error) {
	return _DepositWalletFactory.Contract.WalletOf(&_DepositWalletFactory.CallOpts, owner)
}

// Deploy is a paid mutator transaction binding the contract method 0x4c96a389.
//
// Solidity: function deploy(address owner) returns(address wallet)
func (_DepositWalletFactory *DepositWalletFactoryTransactor) Deploy(opts *bind.TransactOpts, owner common.Address) (*types.Transaction, error) {
	return _DepositWalletFactory.contract.Transact(opts, "deploy", owner)
}

// Deploy is a paid mutator transaction binding the contract method 0x4c96a389.
//
// Solidity: function deploy(address owner) returns(address wallet)
func (_DepositWalletFactory *DepositWalletFactorySession) Deploy(owner common.Address) (*types.Transaction, error) {
	return _DepositWalletFactory.Contract.Deploy(&_DepositWalletFactory.TransactOpts, owner)
}

// Deploy is a paid mutator transaction binding the contract method 0x4c96a389.
//
// Solidity: function deploy(address owner) returns(address wallet)
func (_DepositWalletFactory *DepositWalletFactoryTransactorSession) Deploy(owner common.Address) (*types.Transaction, error) {
	return _DepositWalletFactory.Contract.Deploy(&_DepositWalletFactory.TransactOpts, owner)
}

// DepositWalletFactoryWalletDeployedIterator is returned from FilterWalletDeployed and is used to iterate over the raw logs and unpacked data for WalletDeployed events raised by the DepositWalletFactory contract.
type DepositWalletFactoryWalletDeployedIterator struct {
	Event *DepositWalletFactoryWalletDeployed // Event containing the contract specifics and raw log

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
func (it *DepositWalletFactoryWalletDeployedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(DepositWalletFactoryWalletDeployed)
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
		it.Event = new(DepositWalletFactoryWalletDeployed)
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
func (it *DepositWalletFactoryWalletDeployedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *DepositWalletFactoryWalletDeployedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// DepositWalletFactoryWalletDeployed represents a WalletDeployed event raised by the DepositWalletFactory contract.
type DepositWalletFactoryWalletDeployed struct {
	Owner  common.Address
	Wallet common.Address
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterWalletDeployed is a free log retrieval operation binding the contract event 0xf25144576b87c0db53fd13e964c2b18299ee19d7d44d4b2636144644acff745b.
//
// Solidity: event WalletDeployed(address indexed owner, address wallet)
func (_DepositWalletFactory *DepositWalletFactoryFilterer) FilterWalletDeployed(opts *bind.FilterOpts, owner []common.Address) (*DepositWalletFactoryWalletDeployedIterator, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _DepositWalletFactory.contract.FilterLogs(opts, "WalletDeployed", ownerRule)
	if err != nil {
		return nil, err
	}
	return &DepositWalletFactoryWalletDeployedIterator{contract: _DepositWalletFactory.contract, event: "WalletDeployed", logs: logs, sub: sub}, nil
}

// WatchWalletDeployed is a free log subscription operation binding the contract event 0xf25144576b87c0db53fd13e964c2b18299ee19d7d44d4b2636144644acff745b.
//
// Solidity: event WalletDeployed(address indexed owner, address wallet)
func (_DepositWalletFactory *DepositWalletFactoryFilterer) WatchWalletDeployed(opts *bind.WatchOpts, sink chan<- *DepositWalletFactoryWalletDeployed, owner []common.Address) (event.Subscription, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _DepositWalletFactory.contract.WatchLogs(opts, "WalletDeployed", ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(DepositWalletFactoryWalletDeployed)
				if err := _DepositWalletFactory.contract.UnpackLog(event, "WalletDeployed", log); err != nil {
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

// ParseWalletDeployed is a log parse operation binding the contract event 0xf25144576b87c0db53fd13e964c2b18299ee19d7d44d4b2636144644acff745b.
//
// Solidity: event WalletDeployed(address indexed owner, address wallet)
func (_DepositWalletFactory *DepositWalletFactoryFilterer) ParseWalletDeployed(log types.Log) (*DepositWalletFactoryWalletDeployed, error) {
	event := new(DepositWalletFactoryWalletDeployed)
	if err := _DepositWalletFactory.contract.UnpackLog(event, "WalletDeployed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
