package account_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/account"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/wallets"
)

// fakeChain is a CollateralReader with settable balances.
type fakeChain struct {
	mu  sync.Mutex
	bal map[common.Address]*big.Int
	err error
}

func (c *fakeChain) CollateralBalance(_ context.Context, a common.Address) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	if b, ok := c.bal[a]; ok {
		return new(big.Int).Set(b), nil
	}
	return new(big.Int), nil
}

type prices map[string]int64

func (p prices) Prices(_ context.Context, ids []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, id := range ids {
		if v, ok := p[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

type env struct {
	st    *store.Store
	chain *fakeChain
	srv   http.Handler
}

func newEnv(t testing.TB, st *store.Store) *env {
	chain := &fakeChain{bal: map[common.Address]*big.Int{}}
	w := budget.ChainWallets{Wallets: &wallets.Service{Store: st}, Chain: chain}
	px := prices{"tokC": 750_000}
	deps := account.Deps{Wallets: w, Paper: st, Budget: budget.New(st, w, px), Stats: stats.New(st, px)}
	srv := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{account.Routes(deps, agentauth.Middleware(st, nil))},
	})
	return &env{st: st, chain: chain, srv: srv}
}

type user struct {
	id     string
	key    string
	agent  *models.Agent
	wallet common.Address
}

// newUser creates a user with an agent (scopes) and, when kind is set, a
// wallet of that kind holding balance micro-USDC.
func (e *env) newUser(t testing.TB, scopes, kind string, balance int64) user {
	t.Helper()
	return e.newUserAs(t, models.ModeLive, scopes, kind, balance)
}

// newUserAs is newUser with an agent of mode (paper or live).
func (e *env) newUserAs(t testing.TB, mode, scopes, kind string, balance int64) user {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com"}
	require.NoError(t, e.st.CreateUser(ctx, u))
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: scopes, Mode: mode}
	require.NoError(t, e.st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}))
	out := user{id: u.ID, key: plain, agent: a}
	if kind != "" {
		out.wallet = common.BytesToAddress([]byte(u.ID)[:20])
		require.NoError(t, e.st.UpsertWallet(ctx, &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: u.ID, Kind: kind,
			EOAAddress: out.wallet.Hex(), FunderAddress: out.wallet.Hex(), KeyCiphertext: []byte{1}, KeyNonce: []byte{1}, KeyVersion: 1}))
		e.chain.mu.Lock()
		e.chain.bal[out.wallet] = big.NewInt(balance)
		e.chain.mu.Unlock()
	}
	return out
}

func (e *env) get(t testing.TB, key, path string) (int, map[string]json.RawMessage) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/agent/v1"+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	openapitest.Handler(t, e.srv).ServeHTTP(rec, req)
	var body map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec.Code, body
}

func TestEndpoints(t *testing.T) {
	e := newEnv(t, storetest.NewSQLite(t))
	ctx := context.Background()
	const M = models.MicroPerUnit

	rich := e.newUser(t, "read trade", models.WalletProxy, 123_456_789)
	limits := e.newUser(t, "read trade", models.WalletEOA, 200*M)
	require.NoError(t, e.st.UpdateAgentBudget(ctx, limits.id, limits.agent.ID, store.AgentSettings{
		BudgetLimitMicro: ptr(50 * M), BudgetPercentBps: ptr(int32(2000)), MaxPositionValueMicro: ptr(100 * M),
	}))
	// 8 USDC of limits' budget is held by an open order.
	_, err := budget.New(e.st, budget.ChainWallets{Wallets: &wallets.Service{Store: e.st}, Chain: e.chain}, nil).
		Reserve(ctx, limits.agent.ID, limits.id, 8*M, "ord_open")
	require.NoError(t, err)
	noWallet := e.newUser(t, "read", "", 0)
	noRead := e.newUser(t, "trade", models.WalletEOA, M)
	trader := e.newUser(t, "read", models.WalletEOA, M)
	seedTrades(t, e.st, trader.agent.ID)
	// A paper agent of a user whose real wallet holds 77 USDC: its
	// /balance and /budget show the paper balance, never the wallet's.
	paper := e.newUserAs(t, models.ModePaper, "read trade", models.WalletProxy, 77*M)
	require.NoError(t, e.st.SetPaperBalance(ctx, paper.id, 250_500_000))
	paperNoWallet := e.newUserAs(t, models.ModePaper, "read", "", 0)

	tests := []struct {
		name    string
		key     string
		path    string
		status  int
		data    string // expected data JSON, when 200
		code    string // expected error code
		message string // substring of the error message
	}{
		{name: "balance", key: rich.key, path: "/balance", status: 200,
			data: `{"usdc":123.456789,"address":"` + rich.wallet.Hex() + `","walletType":"proxy"}`},
		{name: "balance eoa", key: limits.key, path: "/balance", status: 200,
			data: `{"usdc":200,"address":"` + limits.wallet.Hex() + `","walletType":"eoa"}`},
		{name: "paper balance", key: paper.key, path: "/balance", status: 200,
			data: `{"usdc":250.5,"address":"","walletType":"paper"}`},
		{name: "paper balance without wallet (the default 1,000)", key: paperNoWallet.key, path: "/balance", status: 200,
			data: `{"usdc":1000,"address":"","walletType":"paper"}`},
		{name: "paper budget", key: paper.key, path: "/budget", status: 200,
			data: `{"usdc":250.5,"limitedBy":"wallet","wallet":250.5,"config":{"fixedLimit":null,"budgetPercent":null,"maxPositionValue":null,"used":0}}`},
		{name: "balance without wallet", key: noWallet.key, path: "/balance", status: 404, code: "no_wallet", message: "no wallet"},
		{name: "budget without limits", key: rich.key, path: "/budget", status: 200,
			data: `{"usdc":123.456789,"limitedBy":"wallet","wallet":123.456789,"config":{"fixedLimit":null,"budgetPercent":null,"maxPositionValue":null,"used":0}}`},
		// percent: 20% of 200 = 40, minus 8 used = 32; fixed 50-8 = 42; wallet 200-8 = 192; position 100-0-8 = 92.
		{name: "budget with limits", key: limits.key, path: "/budget", status: 200,
			data: `{"usdc":32,"limitedBy":"percent","wallet":200,"config":{"fixedLimit":50,"budgetPercent":20,"maxPositionValue":100,"used":8}}`},
		{name: "budget without wallet", key: noWallet.key, path: "/budget", status: 200,
			data: `{"usdc":0,"limitedBy":"wallet","wallet":0,"config":{"fixedLimit":null,"budgetPercent":null,"maxPositionValue":null,"used":0}}`},
		{name: "stats empty", key: rich.key, path: "/stats", status: 200,
			data: `{"totalOrders":0,"filledOrders":0,"totalVolume":0,"realizedPnL":0,"unrealizedPnL":0,"winRate":0,"avgTradeSize":0}`},
		{name: "stats", key: trader.key, path: "/stats", status: 200,
			data: `{"totalOrders":4,"filledOrders":3,"totalVolume":13,"realizedPnL":4,"unrealizedPnL":2,"winRate":100,"avgTradeSize":4.333333}`},
		{name: "no key", path: "/budget", status: 401, code: "missing_api_key"},
		{name: "bad key", key: "ll_nope", path: "/stats", status: 401},
		{name: "no read scope", key: noRead.key, path: "/balance", status: 403, code: "insufficient_scope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.get(t, tc.key, tc.path)
			require.Equal(t, tc.status, status, "%s", body)
			if tc.status == 200 {
				assert.JSONEq(t, `true`, string(body["success"]))
				assert.JSONEq(t, tc.data, string(body["data"]))
				return
			}
			assert.JSONEq(t, `false`, string(body["success"]))
			if tc.code != "" {
				assert.JSONEq(t, `"`+tc.code+`"`, string(body["code"]))
			}
			var msg string
			require.NoError(t, json.Unmarshal(body["message"], &msg))
			assert.Contains(t, msg, tc.message)
		})
	}

	t.Run("chain outage is 503", func(t *testing.T) {
		e.chain.mu.Lock()
		e.chain.err = errors.New("dial tcp 127.0.0.1:8545: connection refused")
		e.chain.mu.Unlock()
		defer func() { e.chain.mu.Lock(); e.chain.err = nil; e.chain.mu.Unlock() }()
		for _, path := range []string{"/balance", "/budget"} {
			status, body := e.get(t, rich.key, path)
			assert.Equal(t, http.StatusServiceUnavailable, status, path)
			assert.NotContains(t, string(body["message"]), "8545", "internal detail leaked")
		}
	})
}

// seedTrades gives agentID: buy 10 A @0.40, sell 10 A @0.80 (+4, a win),
// buy 4 C @0.25 (priced 0.75: +2 unrealized), and one unfilled order.
func seedTrades(t testing.TB, st *store.Store, agentID string) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, o := range []struct {
		token, side string
		price, size int64
	}{{"tokA", "BUY", 400_000, 10}, {"tokA", "SELL", 800_000, 10}, {"tokC", "BUY", 250_000, 4}, {"tokC", "BUY", 200_000, 0}} {
		size := o.size * models.MicroPerUnit
		rec := &models.Order{AgentID: agentID, UserID: "usr_x", WalletID: "wal_x", TokenID: o.token, Side: o.side, Type: "GTC",
			PriceMicro: o.price, SizeMicro: max(size, models.MicroPerUnit), FilledSizeMicro: size}
		require.NoError(t, st.CreateOrder(ctx, rec))
		if size == 0 {
			continue
		}
		_, err := st.AddFill(ctx, &models.Fill{OrderID: rec.ID, VenueTradeID: "t" + string(rune('a'+i)), PriceMicro: o.price,
			SizeMicro: size, Time: at.Add(time.Duration(i) * time.Second)})
		require.NoError(t, err)
	}
}

func ptr[T any](v T) *T { return &v }
