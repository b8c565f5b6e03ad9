package sandbox_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/venue/updown"
)

func start(t *testing.T, cfg sandbox.Config) *sandbox.Sandbox {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	cfg.PaperChain = true // the EVM path has its own test (evm_test.go)
	if cfg.QuoteInterval == 0 {
		cfg.QuoteInterval = time.Hour // tests drive prices through the control API
	}
	if cfg.Ordinary == 0 {
		cfg.Ordinary = 6
	}
	sb, err := sandbox.Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })
	return sb
}

type resp struct {
	status int
	body   []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, v), string(r.body))
}

func (r resp) errorMsg(t *testing.T) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	r.json(t, &e)
	return e.Error
}

func do(t *testing.T, method, url string, h http.Header, body []byte) resp {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return resp{res.StatusCode, b}
}

func get(t *testing.T, url string) resp { return do(t, "GET", url, nil, nil) }

func postJSON(t *testing.T, url string, v any) resp {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return do(t, "POST", url, nil, b)
}

// trader is a wallet with API credentials on a sandbox.
type trader struct {
	net   network.Network // the sandbox's, with its URLs
	key   *ecdsa.PrivateKey
	addr  common.Address
	creds clob.Creds
}

func newTrader(t *testing.T, sb *sandbox.Sandbox, usdc int64) *trader {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	tr := &trader{net: sb.Network(), key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	if usdc > 0 {
		r := postJSON(t, sb.URL()+"/control/wallets/"+tr.addr.Hex()+"/fund", map[string]any{"usdc": usdc})
		require.Equal(t, 200, r.status, string(r.body))
		approve(t, sb, tr.addr)
	}
	h, err := clob.L1Headers(context.Background(), clob.NewKeySigner(key), sb.Network().ChainID, time.Now().Unix(), 0)
	require.NoError(t, err)
	r := do(t, "POST", sb.URL()+"/clob/auth/api-key", h, nil)
	require.Equal(t, 200, r.status, string(r.body))
	var c struct{ APIKey, Secret, Passphrase string }
	r.json(t, &c)
	tr.creds = clob.Creds{Key: c.APIKey, Secret: c.Secret, Passphrase: c.Passphrase}
	return tr
}

// approve grants the exchanges the wallet's collateral and tokens, as the
// approval transactions do on chain.
func approve(t *testing.T, sb *sandbox.Sandbox, addr common.Address) {
	t.Helper()
	mc, ok := sb.Chain().(*markets.MemChain)
	require.True(t, ok)
	mc.Approve(addr, 1<<62, true)
}

func (tr *trader) l2(t *testing.T, method, path string, body []byte, ts int64) resp {
	t.Helper()
	h, err := clob.L2Headers(tr.creds, tr.addr, ts, method, path, body)
	require.NoError(t, err)
	return do(t, method, tr.net.CLOBURL+path, h, body)
}

func (tr *trader) call(t *testing.T, method, path string, body []byte) resp {
	t.Helper()
	p := path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	h, err := clob.L2Headers(tr.creds, tr.addr, time.Now().Unix(), method, p, body)
	require.NoError(t, err)
	return do(t, method, tr.net.CLOBURL+path, h, body)
}

// order builds and signs a limit order body.
func (tr *trader) order(t *testing.T, m markets.Info, outcome int, side clob.Side, price, size string, typ clob.OrderType) ([]byte, string) {
	t.Helper()
	maker, taker, err := clob.BuildLimitAmounts(side, decimal.RequireFromString(price), decimal.RequireFromString(size), clob.Tick001)
	require.NoError(t, err)
	tok, _ := new(big.Int).SetString(m.TokenIDs[outcome], 10)
	o := clob.Order{Salt: clob.NewSalt(), Maker: tr.addr, Signer: tr.addr, TokenID: tok, MakerAmount: maker, TakerAmount: taker,
		Side: side, SignatureType: clob.SigEOA, Timestamp: uint64(time.Now().UnixMilli())}
	d := clob.NetworkDomain(tr.net, m.NegRisk)
	require.NoError(t, clob.SignOrder(&o, tr.key, d))
	h, err := clob.OrderHash(o, d)
	require.NoError(t, err)
	b, err := json.Marshal(clob.PostOrderRequest{Order: o, Owner: tr.creds.Key, OrderType: typ})
	require.NoError(t, err)
	return b, h.Hex()
}

func firstMarket(t *testing.T, sb *sandbox.Sandbox) markets.Info {
	t.Helper()
	for _, m := range sb.Venue().Markets() {
		if m.UpDown == nil && !m.Resolved {
			return m
		}
	}
	t.Fatal("no ordinary market")
	return markets.Info{}
}

type book struct {
	Market, AssetID, Timestamp, Hash string
	Bids, Asks                       []struct{ Price, Size string }
	MinOrderSize                     string `json:"min_order_size"`
	TickSize                         string `json:"tick_size"`
	NegRisk                          bool   `json:"neg_risk"`
	LastTradePrice                   string `json:"last_trade_price"`
}

func TestPublicEndpointShapes(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 7, DisableUpDown: true})
	m := firstMarket(t, sb)
	c := sb.URL() + "/clob"

	assert.Equal(t, `"OK"`, string(get(t, c+"/ok").body))
	assert.JSONEq(t, `{"version":2}`, string(get(t, c+"/version").body))
	var ts int64
	get(t, c+"/time").json(t, &ts)
	assert.InDelta(t, time.Now().Unix(), ts, 5)

	r := get(t, c+"/book?token_id="+m.TokenIDs[0])
	require.Equal(t, 200, r.status)
	var raw map[string]any
	r.json(t, &raw)
	for _, k := range []string{"market", "asset_id", "timestamp", "hash", "bids", "asks", "min_order_size", "tick_size", "neg_risk", "last_trade_price"} {
		assert.Contains(t, raw, k)
	}
	var b book
	r.json(t, &b)
	assert.Equal(t, m.ConditionID, raw["market"])
	assert.Equal(t, "0.01", b.TickSize)
	assert.Equal(t, "5", b.MinOrderSize)
	require.NotEmpty(t, b.Bids)
	require.NotEmpty(t, b.Asks)
	// Bids ascending and asks descending: the best level is last.
	assert.True(t, decimal.RequireFromString(b.Bids[0].Price).LessThan(decimal.RequireFromString(b.Bids[len(b.Bids)-1].Price)))
	assert.True(t, decimal.RequireFromString(b.Asks[0].Price).GreaterThan(decimal.RequireFromString(b.Asks[len(b.Asks)-1].Price)))
	// The hash is SHA-1 of the compact JSON with an empty hash.
	noHash := strings.Replace(string(r.body), `"hash":"`+b.Hash+`"`, `"hash":""`, 1)
	sum := sha1.Sum([]byte(noHash))
	assert.Equal(t, hex.EncodeToString(sum[:]), b.Hash)

	var price map[string]string
	get(t, c+"/price?token_id="+m.TokenIDs[0]+"&side=BUY").json(t, &price)
	assert.Equal(t, b.Bids[len(b.Bids)-1].Price, price["price"])
	var mid map[string]string
	get(t, c+"/midpoint?token_id="+m.TokenIDs[0]).json(t, &mid)
	assert.NotEmpty(t, mid["mid"])
	assert.JSONEq(t, `{"minimum_tick_size":0.01}`, string(get(t, c+"/tick-size?token_id="+m.TokenIDs[0]).body))
	assert.JSONEq(t, `{"neg_risk":false}`, string(get(t, c+"/neg-risk?token_id="+m.TokenIDs[0]).body))

	r = get(t, c+"/book?token_id=123")
	assert.Equal(t, 404, r.status)
	assert.Equal(t, "No orderbook exists for the requested token id", r.errorMsg(t))
	r = get(t, c+"/book?token_id=abc")
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "Invalid token id", r.errorMsg(t))

	var env struct {
		Data       []map[string]any `json:"data"`
		NextCursor string           `json:"next_cursor"`
		Count      int              `json:"count"`
	}
	get(t, c+"/markets").json(t, &env)
	assert.Equal(t, "LTE=", env.NextCursor)
	assert.Equal(t, len(sb.Venue().Markets()), env.Count)
	var cm map[string]any
	get(t, c+"/markets/"+m.ConditionID).json(t, &cm)
	assert.Equal(t, m.Slug, cm["market_slug"])
	get(t, c+"/markets-by-token/"+m.TokenIDs[1]).json(t, &cm)
	assert.Equal(t, m.ConditionID, cm["condition_id"])
	get(t, c+"/clob-markets/"+m.ConditionID).json(t, &cm)
	assert.Equal(t, 0.01, cm["mts"])
	assert.NotContains(t, cm, "nr")

	var gm []map[string]any
	get(t, sb.URL()+"/gamma/markets?slug="+m.Slug).json(t, &gm)
	require.Len(t, gm, 1)
	var outcomes, toks []string
	require.NoError(t, json.Unmarshal([]byte(gm[0]["outcomes"].(string)), &outcomes))
	require.NoError(t, json.Unmarshal([]byte(gm[0]["clobTokenIds"].(string)), &toks))
	assert.Equal(t, []string{"Yes", "No"}, outcomes)
	assert.Equal(t, m.TokenIDs[:], toks)
	assert.IsType(t, "", gm[0]["volume"])
	assert.IsType(t, float64(0), gm[0]["volumeNum"])
	var ev map[string]any
	r = get(t, sb.URL()+"/gamma/events/slug/"+m.Slug)
	require.Equal(t, 200, r.status)
	r.json(t, &ev)
	assert.Len(t, ev["markets"], 1)
}

func TestAuth(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 8, DisableUpDown: true, Ordinary: 1})
	key, _ := crypto.GenerateKey()
	l1 := func(ts int64, nonce uint64) http.Header {
		h, err := clob.L1Headers(context.Background(), clob.NewKeySigner(key), sb.Network().ChainID, ts, nonce)
		require.NoError(t, err)
		return h
	}
	now := time.Now().Unix()
	r := do(t, "POST", sb.URL()+"/clob/auth/api-key", l1(now, 0), nil)
	require.Equal(t, 200, r.status, string(r.body))
	var created map[string]string
	r.json(t, &created)
	assert.NotEmpty(t, created["apiKey"])

	r = do(t, "POST", sb.URL()+"/clob/auth/api-key", l1(now, 0), nil)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "Could not create api key", r.errorMsg(t))

	var derived map[string]string
	do(t, "GET", sb.URL()+"/clob/auth/derive-api-key", l1(now, 0), nil).json(t, &derived)
	assert.Equal(t, created, derived, "derive returns the key the nonce has")
	// The live venue derives only a key that exists.
	r = do(t, "GET", sb.URL()+"/clob/auth/derive-api-key", l1(now, 1), nil)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "Could not derive api key!", r.errorMsg(t))
	var other map[string]string
	r = do(t, "POST", sb.URL()+"/clob/auth/api-key", l1(now, 1), nil)
	require.Equal(t, 200, r.status, string(r.body))
	r.json(t, &other)
	assert.NotEqual(t, created["apiKey"], other["apiKey"])
	assert.NotEqual(t, created["secret"], other["secret"])

	bad := l1(now, 0)
	bad.Set(clob.HeaderNonce, "5") // signature no longer covers the nonce
	r = do(t, "GET", sb.URL()+"/clob/auth/derive-api-key", bad, nil)
	assert.Equal(t, 401, r.status)
	assert.Equal(t, "Invalid L1 Request headers", r.errorMsg(t))
	r = do(t, "GET", sb.URL()+"/clob/auth/derive-api-key", l1(now-3600, 0), nil)
	assert.Equal(t, 401, r.status, "stale L1 headers")

	tr := &trader{net: sb.Network(), key: key, addr: crypto.PubkeyToAddress(key.PublicKey),
		creds: clob.Creds{Key: created["apiKey"], Secret: created["secret"], Passphrase: created["passphrase"]}}
	r = tr.l2(t, "GET", "/auth/api-keys", nil, time.Now().Unix())
	require.Equal(t, 200, r.status, string(r.body))
	var keys struct{ APIKeys []string }
	r.json(t, &keys)
	assert.Len(t, keys.APIKeys, 2)

	cases := []struct {
		name string
		mut  func() resp
	}{
		{"bad hmac", func() resp {
			bad := tr.creds
			bad.Secret = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
			h, _ := clob.L2Headers(bad, tr.addr, time.Now().Unix(), "GET", "/auth/api-keys", nil)
			return do(t, "GET", sb.URL()+"/clob/auth/api-keys", h, nil)
		}},
		{"stale timestamp", func() resp { return tr.l2(t, "GET", "/auth/api-keys", nil, time.Now().Unix()-60) }},
		{"future timestamp", func() resp { return tr.l2(t, "GET", "/auth/api-keys", nil, time.Now().Unix()+60) }},
		{"signed other path", func() resp {
			h, _ := clob.L2Headers(tr.creds, tr.addr, time.Now().Unix(), "GET", "/data/orders", nil)
			return do(t, "GET", sb.URL()+"/clob/auth/api-keys", h, nil)
		}},
		{"no headers", func() resp { return get(t, sb.URL()+"/clob/data/orders") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.mut()
			assert.Equal(t, 401, r.status)
			assert.Equal(t, "Unauthorized/Invalid api key", r.errorMsg(t))
		})
	}

	// A deleted key is gone: it no longer authenticates, derive refuses,
	// and create makes a new one.
	r = tr.l2(t, "DELETE", "/auth/api-key", nil, time.Now().Unix())
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, 401, tr.l2(t, "GET", "/auth/api-keys", nil, time.Now().Unix()).status)
	r = do(t, "GET", sb.URL()+"/clob/auth/derive-api-key", l1(now, 0), nil)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "Could not derive api key!", r.errorMsg(t))
	var recreated map[string]string
	r = do(t, "POST", sb.URL()+"/clob/auth/api-key", l1(now, 0), nil)
	require.Equal(t, 200, r.status, string(r.body))
	r.json(t, &recreated)
	assert.NotEqual(t, created["apiKey"], recreated["apiKey"], "a new key, not the deleted one")
}

func TestOrderRejectionsBookNothing(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 9, DisableUpDown: true, Ordinary: 2})
	m := firstMarket(t, sb)
	rich := newTrader(t, sb, 1000)
	poor := newTrader(t, sb, 0)
	stranger := newTrader(t, sb, 1000)

	badSig, _ := rich.order(t, m, 0, clob.Buy, "0.10", "10", clob.GTC)
	badSig = bytes.Replace(badSig, []byte(`"makerAmount":"1000000"`), []byte(`"makerAmount":"1100000"`), 1)
	offTick, _ := rich.order(t, m, 0, clob.Buy, "0.10", "10", clob.GTC)
	// 0.105 is not on the 0.01 tick: rebuild the amounts by hand.
	offTick = bytes.Replace(offTick, []byte(`"makerAmount":"1000000"`), []byte(`"makerAmount":"1050000"`), 1)
	unfunded, _ := poor.order(t, m, 0, clob.Buy, "0.10", "10", clob.GTC)
	notMine, _ := stranger.order(t, m, 0, clob.Buy, "0.10", "10", clob.GTC)

	cases := []struct {
		name string
		who  *trader
		body []byte
		want string
	}{
		{"bad signature", rich, badSig, "invalid signature"},
		{"unfunded wallet", poor, unfunded, "not enough balance / allowance"},
		{"someone else's order", rich, notMine, "the order owner has to be the owner of the API KEY"},
		{"malformed", rich, []byte(`{"order":{}}`), "Invalid order payload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.who.call(t, "POST", "/order", c.body)
			assert.Equal(t, 400, r.status, string(r.body))
			assert.Equal(t, c.want, r.errorMsg(t))
		})
	}
	// An off-tick order needs a valid signature over its off-tick amounts.
	var req clob.PostOrderRequest
	require.NoError(t, json.Unmarshal(offTick, &req))
	d := clob.NetworkDomain(sb.Network(), m.NegRisk)
	require.NoError(t, clob.SignOrder(&req.Order, rich.key, d))
	h, _ := clob.OrderHash(req.Order, d)
	body, _ := json.Marshal(req)
	r := rich.call(t, "POST", "/order", body)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, fmt.Sprintf("order %s is invalid. Price (0.105) breaks minimum tick size rule: 0.01", h.Hex()), r.errorMsg(t))

	for _, tr := range []*trader{rich, poor} {
		var env struct{ Data []any }
		tr.call(t, "GET", "/data/orders", nil).json(t, &env)
		assert.Empty(t, env.Data, "nothing booked")
	}
}

func TestRestingOrderListedAndCancelled(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 10, DisableUpDown: true, Ordinary: 2})
	m := firstMarket(t, sb)
	tr := newTrader(t, sb, 1000)
	body, id := tr.order(t, m, 0, clob.Buy, "0.02", "50", clob.GTC)
	r := tr.call(t, "POST", "/order", body)
	require.Equal(t, 200, r.status, string(r.body))
	var or map[string]any
	r.json(t, &or)
	assert.Equal(t, true, or["success"])
	assert.Equal(t, "live", or["status"])
	assert.Equal(t, id, or["orderID"])

	var env struct {
		Data       []map[string]any
		NextCursor string `json:"next_cursor"`
	}
	tr.call(t, "GET", "/data/orders?next_cursor=MA==", nil).json(t, &env)
	require.Len(t, env.Data, 1)
	assert.Equal(t, "LTE=", env.NextCursor)
	o := env.Data[0]
	assert.Equal(t, id, o["id"])
	assert.Equal(t, "LIVE", o["status"])
	assert.Equal(t, "50", o["original_size"])
	assert.Equal(t, "0", o["size_matched"])
	assert.Equal(t, "0.02", o["price"])
	assert.Equal(t, "GTC", o["order_type"])
	assert.Equal(t, tr.addr.Hex(), o["maker_address"])

	cancel, _ := json.Marshal(map[string]string{"orderID": id})
	r = tr.call(t, "DELETE", "/order", cancel)
	require.Equal(t, 200, r.status, string(r.body))
	assert.JSONEq(t, fmt.Sprintf(`{"canceled":[%q],"not_canceled":{}}`, id), string(r.body))
	tr.call(t, "GET", "/data/orders", nil).json(t, &env)
	assert.Empty(t, env.Data)
	var one map[string]any
	tr.call(t, "GET", "/data/order/"+id, nil).json(t, &one)
	assert.Equal(t, "CANCELED", one["status"])
	r = tr.call(t, "DELETE", "/order", cancel)
	assert.Contains(t, string(r.body), "not_canceled")
	assert.Contains(t, string(r.body), id)
}

func TestMarketableOrderFillsAndSettles(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 11, DisableUpDown: true, Ordinary: 2})
	m := firstMarket(t, sb)
	tr := newTrader(t, sb, 1000)
	var b book
	get(t, sb.URL()+"/clob/book?token_id="+m.TokenIDs[0]).json(t, &b)
	best := b.Asks[len(b.Asks)-1].Price

	before := balances(t, sb, tr.addr, m.TokenIDs[0])
	body, id := tr.order(t, m, 0, clob.Buy, best, "20", clob.FOK)
	r := tr.call(t, "POST", "/order", body)
	require.Equal(t, 200, r.status, string(r.body))
	var or struct {
		Success            bool
		Status             string
		OrderID            string
		MakingAmount       string
		TakingAmount       string
		TransactionsHashes []string
		TradeIDs           []string
	}
	r.json(t, &or)
	assert.Equal(t, "matched", or.Status)
	assert.Equal(t, id, or.OrderID)
	assert.Equal(t, "20", or.TakingAmount)
	cost := decimal.RequireFromString(best).Mul(decimal.NewFromInt(20))
	assert.True(t, cost.Equal(decimal.RequireFromString(or.MakingAmount)), or.MakingAmount)
	require.Len(t, or.TransactionsHashes, 1)
	require.Len(t, or.TradeIDs, 1)

	after := balances(t, sb, tr.addr, m.TokenIDs[0])
	assert.Equal(t, before[0]-cost.Shift(6).IntPart(), after[0], "collateral paid")
	assert.Equal(t, before[1]+20_000_000, after[1], "shares received")

	var env struct{ Data []map[string]any }
	tr.call(t, "GET", "/data/trades", nil).json(t, &env)
	require.Len(t, env.Data, 1)
	assert.Equal(t, or.TradeIDs[0], env.Data[0]["id"])
	assert.Equal(t, "TAKER", env.Data[0]["trader_side"])
	assert.Contains(t, []any{"MINED", "CONFIRMED"}, env.Data[0]["status"])
	assert.Equal(t, or.TransactionsHashes[0], env.Data[0]["transaction_hash"])

	var pos []map[string]any
	get(t, sb.URL()+"/data-api/positions?user="+tr.addr.Hex()).json(t, &pos)
	require.Len(t, pos, 1)
	assert.Equal(t, 20.0, pos[0]["size"])
	assert.Equal(t, false, pos[0]["redeemable"])
	var trades []map[string]any
	get(t, sb.URL()+"/data-api/trades?user="+tr.addr.Hex()).json(t, &trades)
	require.Len(t, trades, 1)
	assert.Equal(t, "BUY", trades[0]["side"])
	var act []map[string]any
	get(t, sb.URL()+"/data-api/activity?user="+tr.addr.Hex()).json(t, &act)
	require.Len(t, act, 1)
	assert.Equal(t, "TRADE", act[0]["type"])

	// FOK beyond the book's depth is killed with the venue's message.
	body, _ = tr.order(t, m, 0, clob.Buy, best, "100000", clob.FOK)
	r = tr.call(t, "POST", "/order", body)
	assert.Equal(t, 400, r.status)
}

// balances returns (collateral, shares of token) in micro-units via the
// authenticated balance endpoint's source, the chain ledger.
func balances(t *testing.T, sb *sandbox.Sandbox, addr common.Address, token string) [2]int64 {
	t.Helper()
	c, _, err := sb.Chain().Funds(context.Background(), addr, "", false)
	require.NoError(t, err)
	s, _, err := sb.Chain().Funds(context.Background(), addr, token, false)
	require.NoError(t, err)
	return [2]int64{c.Int64(), s.Int64()}
}

func TestUpDownMarketsForEveryAssetAndTimeframe(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 12, Ordinary: 1})
	now := time.Now()
	for _, a := range updown.Assets() {
		for _, tf := range markets.Timeframes {
			ws, err := updown.Windows(a, tf, now, 2)
			require.NoError(t, err)
			for n, w := range ws {
				r := get(t, sb.URL()+"/gamma/events/slug/"+w.Slug)
				if r.status != 200 && n == 0 {
					// The window may have rolled over since the sandbox listed it.
					prev, _ := updown.WindowAt(a, tf, now.Add(-time.Minute))
					w = prev
					r = get(t, sb.URL()+"/gamma/events/slug/"+w.Slug)
				}
				require.Equal(t, 200, r.status, w.Slug)
				var ev struct {
					Slug    string
					Markets []map[string]any
				}
				r.json(t, &ev)
				require.Len(t, ev.Markets, 1)
				assert.Equal(t, `["Up", "Down"]`, ev.Markets[0]["outcomes"])
				assert.Equal(t, w.Slug, ev.Markets[0]["slug"])
				assert.Equal(t, isoUTC(w.Start), ev.Markets[0]["eventStartTime"])
				assert.Equal(t, isoUTC(w.End), ev.Markets[0]["endDate"])
			}
		}
	}
}

func isoUTC(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func TestControlAPI(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 13, DisableUpDown: true, Ordinary: 2})
	m := firstMarket(t, sb)
	ctl := sb.URL() + "/control"

	var list []map[string]any
	get(t, ctl+"/markets").json(t, &list)
	assert.Len(t, list, 2)
	for _, k := range []string{"conditionId", "tokenIds", "outcome", "midPrice", "tickSize", "negRisk", "endDate", "resolved"} {
		assert.Contains(t, list[0], k)
	}

	// Price: the book re-centres; the other outcome moves to 1 - p.
	r := postJSON(t, ctl+"/markets/"+m.TokenIDs[0]+"/price", map[string]any{"price": 0.42})
	require.Equal(t, 200, r.status, string(r.body))
	var mid map[string]string
	get(t, sb.URL()+"/clob/midpoint?token_id="+m.TokenIDs[0]).json(t, &mid)
	assert.Equal(t, "0.42", mid["mid"])
	get(t, sb.URL()+"/clob/midpoint?token_id="+m.TokenIDs[1]).json(t, &mid)
	assert.Equal(t, "0.58", mid["mid"])
	r = postJSON(t, ctl+"/markets/"+m.TokenIDs[0]+"/price", map[string]any{"price": 1.5})
	assert.Equal(t, 400, r.status)

	// Outside trade through the book, settled.
	outside := sb.Chain().OutsideWallets()[0]
	oaddr := crypto.PubkeyToAddress(outside.PublicKey)
	r = postJSON(t, ctl+"/trades", map[string]any{"address": oaddr.Hex(), "tokenId": m.TokenIDs[0], "side": "BUY", "size": 10, "price": 0.43})
	require.Equal(t, 200, r.status, string(r.body))
	var tres map[string]any
	r.json(t, &tres)
	assert.Equal(t, "matched", tres["status"])
	assert.Len(t, tres["transactionsHashes"], 1)
	var trades []map[string]any
	get(t, sb.URL()+"/data-api/trades?user="+oaddr.Hex()).json(t, &trades)
	require.Len(t, trades, 1)
	assert.Equal(t, 0.43, trades[0]["price"])

	// Fund: collateral arrives.
	w := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	r = postJSON(t, ctl+"/wallets/"+w.Hex()+"/fund", map[string]any{"usdc": 1000, "native": 1})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, int64(1000_000_000), balances(t, sb, w, m.TokenIDs[0])[0])

	// Resolve: the outside wallet's position becomes redeemable.
	r = postJSON(t, ctl+"/markets/"+m.ConditionID+"/resolve", map[string]any{"winner": "Yes"})
	require.Equal(t, 200, r.status, string(r.body))
	var pos []map[string]any
	get(t, sb.URL()+"/data-api/positions?user="+oaddr.Hex()+"&redeemable=true").json(t, &pos)
	require.Len(t, pos, 1)
	assert.Equal(t, true, pos[0]["redeemable"])
	assert.Equal(t, 1.0, pos[0]["curPrice"])
	r = postJSON(t, ctl+"/markets/"+m.ConditionID+"/resolve", map[string]any{"winner": "Yes"})
	assert.Equal(t, 400, r.status, "already resolved")
	var gm []map[string]any
	get(t, sb.URL()+"/gamma/markets?closed=true&slug="+m.Slug).json(t, &gm)
	require.Len(t, gm, 1)
	assert.Equal(t, `["1", "0"]`, gm[0]["outcomePrices"])

	// Create: a new market with books around its price.
	r = postJSON(t, ctl+"/markets", map[string]any{"question": "Will the sandbox test pass?", "slug": "sandbox-test-pass",
		"outcomes": []string{"Yes", "No"}, "price": 0.7, "endDate": "2030-01-01T00:00:00Z", "tags": []string{"politics"}, "volume": 125000})
	require.Equal(t, 200, r.status, string(r.body))
	var created struct {
		ConditionID string    `json:"conditionId"`
		TokenIDs    [2]string `json:"tokenIds"`
	}
	r.json(t, &created)
	assert.Len(t, created.ConditionID, 66)
	get(t, sb.URL()+"/clob/midpoint?token_id="+created.TokenIDs[0]).json(t, &mid)
	assert.Equal(t, "0.7", mid["mid"])
	r = get(t, sb.URL()+"/gamma/markets/slug/sandbox-test-pass")
	assert.Equal(t, 200, r.status)
}

// signedAs builds an order of signature type st for maker.
func (tr *trader) signedAs(t *testing.T, m markets.Info, st clob.SignatureType, maker common.Address) []byte {
	t.Helper()
	mk, tk, err := clob.BuildLimitAmounts(clob.Buy, decimal.RequireFromString("0.05"), decimal.RequireFromString("10"), clob.Tick001)
	require.NoError(t, err)
	tok, _ := new(big.Int).SetString(m.TokenIDs[0], 10)
	signer := tr.addr
	if st == clob.SigPoly1271 {
		signer = maker
	}
	o := clob.Order{Salt: clob.NewSalt(), Maker: maker, Signer: signer, TokenID: tok, MakerAmount: mk, TakerAmount: tk,
		Side: clob.Buy, SignatureType: st, Timestamp: uint64(time.Now().UnixMilli())}
	require.NoError(t, clob.SignOrder(&o, tr.key, clob.NetworkDomain(tr.net, m.NegRisk)))
	b, err := json.Marshal(clob.PostOrderRequest{Order: o, Owner: tr.creds.Key, OrderType: clob.GTC})
	require.NoError(t, err)
	return b
}

func TestSignatureTypesAndMakerRules(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refuseEOA=%v", refuse), func(t *testing.T) {
			sb := start(t, sandbox.Config{Seed: 14, DisableUpDown: true, Ordinary: 1, RefuseEOAMakers: refuse})
			m := firstMarket(t, sb)
			tr := newTrader(t, sb, 100)
			n := sb.Network()
			proxy, safe := chain.DeriveProxyAddress(n, tr.addr), chain.DeriveSafeAddress(n, tr.addr)
			wallet := common.HexToAddress("0x00000000000000000000000000000000000d3905")
			for _, a := range []common.Address{proxy, safe, wallet} {
				require.Equal(t, 200, postJSON(t, sb.URL()+"/control/wallets/"+a.Hex()+"/fund", map[string]any{"usdc": 100}).status)
				approve(t, sb, a)
			}
			cases := []struct {
				name  string
				st    clob.SignatureType
				maker common.Address
				want  string // "" = accepted
			}{
				{"proxy", clob.SigPolyProxy, proxy, ""},
				{"safe", clob.SigGnosisSafe, safe, ""},
				{"deposit wallet", clob.SigPoly1271, wallet, ""},
				{"proxy type with the safe as maker", clob.SigPolyProxy, safe, "invalid signature"},
				{"safe type with someone else's safe", clob.SigGnosisSafe, chain.DeriveSafeAddress(n, wallet), "invalid signature"},
				{"eoa", clob.SigEOA, tr.addr, map[bool]string{true: "maker address not allowed, please use the deposit wallet flow"}[refuse]},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := tr.call(t, "POST", "/order", tr.signedAs(t, m, c.st, c.maker))
					if c.want == "" {
						require.Equal(t, 200, r.status, string(r.body))
						return
					}
					assert.Equal(t, 400, r.status)
					assert.Equal(t, c.want, r.errorMsg(t))
				})
			}
		})
	}
}
