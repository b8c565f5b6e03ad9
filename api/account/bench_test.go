package account_test

import (
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/apitest"
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

// load runs GET path with key under apitest.Load.
func load(b *testing.B, h http.Handler, path, key string) {
	apitest.Load(b, h, func(int) *http.Request { return apitest.Get(path, key) })
}
