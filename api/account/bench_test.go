package account_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// BenchmarkBudgetEndpoint measures GET /api/agent/v1/budget under parallel
// load through the full middleware chain (request id, metrics, recovery,
// API-key authentication against the database) with every limit set and an
// open position, next to a bare gin handler on the same api.Server, and
// reports requests/s and p99 latency:
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
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.NewSQLite}, {"postgres", storetest.NewPostgres}} {
		b.Run("get_budget_"+db.name, func(b *testing.B) {
			e := newEnv(b, db.open(b))
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

// load runs GET path in parallel b.N times, failing on any non-200, and
// reports req/s and p99 latency.
func load(b *testing.B, h http.Handler, path, key string) {
	var (
		mu  sync.Mutex
		all []time.Duration
	)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			rec := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(rec, req)
			local = append(local, time.Since(t0))
			if rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body.String())
				return
			}
		}
		mu.Lock()
		all = append(all, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	p99 := all[(len(all)*99)/100]
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
}
