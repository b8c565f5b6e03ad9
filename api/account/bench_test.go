package account_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/account"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/apitest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/readcache"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/wallets"
)

// BenchmarkBudgetEndpoint measures GET /api/agent/v1/budget under parallel
// load through the full middleware chain (request id, metrics, recovery,
// API-key authentication) with every limit set and an open position, next
// to a bare gin handler on the same api.Server, and reports requests/s,
// p99 latency and allocations per request. The PostgreSQL run is wired as
// `ats api` serves it: the key, the agent, the reservations' totals and
// the positions through the read cache (models/readcache) kept current by
// the database's change notifications, the wallet balance through the
// heartbeat's 10 s cache; "_uncached" reads the database every time (and
// the balance live), as SQLite does. 16 concurrent requests (parallelism
// 8 on 2 cores), as a server sees:
//
//	go test -run '^$' -bench BudgetEndpoint -benchtime 3s ./api/account/
func BenchmarkBudgetEndpoint(b *testing.B) {
	b.Run("bare_gin", func(b *testing.B) {
		gin.SetMode(gin.ReleaseMode)
		e := gin.New()
		e.GET("/ping", func(c *gin.Context) { api.OK(c, gin.H{"ok": true}) })
		load(b, e, "/ping", "")
	})
	for _, db := range []struct {
		name   string
		open   func(testing.TB) *store.Store
		cached bool
	}{{"sqlite", storetest.NewSQLite, false}, {"postgres", storetest.NewPostgres, true}, {"postgres_uncached", storetest.NewPostgres, false}} {
		b.Run("get_budget_"+db.name, func(b *testing.B) {
			st := db.open(b)
			e := newEnv(b, st)
			if db.cached {
				e = newCachedEnv(b, st)
			}
			u := e.newUser(b, "read trade", models.WalletProxy, 500*models.MicroPerUnit)
			require.NoError(b, e.st.UpdateAgentBudget(b.Context(), u.id, u.agent.ID, store.AgentSettings{
				BudgetLimitMicro: ptr(100 * models.MicroPerUnit), BudgetPercentBps: ptr(int32(5000)), MaxPositionValueMicro: ptr(200 * models.MicroPerUnit),
			}))
			require.NoError(b, e.st.SavePosition(b.Context(), &models.Position{AgentID: u.agent.ID, UserID: u.id, TokenID: "tokC",
				SizeMicro: 10 * models.MicroPerUnit, AvgEntryMicro: 500_000}))
			load(b, e.srv, "/api/agent/v1/budget", u.key)
		})
	}
}

// newCachedEnv is newEnv wired as `ats api` serves GET /budget: reads
// through a live read cache, balances through the 10 s balance cache.
func newCachedEnv(b *testing.B, st *store.Store) *env {
	reads := readcache.New(st, readcache.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); reads.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); !reads.Live(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the read cache never listened")
		}
	}
	chain := &fakeChain{bal: map[common.Address]*big.Int{}}
	w := budget.ChainWallets{Wallets: &wallets.Service{Store: st}, Chain: chain}
	px := prices{"tokC": 750_000}
	bud := budget.New(st, heartbeat.NewCachedBalances(w, 100_000, 10*time.Second), px).ReadingFrom(reads)
	deps := account.Deps{Wallets: w, Budget: bud, Stats: stats.New(st, px)}
	srv := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{account.Routes(deps, agentauth.Middleware(reads, nil))},
	})
	return &env{st: st, chain: chain, srv: srv}
}

// load runs GET path with key under apitest.Load, 16 requests at a time.
func load(b *testing.B, h http.Handler, path, key string) {
	b.SetParallelism(8)
	apitest.Load(b, h, func(int) *http.Request { return apitest.Get(path, key) })
}
