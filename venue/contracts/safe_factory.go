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

// SafeFactoryMetaData contains all meta data concerning the SafeFactory contract.
var SafeFactoryMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"DeploymentFailed\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"proxy\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ProxyCreation\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"computeProxyAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"createProxy\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"proxy\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"initCodeHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"singleton\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506104bd8061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061004a575f3560e01c80636140c54c1461004e578063b62654fb1461007e578063d600539a14610090578063db4c545e146100a3575b5f5ffd5b61006161005c366004610341565b6100b9565b6040516001600160a01b0390911681526020015b60405180910390f35b5f54610061906001600160a01b031681565b61006161009e366004610341565b610208565b6100ab6102b5565b604051908152602001610075565b5f6100c382610208565b90506001600160a01b0381163b156100da57919050565b5f6100e36102ca565b604080516001600160a01b03861660208201529192505f91016040516020818303038152906040528051906020012090505f818351602085015ff590506001600160a01b03811615806101485750836001600160a01b0316816001600160a01b031614155b1561016657604051633011642560e01b815260040160405180910390fd5b6040516366d3820360e01b81526001600160a01b0386811660048301528216906366d38203906024015f604051808303815f87803b1580156101a6575f5ffd5b505af11580156101b8573d5f5f3e3d5ffd5b5050604080516001600160a01b038086168252891660208201527f4f51faf6c4561ff95f067657e43439f0f856d97c04d9ec9070a6199ad418e235935001905060405180910390a1505050919050565b604080516001600160a01b03831660208201525f9182916001600160f81b0319913091016040516020818303038152906040528051906020012061024a6102ca565b805160209182012060405161029695949392016001600160f81b031994909416845260609290921b6bffffffffffffffffffffffff191660018401526015830152603582015260550190565b60408051601f1981840301815291905280516020909101209392505050565b5f6102be6102ca565b80519060200120905090565b6060604051806020016102dc90610334565b601f1982820381018352601f9091011660408181525f546001600160a01b031660208301520160408051601f19818403018152908290526103209291602001610385565b604051602081830303815290604052905090565b61010f806103a283390190565b5f60208284031215610351575f5ffd5b81356001600160a01b0381168114610367575f5ffd5b9392505050565b5f81518060208401855e5f93019283525090919050565b5f610399610393838661036e565b8461036e565b94935050505056fe6080604052348015600e575f5ffd5b5060405161010f38038061010f833981016040819052602b9160a7565b6001600160a01b03811660845760405162461bcd60e51b815260206004820152601960248201527f696e76616c69642073696e676c65746f6e206164647265737300000000000000604482015260640160405180910390fd5b5f80546001600160a01b0319166001600160a01b039290921691909117905560d2565b5f6020828403121560b6575f5ffd5b81516001600160a01b038116811460cb575f5ffd5b9392505050565b6031806100de5f395ff3fe60806040525f54365f5f375f5f365f845af490503d5f5f3e80601f573d5ffd5b503d5ff3fea164736f6c634300081c000aa164736f6c634300081c000a",
}

// SafeFactoryABI is the input ABI used to generate the binding from.
// Deprecated: Use SafeFactoryMetaData.ABI instead.
var SafeFactoryABI = SafeFactoryMetaData.ABI

// SafeFactoryBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SafeFactoryMetaData.Bin instead.
var SafeFactoryBin = SafeFactoryMetaData.Bin

// DeploySafeFactory deploys a new Ethereum contract, binding an instance of SafeFactory to it.
func DeploySafeFactory(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *SafeFactory, error) {
	parsed, err := SafeFactoryMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SafeFactoryBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SafeFactory{SafeFactoryCaller: SafeFactoryCaller{contract: contract}, SafeFactoryTransactor: SafeFactoryTransactor{contract: contract}, SafeFactoryFilterer: SafeFactoryFilterer{contract: contract}}, nil
}

// SafeFactory is an auto generated Go binding around an Ethereum contract.
type SafeFactory struct {
	SafeFactoryCaller     // Read-only binding to the contract
	SafeFactoryTransactor // Write-only binding to the contract
	SafeFactoryFilterer   // Log filterer for contract events
}

// SafeFactoryCaller is an auto generated read-only Go binding around an Ethereum contract.
type SafeFactoryCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SafeFactoryTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SafeFactoryTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SafeFactoryFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SafeFactoryFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SafeFactorySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SafeFactorySession struct {
	Contract     *SafeFactory      // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// SafeFactoryCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SafeFactoryCallerSession struct {
	Contract *SafeFactoryCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts      // Call options to use throughout this session
}

// SafeFactoryTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SafeFactoryTransactorSession struct {
	Contract     *SafeFactoryTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts      // Transaction auth options to use throughout this session
}

// SafeFactoryRaw is an auto generated low-level Go binding around an Ethereum contract.
type SafeFactoryRaw struct {
	Contract *SafeFactory // Generic contract binding to access the raw methods on
}

// SafeFactoryCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SafeFactoryCallerRaw struct {
	Contract *SafeFactoryCaller // Generic read-only contract binding to access the raw methods on
}

// SafeFactoryTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SafeFactoryTransactorRaw struct {
	Contract *SafeFactoryTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSafeFactory creates a new instance of SafeFactory, bound to a specific deployed contract.
func NewSafeFactory(address common.Address, backend bind.ContractBackend) (*SafeFactory, error) {
	contract, err := bindSafeFactory(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SafeFactory{SafeFactoryCaller: SafeFactoryCaller{contract: contract}, SafeFactoryTransactor: SafeFactoryTransactor{contract: contract}, SafeFactoryFilterer: SafeFactoryFilterer{contract: contract}}, nil
}

// NewSafeFactoryCaller creates a new read-only instance of SafeFactory, bound to a specific deployed contract.
func NewSafeFactoryCaller(address common.Address, caller bind.ContractCaller) (*SafeFactoryCaller, error) {
	contract, err := bindSafeFactory(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SafeFactoryCaller{contract: contract}, nil
}

// NewSafeFactoryTransactor creates a new write-only instance of SafeFactory, bound to a specific deployed contract.
func NewSafeFactoryTransactor(address common.Address, transactor bind.ContractTransactor) (*SafeFactoryTransactor, error) {
	contract, err := bindSafeFactory(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SafeFactoryTransactor{contract: contract}, nil
}

// NewSafeFactoryFilterer creates a new log filterer instance of SafeFactory, bound to a specific deployed contract.
func NewSafeFactoryFilterer(address common.Address, filterer bind.ContractFilterer) (*SafeFactoryFilterer, error) {
	contract, err := bindSafeFactory(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SafeFactoryFilterer{contract: contract}, nil
}

// bindSafeFactory binds a generic wrapper to an already deployed contract.
func bindSafeFactory(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SafeFactoryMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SafeFactory *SafeFactoryRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SafeFactory.Contract.SafeFactoryCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SafeFactory *SafeFactoryRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SafeFactory.Contract.SafeFactoryTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SafeFactory *SafeFactoryRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SafeFactory.Contract.SafeFactoryTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SafeFactory *SafeFactoryCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SafeFactory.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SafeFactory *SafeFactoryTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SafeFactory.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SafeFactory *SafeFactoryTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SafeFactory.Contract.contract.Transact(opts, method, params...)
}

// ComputeProxyAddress is a free data retrieval call binding the contract method 0xd600539a.
//
// Solidity: function computeProxyAddress(address owner) view returns(address)
func (_SafeFactory *SafeFactoryCaller) ComputeProxyAddress(opts *bind.CallOpts, owner common.Address) (common.Address, error) {
	var out []interface{}
	err := _SafeFactory.contract.Call(opts, &out, "computeProxyAddress", owner)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// ComputeProxyAddress is a free data retrieval call binding the contract method 0xd600539a.
//
// Solidity: function computeProxyAddress(address owner) view returns(address)
func (_SafeFactory *SafeFactorySession) ComputeProxyAddress(owner common.Address) (common.Address, error) {
	return _SafeFactory.Contract.ComputeProxyAddress(&_SafeFactory.CallOpts, owner)
}

// ComputeProxyAddress is a free data retrieval call binding the contract method 0xd600539a.
//
// Solidity: function computeProxyAddress(address owner) view returns(address)
func (_SafeFactory *SafeFactoryCallerSession) ComputeProxyAddress(owner common.Address) (common.Address, error) {
	return _SafeFactory.Contract.ComputeProxyAddress(&_SafeFactory.CallOpts, owner)
}

// InitCodeHash is a free data retrieval call binding the contract method 0xdb4c545e.
//
// Solidity: function initCodeHash() view returns(bytes32)
func (_SafeFactory *SafeFactoryCaller) InitCodeHash(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _SafeFactory.contract.Call(opts, &out, "initCodeHash")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// InitCodeHash is a free data retrieval call binding the contract method 0xdb4c545e.
//
// Solidity: function initCodeHash() view returns(bytes32)
func (_SafeFactory *SafeFactorySession) InitCodeHash() ([32]byte, error) {
	return _SafeFactory.Contract.InitCodeHash(&_SafeFactory.CallOpts)
}

// InitCodeHash is a free data retrieval call binding the contract method 0xdb4c545e.
//
// Solidity: function initCodeHash() view returns(bytes32)
func (_SafeFactory *SafeFactoryCallerSession) InitCodeHash() ([32]byte, error) {
	return _SafeFactory.Contract.InitCodeHash(&_SafeFactory.CallOpts)
}

// Singleton is a free data retrieval call binding the contract method 0xb62654fb.
//
// Solidity: function singleton() view returns(address)
func (_SafeFactory *SafeFactoryCaller) Singleton(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _SafeFactory.contract.Call(opts, &out, "singleton")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Singleton is a free data retrieval call binding the contract method 0xb62654fb.
//
// Solidity: function singleton() view returns(address)
func (_SafeFactory *SafeFactorySession) Singleton() (common.Address, error) {
	return _SafeFactory.Contract.Singleton(&_SafeFactory.CallOpts)
}

// Singleton is a free data retrieval call binding the contract method 0xb62654fb.
//
// Solidity: function singleton() view returns(address)
func (_SafeFactory *SafeFactoryCallerSession) Singleton() (common.Address, error) {
	return _SafeFactory.Contract.Singleton(&_SafeFactory.CallOpts)
}

// CreateProxy is a paid mutator transaction binding the contract method 0x6140c54c.
//
// Solidity: function createProxy(address owner) returns(address proxy)
func (_SafeFactory *SafeFactoryTransactor) CreateProxy(opts *bind.TransactOpts, owner common.Address) (*types.Transaction, error) {
	return _SafeFactory.contract.Transact(opts, "createProxy", owner)
}

// CreateProxy is a paid mutator transaction binding the contract method 0x6140c54c.
//
// Solidity: function createProxy(address owner) returns(address proxy)
func (_SafeFactory *SafeFactorySession) CreateProxy(owner common.Address) (*types.Transaction, error) {
	return _SafeFactory.Contract.CreateProxy(&_SafeFactory.TransactOpts, owner)
}

// CreateProxy is a paid mutator transaction binding the contract method 0x6140c54c.
//
// Solidity: function createProxy(address owner) returns(address proxy)
func (_SafeFactory *SafeFactoryTransactorSession) CreateProxy(owner common.Address) (*types.Transaction, error) {
	return _SafeFactory.Contract.CreateProxy(&_SafeFactory.TransactOpts, owner)
}

// SafeFactoryProxyCreationIterator is returned from FilterProxyCreation and is used to iterate over the raw logs and unpacked data for ProxyCreation events raised by the SafeFactory contract.
type SafeFactoryProxyCreationIterator struct {
	Event *SafeFactoryProxyCreation // Event containing the contract specifics and raw log

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
func (it *SafeFactoryProxyCreationIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SafeFactoryProxyCreation)
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
		it.Event = new(SafeFactoryProxyCreation)
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
func (it *SafeFactoryProxyCreationIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SafeFactoryProxyCreationIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SafeFactoryProxyCreation represents a ProxyCreation event raised by the SafeFactory contract.
type SafeFactoryProxyCreation struct {
	Proxy common.Address
	Owner common.Address
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterProxyCreation is a free log retrieval operation binding the contract event 0x4f51faf6c4561ff95f067657e43439f0f856d97c04d9ec9070a6199ad418e235.
//
// Solidity: event ProxyCreation(address proxy, address owner)
func (_SafeFactory *SafeFactoryFilterer) FilterProxyCreation(opts *bind.FilterOpts) (*SafeFactoryProxyCreationIterator, error) {

	logs, sub, err := _SafeFactory.contract.FilterLogs(opts, "ProxyCreation")
	if err != nil {
		return nil, err
	}
	return &SafeFactoryProxyCreationIterator{contract: _SafeFactory.contract, event: "ProxyCreation", logs: logs, sub: sub}, nil
}

// WatchProxyCreation is a free log subscription operation binding the contract event 0x4f51faf6c4561ff95f067657e43439f0f856d97c04d9ec9070a6199ad418e235.
//
// Solidity: event ProxyCreation(address proxy, address owner)
func (_SafeFactory *SafeFactoryFilterer) WatchProxyCreation(opts *bind.WatchOpts, sink chan<- *SafeFactoryProxyCreation) (event.Subscription, error) {

	logs, sub, err := _SafeFactory.contract.WatchLogs(opts, "ProxyCreation")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SafeFactoryProxyCreation)
				if err := _SafeFactory.contract.UnpackLog(event, "ProxyCreation", log); err != nil {
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

// ParseProxyCreation is a log parse operation binding the contract event 0x4f51faf6c4561ff95f067657e43439f0f856d97c04d9ec9070a6199ad418e235.
//
// Solidity: event ProxyCreation(address proxy, address owner)
func (_SafeFactory *SafeFactoryFilterer) ParseProxyCreation(log types.Log) (*SafeFactoryProxyCreation, error) {
	event := new(SafeFactoryProxyCreation)
	if err := _SafeFactory.contract.UnpackLog(event, "ProxyCreation", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
