package clob_test

// These tests prove the Go venue client (venue/clob, venue/gamma,
// venue/dataapi) against the in-process sandbox: a real matching engine
// settling on a simulated EVM chain behind the venue's own HTTP API. Every
// venue operation goes through the client; only the sandbox's control API
// (funding, market lookup and listing, resolution) is called by hand, and
// approvals go through the venue/chain client over the sandbox's /rpc.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/dataapi"
	"github.com/agent-trading/ats/venue/gamma"
)

// sb is the package's one sandbox, started on first use (so runs of the
// unit tests alone pay nothing); an EVM-backed venue costs a few seconds,
// so every test shares it and uses its own fresh wallets, which keeps the
// tests from seeing each other's orders.
var (
	sbOnce  sync.Once
	sbErr   error
	sb      *sandbox.Sandbox
	rpc     *ethclient.Client
	chainC  *chain.Client
	sbStart time.Duration
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if chainC != nil {
		chainC.Close()
	}
	if rpc != nil {
		rpc.Close()
	}
	if sb != nil {
		_ = sb.Close()
	}
	os.Exit(code)
}

// needSandbox returns once the shared sandbox runs, skipping in -short
// mode (the sandbox runs an EVM node).
func needSandbox(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the sandbox venue and its EVM chain")
	}
	sbOnce.Do(func() {
		began := time.Now()
		ctx := context.Background()
		// The makers quote once at start and not again for the run
		// (QuoteInterval an hour): a re-quote between the Trader's book
		// read and its post could otherwise make an FOK miss.
		sb, sbErr = sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 13, BlockInterval: 100 * time.Millisecond,
			QuoteInterval: time.Hour, Ordinary: 2, DisableUpDown: true})
		if sbErr != nil {
			return
		}
		if rpc, sbErr = ethclient.DialContext(ctx, sb.Network().RPCURL); sbErr != nil {
			return
		}
		chainC = chain.New(sb.Network(), rpc, chain.Options{ReceiptPoll: 20 * time.Millisecond})
		sbStart = time.Since(began)
	})
	require.NoError(t, sbErr, "start the sandbox")
	t.Logf("sandbox at %s (started in %s)", sb.URL(), sbStart)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ctlMarket is one market as the sandbox's control API lists it.
type ctlMarket struct {
	ID          int       `json:"id"`
	Slug        string    `json:"slug"`
	ConditionID string    `json:"conditionId"`
	TokenIDs    [2]string `json:"tokenIds"`
	Outcomes    [2]string `json:"outcomes"`
	NegRisk     bool      `json:"negRisk"`
	Resolved    bool      `json:"resolved"`
}

// control calls the sandbox's control API (the operator surface, not the
// venue) and decodes the JSON answer into out when non-nil.
func control(t *testing.T, method, path string, body any, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, sb.URL()+path, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, path, raw)
	if out != nil {
		require.NoError(t, json.Unmarshal(raw, out))
	}
}

// openMarkets returns the sandbox's unresolved markets in catalogue order.
func openMarkets(t *testing.T) []ctlMarket {
	t.Helper()
	var all []ctlMarket
	control(t, http.MethodGet, "/control/markets", nil, &all)
	var out []ctlMarket
	for _, m := range all {
		if !m.Resolved {
			out = append(out, m)
		}
	}
	require.NotEmpty(t, out, "the sandbox lists no open market")
	return out
}

// wallet is a fresh EOA with venue credentials.
type wallet struct {
	key    *ecdsa.PrivateKey
	addr   common.Address
	creds  clob.Creds
	client *clob.Client // authenticated
	trader *clob.Trader
}

// newWallet makes a fresh EOA, funds it with usdc and approves the
// exchanges (zero: neither) and derives its API key through the client's
// L1 auth.
func newWallet(t *testing.T, usdc int64) *wallet {
	t.Helper()
	return makeWallet(t, usdc, usdc > 0)
}

func makeWallet(t *testing.T, usdc int64, approve bool) *wallet {
	t.Helper()
	ctx := testCtx(t)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if usdc > 0 {
		control(t, http.MethodPost, "/control/wallets/"+addr.Hex()+"/fund", map[string]any{"usdc": usdc, "native": 1}, nil)
	}
	if approve {
		_, err = chainC.Approve(ctx, chain.Wallet{Kind: chain.EOA, Owner: addr, Signer: chain.NewKeySigner(key)}, chain.ApproveAll)
		require.NoError(t, err)
	}
	pub := clob.NewClient(clob.ConfigFor(sb.Network()))
	creds, err := pub.CreateOrDeriveAPIKey(ctx, clob.NewKeySigner(key), 0)
	require.NoError(t, err)
	cl := pub.WithCreds(creds, addr)
	return &wallet{key: key, addr: addr, creds: creds, client: cl,
		trader: &clob.Trader{Client: cl, Network: sb.Network(), Signer: clob.NewKeySigner(key)}}
}

// snapshot is what "nothing was booked" compares: the wallet's open
// orders, trades and on-chain collateral.
type snapshot struct {
	open       int
	trades     int
	collateral *big.Int
}

func (w *wallet) snap(t *testing.T) snapshot {
	t.Helper()
	ctx := testCtx(t)
	open, err := w.client.GetOpenOrders(ctx, clob.OpenOrderParams{})
	require.NoError(t, err)
	trades, err := w.client.GetTrades(ctx, clob.TradeParams{})
	require.NoError(t, err)
	coll, err := chainC.CollateralBalance(ctx, w.addr)
	require.NoError(t, err)
	return snapshot{open: len(open), trades: len(trades), collateral: coll}
}

func assertNothingBooked(t *testing.T, w *wallet, before snapshot) {
	t.Helper()
	after := w.snap(t)
	assert.Equal(t, before.open, after.open, "open orders changed")
	assert.Equal(t, before.trades, after.trades, "trades changed")
	assert.Equal(t, 0, before.collateral.Cmp(after.collateral), "collateral changed: %s -> %s", before.collateral, after.collateral)
}

// restingBuy returns a price and size for a BUY that cannot cross: one
// tick, at the market's minimum size.
func restingBuy(t *testing.T, c *clob.Client, token string) (price, size decimal.Decimal) {
	t.Helper()
	info, err := c.MarketInfo(testCtx(t), token)
	require.NoError(t, err)
	price = decimal.RequireFromString(string(info.TickSize))
	size = info.MinOrderSize
	if size.IsZero() {
		size = decimal.NewFromInt(5)
	}
	return price, size
}

// signedBuy hand-builds and signs a BUY of size shares at price (which may
// be off the market's tick), bypassing the Trader's local checks.
func signedBuy(t *testing.T, w *wallet, token string, negRisk bool, price, size decimal.Decimal) (clob.Order, clob.EIP712Domain) {
	t.Helper()
	tok, ok := new(big.Int).SetString(token, 10)
	require.True(t, ok)
	taker := size.Shift(6).BigInt()
	maker := price.Mul(size).Shift(6).BigInt()
	o := clob.Order{Salt: clob.NewSalt(), Maker: w.addr, Signer: w.addr, TokenID: tok, MakerAmount: maker, TakerAmount: taker,
		Side: clob.Buy, SignatureType: clob.SigEOA, Timestamp: uint64(time.Now().UnixMilli())}
	d := clob.NetworkDomain(sb.Network(), negRisk)
	require.NoError(t, clob.SignOrder(&o, w.key, d))
	return o, d
}

func TestSandboxPublicMarketData(t *testing.T) {
	needSandbox(t)
	ctx := testCtx(t)
	m := openMarkets(t)[0]
	tok := m.TokenIDs[0]
	c := clob.NewClient(clob.ConfigFor(sb.Network()))

	require.NoError(t, c.Ok(ctx))
	v, err := c.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, v)
	ts, err := c.ServerTime(ctx)
	require.NoError(t, err)
	assert.InDelta(t, time.Now().Unix(), ts, 5)

	book, err := c.OrderBook(ctx, tok)
	require.NoError(t, err)
	assert.Equal(t, tok, book.AssetID)
	assert.Equal(t, m.ConditionID, book.Market)
	require.NotEmpty(t, book.Bids, "the market makers quote bids")
	require.NotEmpty(t, book.Asks, "the market makers quote asks")
	bestBid, bestAsk := book.Bids[len(book.Bids)-1].Price, book.Asks[len(book.Asks)-1].Price
	assert.True(t, bestBid.LessThan(bestAsk), "book not crossed: %s < %s", bestBid, bestAsk)

	books, err := c.OrderBooks(ctx, []clob.BookParams{{TokenID: m.TokenIDs[0]}, {TokenID: m.TokenIDs[1]}})
	require.NoError(t, err)
	require.Len(t, books, 2)
	assert.ElementsMatch(t, []string{m.TokenIDs[0], m.TokenIDs[1]}, []string{books[0].AssetID, books[1].AssetID})

	// Prices are read from the same quoting book; the makers may re-quote
	// between calls, so compare against the book's shape, not exact values.
	buy, err := c.Price(ctx, tok, clob.Buy)
	require.NoError(t, err)
	sell, err := c.Price(ctx, tok, clob.Sell)
	require.NoError(t, err)
	assert.True(t, buy.IsPositive() && sell.IsPositive() && buy.LessThan(decimal.NewFromInt(1)) && sell.LessThan(decimal.NewFromInt(1)))
	mid, err := c.Midpoint(ctx, tok)
	require.NoError(t, err)
	assert.True(t, mid.IsPositive() && mid.LessThan(decimal.NewFromInt(1)), "midpoint %s", mid)
	spread, err := c.Spread(ctx, tok)
	require.NoError(t, err)
	assert.True(t, spread.IsPositive(), "spread %s", spread)
	_, err = c.LastTradePrice(ctx, tok)
	require.NoError(t, err)

	tick, err := c.TickSize(ctx, tok)
	require.NoError(t, err)
	assert.True(t, tick.Valid())
	assert.Equal(t, book.TickSize, tick)
	nr, err := c.NegRisk(ctx, tok)
	require.NoError(t, err)
	assert.Equal(t, m.NegRisk, nr)

	mk, err := c.Market(ctx, m.ConditionID)
	require.NoError(t, err)
	assert.Equal(t, m.ConditionID, mk.ConditionID)
	require.Len(t, mk.Tokens, 2)
	assert.Equal(t, tok, mk.Tokens[0].TokenID)
	assert.True(t, mk.AcceptingOrders)
	byTok, err := c.MarketByToken(ctx, m.TokenIDs[1])
	require.NoError(t, err)
	assert.Equal(t, m.ConditionID, byTok.ConditionID)
	info, err := c.ClobMarketInfo(ctx, m.ConditionID)
	require.NoError(t, err)
	assert.Equal(t, m.ConditionID, info.ConditionID)
	assert.Equal(t, string(tick), info.MinTickSize.Decimal.String())
	assert.Equal(t, m.NegRisk, info.NegRisk)

	// Unknown ids come back as the venue's not-found, classified.
	_, err = c.OrderBook(ctx, "123")
	assert.Equal(t, venue.NotFound, venue.CategoryOf(err), "%v", err)
	_, err = c.Market(ctx, "0x"+fmt.Sprintf("%064x", 1))
	assert.Equal(t, venue.NotFound, venue.CategoryOf(err), "%v", err)
}

func TestSandboxAPIKeys(t *testing.T) {
	needSandbox(t)
	ctx := testCtx(t)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	s := clob.NewKeySigner(key)
	c := clob.NewClient(clob.ConfigFor(sb.Network()))

	// As on the live venue, a key that does not exist cannot be derived
	// (the service's CreateOrDeriveAPIKey creates first for that reason).
	_, err = c.DeriveAPIKey(ctx, s, 3)
	assert.Equal(t, venue.NotFound, venue.CategoryOf(err), "%v", err)
	assert.Equal(t, "api_key_not_found", venue.CodeOf(err), "%v", err)

	created, err := c.CreateAPIKey(ctx, s, 3)
	require.NoError(t, err)
	require.NotEmpty(t, created.Key)
	require.NotEmpty(t, created.Secret)
	require.NotEmpty(t, created.Passphrase)
	for i := range 2 {
		derived, err := c.DeriveAPIKey(ctx, s, 3)
		require.NoError(t, err)
		assert.Equal(t, created, derived, "derive #%d returns the created key", i)
	}
	// Creating an existing key is the venue's conflict (clients derive).
	_, err = c.CreateAPIKey(ctx, s, 3)
	assert.Equal(t, venue.Conflict, venue.CategoryOf(err), "%v", err)
	assert.Equal(t, "api_key_create_failed", venue.CodeOf(err), "%v", err)
	again, err := c.CreateOrDeriveAPIKey(ctx, s, 3)
	require.NoError(t, err)
	assert.Equal(t, created, again)
	other, err := c.CreateOrDeriveAPIKey(ctx, s, 4)
	require.NoError(t, err)
	assert.NotEqual(t, created.Key, other.Key, "a different nonce is a different key")

	// The key authenticates L2 calls.
	_, err = c.WithCreds(created, s.Address()).GetOpenOrders(ctx, clob.OpenOrderParams{})
	require.NoError(t, err)
}

func TestSandboxRestingOrderLifecycle(t *testing.T) {
	needSandbox(t)
	ctx := testCtx(t)
	m := openMarkets(t)[0]
	tok := m.TokenIDs[0]
	w := newWallet(t, 50)
	price, size := restingBuy(t, w.client, tok)

	place := func() string {
		p, err := w.trader.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: tok, Side: clob.Buy, Price: price, Size: size})
		require.NoError(t, err)
		require.Equal(t, "live", p.Response.Status)
		require.Equal(t, p.OrderID.Hex(), p.Response.OrderID, "the venue's order id is the EIP-712 hash")
		return p.Response.OrderID
	}

	id := place()
	o, err := w.client.GetOrder(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, o.ID)
	assert.Equal(t, "BUY", o.Side)
	assert.True(t, price.Equal(o.Price.Decimal), "price %s", o.Price.Decimal)
	assert.True(t, size.Equal(o.OriginalSize.Decimal), "size %s", o.OriginalSize.Decimal)
	assert.True(t, o.SizeMatched.Decimal.IsZero())
	open, err := w.client.GetOpenOrders(ctx, clob.OpenOrderParams{AssetID: tok})
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, id, open[0].ID)

	cr, err := w.client.CancelOrder(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, []string{id}, cr.Canceled)
	open, err = w.client.GetOpenOrders(ctx, clob.OpenOrderParams{})
	require.NoError(t, err)
	assert.Empty(t, open)
	// Cancelling twice is reported, not an error.
	cr, err = w.client.CancelOrder(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, cr.Canceled)
	assert.Contains(t, cr.NotCanceled, id)

	// CancelOrders: two of three go, the third stays.
	ids := []string{place(), place(), place()}
	cr, err = w.client.CancelOrders(ctx, ids[:2])
	require.NoError(t, err)
	assert.ElementsMatch(t, ids[:2], cr.Canceled)
	open, err = w.client.GetOpenOrders(ctx, clob.OpenOrderParams{})
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, ids[2], open[0].ID)

	// CancelAll takes the rest.
	ids = append(ids, place())
	cr, err = w.client.CancelAll(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, ids[2:], cr.Canceled)
	open, err = w.client.GetOpenOrders(ctx, clob.OpenOrderParams{})
	require.NoError(t, err)
	assert.Empty(t, open)
}

func TestSandboxMarketOrdersFill(t *testing.T) {
	needSandbox(t)
	ctx := testCtx(t)
	m := openMarkets(t)[0]
	tok := m.TokenIDs[0]
	tokID, _ := new(big.Int).SetString(tok, 10)
	w := newWallet(t, 50)

	sharesBefore, err := chainC.OutcomeBalance(ctx, w.addr, tokID)
	require.NoError(t, err)
	require.Zero(t, sharesBefore.Sign())
	collBefore, err := chainC.CollateralBalance(ctx, w.addr)
	require.NoError(t, err)

	tests := []struct {
		name string
		ot   clob.OrderType
	}{
		{"FOK", clob.FOK},
		{"FAK", clob.FAK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			before, err := chainC.OutcomeBalance(ctx, w.addr, tokID)
			require.NoError(t, err)
			p, err := w.trader.PlaceMarketOrder(ctx, clob.MarketOrderArgs{TokenID: tok, Side: clob.Buy, Amount: decimal.NewFromInt(2), OrderType: tc.ot})
			require.NoError(t, err)
			assert.Equal(t, "matched", p.Response.Status)
			assert.NotEmpty(t, p.Response.TransactionsHashes)

			trades, err := w.client.GetTrades(ctx, clob.TradeParams{AssetID: tok})
			require.NoError(t, err)
			var mine *clob.Trade
			for i := range trades {
				if trades[i].TakerOrderID == p.Response.OrderID {
					mine = &trades[i]
				}
			}
			require.NotNil(t, mine, "GetTrades lists the fill of %s", p.Response.OrderID)
			assert.Equal(t, "BUY", mine.Side)
			assert.Equal(t, "TAKER", mine.TraderSide)
			assert.True(t, mine.Size.Decimal.IsPositive())

			lt, err := w.client.LastTradePrice(ctx, tok)
			require.NoError(t, err)
			assert.True(t, lt.Price.Decimal.IsPositive() && lt.Price.Decimal.LessThan(decimal.NewFromInt(1)), "last trade price %s", lt.Price.Decimal)

			after, err := chainC.OutcomeBalance(ctx, w.addr, tokID)
			require.NoError(t, err)
			assert.Equal(t, 1, after.Cmp(before), "outcome tokens on chain went up: %s -> %s", before, after)
		})
	}

	collAfter, err := chainC.CollateralBalance(ctx, w.addr)
	require.NoError(t, err)
	assert.Equal(t, 1, collBefore.Cmp(collAfter), "collateral paid on chain")

	// The venue's balance view follows the chain.
	require.NoError(t, w.client.UpdateBalanceAllowance(ctx, clob.BalanceAllowanceParams{AssetType: clob.AssetCollateral}))
	ba, err := w.client.GetBalanceAllowance(ctx, clob.BalanceAllowanceParams{AssetType: clob.AssetCollateral})
	require.NoError(t, err)
	assert.Equal(t, collAfter.String(), ba.Balance.Decimal.String(), "collateral balance (base units)")
	assert.NotEmpty(t, ba.Allowances, "exchange allowances")
	for spender, a := range ba.Allowances {
		assert.True(t, a.Decimal.IsPositive(), "allowance for %s", spender)
	}
	shares, err := chainC.OutcomeBalance(ctx, w.addr, tokID)
	require.NoError(t, err)
	require.NoError(t, w.client.UpdateBalanceAllowance(ctx, clob.BalanceAllowanceParams{AssetType: clob.AssetConditional, TokenID: tok}))
	ba, err = w.client.GetBalanceAllowance(ctx, clob.BalanceAllowanceParams{AssetType: clob.AssetConditional, TokenID: tok})
	require.NoError(t, err)
	assert.Equal(t, shares.String(), ba.Balance.Decimal.String(), "outcome balance (base units)")

	// An FOK the book cannot cover is refused locally with no_match.
	_, err = w.trader.PlaceMarketOrder(ctx, clob.MarketOrderArgs{TokenID: tok, Side: clob.Buy, Amount: decimal.NewFromInt(1_000_000)})
	assert.Equal(t, "no_match", venue.CodeOf(err), "%v", err)
}

func TestSandboxHeartbeat(t *testing.T) {
	needSandbox(t)
	ctx := testCtx(t)
	w := newWallet(t, 0)
	id, err := w.client.PostHeartbeat(ctx, "")
	require.NoError(t, err)
	require.NotEmpty(t, id)
	id2, err := w.client.PostHeartbeat(ctx, id)
	require.NoError(t, err)
	assert.NotEmpty(t, id2)
}

// TestSandboxVenueRejections: each bad order gets the venue's own error,
// classified, and leaves no trace: no open order, no trade, no collateral
// moved.
func TestSandboxVenueRejections(t *testing.T) {
	needSandbox(t)
	m := openMarkets(t)[0]
	tok := m.TokenIDs[0]
	w := newWallet(t, 50)
	price, size := restingBuy(t, w.client, tok)

	t.Run("bad signature", func(t *testing.T) {
		ctx := testCtx(t)
		before := w.snap(t)
		o, d := signedBuy(t, w, tok, m.NegRisk, price, size)
		o.Signature[10] ^= 0xff
		_, err := w.client.PostOrder(ctx, clob.PostOrderRequest{Order: o, OrderType: clob.GTC}, d)
		require.Error(t, err)
		assert.Equal(t, venue.Rejected, venue.CategoryOf(err), "%v", err)
		assert.Equal(t, "invalid_signature", venue.CodeOf(err), "%v", err)
		t.Logf("venue: %v", err)
		assertNothingBooked(t, w, before)
	})

	t.Run("signed by another key", func(t *testing.T) {
		ctx := testCtx(t)
		before := w.snap(t)
		o, d := signedBuy(t, w, tok, m.NegRisk, price, size)
		other, err := crypto.GenerateKey()
		require.NoError(t, err)
		// SignOrder refuses a key that is not o.Signer, so sign the order's
		// EIP-712 digest with the other key directly.
		digest, err := clob.OrderHash(o, d)
		require.NoError(t, err)
		o.Signature, err = clob.SignDigest(digest, other)
		require.NoError(t, err)
		_, err = w.client.PostOrder(ctx, clob.PostOrderRequest{Order: o, OrderType: clob.GTC}, d)
		assert.Equal(t, "invalid_signature", venue.CodeOf(err), "%v", err)
		assertNothingBooked(t, w, before)
	})

	// L2 timestamps more than 30s from the venue's clock are refused; a
	// client whose clock is skewed within that window still works.
	skews := []struct {
		name   string
		skew   time.Duration
		reject bool
	}{
		{"stale L2 timestamp", -10 * time.Minute, true},
		{"future L2 timestamp", 10 * time.Minute, true},
		{"L2 timestamp within tolerance", -10 * time.Second, false},
	}
	for _, sk := range skews {
		t.Run(sk.name, func(t *testing.T) {
			ctx := testCtx(t)
			before := w.snap(t)
			cfg := clob.ConfigFor(sb.Network())
			cfg.Now = func() time.Time { return time.Now().Add(sk.skew) }
			skewed := clob.NewClient(cfg).WithCreds(w.creds, w.addr)
			o, d := signedBuy(t, w, tok, m.NegRisk, price, size)
			r, err := skewed.PostOrder(ctx, clob.PostOrderRequest{Order: o, OrderType: clob.GTC}, d)
			if !sk.reject {
				require.NoError(t, err)
				_, err = skewed.CancelOrder(ctx, r.OrderID)
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, venue.Unauthorized, venue.CategoryOf(err), "%v", err)
			assert.Equal(t, "unauthorized", venue.CodeOf(err), "%v", err)
			t.Logf("venue: %v", err)
			_, err = skewed.GetOpenOrders(ctx, clob.OpenOrderParams{})
			assert.Equal(t, venue.Unauthorized, venue.CategoryOf(err), "%v", err)
			assertNothingBooked(t, w, before)
			// The same signed order with a fresh timestamp is accepted:
			// only the clock was wrong.
			r, err = w.client.PostOrder(ctx, clob.PostOrderRequest{Order: o, OrderType: clob.GTC}, d)
			require.NoError(t, err)
			_, err = w.client.CancelOrder(ctx, r.OrderID)
			require.NoError(t, err)
		})
	}

	t.Run("off-tick price refused locally", func(t *testing.T) {
		ctx := testCtx(t)
		before := w.snap(t)
		off := price.Add(price.Div(decimal.NewFromInt(2)))
		_, err := w.trader.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: tok, Side: clob.Buy, Price: off, Size: size})
		require.Error(t, err)
		// Invalid (not Rejected): the Trader refused before signing.
		assert.Equal(t, venue.Invalid, venue.CategoryOf(err), "%v", err)
		assert.Equal(t, "invalid_tick_size", venue.CodeOf(err), "%v", err)
		assertNothingBooked(t, w, before)
	})

	t.Run("off-tick price refused by the venue", func(t *testing.T) {
		ctx := testCtx(t)
		before := w.snap(t)
		off := price.Add(price.Div(decimal.NewFromInt(2)))
		o, d := signedBuy(t, w, tok, m.NegRisk, off, size.Mul(decimal.NewFromInt(2)))
		_, err := w.client.PostOrder(ctx, clob.PostOrderRequest{Order: o, OrderType: clob.GTC}, d)
		require.Error(t, err)
		assert.Equal(t, venue.Rejected, venue.CategoryOf(err), "%v", err)
		assert.Equal(t, "invalid_tick_size", venue.CodeOf(err), "%v", err)
		assert.Contains(t, venue.MessageOf(err), "minimum tick size", "the venue's own message")
		t.Logf("venue: %v", err)
		assertNothingBooked(t, w, before)
	})

	t.Run("unfunded wallet", func(t *testing.T) {
		ctx := testCtx(t)
		poor := newWallet(t, 0)
		before := poor.snap(t)
		require.Zero(t, before.collateral.Sign())
		_, err := poor.trader.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: tok, Side: clob.Buy, Price: price, Size: size})
		require.Error(t, err)
		assert.Equal(t, venue.Rejected, venue.CategoryOf(err), "%v", err)
		assert.Equal(t, "insufficient_balance_or_allowance", venue.CodeOf(err), "%v", err)
		if e, ok := venue.As(err); assert.True(t, ok) {
			assert.Equal(t, venue.AssetCollateral, e.Asset, "a BUY lacks collateral")
		}
		t.Logf("venue: %v", err)
		_, err = poor.trader.PlaceMarketOrder(ctx, clob.MarketOrderArgs{TokenID: tok, Side: clob.Buy, Amount: decimal.NewFromInt(2)})
		assert.Equal(t, "insufficient_balance_or_allowance", venue.CodeOf(err), "%v", err)
		assertNothingBooked(t, poor, before)
	})

	t.Run("funded but unapproved wallet", func(t *testing.T) {
		ctx := testCtx(t)
		unapproved := makeWallet(t, 50, false)
		before := unapproved.snap(t)
		require.Positive(t, before.collateral.Sign())
		_, err := unapproved.trader.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: tok, Side: clob.Buy, Price: price, Size: size})
		assert.Equal(t, venue.Rejected, venue.CategoryOf(err), "%v", err)
		assert.Equal(t, "insufficient_balance_or_allowance", venue.CodeOf(err), "%v", err)
		assertNothingBooked(t, unapproved, before)
	})
}

// TestSandboxGammaAndDataAPI reads the catalogue through the Gamma client
// and a wallet's fills through the Data API client, before and after the
// market resolves. It lists a market of its own (the makers quote it at
// once) so resolving it touches no market the other tests trade, however
// many times the test runs against the shared sandbox.
func TestSandboxGammaAndDataAPI(t *testing.T) {
	needSandbox(t)
	ctx := testCtx(t)
	suffix := fmt.Sprintf("%x", clob.NewSalt())
	var m ctlMarket
	control(t, http.MethodPost, "/control/markets", map[string]any{
		"question": "Will the Go client test " + suffix + " pass?", "slug": "go-client-test-" + suffix,
		"outcomes": []string{"Yes", "No"}, "price": "0.5"}, &m)
	require.NotEmpty(t, m.ConditionID)

	g := gamma.New(gamma.ConfigFor(sb.Network()))
	list, err := g.Markets(ctx, gamma.MarketsParams{})
	require.NoError(t, err)
	var found bool
	for _, gm := range list {
		found = found || gm.ConditionID == m.ConditionID
	}
	assert.True(t, found, "Gamma lists %s", m.Slug)
	bySlug, err := g.MarketBySlug(ctx, m.Slug)
	require.NoError(t, err)
	assert.Equal(t, m.ConditionID, bySlug.ConditionID)
	assert.Equal(t, []string{m.TokenIDs[0], m.TokenIDs[1]}, bySlug.ClobTokenIDs)
	assert.Equal(t, []string{m.Outcomes[0], m.Outcomes[1]}, bySlug.Outcomes)
	assert.True(t, bySlug.Tradable())
	byID, err := g.MarketByID(ctx, fmt.Sprint(m.ID))
	require.NoError(t, err)
	assert.Equal(t, m.Slug, byID.Slug)
	require.NotEmpty(t, bySlug.Events, "the market belongs to an event")
	ev, err := g.EventBySlug(ctx, bySlug.Events[0].Slug)
	require.NoError(t, err)
	var inEvent bool
	for _, em := range ev.Markets {
		inEvent = inEvent || em.ConditionID == m.ConditionID
	}
	assert.True(t, inEvent, "event %s holds the market", ev.Slug)
	_, err = g.MarketBySlug(ctx, "no-such-market-anywhere")
	assert.Equal(t, venue.NotFound, venue.CategoryOf(err), "%v", err)

	// A fill, then the Data API's views of it.
	w := newWallet(t, 50)
	p, err := w.trader.PlaceMarketOrder(ctx, clob.MarketOrderArgs{TokenID: m.TokenIDs[0], Side: clob.Buy, Amount: decimal.NewFromInt(2)})
	require.NoError(t, err)
	require.Equal(t, "matched", p.Response.Status)
	tokID, _ := new(big.Int).SetString(m.TokenIDs[0], 10)
	shares, err := chainC.OutcomeBalance(ctx, w.addr, tokID)
	require.NoError(t, err)
	wantSize := decimal.NewFromBigInt(shares, -6)

	d := dataapi.New(dataapi.ConfigFor(sb.Network()))
	pos, err := d.Positions(ctx, w.addr, dataapi.PositionsParams{})
	require.NoError(t, err)
	require.Len(t, pos, 1)
	assert.Equal(t, m.TokenIDs[0], pos[0].Asset)
	assert.Equal(t, m.ConditionID, pos[0].ConditionID)
	assert.True(t, wantSize.Equal(pos[0].Size.Decimal), "position %s, on chain %s", pos[0].Size.Decimal, wantSize)
	assert.False(t, pos[0].Redeemable, "open market: not redeemable")

	act, err := d.Activity(ctx, w.addr, dataapi.ActivityParams{})
	require.NoError(t, err)
	require.NotEmpty(t, act)
	assert.Equal(t, "TRADE", act[0].Type)
	assert.Equal(t, m.ConditionID, act[0].ConditionID)
	assert.Equal(t, "BUY", act[0].Side)
	trades, err := d.Trades(ctx, w.addr, dataapi.TradesParams{})
	require.NoError(t, err)
	require.NotEmpty(t, trades)
	assert.Equal(t, m.TokenIDs[0], trades[0].Asset)
	assert.Equal(t, "BUY", trades[0].Side)
	assert.Contains(t, p.Response.TransactionsHashes, trades[0].TransactionHash)

	control(t, http.MethodPost, "/control/markets/"+m.ConditionID+"/resolve", map[string]any{"winner": m.Outcomes[0]}, nil)
	pos, err = d.Positions(ctx, w.addr, dataapi.PositionsParams{})
	require.NoError(t, err)
	require.Len(t, pos, 1)
	assert.True(t, pos[0].Redeemable, "resolved market: redeemable")
	redeemable := true
	pos, err = d.Positions(ctx, w.addr, dataapi.PositionsParams{Redeemable: &redeemable})
	require.NoError(t, err)
	assert.Len(t, pos, 1, "the redeemable filter keeps it")
	gm, err := g.MarketBySlug(ctx, m.Slug)
	require.NoError(t, err)
	assert.True(t, gm.Closed, "Gamma shows the market closed")
}
