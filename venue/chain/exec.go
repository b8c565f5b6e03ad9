package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
)

// Wallet is a user's trading wallet: the owner EOA (whose Signer signs and
// pays gas) and the funder address that holds the funds and is the order
// maker. For an EOA, Funder equals Owner (or is zero).
type Wallet struct {
	Kind   Kind
	Owner  common.Address
	Funder common.Address
	Signer Signer
}

// Maker is the address holding the funds: Funder, or Owner for an EOA
// without one.
func (w Wallet) Maker() common.Address {
	if w.Funder == (common.Address{}) {
		return w.Owner
	}
	return w.Funder
}

func (w Wallet) validate() error {
	if w.Signer == nil {
		return venue.E(venue.Internal, "wallet has no signer")
	}
	if w.Signer.Address() != w.Owner {
		return venue.E(venue.Internal, "wallet signer does not match its owner")
	}
	if w.Kind != EOA && w.Funder == (common.Address{}) {
		return venue.Ef(venue.Internal, "a %s wallet needs its funder address", w.Kind)
	}
	return nil
}

// call is one contract call to make as the wallet.
type call struct {
	to   common.Address
	data []byte
}

// execute makes call as the wallet — from the funder's point of view — and
// waits for it to be mined.
func (c *Client) execute(ctx context.Context, w Wallet, cl call) (*types.Receipt, error) {
	if err := w.validate(); err != nil {
		return nil, err
	}
	switch w.Kind {
	case EOA:
		return c.transact(ctx, w.Signer, cl.to, cl.data)
	case Proxy:
		return c.execProxy(ctx, w, cl)
	case Safe:
		return c.execSafe(ctx, w, cl)
	case Deposit:
		return c.execDeposit(ctx, w, cl)
	}
	return nil, venue.Ef(venue.Internal, "unknown wallet kind %d", w.Kind)
}

// proxyCall is the proxy factory's call tuple.
type proxyCall struct {
	TypeCode uint8
	To       common.Address
	Value    *big.Int
	Data     []byte
}

// execProxy asks the proxy factory to forward the call through the owner's
// proxy wallet; the factory derives the wallet from the sender (and deploys
// it on first use).
func (c *Client) execProxy(ctx context.Context, w Wallet, cl call) (*types.Receipt, error) {
	data, err := proxyFactoryABI.Pack("proxy", []proxyCall{{TypeCode: 1, To: cl.to, Value: new(big.Int), Data: cl.data}})
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "encode proxy call")
	}
	return c.transact(ctx, w.Signer, c.net.ProxyFactory, data)
}

// safeTxTypeHash is keccak256 of the Safe's SafeTx type string.
var safeTxTypeHash = crypto.Keccak256Hash([]byte("SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)"))

// safeDomainTypeHash is keccak256 of the Safe's EIP-712 domain type string.
var safeDomainTypeHash = crypto.Keccak256Hash([]byte("EIP712Domain(uint256 chainId,address verifyingContract)"))

// SafeTxHash is the EIP-712 digest a Safe owner signs for a plain CALL with
// no gas refund, the only form this client sends.
func SafeTxHash(chainID *big.Int, safe, to common.Address, data []byte, nonce *big.Int) common.Hash {
	word := func(b []byte) []byte { return common.LeftPadBytes(b, 32) }
	domain := crypto.Keccak256(safeDomainTypeHash.Bytes(), word(chainID.Bytes()), word(safe.Bytes()))
	zero := make([]byte, 32)
	structHash := crypto.Keccak256(
		safeTxTypeHash.Bytes(),
		word(to.Bytes()),
		zero,                   // value
		crypto.Keccak256(data), // data
		zero,                   // operation CALL
		zero, zero, zero,       // safeTxGas, baseGas, gasPrice
		zero, zero, // gasToken, refundReceiver
		word(nonce.Bytes()),
	)
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, domain, structHash)
}

// execSafe signs the SafeTx with the owner key and submits execTransaction
// from the owner, who pays the gas.
func (c *Client) execSafe(ctx context.Context, w Wallet, cl call) (*types.Receipt, error) {
	if err := c.requireCode(ctx, w.Funder, "Safe"); err != nil {
		return nil, err
	}
	nonce := new(big.Int)
	if err := c.call(ctx, w.Funder, safeABI, &nonce, "nonce"); err != nil {
		return nil, err
	}
	digest := SafeTxHash(c.chainID, w.Funder, cl.to, cl.data, nonce)
	sig, err := w.Signer.SignHash(ctx, digest.Bytes())
	if err != nil {
		return nil, err
	}
	zero := new(big.Int)
	data, err := safeABI.Pack("execTransaction", cl.to, zero, cl.data, uint8(0), zero, zero, zero,
		common.Address{}, common.Address{}, sig)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "encode execTransaction")
	}
	return c.transact(ctx, w.Signer, w.Funder, data)
}

// execDeposit calls the deposit wallet's execute from its owner, who pays
// the gas. The venue's gasless relayer would spare the owner that gas, but
// its API is outside our protocol reference (see network.Network), and the
// direct call works on every chain.
func (c *Client) execDeposit(ctx context.Context, w Wallet, cl call) (*types.Receipt, error) {
	if err := c.requireCode(ctx, w.Funder, "deposit wallet"); err != nil {
		return nil, err
	}
	data, err := depositWalletABI.Pack("execute", cl.to, new(big.Int), cl.data)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "encode execute")
	}
	return c.transact(ctx, w.Signer, w.Funder, data)
}

func (c *Client) requireCode(ctx context.Context, addr common.Address, what string) error {
	code, err := c.b.CodeAt(ctx, addr, nil)
	if err != nil {
		return classifyRPC(err, "read the "+what)
	}
	if len(code) == 0 {
		return venue.Ef(venue.Conflict, "the %s %s is not deployed yet", what, addr.Hex()).WithCode("wallet_not_deployed")
	}
	return nil
}
