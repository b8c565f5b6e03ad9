package heartbeat_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/apitest"
	heartbeatapi "github.com/agent-trading/ats/api/heartbeat"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/positions/positionstest"
	"github.com/agent-trading/ats/models/readcache"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/venue/clob"
)

// Benchmark population: the 10,000 agents with 100,000 orders.
const (
	benchUsers          = 1_000
	benchAgents         = 10_000
	benchOrdersPerAgent = 10
	benchMarkets        = 100
)

type fixedWallet int64

func (w fixedWallet) WalletBalance(context.Context, string) (int64, error) { return int64(w), nil }

// BenchmarkHeartbeat measures GET /api/agent/v1/heartbeat under parallel
// load through the middleware chain (request id, metrics, recovery, API-key
// authentication against the database) with 10,000 agents of 1,000 users,
// 100,000 orders (8 filled, 1 open, 1 cancelled per agent), one open
// position per agent in 100 markets and one unreported fill event each;
// every key heartbeats once before the timer starts, then the requests
// cycle through the agents (the steady state: a heartbeat with nothing new
// since the key's last). Next to it a bare gin handler in
// the same run; 16 concurrent requests (parallelism 8 on 2 cores), as a
// server sees. The PostgreSQL run is wired as `ats api` serves it (key,
// budget, positions and counts through the read cache, models/readcache);
// "_uncached" reads the database every time, as SQLite does. Venue, chain and wallet are in-memory fakes (prices,
// resolutions, end dates: the production caches in front of them are in
// place).
//
//	go test -run '^$' -bench Heartbeat -benchtime 10000x ./api/heartbeat/
func BenchmarkHeartbeat(b *testing.B) {
	b.Run("bare_gin", func(b *testing.B) {
		gin.SetMode(gin.ReleaseMode)
		e := gin.New()
		e.GET("/ping", func(c *gin.Context) { api.OK(c, gin.H{"ok": true}) })
		b.SetParallelism(8)
		apitest.Load(b, e, func(int) *http.Request { return apitest.Get("/ping", "") })
	})
	for _, db := range []struct {
		name   string
		open   func(testing.TB) *store.Store
		cached bool
	}{{"sqlite", storetest.NewSQLite, false}, {"postgres", storetest.NewPostgres, true}, {"postgres_uncached", storetest.NewPostgres, false}} {
		b.Run("heartbeat_"+db.name, func(b *testing.B) {
			st := db.open(b)
			keys := seedPopulation(b, st)
			srv := benchServer(b, st, db.cached)
			// Steady state: every key has heartbeated once (its cursor
			// exists, the seeded fills are reported).
			for _, k := range keys {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, apitest.Get("/api/agent/v1/heartbeat", k))
				require.Equal(b, http.StatusOK, rec.Code, rec.Body.String())
			}
			b.SetParallelism(8)
			apitest.Load(b, srv, func(i int) *http.Request {
				return apitest.Get("/api/agent/v1/heartbeat", keys[i%len(keys)])
			})
		})
	}
}

// benchServer serves the heartbeat as `ats api` does: with cached, the key
// check, the budget, the positions and the counts read through the read
// cache (models/readcache) and its change feed.
func benchServer(b *testing.B, st *store.Store, cached bool) http.Handler {
	prices := map[string]string{}
	venue := positionstest.NewVenue()
	for m := range benchMarkets {
		yes, no := fmt.Sprintf("%d1", m+1), fmt.Sprintf("%d2", m+1)
		prices[yes], prices[no] = "0.55", "0.45"
		venue.AddMarket(positionstest.ConditionID(fmt.Sprint(m)), fmt.Sprintf("Will %d?", m), clob.Tick001, yes, no)
	}
	pos := &positions.Service{Store: st, Prices: positionstest.NewPrices(prices), Resolutions: positionstest.NewChain(),
		Books: venue, Markets: venue}
	svc := &heartbeat.Service{Store: st, Positions: pos, SkillVersion: 1,
		Budget:  budget.New(st, heartbeat.NewCachedBalances(fixedWallet(500*models.MicroPerUnit), 100_000, 10*time.Second), nil),
		Markets: heartbeat.NewEndDates(venue, 10*time.Minute)}
	var keys agentauth.Keys = st
	if cached {
		reads := liveReads(b, st)
		keys, pos.Reads, svc.Counts = reads, reads, reads
		svc.Budget = svc.Budget.(*budget.Service).ReadingFrom(reads)
	}
	return api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{heartbeatapi.Routes(svc, agentauth.Middleware(keys, nil))},
	})
}

// liveReads is a read cache on st whose change feed listens until b ends.
func liveReads(b *testing.B, st *store.Store) *readcache.Reads {
	r := readcache.New(st, readcache.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); !r.Live(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the read cache's change feed never listened")
		}
	}
	return r
}

// seedPopulation inserts the population in batches and returns the agents'
// keys.
func seedPopulation(b *testing.B, st *store.Store) []string {
	b.Helper()
	ctx := context.Background()
	db := st.DB().WithContext(ctx)
	now := time.Now().UTC()
	users := make([]models.User, benchUsers)
	for i := range users {
		users[i] = models.User{ID: models.NewID(models.PrefixUser), Email: fmt.Sprintf("bench%d@example.com", i),
			CreatedAt: now, UpdatedAt: now}
	}
	require.NoError(b, db.CreateInBatches(users, 100).Error)
	agents := make([]models.Agent, benchAgents)
	keys := make([]models.APIKey, benchAgents)
	plain := make([]string, benchAgents)
	for i := range agents {
		u := users[i%benchUsers].ID
		agents[i] = models.Agent{ID: models.NewID(models.PrefixAgent), UserID: u, Name: fmt.Sprintf("bot %d", i),
			Status: models.AgentActive, Scopes: "read trade cancel redeem", HeartbeatIntervalMs: models.DefaultHeartbeatIntervalMs,
			RateLimitPerMinute: models.DefaultRateLimitPerMinute, CreatedAt: now, UpdatedAt: now}
		p, hash, prefix := secret.NewAPIKey()
		plain[i] = p
		keys[i] = models.APIKey{ID: models.NewID(models.PrefixAPIKey), AgentID: agents[i].ID, UserID: u, Hash: hash,
			DisplayPrefix: prefix, CreatedAt: now, LastUsedAt: &now}
	}
	require.NoError(b, db.CreateInBatches(agents, 100).Error)
	require.NoError(b, db.CreateInBatches(keys, 100).Error)
	orders := make([]models.Order, 0, benchAgents*benchOrdersPerAgent)
	pos := make([]models.Position, 0, benchAgents)
	for i, a := range agents {
		m := i % benchMarkets
		token := fmt.Sprintf("%d1", m+1)
		cond := positionstest.ConditionID(fmt.Sprint(m))
		for j := range benchOrdersPerAgent {
			status := models.OrderFilled
			switch j {
			case 8:
				status = models.OrderOpen
			case 9:
				status = models.OrderCancelled
			}
			orders = append(orders, models.Order{ID: models.NewID(models.PrefixOrder), AgentID: a.ID, UserID: a.UserID,
				WalletID: "wal_bench", TokenID: token, ConditionID: cond, MarketQuestion: fmt.Sprintf("Will %d?", m), Outcome: "Yes",
				Side: "BUY", Type: "GTC", RequestType: "LIMIT", PriceMicro: 500_000, SizeMicro: models.MicroPerUnit,
				FilledSizeMicro: models.MicroPerUnit, AvgFillPriceMicro: 500_000, Status: status,
				CreatedAt: now.Add(time.Duration(j) * time.Second), UpdatedAt: now})
		}
		pos = append(pos, models.Position{ID: models.NewID(models.PrefixPosition), AgentID: a.ID, UserID: a.UserID,
			TokenID: token, ConditionID: cond, Question: fmt.Sprintf("Will %d?", m), Outcome: "Yes",
			SizeMicro: 8 * models.MicroPerUnit, AvgEntryMicro: 500_000, Status: models.PositionOpen, CreatedAt: now, UpdatedAt: now})
	}
	require.NoError(b, db.CreateInBatches(orders, 100).Error)
	require.NoError(b, db.CreateInBatches(pos, 100).Error)
	// One unreported fill per agent, logged by AddFill as in production.
	for i := 0; i < benchAgents; i += benchAgents / 100 {
		_, err := st.AddFill(ctx, &models.Fill{OrderID: orders[i*benchOrdersPerAgent].ID, VenueTradeID: "bench",
			PriceMicro: 500_000, SizeMicro: models.MicroPerUnit})
		require.NoError(b, err)
	}
	return plain
}
