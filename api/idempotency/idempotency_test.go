package idempotency_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/idempotency"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// keyring is a real in-memory implementation of agentauth.Keys.
type keyring map[string]struct {
	key   models.APIKey
	agent models.Agent
}

func (k keyring) AgentKeyByHash(_ context.Context, hash string) (*models.APIKey, *models.Agent, error) {
	e, ok := k[hash]
	if !ok {
		return nil, nil, errs.E(errs.NotFound, "no such key")
	}
	return &e.key, &e.agent, nil
}

func (keyring) TouchAPIKey(context.Context, string, time.Time) error { return nil }

// harness is an API server with one idempotent route whose handler counts
// its runs and answers what status says.
type harness struct {
	srv    *api.Server
	st     *store.Store
	tokens map[string]string // agent id -> bearer token
	runs   atomic.Int64
	status atomic.Int64 // status the handler answers
	delay  time.Duration
}

func newHarness(t testing.TB, st *store.Store, opts idempotency.Options) *harness {
	t.Helper()
	h := &harness{st: st, tokens: map[string]string{}}
	h.status.Store(http.StatusCreated)
	keys := keyring{}
	for _, id := range []string{"agent-a", "agent-b"} {
		tok, hash, _ := secret.NewAPIKey()
		h.tokens[id] = tok
		keys[hash] = struct {
			key   models.APIKey
			agent models.Agent
		}{models.APIKey{ID: "key-" + id, LastUsedAt: ptr(time.Now())}, models.Agent{ID: id, UserID: "u1", Status: models.AgentActive, Scopes: "trade"}}
	}
	routes := func(s *api.Server) {
		g := s.Group("/api/agent/v1", agentauth.Middleware(keys, nil))
		mw := idempotency.Middleware(st, opts)
		handler := func(c *gin.Context) {
			n := h.runs.Add(1)
			if h.delay > 0 {
				time.Sleep(h.delay)
			}
			var req map[string]any
			if !api.BindJSON(c, &req) {
				return
			}
			switch st := int(h.status.Load()); {
			case st < 300:
				api.OKWith(c, st, gin.H{"run": n, "req": req}, nil)
			case st == http.StatusBadRequest:
				api.Fail(c, errs.Ef(errs.Invalid, "rejected on run %d", n))
			case st == statusPanic:
				panic("handler bug")
			case st == http.StatusTooManyRequests:
				api.Fail(c, errs.E(errs.RateLimited, "slow down"))
			default:
				api.Fail(c, errs.E(errs.Transient, "venue down"))
			}
		}
		g.POST("/orders", mw, handler)
		g.POST("/positions/:id/close", mw, handler)
	}
	h.srv = api.NewServer(api.Config{}, api.Deps{Routes: []api.Routes{routes}})
	return h
}

func ptr[T any](v T) *T { return &v }

func (h *harness) do(t testing.TB, agent, path, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+h.tokens[agent])
	if key != "\x00none" {
		r.Header.Set(idempotency.HeaderKey, key)
	}
	w := httptest.NewRecorder()
	h.srv.ServeHTTP(w, r)
	return w
}

const orders = "/api/agent/v1/orders"

// statusPanic makes the test handler panic.
const statusPanic = 599

func code(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var b api.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	return b.Code
}

func TestReplayAndReuse(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		tests := []struct {
			name   string
			status int
		}{
			{"success", http.StatusCreated},
			{"client error", http.StatusBadRequest},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				h := newHarness(t, st, idempotency.Options{})
				h.status.Store(int64(tt.status))
				key := "k-" + tt.name
				first := h.do(t, "agent-a", orders, key, `{"side":"BUY","size":10}`)
				if first.Code != tt.status {
					t.Fatalf("first: %d %s", first.Code, first.Body)
				}
				if first.Header().Get(idempotency.HeaderReplayed) != "" {
					t.Fatal("first response marked replayed")
				}
				// Same request, reordered keys and whitespace: replayed
				// byte for byte even though the handler would now differ.
				h.status.Store(http.StatusOK)
				again := h.do(t, "agent-a", orders, key, "{ \"size\": 10,\n \"side\": \"BUY\" }")
				if again.Code != tt.status || again.Body.String() != first.Body.String() {
					t.Fatalf("replay: %d %s, want %d %s", again.Code, again.Body, tt.status, first.Body)
				}
				if again.Header().Get(idempotency.HeaderReplayed) != "true" {
					t.Fatal("replay lacks the Idempotent-Replayed header")
				}
				if !strings.HasPrefix(again.Header().Get("Content-Type"), "application/json") {
					t.Fatalf("replay content type %q", again.Header().Get("Content-Type"))
				}
				// Different body, or same body on another path: 422.
				for _, p := range []struct{ path, body string }{
					{orders, `{"side":"BUY","size":11}`},
					{"/api/agent/v1/positions/p1/close", `{"side":"BUY","size":10}`},
				} {
					w := h.do(t, "agent-a", p.path, key, p.body)
					if w.Code != http.StatusUnprocessableEntity || code(t, w) != errs.CodeIdempotencyKeyReused {
						t.Fatalf("reuse on %s: %d %s", p.path, w.Code, w.Body)
					}
				}
				if n := h.runs.Load(); n != 1 {
					t.Fatalf("handler ran %d times, want 1", n)
				}
			})
		}
	})
}

func TestNotFinalIsNotStored(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		for _, tc := range []struct{ handler, status int }{
			{http.StatusServiceUnavailable, http.StatusServiceUnavailable},
			{http.StatusTooManyRequests, http.StatusTooManyRequests},
			{statusPanic, http.StatusInternalServerError},
		} {
			h := newHarness(t, st, idempotency.Options{})
			h.status.Store(int64(tc.handler))
			status := tc.status
			key := "retry-" + strconv.Itoa(tc.handler)
			if w := h.do(t, "agent-a", orders, key, `{"a":1}`); w.Code != status {
				t.Fatalf("first: %d %s", w.Code, w.Body)
			}
			h.status.Store(http.StatusCreated)
			w := h.do(t, "agent-a", orders, key, `{"a":1}`)
			if w.Code != http.StatusCreated || w.Header().Get(idempotency.HeaderReplayed) != "" {
				t.Fatalf("retry after %d: %d %s", status, w.Code, w.Body)
			}
			if n := h.runs.Load(); n != 2 {
				t.Fatalf("handler ran %d times, want 2", n)
			}
		}
	})
}

// TestAcceptedIsNotFinal: a 202 (accepted, still in progress, as POST
// /orders answers when placement takes long) is not replayed: a retry
// with the same request runs the handler again to get the current state,
// until a final answer is stored and replayed. The 202 still guards the
// key against another request, also after a failed re-run.
func TestAcceptedIsNotFinal(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		h := newHarness(t, st, idempotency.Options{})
		const key, body = "slow-order", `{"side":"BUY","size":10}`
		steps := []struct {
			name     string
			handler  int // what the handler answers (unused when it does not run)
			body     string
			want     int
			wantCode string
			replayed bool
			runs     int64
		}{
			{"first answer is 202", http.StatusAccepted, body, http.StatusAccepted, "", false, 1},
			{"retry runs the handler again", http.StatusAccepted, body, http.StatusAccepted, "", false, 2},
			{"another request with the key is refused", http.StatusOK, `{"side":"BUY","size":11}`, http.StatusUnprocessableEntity, errs.CodeIdempotencyKeyReused, false, 2},
			{"a failed re-run is not stored", http.StatusServiceUnavailable, body, http.StatusServiceUnavailable, "", false, 3},
			{"the key stays guarded after it", http.StatusOK, `{"side":"SELL","size":10}`, http.StatusUnprocessableEntity, errs.CodeIdempotencyKeyReused, false, 3},
			{"the final answer comes from the handler", http.StatusOK, body, http.StatusOK, "", false, 4},
			{"and is replayed from then on", http.StatusAccepted, body, http.StatusOK, "", true, 4},
		}
		var final string
		for _, s := range steps {
			h.status.Store(int64(s.handler))
			w := h.do(t, "agent-a", orders, key, s.body)
			if w.Code != s.want || (w.Header().Get(idempotency.HeaderReplayed) == "true") != s.replayed {
				t.Fatalf("%s: %d %s (replayed %q)", s.name, w.Code, w.Body, w.Header().Get(idempotency.HeaderReplayed))
			}
			if s.wantCode != "" && code(t, w) != s.wantCode {
				t.Fatalf("%s: code %q, want %q", s.name, code(t, w), s.wantCode)
			}
			if n := h.runs.Load(); n != s.runs {
				t.Fatalf("%s: handler ran %d times, want %d", s.name, n, s.runs)
			}
			switch {
			case s.want == http.StatusOK && !s.replayed:
				final = w.Body.String()
			case s.replayed && w.Body.String() != final:
				t.Fatalf("%s: replayed %s, want %s", s.name, w.Body, final)
			}
		}
	})
}

func TestConcurrentDuplicates(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		h := newHarness(t, st, idempotency.Options{})
		h.delay = 50 * time.Millisecond
		const n = 50
		var wg sync.WaitGroup
		results := make([]*httptest.ResponseRecorder, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				results[i] = h.do(t, "agent-a", orders, "same", `{"x":"y"}`)
			})
		}
		close(start)
		wg.Wait()
		if got := h.runs.Load(); got != 1 {
			t.Fatalf("handler ran %d times, want exactly 1", got)
		}
		var original string
		for _, w := range results {
			if w.Code == http.StatusCreated && w.Header().Get(idempotency.HeaderReplayed) == "" {
				original = w.Body.String()
			}
		}
		if original == "" {
			t.Fatal("no response came from the handler")
		}
		counts := map[string]int{}
		for _, w := range results {
			switch {
			case w.Code == http.StatusCreated && w.Body.String() == original:
				counts["created"]++
			case w.Code == http.StatusConflict && code(t, w) == errs.CodeIdempotencyInFlight && w.Header().Get("Retry-After") != "":
				counts["in flight"]++
			default:
				t.Fatalf("unexpected response %d %s", w.Code, w.Body)
			}
		}
		t.Logf("%v", counts)
		// The key is settled now: a later duplicate is a replay.
		if w := h.do(t, "agent-a", orders, "same", `{"x":"y"}`); w.Code != http.StatusCreated || w.Body.String() != original {
			t.Fatalf("after the burst: %d %s", w.Code, w.Body)
		}
	})
}

func TestExpiryAndLease(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		var mu sync.Mutex
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		st.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		h := newHarness(t, st, idempotency.Options{TTL: time.Hour, Lease: time.Minute})

		h.do(t, "agent-a", orders, "ttl", `{}`)
		advance(time.Hour - time.Second)
		if w := h.do(t, "agent-a", orders, "ttl", `{}`); w.Header().Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("within TTL: %d %s", w.Code, w.Body)
		}
		advance(time.Second)
		// Expired: the key is fresh again, even with another body.
		if w := h.do(t, "agent-a", orders, "ttl", `{"other":true}`); w.Code != http.StatusCreated || w.Header().Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("after TTL: %d %s", w.Code, w.Body)
		}
		if n := h.runs.Load(); n != 2 {
			t.Fatalf("handler ran %d times, want 2", n)
		}

		// A crashed request's claim blocks the key for its lease only.
		hash := idempotency.Fingerprint(httptest.NewRequest(http.MethodPost, orders, nil), []byte(`{}`))
		ctx := context.Background()
		stale, won, err := st.ClaimIdempotency(ctx, "agent-a", "crash", hash, time.Hour, time.Minute)
		if err != nil || !won {
			t.Fatalf("claim: %v %v", won, err)
		}
		if w := h.do(t, "agent-a", orders, "crash", `{}`); w.Code != http.StatusConflict || code(t, w) != errs.CodeIdempotencyInFlight {
			t.Fatalf("within lease: %d %s", w.Code, w.Body)
		}
		advance(time.Minute)
		if w := h.do(t, "agent-a", orders, "crash", `{}`); w.Code != http.StatusCreated || w.Header().Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("after lease: %d %s", w.Code, w.Body)
		}
		// The late owner can neither overwrite nor release the new record.
		if err := st.CompleteIdempotency(ctx, stale, 500, nil); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("late complete: %v", err)
		}
		if err := st.ReleaseIdempotency(ctx, stale); err != nil {
			t.Fatal(err)
		}
		if w := h.do(t, "agent-a", orders, "crash", `{}`); w.Header().Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("after late owner: %d %s", w.Code, w.Body)
		}
	})
}

func TestScopingAndPassThrough(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		h := newHarness(t, st, idempotency.Options{})
		a := h.do(t, "agent-a", orders, "shared", `{"n":1}`)
		b := h.do(t, "agent-b", orders, "shared", `{"n":2}`)
		if a.Code != http.StatusCreated || b.Code != http.StatusCreated || b.Header().Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("per-agent keys: %d %s / %d %s", a.Code, a.Body, b.Code, b.Body)
		}
		for range 3 {
			if w := h.do(t, "agent-a", orders, "\x00none", `{"n":1}`); w.Code != http.StatusCreated || w.Header().Get(idempotency.HeaderReplayed) != "" {
				t.Fatalf("no header: %d %s", w.Code, w.Body)
			}
		}
		if n := h.runs.Load(); n != 5 {
			t.Fatalf("handler ran %d times, want 5", n)
		}
	})
}

func TestMalformedKey(t *testing.T) {
	st := storetest.NewSQLite(t)
	h := newHarness(t, st, idempotency.Options{})
	for name, key := range map[string]string{
		"empty":        "",
		"too long":     strings.Repeat("k", idempotency.MaxKeyLen+1),
		"control char": "abc\tdef",
		"non-ascii":    "clé",
	} {
		t.Run(name, func(t *testing.T) {
			w := h.do(t, "agent-a", orders, key, `{}`)
			if w.Code != http.StatusBadRequest || code(t, w) != errs.CodeInvalidIdempotencyKey {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
		})
	}
	if w := h.do(t, "agent-a", orders, strings.Repeat("k", idempotency.MaxKeyLen), `{}`); w.Code != http.StatusCreated {
		t.Fatalf("longest key: %d %s", w.Code, w.Body)
	}
	r := httptest.NewRequest(http.MethodPost, orders, strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+h.tokens["agent-a"])
	r.Header.Add(idempotency.HeaderKey, "one")
	r.Header.Add(idempotency.HeaderKey, "two")
	w := httptest.NewRecorder()
	h.srv.ServeHTTP(w, r)
	if w.Code != http.StatusBadRequest || code(t, w) != errs.CodeInvalidIdempotencyKey {
		t.Fatalf("two headers: %d %s", w.Code, w.Body)
	}
	if n := h.runs.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
}

// BenchmarkMiddleware measures the overhead per request on SQLite: a
// first request (claim + complete) and a replay (one read).
func BenchmarkMiddleware(b *testing.B) {
	st := storetest.NewSQLite(b)
	b.Run("first", func(b *testing.B) {
		h := newHarness(b, st, idempotency.Options{})
		for i := range b.N {
			if w := h.do(b, "agent-a", orders, "first-"+strconv.Itoa(i), `{"side":"BUY","size":10}`); w.Code != http.StatusCreated {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
	b.Run("replay", func(b *testing.B) {
		h := newHarness(b, st, idempotency.Options{})
		h.do(b, "agent-a", orders, "replay", `{"side":"BUY","size":10}`)
		for range b.N {
			if w := h.do(b, "agent-a", orders, "replay", `{"side":"BUY","size":10}`); w.Header().Get(idempotency.HeaderReplayed) != "true" {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
}
