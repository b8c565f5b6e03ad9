package metrics

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agent-trading/ats/venue/chain"
)

// VenueTransport measures every request of a venue client: api names the
// API ("clob", "gamma", "data"), basePath is the path prefix of its base
// URL (the sandbox serves the CLOB under /clob), stripped from the
// endpoint label. rt nil means http.DefaultTransport. The venue package
// imports nothing of ours, so this wraps it from outside through its
// client's HTTP option.
func VenueTransport(api, basePath string, rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &venueTransport{api: api, base: strings.TrimRight(basePath, "/"), next: rt}
}

type venueTransport struct {
	api, base string
	next      http.RoundTripper
}

func (t *venueTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	endpoint := Endpoint(strings.TrimPrefix(r.URL.Path, t.base))
	method := r.Method
	venueLatency.WithLabelValues(t.api, method, endpoint).Observe(time.Since(start).Seconds())
	outcome := "error"
	if err == nil {
		outcome = strconv.Itoa(resp.StatusCode/100) + "xx"
	}
	venueCalls.WithLabelValues(t.api, method, endpoint, outcome).Inc()
	return resp, err
}

// Endpoint reduces a request path to a bounded label: at most two
// segments, and any segment that looks like an id, a hash or a slug (a
// digit in it, or long) replaced by ":id".
func Endpoint(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) > 2 {
		segs = segs[:2]
	}
	for i, s := range segs {
		if len(s) > 24 || strings.ContainsAny(s, "0123456789") {
			segs[i] = ":id"
		}
	}
	return "/" + strings.Join(segs, "/")
}

// ChainBackend measures the calls the service makes to the chain node
// through b (see chain.Options.Instrument). Calls it does not make itself
// (the fill watcher's subscriptions) pass through unmeasured.
func ChainBackend(b chain.Backend) chain.Backend { return &chainBackend{Backend: b} }

type chainBackend struct{ chain.Backend }

func observeChain[T any](call string, f func() (T, error)) (T, error) {
	start := time.Now()
	v, err := f()
	chainLatency.WithLabelValues(call).Observe(time.Since(start).Seconds())
	outcome := "ok"
	if err != nil && !errorIsAnswer(err) {
		outcome = "error"
	}
	chainCalls.WithLabelValues(call, outcome).Inc()
	return v, err
}

// errorIsAnswer: a receipt not mined yet is the node's answer to a poll,
// not a failed call.
func errorIsAnswer(err error) bool { return errors.Is(err, ethereum.NotFound) }

func (c *chainBackend) BalanceAt(ctx context.Context, a common.Address, n *big.Int) (*big.Int, error) {
	return observeChain("balance_at", func() (*big.Int, error) { return c.Backend.BalanceAt(ctx, a, n) })
}

func (c *chainBackend) CallContract(ctx context.Context, m ethereum.CallMsg, n *big.Int) ([]byte, error) {
	return observeChain("call_contract", func() ([]byte, error) { return c.Backend.CallContract(ctx, m, n) })
}

func (c *chainBackend) CodeAt(ctx context.Context, a common.Address, n *big.Int) ([]byte, error) {
	return observeChain("code_at", func() ([]byte, error) { return c.Backend.CodeAt(ctx, a, n) })
}

func (c *chainBackend) EstimateGas(ctx context.Context, m ethereum.CallMsg) (uint64, error) {
	return observeChain("estimate_gas", func() (uint64, error) { return c.Backend.EstimateGas(ctx, m) })
}

func (c *chainBackend) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	return observeChain("header_by_number", func() (*types.Header, error) { return c.Backend.HeaderByNumber(ctx, n) })
}

func (c *chainBackend) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	return observeChain("pending_nonce_at", func() (uint64, error) { return c.Backend.PendingNonceAt(ctx, a) })
}

func (c *chainBackend) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	_, err := observeChain("send_transaction", func() (struct{}, error) { return struct{}{}, c.Backend.SendTransaction(ctx, tx) })
	return err
}

func (c *chainBackend) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return observeChain("suggest_gas_tip_cap", func() (*big.Int, error) { return c.Backend.SuggestGasTipCap(ctx) })
}

func (c *chainBackend) TransactionReceipt(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	return observeChain("transaction_receipt", func() (*types.Receipt, error) { return c.Backend.TransactionReceipt(ctx, h) })
}
