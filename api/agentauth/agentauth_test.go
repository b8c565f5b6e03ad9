package agentauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func newAgent(t *testing.T, s *store.Store, userID, name, scopes string) (string, *models.Agent) {
	t.Helper()
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: userID, Name: name, Scopes: scopes, RateLimitPerMinute: 42}
	if err := s.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return plain, a
}

func TestMiddleware(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := &models.User{Email: "auth@example.com", PasswordHash: "x"}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		full, fullAgent := newAgent(t, s, u.ID, "full", "read trade cancel redeem")
		// A well-formed key differing from full in its last character.
		unknown := full[:len(full)-1] + map[bool]string{true: "y", false: "x"}[full[len(full)-1] == 'x']
		readOnly, _ := newAgent(t, s, u.ID, "reader", "read")
		paused, pausedAgent := newAgent(t, s, u.ID, "paused", "read trade")
		revoked, revokedAgent := newAgent(t, s, u.ID, "revoked", "read trade")
		if err := s.UpdateAgentStatus(ctx, u.ID, pausedAgent.ID, models.AgentPaused); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateAgentStatus(ctx, u.ID, revokedAgent.ID, models.AgentRevoked); err != nil {
			t.Fatal(err)
		}

		var seen agentauth.Identity
		var rlKey string
		var rlLimit int
		srv := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
			agentauth.Routes(agentauth.Middleware(s, nil)),
			func(sv *api.Server) {
				g := sv.Group("/api/agent/v1", agentauth.Middleware(s, nil))
				g.POST("/orders", agentauth.Require("trade"), func(c *gin.Context) {
					seen, _ = agentauth.From(c)
					rlKey, rlLimit, _ = ratelimit.IdentityFrom(c)
					api.OK(c, nil)
				})
			},
		}})
		do := func(method, path, auth string) (int, map[string]any) {
			req := httptest.NewRequest(method, path, nil)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, req)
			var body map[string]any
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			return w.Code, body
		}
		for _, tc := range []struct {
			name, method, path, auth string
			status                   int
			code                     string
		}{
			{"no key", "GET", "/api/agent/v1/me", "", 401, "missing_api_key"},
			{"wrong scheme", "GET", "/api/agent/v1/me", "Token " + full, 401, "missing_api_key"},
			{"empty bearer", "GET", "/api/agent/v1/me", "Bearer ", 401, "missing_api_key"},
			{"malformed", "GET", "/api/agent/v1/me", "Bearer ll_abc", 401, "invalid_api_key"},
			{"unknown", "GET", "/api/agent/v1/me", "Bearer " + unknown, 401, "invalid_api_key"},
			{"revoked", "GET", "/api/agent/v1/me", "Bearer " + revoked, 401, "key_revoked"},
			{"paused", "GET", "/api/agent/v1/me", "Bearer " + paused, 401, "agent_paused"},
			{"ok", "GET", "/api/agent/v1/me", "Bearer " + full, 200, ""},
			{"lower-case scheme", "GET", "/api/agent/v1/me", "bearer " + full, 200, ""},
			{"missing scope", "POST", "/api/agent/v1/orders", "Bearer " + readOnly, 403, "insufficient_scope"},
			{"scope held", "POST", "/api/agent/v1/orders", "Bearer " + full, 200, ""},
		} {
			status, body := do(tc.method, tc.path, tc.auth)
			if status != tc.status || (tc.code != "" && body["code"] != tc.code) {
				t.Errorf("%s: %d %v, want %d %q", tc.name, status, body, tc.status, tc.code)
			}
		}
		if seen.AgentID != fullAgent.ID || seen.UserID != u.ID || seen.RateLimitPerMinute != 42 || !seen.HasScope("redeem") {
			t.Fatalf("identity %+v", seen)
		}
		if rlLimit != 42 || rlKey == "" || rlKey == full {
			t.Fatalf("rate-limit identity %q %d", rlKey, rlLimit)
		}
		k, _, err := s.AgentKeyByHash(ctx, secret.HashAPIKey(full))
		if err != nil || k.LastUsedAt == nil || time.Since(*k.LastUsedAt) > time.Minute {
			t.Fatalf("last used %+v %v", k, err)
		}
		_, body := do("GET", "/api/agent/v1/me", "Bearer "+full)
		data := body["data"].(map[string]any)
		if data["agentId"] != fullAgent.ID || data["name"] != "full" || data["status"] != "active" {
			t.Fatalf("/me %v", body)
		}

		// No cache: a pause is seen by the very next request.
		if err := s.UpdateAgentStatus(ctx, u.ID, fullAgent.ID, models.AgentPaused); err != nil {
			t.Fatal(err)
		}
		if status, _ := do("GET", "/api/agent/v1/me", "Bearer "+full); status != 401 {
			t.Fatalf("after pause: %d", status)
		}
	})
}

// BenchmarkAuthenticatedRequest measures GET /api/agent/v1/me with a valid
// key on SQLite: the cost of checking the key in the database on every
// request (no cache).
func BenchmarkAuthenticatedRequest(b *testing.B) {
	s := storetest.NewSQLite(b)
	ctx := context.Background()
	u := &models.User{Email: "bench@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		b.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	if err := s.CreateAgentWithKey(ctx, &models.Agent{UserID: u.ID, Name: "bench", Scopes: "read"}, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		b.Fatal(err)
	}
	srv := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{agentauth.Routes(agentauth.Middleware(s, nil))}})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/api/agent/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+plain)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// TestKeyAuthWithRateLimit runs the real key middleware and the real
// per-key limiter together, chained as cmd/ats wires them (agentauth
// first, then ratelimit.PerKey with the identity it sets): the default
// budget of 100 per minute, the headers on authenticated answers, the
// spec's 429, and a per-key limit changed through the management service
// taking effect on the key's next request.
func TestKeyAuthWithRateLimit(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	u := &models.User{Email: "limits@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	key := func(name string) (string, *models.Agent) {
		plain, hash, prefix := secret.NewAPIKey()
		a := &models.Agent{UserID: u.ID, Name: name, Scopes: "read"}
		if err := s.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
			t.Fatal(err)
		}
		return plain, a
	}
	busy, busyAgent := key("busy")
	other, _ := key("other")
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	srv := openapitest.Handler(t, api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
		agentauth.Routes(agentauth.Middleware(s, nil), ratelimit.PerKey(l, nil)),
	}}))
	mgmt := &agents.Service{Store: s}
	do := func(k string) (*httptest.ResponseRecorder, map[string]any) {
		req := httptest.NewRequest("GET", "/api/agent/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+k)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		var body map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		return w, body
	}
	headers := func(w *httptest.ResponseRecorder) (limit, remaining int, reset int64) {
		t.Helper()
		var err error
		if limit, err = strconv.Atoi(w.Header().Get(ratelimit.HeaderLimit)); err != nil {
			t.Fatalf("%s: %v", ratelimit.HeaderLimit, err)
		}
		if remaining, err = strconv.Atoi(w.Header().Get(ratelimit.HeaderRemaining)); err != nil {
			t.Fatalf("%s: %v", ratelimit.HeaderRemaining, err)
		}
		if reset, err = strconv.ParseInt(w.Header().Get(ratelimit.HeaderReset), 10, 64); err != nil {
			t.Fatalf("%s: %v", ratelimit.HeaderReset, err)
		}
		return limit, remaining, reset
	}

	start := time.Now()
	for i := range models.DefaultRateLimitPerMinute {
		w, body := do(busy)
		if w.Code != 200 || body["success"] != true {
			t.Fatalf("request %d: %d %s", i+1, w.Code, w.Body)
		}
		limit, remaining, reset := headers(w)
		if limit != 100 || remaining != 100-1-i || reset < start.Unix() || reset > start.Add(time.Minute).Unix()+1 {
			t.Fatalf("request %d: limit %d remaining %d reset %d (now %d)", i+1, limit, remaining, reset, start.Unix())
		}
	}
	w, body := do(busy)
	if w.Code != 429 || body["success"] != false || body["error"] != "Rate Limited" || body["message"] == "" {
		t.Fatalf("request 101: %d %s", w.Code, w.Body)
	}
	retry, err := strconv.Atoi(w.Header().Get("Retry-After"))
	if err != nil || retry < 1 || retry > 61 || body["retryAfter"] != float64(retry) {
		t.Fatalf("Retry-After %q, body retryAfter %v", w.Header().Get("Retry-After"), body["retryAfter"])
	}
	if limit, remaining, _ := headers(w); limit != 100 || remaining != 0 {
		t.Fatalf("429 headers: limit %d remaining %d", limit, remaining)
	}
	// Authentication runs first: a bad key is 401 and spends nobody's budget.
	if w, _ := do("ll_" + strings.Repeat("Z", 64)); w.Code != 401 || w.Header().Get(ratelimit.HeaderLimit) != "" {
		t.Fatalf("unknown key: %d %v", w.Code, w.Header())
	}
	// Another key has its own budget.
	if w, _ := do(other); w.Code != 200 || w.Header().Get(ratelimit.HeaderRemaining) != "99" {
		t.Fatalf("other key: %d %v", w.Code, w.Header())
	}

	// Raising the key's limit applies to its very next request, within
	// the same window (101 counted so far).
	a, err := mgmt.SetRateLimit(ctx, u.ID, busyAgent.ID, "10.0.0.1", 150)
	if err != nil || a.RateLimit != 150 {
		t.Fatalf("SetRateLimit = %+v, %v", a, err)
	}
	w, _ = do(busy)
	if limit, remaining, _ := headers(w); w.Code != 200 || limit != 150 || remaining != 150-102 {
		t.Fatalf("after raising: %d limit %d remaining %d", w.Code, limit, remaining)
	}
	// Lowering it applies just as fast.
	if _, err := mgmt.SetRateLimit(ctx, u.ID, "busy", "10.0.0.1", 50); err != nil {
		t.Fatal(err)
	}
	if w, _ := do(busy); w.Code != 429 || w.Header().Get(ratelimit.HeaderLimit) != "50" {
		t.Fatalf("after lowering: %d %v", w.Code, w.Header())
	}
}

// TestKeyGuessingLimitedPerAddress performs API-key guessing: an address
// sending invalid keys (unknown or malformed) gets 429 with Retry-After
// once it has used up MaxKeyFailures, for valid keys too, rotating IPv6
// addresses within its /64 included; a valid key from another address is
// unaffected. Missing keys, and keys of paused agents, are not guesses and
// count nothing.
func TestKeyGuessingLimitedPerAddress(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	u := &models.User{Email: "guess@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	valid, _ := newAgent(t, s, u.ID, "valid", "read")
	paused, pausedAgent := newAgent(t, s, u.ID, "paused", "read")
	if err := s.UpdateAgentStatus(ctx, u.ID, pausedAgent.ID, models.AgentPaused); err != nil {
		t.Fatal(err)
	}
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	srv := openapitest.Handler(t, api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
		agentauth.Routes(agentauth.MiddlewareWith(s, agentauth.Options{Failures: agentauth.KeyFailures(l.Scope("keys").Failures())})),
	}}))
	do := func(addr, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/api/agent/v1/me", nil)
		req.RemoteAddr = net.JoinHostPort(addr, "5555")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		return w
	}
	guess := func(i int) string {
		_, hash, _ := secret.NewAPIKey()
		return "ll_" + hash[:40] + strconv.Itoa(i) // well-formed or not, never a key
	}

	// Neither a missing key nor a paused agent's key is a guess.
	for range agentauth.MaxKeyFailures + 1 {
		if w := do("192.0.2.10", ""); w.Code != 401 {
			t.Fatalf("missing key: %d", w.Code)
		}
		if w := do("192.0.2.10", paused); w.Code != 401 {
			t.Fatalf("paused agent: %d", w.Code)
		}
	}
	if w := do("192.0.2.10", valid); w.Code != 200 {
		t.Fatalf("valid key after missing and paused ones: %d %s", w.Code, w.Body)
	}

	for _, tc := range []struct{ name, guesser, sameNet, otherNet string }{
		{"IPv4", "192.0.2.20", "192.0.2.20", "192.0.2.21"},
		{"IPv6 rotating within a /64", "2001:db8:9:1::%x", "2001:db8:9:1:ffff::1", "2001:db8:9:2::1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range agentauth.MaxKeyFailures {
				addr := tc.guesser
				if strings.Contains(addr, "%") {
					addr = fmt.Sprintf(addr, i+1)
				}
				if w := do(addr, guess(i)); w.Code != 401 {
					t.Fatalf("guess %d: %d", i+1, w.Code)
				}
			}
			for _, key := range []string{guess(99), valid} {
				w := do(tc.sameNet, key)
				if w.Code != 429 || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "too_many_attempts") {
					t.Fatalf("after %d guesses: %d %v %s", agentauth.MaxKeyFailures, w.Code, w.Header(), w.Body)
				}
			}
			if w := do(tc.otherNet, valid); w.Code != 200 {
				t.Fatalf("a valid key from another address: %d %s", w.Code, w.Body)
			}
		})
	}
}
