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

// ExchangeFill is an auto generated low-level Go binding around an user-defined struct.
type ExchangeFill struct {
	OrderHash   [32]byte
	Maker       common.Address
	Side        uint8
	TokenId     *big.Int
	MakerAmount *big.Int
	TakerAmount *big.Int
	Fee         *big.Int
	Builder     [32]byte
	Metadata    [32]byte
}

// ExchangeMetaData contains all meta data concerning the Exchange contract.
var ExchangeMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"InvalidMatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotOperator\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"orderHash\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"maker\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"taker\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"side\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"makerAmountFilled\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"takerAmountFilled\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"fee\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"builder\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"metadata\",\"type\":\"bytes32\"}],\"name\":\"OrderFilled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"takerOrderHash\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"takerOrderMaker\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"side\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"makerAmountFilled\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"takerAmountFilled\",\"type\":\"uint256\"}],\"name\":\"OrdersMatched\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"collateral\",\"outputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"ctf\",\"outputs\":[{\"internalType\":\"contractIConditionalTokens\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"orderHash\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"maker\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"side\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"makerAmount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"takerAmount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"fee\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"builder\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"metadata\",\"type\":\"bytes32\"}],\"internalType\":\"structExchange.Fill\",\"name\":\"takerFill\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"orderHash\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"maker\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"side\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"makerAmount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"takerAmount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"fee\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"builder\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"metadata\",\"type\":\"bytes32\"}],\"internalType\":\"structExchange.Fill[]\",\"name\":\"makerFills\",\"type\":\"tuple[]\"}],\"name\":\"matchOrders\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"uint256[]\",\"name\":\"\",\"type\":\"uint256[]\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155BatchReceived\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"onERC1155Received\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"operator\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506111418061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061007a575f3560e01c8063570ca73511610058578063570ca735146100e6578063bc197c81146100f8578063d8dfeb4514610133578063f23a6e6114610146575f5ffd5b806301ffc9a71461007e57806322a9339f146100a6578063286a7e8c146100d1575b5f5ffd5b61009161008c366004610d8d565b610166565b60405190151581526020015b60405180910390f35b6002546100b9906001600160a01b031681565b6040516001600160a01b03909116815260200161009d565b6100e46100df366004610dbb565b61019c565b005b5f546100b9906001600160a01b031681565b61011a610106366004610ee8565b63bc197c8160e01b98975050505050505050565b6040516001600160e01b0319909116815260200161009d565b6001546100b9906001600160a01b031681565b61011a610154366004610fa7565b63f23a6e6160e01b9695505050505050565b5f630271189760e51b6001600160e01b03198316148061019657506301ffc9a760e01b6001600160e01b03198316145b92915050565b5f546001600160a01b031633146101c657604051631f0853c160e21b815260040160405180910390fd5b5f81900361020e57604051631183c97760e11b815260206004820152600f60248201526e6e6f206d616b6572206f726465727360881b60448201526064015b60405180910390fd5b6001610220606085016040860161101a565b60ff16111561025d57604051631183c97760e11b8152602060048201526008602482015267626164207369646560c01b6044820152606401610205565b82606001355f036102a457604051631183c97760e11b815260206004820152601060248201526f746f6b656e206964206973207a65726f60801b6044820152606401610205565b608083013515806102b7575060a0830135155b156102f357604051631183c97760e11b815260206004820152600b60248201526a1e995c9bc8185b5bdd5b9d60aa1b6044820152606401610205565b5f80805b8381101561049c57368585838181106103125761031261103a565b90506101200201905086604001602081019061032e919061101a565b60ff16610341606083016040840161101a565b60ff1614806103625750600161035d606083016040840161101a565b60ff16115b156103ba57604051631183c97760e11b815260206004820152602160248201527f6d616b65722073696465206d757374206f70706f73652074616b6572207369646044820152606560f81b6064820152608401610205565b866060013581606001351461040657604051631183c97760e11b81526020600482015260116024820152700e8ded6cadc40d2c840dad2e6dac2e8c6d607b1b6044820152606401610205565b610416604088016020890161104e565b6001600160a01b031661042f604083016020840161104e565b6001600160a01b03160361047357604051631183c97760e11b815260206004820152600a60248201526973656c6620747261646560b01b6044820152606401610205565b61048160808201358561107b565b935061049160a08201358461107b565b9250506001016102f7565b508460a00135821415806104b4575084608001358114155b156104fb57604051631183c97760e11b8152602060048201526016602482015275616d6f756e747320646f206e6f742062616c616e636560501b6044820152606401610205565b61052161050e604087016020880161104e565b610517876107de565b8760800135610809565b5f5b83811015610673573685858381811061053e5761053e61103a565b90506101200201905061057081602001602081019061055d919061104e565b610566836107de565b8360800135610809565b61059b610583604083016020840161104e565b61058c83610bad565b8360a001358460c00135610bd5565b6105ab604088016020890161104e565b6001600160a01b03166105c4604083016020840161104e565b6001600160a01b031682357fd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee610600606086016040870161101a565b856060013586608001358760a001358860c001358960e001358a6101000135604051610662979695949392919060ff979097168752602087019590955260408601939093526060850191909152608084015260a083015260c082015260e00190565b60405180910390a450600101610523565b5061069f610687604087016020880161104e565b61069087610bad565b8760a001358860c00135610bd5565b306106b0604087016020880161104e565b6001600160a01b031686357fd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee6106ec60608a0160408b0161101a565b89606001358a608001358b60a001358c60c001358d60e001358e610100013560405161074e979695949392919060ff979097168752602087019590955260408601939093526060850191909152608084015260a083015260c082015260e00190565b60405180910390a4610766604086016020870161104e565b6001600160a01b031685357f174b3811690657c217184f89418266767c87e4805d09680c39fc9c031c0cab7c6107a26060890160408a0161101a565b6040805160ff90921682526060808b013560208401526080808c01359284019290925260a08b0135908301520160405180910390a35050505050565b5f806107f0606084016040850161101a565b60ff1614610802578160600135610196565b5f92915050565b815f03610a11576001546040516370a0823160e01b81526001600160a01b0385811660048301525f9216906370a0823190602401602060405180830381865afa158015610858573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061087c919061108e565b9050818110156108a757835f828460405163670f004560e01b815260040161020594939291906110a5565b600154604051636eb1769f60e11b81526001600160a01b0386811660048301523060248301525f92169063dd62ed3e90604401602060405180830381865afa1580156108f5573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610919919061108e565b90508281101561094457845f8285604051638f10d9a760e01b815260040161020594939291906110a5565b6001546040516323b872dd60e01b81526001600160a01b03878116600483015230602483015260448201869052909116906323b872dd906064016020604051808303815f875af115801561099a573d5f5f3e3d5ffd5b505050506040513d601f19601f820116820180604052508101906109be91906110cb565b610a0a5760405162461bcd60e51b815260206004820152601a60248201527f636f6c6c61746572616c207472616e73666572206661696c65640000000000006044820152606401610205565b5050505050565b600254604051627eeac760e11b81526001600160a01b038581166004830152602482018590525f92169062fdd58e90604401602060405180830381865afa158015610a5e573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610a82919061108e565b905081811015610aad578383828460405163670f004560e01b815260040161020594939291906110a5565b60025460405163e985e9c560e01b81526001600160a01b0386811660048301523060248301529091169063e985e9c590604401602060405180830381865afa158015610afb573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610b1f91906110cb565b610b445783835f84604051638f10d9a760e01b815260040161020594939291906110a5565b600254604051637921219560e11b81526001600160a01b039091169063f242432a90610b7a9087903090889088906004016110ea565b5f604051808303815f87803b158015610b91575f5ffd5b505af1158015610ba3573d5f5f3e3d5ffd5b5050505050505050565b5f80610bbf606084016040850161101a565b60ff1614610bcd575f610196565b506060013590565b81811115610c1d57604051631183c97760e11b815260206004820152601460248201527366656520657863656564732070726f636565647360601b6044820152606401610205565b610c318484610c2c8486611121565b610c4d565b5f54610c47906001600160a01b03168483610c4d565b50505050565b805f03610c5957505050565b815f03610d255760015460405163a9059cbb60e01b81526001600160a01b038581166004830152602482018490529091169063a9059cbb906044016020604051808303815f875af1158015610cb0573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610cd491906110cb565b610d205760405162461bcd60e51b815260206004820152601a60248201527f636f6c6c61746572616c207472616e73666572206661696c65640000000000006044820152606401610205565b505050565b600254604051637921219560e11b81526001600160a01b039091169063f242432a90610d5b9030908790879087906004016110ea565b5f604051808303815f87803b158015610d72575f5ffd5b505af1158015610d84573d5f5f3e3d5ffd5b50505050505050565b5f60208284031215610d9d575f5ffd5b81356001600160e01b031981168114610db4575f5ffd5b9392505050565b5f5f5f838503610140811215610dcf575f5ffd5b610120811215610ddd575f5ffd5b5083925061012084013567ffffffffffffffff811115610dfb575f5ffd5b8401601f81018613610e0b575f5ffd5b803567ffffffffffffffff811115610e21575f5ffd5b86602061012083028401011115610e36575f5ffd5b939660209190910195509293505050565b80356001600160a01b0381168114610e5d575f5ffd5b919050565b5f5f83601f840112610e72575f5ffd5b50813567ffffffffffffffff811115610e89575f5ffd5b6020830191508360208260051b8501011115610ea3575f5ffd5b9250929050565b5f5f83601f840112610eba575f5ffd5b50813567ffffffffffffffff811115610ed1575f5ffd5b602083019150836020828501011115610ea3575f5ffd5b5f5f5f5f5f5f5f5f60a0898b031215610eff575f5ffd5b610f0889610e47565b9750610f1660208a01610e47565b9650604089013567ffffffffffffffff811115610f31575f5ffd5b610f3d8b828c01610e62565b909750955050606089013567ffffffffffffffff811115610f5c575f5ffd5b610f688b828c01610e62565b909550935050608089013567ffffffffffffffff811115610f87575f5ffd5b610f938b828c01610eaa565b999c989b5096995094979396929594505050565b5f5f5f5f5f5f60a08789031215610fbc575f5ffd5b610fc587610e47565b9550610fd360208801610e47565b94506040870135935060608701359250608087013567ffffffffffffffff811115610ffc575f5ffd5b61100889828a01610eaa565b979a9699509497509295939492505050565b5f6020828403121561102a575f5ffd5b813560ff81168114610db4575f5ffd5b634e487b7160e01b5f52603260045260245ffd5b5f6020828403121561105e575f5ffd5b610db482610e47565b634e487b7160e01b5f52601160045260245ffd5b8082018082111561019657610196611067565b5f6020828403121561109e575f5ffd5b5051919050565b6001600160a01b0394909416845260208401929092526040830152606082015260800190565b5f602082840312156110db575f5ffd5b81518015158114610db4575f5ffd5b6001600160a01b0394851681529290931660208301526040820152606081019190915260a0608082018190525f9082015260c00190565b818103818111156101965761019661106756fea164736f6c634300081c000a",
}

// ExchangeABI is the input ABI used to generate the binding from.
// Deprecated: Use ExchangeMetaData.ABI instead.
var ExchangeABI = ExchangeMetaData.ABI

// ExchangeBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use ExchangeMetaData.Bin instead.
var ExchangeBin = ExchangeMetaData.Bin

// DeployExchange deploys a new Ethereum contract, binding an instance of Exchange to it.
func DeployExchange(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *Exchange, error) {
	parsed, err := ExchangeMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(ExchangeBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &Exchange{ExchangeCaller: ExchangeCaller{contract: contract}, ExchangeTransactor: ExchangeTransactor{contract: contract}, ExchangeFilterer: ExchangeFilterer{contract: contract}}, nil
}

// Exchange is an auto generated Go binding around an Ethereum contract.
type Exchange struct {
	ExchangeCaller     // Read-only binding to the contract
	ExchangeTransactor // Write-only binding to the contract
	ExchangeFilterer   // Log filterer for contract events
}

// ExchangeCaller is an auto generated read-only Go binding around an Ethereum contract.
type ExchangeCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ExchangeTransactor is an auto generated write-only Go binding around an Ethereum contract.
type ExchangeTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ExchangeFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type ExchangeFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ExchangeSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type ExchangeSession struct {
	Contract     *Exchange         // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// ExchangeCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type ExchangeCallerSession struct {
	Contract *ExchangeCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts   // Call options to use throughout this session
}

// ExchangeTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type ExchangeTransactorSession struct {
	Contract     *ExchangeTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts   // Transaction auth options to use throughout this session
}

// ExchangeRaw is an auto generated low-level Go binding around an Ethereum contract.
type ExchangeRaw struct {
	Contract *Exchange // Generic contract binding to access the raw methods on
}

// ExchangeCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type ExchangeCallerRaw struct {
	Contract *ExchangeCaller // Generic read-only contract binding to access the raw methods on
}

// ExchangeTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type ExchangeTransactorRaw struct {
	Contract *ExchangeTransactor // Generic write-only contract binding to access the raw methods on
}

// NewExchange creates a new instance of Exchange, bound to a specific deployed contract.
func NewExchange(address common.Address, backend bind.ContractBackend) (*Exchange, error) {
	contract, err := bindExchange(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &Exchange{ExchangeCaller: ExchangeCaller{contract: contract}, ExchangeTransactor: ExchangeTransactor{contract: contract}, ExchangeFilterer: ExchangeFilterer{contract: contract}}, nil
}

// NewExchangeCaller creates a new read-only instance of Exchange, bound to a specific deployed contract.
func NewExchangeCaller(address common.Address, caller bind.ContractCaller) (*ExchangeCaller, error) {
	contract, err := bindExchange(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &ExchangeCaller{contract: contract}, nil
}

// NewExchangeTransactor creates a new write-only instance of Exchange, bound to a specific deployed contract.
func NewExchangeTransactor(address common.Address, transactor bind.ContractTransactor) (*ExchangeTransactor, error) {
	contract, err := bindExchange(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &ExchangeTransactor{contract: contract}, nil
}

// NewExchangeFilterer creates a new log filterer instance of Exchange, bound to a specific deployed contract.
func NewExchangeFilterer(address common.Address, filterer bind.ContractFilterer) (*ExchangeFilterer, error) {
	contract, err := bindExchange(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &ExchangeFilterer{contract: contract}, nil
}

// bindExchange binds a generic wrapper to an already deployed contract.
func bindExchange(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := ExchangeMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Exchange *ExchangeRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Exchange.Contract.ExchangeCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Exchange *ExchangeRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Exchange.Contract.ExchangeTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Exchange *ExchangeRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Exchange.Contract.ExchangeTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Exchange *ExchangeCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Exchange.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Exchange *ExchangeTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Exchange.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Exchange *ExchangeTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Exchange.Contract.contract.Transact(opts, method, params...)
}

// Collateral is a free data retrieval call binding the contract method 0xd8dfeb45.
//
// Solidity: function collateral() view returns(address)
func (_Exchange *ExchangeCaller) Collateral(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Exchange.contract.Call(opts, &out, "collateral")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Collateral is a free data retrieval call binding the contract method 0xd8dfeb45.
//
// Solidity: function collateral() view returns(address)
func (_Exchange *ExchangeSession) Collateral() (common.Address, error) {
	return _Exchange.Contract.Collateral(&_Exchange.CallOpts)
}

// Collateral is a free data retrieval call binding the contract method 0xd8dfeb45.
//
// Solidity: function collateral() view returns(address)
func (_Exchange *ExchangeCallerSession) Collateral() (common.Address, error) {
	return _Exchange.Contract.Collateral(&_Exchange.CallOpts)
}

// Ctf is a free data retrieval call binding the contract method 0x22a9339f.
//
// Solidity: function ctf() view returns(address)
func (_Exchange *ExchangeCaller) Ctf(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Exchange.contract.Call(opts, &out, "ctf")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Ctf is a free data retrieval call binding the contract method 0x22a9339f.
//
// Solidity: function ctf() view returns(address)
func (_Exchange *ExchangeSession) Ctf() (common.Address, error) {
	return _Exchange.Contract.Ctf(&_Exchange.CallOpts)
}

// Ctf is a free data retrieval call binding the contract method 0x22a9339f.
//
// Solidity: function ctf() view returns(address)
func (_Exchange *ExchangeCallerSession) Ctf() (common.Address, error) {
	return _Exchange.Contract.Ctf(&_Exchange.CallOpts)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_Exchange *ExchangeCaller) OnERC1155BatchReceived(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _Exchange.contract.Call(opts, &out, "onERC1155BatchReceived", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_Exchange *ExchangeSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _Exchange.Contract.OnERC1155BatchReceived(&_Exchange.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155BatchReceived is a free data retrieval call binding the contract method 0xbc197c81.
//
// Solidity: function onERC1155BatchReceived(address , address , uint256[] , uint256[] , bytes ) pure returns(bytes4)
func (_Exchange *ExchangeCallerSession) OnERC1155BatchReceived(arg0 common.Address, arg1 common.Address, arg2 []*big.Int, arg3 []*big.Int, arg4 []byte) ([4]byte, error) {
	return _Exchange.Contract.OnERC1155BatchReceived(&_Exchange.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_Exchange *ExchangeCaller) OnERC1155Received(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	var out []interface{}
	err := _Exchange.contract.Call(opts, &out, "onERC1155Received", arg0, arg1, arg2, arg3, arg4)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_Exchange *ExchangeSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _Exchange.Contract.OnERC1155Received(&_Exchange.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// OnERC1155Received is a free data retrieval call binding the contract method 0xf23a6e61.
//
// Solidity: function onERC1155Received(address , address , uint256 , uint256 , bytes ) pure returns(bytes4)
func (_Exchange *ExchangeCallerSession) OnERC1155Received(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 *big.Int, arg4 []byte) ([4]byte, error) {
	return _Exchange.Contract.OnERC1155Received(&_Exchange.CallOpts, arg0, arg1, arg2, arg3, arg4)
}

// Operator is a free data retrieval call binding the contract method 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (_Exchange *ExchangeCaller) Operator(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Exchange.contract.Call(opts, &out, "operator")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Operator is a free data retrieval call binding the contract method 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (_Exchange *ExchangeSession) Operator() (common.Address, error) {
	return _Exchange.Contract.Operator(&_Exchange.CallOpts)
}

// Operator is a free data retrieval call binding the contract method 0x570ca735.
//
// Solidity: function operator() view returns(address)
func (_Exchange *ExchangeCallerSession) Operator() (common.Address, error) {
	return _Exchange.Contract.Operator(&_Exchange.CallOpts)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_Exchange *ExchangeCaller) SupportsInterface(opts *bind.CallOpts, interfaceId [4]byte) (bool, error) {
	var out []interface{}
	err := _Exchange.contract.Call(opts, &out, "supportsInterface", interfaceId)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_Exchange *ExchangeSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _Exchange.Contract.SupportsInterface(&_Exchange.CallOpts, interfaceId)
}

// SupportsInterface is a free data retrieval call binding the contract method 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (_Exchange *ExchangeCallerSession) SupportsInterface(interfaceId [4]byte) (bool, error) {
	return _Exchange.Contract.SupportsInterface(&_Exchange.CallOpts, interfaceId)
}

// MatchOrders is a paid mutator transaction binding the contract method 0x286a7e8c.
//
// Solidity: function matchOrders((bytes32,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32) takerFill, (bytes32,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32)[] makerFills) returns()
func (_Exchange *ExchangeTransactor) MatchOrders(opts *bind.TransactOpts, takerFill ExchangeFill, makerFills []ExchangeFill) (*types.Transaction, error) {
	return _Exchange.contract.Transact(opts, "matchOrders", takerFill, makerFills)
}

// MatchOrders is a paid mutator transaction binding the contract method 0x286a7e8c.
//
// Solidity: function matchOrders((bytes32,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32) takerFill, (bytes32,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32)[] makerFills) returns()
func (_Exchange *ExchangeSession) MatchOrders(takerFill ExchangeFill, makerFills []ExchangeFill) (*types.Transaction, error) {
	return _Exchange.Contract.MatchOrders(&_Exchange.TransactOpts, takerFill, makerFills)
}

// MatchOrders is a paid mutator transaction binding the contract method 0x286a7e8c.
//
// Solidity: function matchOrders((bytes32,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32) takerFill, (bytes32,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32)[] makerFills) returns()
func (_Exchange *ExchangeTransactorSession) MatchOrders(takerFill ExchangeFill, makerFills []ExchangeFill) (*types.Transaction, error) {
	return _Exchange.Contract.MatchOrders(&_Exchange.TransactOpts, takerFill, makerFills)
}

// ExchangeOrderFilledIterator is returned from FilterOrderFilled and is used to iterate over the raw logs and unpacked data for OrderFilled events raised by the Exchange contract.
type ExchangeOrderFilledIterator struct {
	Event *ExchangeOrderFilled // Event containing the contract specifics and raw log

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
func (it *ExchangeOrderFilledIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(ExchangeOrderFilled)
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
		it.Event = new(ExchangeOrderFilled)
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
func (it *ExchangeOrderFilledIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *ExchangeOrderFilledIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// ExchangeOrderFilled represents a OrderFilled event raised by the Exchange contract.
type ExchangeOrderFilled struct {
	OrderHash         [32]byte
	Maker             common.Address
	Taker             common.Address
	Side              uint8
	TokenId           *big.Int
	MakerAmountFilled *big.Int
	TakerAmountFilled *big.Int
	Fee               *big.Int
	Builder           [32]byte
	Metadata          [32]byte
	Raw               types.Log // Blockchain specific contextual infos
}

// FilterOrderFilled is a free log retrieval operation binding the contract event 0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee.
//
// Solidity: event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)
func (_Exchange *ExchangeFilterer) FilterOrderFilled(opts *bind.FilterOpts, orderHash [][32]byte, maker []common.Address, taker []common.Address) (*ExchangeOrderFilledIterator, error) {

	var orderHashRule []interface{}
	for _, orderHashItem := range orderHash {
		orderHashRule = append(orderHashRule, orderHashItem)
	}
	var makerRule []interface{}
	for _, makerItem := range maker {
		makerRule = append(makerRule, makerItem)
	}
	var takerRule []interface{}
	for _, takerItem := range taker {
		takerRule = append(takerRule, takerItem)
	}

	logs, sub, err := _Exchange.contract.FilterLogs(opts, "OrderFilled", orderHashRule, makerRule, takerRule)
	if err != nil {
		return nil, err
	}
	return &ExchangeOrderFilledIterator{contract: _Exchange.contract, event: "OrderFilled", logs: logs, sub: sub}, nil
}

// WatchOrderFilled is a free log subscription operation binding the contract event 0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee.
//
// Solidity: event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)
func (_Exchange *ExchangeFilterer) WatchOrderFilled(opts *bind.WatchOpts, sink chan<- *ExchangeOrderFilled, orderHash [][32]byte, maker []common.Address, taker []common.Address) (event.Subscription, error) {

	var orderHashRule []interface{}
	for _, orderHashItem := range orderHash {
		orderHashRule = append(orderHashRule, orderHashItem)
	}
	var makerRule []interface{}
	for _, makerItem := range maker {
		makerRule = append(makerRule, makerItem)
	}
	var takerRule []interface{}
	for _, takerItem := range taker {
		takerRule = append(takerRule, takerItem)
	}

	logs, sub, err := _Exchange.contract.WatchLogs(opts, "OrderFilled", orderHashRule, makerRule, takerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(ExchangeOrderFilled)
				if err := _Exchange.contract.UnpackLog(event, "OrderFilled", log); err != nil {
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

// ParseOrderFilled is a log parse operation binding the contract event 0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee.
//
// Solidity: event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)
func (_Exchange *ExchangeFilterer) ParseOrderFilled(log types.Log) (*ExchangeOrderFilled, error) {
	event := new(ExchangeOrderFilled)
	if err := _Exchange.contract.UnpackLog(event, "OrderFilled", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// ExchangeOrdersMatchedIterator is returned from FilterOrdersMatched and is used to iterate over the raw logs and unpacked data for OrdersMatched events raised by the Exchange contract.
type ExchangeOrdersMatchedIterator struct {
	Event *ExchangeOrdersMatched // Event containing the contract specifics and raw log

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
func (it *ExchangeOrdersMatchedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(ExchangeOrdersMatched)
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
		it.Event = new(ExchangeOrdersMatched)
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
func (it *ExchangeOrdersMatchedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *ExchangeOrdersMatchedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// ExchangeOrdersMatched represents a OrdersMatched event raised by the Exchange contract.
type ExchangeOrdersMatched struct {
	TakerOrderHash    [32]byte
	TakerOrderMaker   common.Address
	Side              uint8
	TokenId           *big.Int
	MakerAmountFilled *big.Int
	TakerAmountFilled *big.Int
	Raw               types.Log // Blockchain specific contextual infos
}

// FilterOrdersMatched is a free log retrieval operation binding the contract event 0x174b3811690657c217184f89418266767c87e4805d09680c39fc9c031c0cab7c.
//
// Solidity: event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)
func (_Exchange *ExchangeFilterer) FilterOrdersMatched(opts *bind.FilterOpts, takerOrderHash [][32]byte, takerOrderMaker []common.Address) (*ExchangeOrdersMatchedIterator, error) {

	var takerOrderHashRule []interface{}
	for _, takerOrderHashItem := range takerOrderHash {
		takerOrderHashRule = append(takerOrderHashRule, takerOrderHashItem)
	}
	var takerOrderMakerRule []interface{}
	for _, takerOrderMakerItem := range takerOrderMaker {
		takerOrderMakerRule = append(takerOrderMakerRule, takerOrderMakerItem)
	}

	logs, sub, err := _Exchange.contract.FilterLogs(opts, "OrdersMatched", takerOrderHashRule, takerOrderMakerRule)
	if err != nil {
		return nil, err
	}
	return &ExchangeOrdersMatchedIterator{contract: _Exchange.contract, event: "OrdersMatched", logs: logs, sub: sub}, nil
}

// WatchOrdersMatched is a free log subscription operation binding the contract event 0x174b3811690657c217184f89418266767c87e4805d09680c39fc9c031c0cab7c.
//
// Solidity: event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)
func (_Exchange *ExchangeFilterer) WatchOrdersMatched(opts *bind.WatchOpts, sink chan<- *ExchangeOrdersMatched, takerOrderHash [][32]byte, takerOrderMaker []common.Address) (event.Subscription, error) {

	var takerOrderHashRule []interface{}
	for _, takerOrderHashItem := range takerOrderHash {
		takerOrderHashRule = append(takerOrderHashRule, takerOrderHashItem)
	}
	var takerOrderMakerRule []interface{}
	for _, takerOrderMakerItem := range takerOrderMaker {
		takerOrderMakerRule = append(takerOrderMakerRule, takerOrderMakerItem)
	}

	logs, sub, err := _Exchange.contract.WatchLogs(opts, "OrdersMatched", takerOrderHashRule, takerOrderMakerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(ExchangeOrdersMatched)
				if err := _Exchange.contract.UnpackLog(event, "OrdersMatched", log); err != nil {
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

// ParseOrdersMatched is a log parse operation binding the contract event 0x174b3811690657c217184f89418266767c87e4805d09680c39fc9c031c0cab7c.
//
// Solidity: event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)
func (_Exchange *ExchangeFilterer) ParseOrdersMatched(log types.Log) (*ExchangeOrdersMatched, error) {
	event := new(ExchangeOrdersMatched)
	if err := _Exchange.contract.UnpackLog(event, "OrdersMatched", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
