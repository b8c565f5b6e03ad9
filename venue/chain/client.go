package chain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

// Backend is what the client needs from a node: go-ethereum's
// *ethclient.Client and the simulated backend's client both satisfy it.
type Backend interface {
	ethereum.BlockNumberReader
	ethereum.ChainReader
	ethereum.ChainStateReader
	ethereum.ContractCaller
	ethereum.GasEstimator
	ethereum.GasPricer1559
	ethereum.LogFilterer
	ethereum.PendingStateReader
	ethereum.TransactionReader
	ethereum.TransactionSender
	ethereum.ChainIDReader
}

// Options tune transaction handling. The zero value means the defaults.
type Options struct {
	// ReceiptTimeout bounds the wait for a transaction to be mined
	// (default 2 minutes).
	ReceiptTimeout time.Duration
	// ReceiptPoll is the interval between receipt polls (default 200ms).
	ReceiptPoll time.Duration
	// GasHeadroomPercent is added to the node's gas estimate (default 25),
	// because the estimate is taken against the pending state and a
	// concurrent transaction can make the real execution slightly dearer.
	GasHeadroomPercent uint64
	// Instrument, when set, wraps the backend the client calls (metrics,
	// tracing), so callers can observe chain calls without this package
	// knowing how.
	Instrument func(Backend) Backend
}

func (o Options) withDefaults() Options {
	if o.ReceiptTimeout <= 0 {
		o.ReceiptTimeout = 2 * time.Minute
	}
	if o.ReceiptPoll <= 0 {
		o.ReceiptPoll = 200 * time.Millisecond
	}
	if o.GasHeadroomPercent == 0 {
		o.GasHeadroomPercent = 25
	}
	return o
}

// Client talks to one network's contracts. It is safe for concurrent use.
type Client struct {
	net     network.Network
	b       Backend
	chainID *big.Int
	opts    Options
	closer  func()

	mu     sync.Mutex
	nonces map[common.Address]*senderState
}

// senderState serializes transactions of one sender so that concurrent calls
// never pick the same nonce.
type senderState struct {
	mu   sync.Mutex
	next uint64 // lowest nonce not yet used by this client; 0 = unknown
}

// New wraps an existing backend (for example the sandbox chain's in-process
// client) for network n.
func New(n network.Network, b Backend, opts Options) *Client {
	if opts.Instrument != nil {
		b = opts.Instrument(b)
	}
	return &Client{
		net:     n,
		b:       b,
		chainID: big.NewInt(n.ChainID),
		opts:    opts.withDefaults(),
		nonces:  make(map[common.Address]*senderState),
	}
}

// Dial connects to the node at url (http(s) or ws(s); empty means the
// network's RPCURL) and checks that it serves the network's chain.
func Dial(ctx context.Context, n network.Network, url string, opts Options) (*Client, error) {
	if url == "" {
		url = n.RPCURL
	}
	ec, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, venue.Wrap(venue.Unavailable, err, "the chain node is unreachable")
	}
	id, err := ec.ChainID(ctx)
	if err != nil {
		ec.Close()
		return nil, classifyRPC(err, "read the chain id")
	}
	if id.Int64() != n.ChainID {
		ec.Close()
		return nil, venue.Ef(venue.Internal, "the chain node serves chain %s, not %d (%s)", id, n.ChainID, n.Name)
	}
	c := New(n, ec, opts)
	c.closer = ec.Close
	return c, nil
}

// Close releases the connection made by Dial; it is a no-op for New.
func (c *Client) Close() {
	if c.closer != nil {
		c.closer()
	}
}

// Network is the network the client was built for.
func (c *Client) Network() network.Network { return c.net }

// Backend exposes the node connection (for the watcher and for tests).
func (c *Client) Backend() Backend { return c.b }

// CollateralBalance is addr's collateral balance in base units.
func (c *Client) CollateralBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	out := new(big.Int)
	if err := c.call(ctx, c.net.Collateral, erc20ABI, &out, "balanceOf", addr); err != nil {
		return nil, err
	}
	return out, nil
}

// CollateralAllowance is how much collateral spender may move for owner.
func (c *Client) CollateralAllowance(ctx context.Context, owner, spender common.Address) (*big.Int, error) {
	out := new(big.Int)
	if err := c.call(ctx, c.net.Collateral, erc20ABI, &out, "allowance", owner, spender); err != nil {
		return nil, err
	}
	return out, nil
}

// OutcomeBalance is addr's balance of the outcome token tokenID in base units.
func (c *Client) OutcomeBalance(ctx context.Context, addr common.Address, tokenID *big.Int) (*big.Int, error) {
	out := new(big.Int)
	if err := c.call(ctx, c.net.ConditionalTokens, ctfABI, &out, "balanceOf", addr, tokenID); err != nil {
		return nil, err
	}
	return out, nil
}

// IsApprovedForAll reports whether operator may move all of owner's outcome tokens.
func (c *Client) IsApprovedForAll(ctx context.Context, owner, operator common.Address) (bool, error) {
	var out bool
	if err := c.call(ctx, c.net.ConditionalTokens, ctfABI, &out, "isApprovedForAll", owner, operator); err != nil {
		return false, err
	}
	return out, nil
}

// NativeBalance is addr's balance of the chain's gas token (wei).
func (c *Client) NativeBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	v, err := c.b.BalanceAt(ctx, addr, nil)
	if err != nil {
		return nil, classifyRPC(err, "read the gas balance")
	}
	return v, nil
}

// PayoutDenominator is the condition's payout denominator; it is zero until
// the market is resolved.
func (c *Client) PayoutDenominator(ctx context.Context, conditionID common.Hash) (*big.Int, error) {
	out := new(big.Int)
	if err := c.call(ctx, c.net.ConditionalTokens, ctfABI, &out, "payoutDenominator", conditionID); err != nil {
		return nil, err
	}
	return out, nil
}

// call runs a view method at the latest block and unpacks its single result.
func (c *Client) call(ctx context.Context, to common.Address, a abi.ABI, out any, method string, args ...any) error {
	data, err := a.Pack(method, args...)
	if err != nil {
		return venue.Wrap(venue.Internal, err, "encode "+method)
	}
	res, err := c.b.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return classifyRPC(err, "call "+method)
	}
	if len(res) == 0 {
		return venue.Wrap(venue.Internal, fmt.Errorf("%s on %s returned no data (no contract there?)", method, to.Hex()), "call "+method)
	}
	if err := a.UnpackIntoInterface(out, method, res); err != nil {
		return venue.Wrap(venue.Internal, err, "decode "+method)
	}
	return nil
}

// Error codes of Rejected chain errors.
const (
	CodeInsufficientGas = "insufficient_gas"
	CodeReverted        = "reverted"
	CodeNotResolved     = "not_resolved"
)

// classifyRPC maps a node error to the taxonomy. Transport failures and
// timeouts are Unavailable (retrying may work); the node refusing a
// transaction is Rejected with a code the caller can act on.
func classifyRPC(err error, what string) error {
	if err == nil {
		return nil
	}
	if _, ok := venue.As(err); ok {
		return err
	}
	err = redactURL(err)
	msg := strings.ToLower(err.Error())
	var httpErr rpc.HTTPError
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return venue.Wrap(venue.Unavailable, err, what+": cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return venue.Wrap(venue.Unavailable, err, what+": the chain node timed out")
	case errors.As(err, &httpErr) && httpErr.StatusCode == 429:
		return &venue.Error{Category: venue.RateLimited, Message: what + ": the chain node is rate limiting", RetryAfterSeconds: 1, Err: err}
	case errors.As(err, &httpErr) && httpErr.StatusCode >= 500:
		return venue.Wrap(venue.Unavailable, err, what+": the chain node failed")
	case errors.As(err, &netErr), errors.Is(err, rpc.ErrClientQuit), errors.Is(err, net.ErrClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		strings.Contains(msg, "connection refused"), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "client is closed"), strings.Contains(msg, "shut down"):
		return venue.Wrap(venue.Unavailable, err, what+": the chain node is unreachable")
	case strings.Contains(msg, "insufficient funds"):
		return venue.E(venue.Rejected, "not enough gas funds to pay for the transaction").
			WithCode(CodeInsufficientGas).WithHint("fund the wallet's owner address with the chain's gas token").WithCause(err)
	case strings.Contains(msg, "execution reverted") || strings.Contains(msg, "revert"):
		m := "the transaction would revert"
		if r := revertReason(err); r != "" {
			m += ": " + r
		}
		return venue.E(venue.Rejected, m).WithCode(CodeReverted).WithCause(err)
	case strings.Contains(msg, "nonce too low"), strings.Contains(msg, "replacement transaction underpriced"),
		strings.Contains(msg, "already known"):
		return venue.Wrap(venue.Unavailable, err, what+": nonce conflict")
	}
	return venue.Wrap(venue.Rejected, err, what+": the chain node refused the request")
}

// redactURL strips the path and query from a *url.Error's URL: hosted RPC
// endpoints carry their API key there, and errors end up in logs.
func redactURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	safe := "<rpc>"
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		safe = u.Scheme + "://" + u.Host
	}
	return &url.Error{Op: ue.Op, URL: safe, Err: ue.Err}
}
