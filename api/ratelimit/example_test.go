package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ratelimit"
)

// Wiring as cmd/ats does it: one Limiter per process over the memory store
// (or ratelimit.NewRedisStore(url) when several instances serve the same
// keys), PerKey behind the API key middleware, PerClientIP on the device
// endpoints under its own scope.
func Example() {
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})

	// Plays the API key middleware (api/agentauth): it sets the identity.
	auth := func(c *gin.Context) {
		ratelimit.SetIdentity(c, ratelimit.Identity{Key: "key_123", Limit: 2})
		c.Next()
	}
	h := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
		func(s *api.Server) {
			s.Group("/api/agent/v1", auth, ratelimit.PerKey(l, nil)).
				GET("/balance", func(c *gin.Context) { api.OK(c, gin.H{"usdc": "12.50"}) })
			s.Group("/api/auth/device", ratelimit.PerClientIP(l.Scope("device"), 60)).
				POST("", func(c *gin.Context) { api.OK(c, nil) })
		},
	}})

	for i := 0; i < 3; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/agent/v1/balance", nil))
		fmt.Println(w.Code, w.Header().Get("X-RateLimit-Limit"), w.Header().Get("X-RateLimit-Remaining"))
	}
	// Output:
	// 200 2 1
	// 200 2 0
	// 429 2 0
}
