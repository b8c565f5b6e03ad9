package ratelimit_test

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
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/api/ratelimit/redistest"
	"github.com/agent-trading/ats/models/errs"
)

// Test requests identify themselves with these headers; fakeAuth plays the
// API key middleware that will set the identity in production.
const (
	hdrKeyID    = "X-Test-Key-Id"
	hdrKeyLimit = "X-Test-Key-Limit"
	agentPath   = "/api/agent/v1/ping"
	devicePath  = "/api/auth/device/code"
)

// fakeAuth stands in for the API key middleware: it turns the test headers
// into a ratelimit.Identity, as the real one will from the key record.
func fakeAuth(c *gin.Context) {
	id := c.GetHeader(hdrKeyID)
	if id == "" {
		c.Next()
		return
	}
	limit, _ := strconv.Atoi(c.GetHeader(hdrKeyLimit))
	ratelimit.SetIdentity(c, ratelimit.Identity{Key: id, Limit: limit})
	c.Next()
}

// newEngine is one API instance: the real api.Server with the agent group
// limited per key and the device group limited per client address.
func newEngine(t testing.TB, l *ratelimit.Limiter, ipLimit int, trusted ...string) http.Handler {
	t.Helper()
	return api.New(api.Config{Registry: prometheus.NewRegistry(), TrustedProxies: trusted}, api.Deps{
		Routes: []api.Routes{func(s *api.Server) {
			g := s.Group("/api/agent/v1", fakeAuth, ratelimit.PerKey(l, nil))
			g.GET("/ping", func(c *gin.Context) { api.OK(c, gin.H{"pong": true}) })
			d := s.Group("/api/auth/device", ratelimit.PerClientIP(l.Scope("device"), ipLimit))
			d.POST("/code", func(c *gin.Context) { api.OK(c, nil) })
		}},
	})
}

type reqOpt func(*http.Request)

func withKey(id string, limit int) reqOpt {
	return func(r *http.Request) {
		r.Header.Set(hdrKeyID, id)
		if limit != 0 {
			r.Header.Set(hdrKeyLimit, strconv.Itoa(limit))
		}
	}
}

func from(remote string, forwardedFor string) reqOpt {
	return func(r *http.Request) {
		r.RemoteAddr = remote
		if forwardedFor != "" {
			r.Header.Set("X-Forwarded-For", forwardedFor)
		}
	}
}

func do(h http.Handler, method, path string, opts ...reqOpt) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for _, o := range opts {
		o(r)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// storeFactory builds a fresh Store for one test; the Redis one starts its
// own server, so tests never share counters.
type storeFactory struct {
	name string
	new  func(t *testing.T) (*ratelimit.Store, *redistest.Server)
}

func memoryStore(t *testing.T) (*ratelimit.Store, *redistest.Server) {
	return ratelimit.NewMemoryStore(), nil
}

func redisStore(t *testing.T) (*ratelimit.Store, *redistest.Server) {
	srv := redistest.Start(t)
	s, err := ratelimit.NewRedisStore(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, srv
}

var stores = []storeFactory{{"memory", memoryStore}, {"redis", redisStore}}

// headers is the parsed rate-limit headers of a response.
type headers struct{ limit, remaining, reset int64 }

func rateHeaders(t *testing.T, w *httptest.ResponseRecorder) headers {
	t.Helper()
	var h headers
	for name, dst := range map[string]*int64{
		ratelimit.HeaderLimit: &h.limit, ratelimit.HeaderRemaining: &h.remaining, ratelimit.HeaderReset: &h.reset,
	} {
		v := w.Header().Get(name)
		require.NotEmptyf(t, v, "header %s missing (status %d)", name, w.Code)
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoErrorf(t, err, "header %s=%q", name, v)
		*dst = n
	}
	return h
}

func decodeError(t *testing.T, w *httptest.ResponseRecorder) api.ErrorBody {
	t.Helper()
	var b api.ErrorBody
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &b), w.Body.String())
	return b
}

// assertRateLimited checks the spec's 429: body {success:false, error:
// "Rate Limited", message, retryAfter}, Retry-After equal to retryAfter,
// and the rate-limit headers with nothing remaining.
func assertRateLimited(t *testing.T, w *httptest.ResponseRecorder, limit int64, period time.Duration) {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, w.Code, w.Body.String())
	b := decodeError(t, w)
	assert.False(t, b.Success)
	assert.Equal(t, "Rate Limited", b.Error)
	assert.Contains(t, b.Message, "wait")
	assert.Contains(t, b.Message, "before retrying")
	assert.GreaterOrEqual(t, b.RetryAfter, 1)
	assert.LessOrEqual(t, b.RetryAfter, int(period/time.Second)+1)
	assert.Equal(t, strconv.Itoa(b.RetryAfter), w.Header().Get("Retry-After"))
	h := rateHeaders(t, w)
	assert.Equal(t, limit, h.limit)
	assert.Equal(t, int64(0), h.remaining)
	// retryAfter counts to the reset the headers announce.
	assert.InDelta(t, h.reset-time.Now().Unix(), b.RetryAfter, 1)
}

func TestPerKeyAllowsExactlyTheDefaultLimitPerWindow(t *testing.T) {
	for _, sf := range stores {
		t.Run(sf.name, func(t *testing.T) {
			store, _ := sf.new(t)
			h := newEngine(t, ratelimit.New(store, ratelimit.Options{}), 0)

			start := time.Now().Unix()
			var reset int64
			for i := 1; i <= ratelimit.DefaultLimit; i++ {
				w := do(h, http.MethodGet, agentPath, withKey("key_a", 0))
				require.Equalf(t, http.StatusOK, w.Code, "request %d: %s", i, w.Body.String())
				hd := rateHeaders(t, w)
				assert.Equal(t, int64(100), hd.limit)
				require.Equal(t, int64(100-i), hd.remaining, "request %d", i)
				if i == 1 {
					reset = hd.reset
					// The window opened by this request ends one minute on.
					assert.Greater(t, reset, start+int64(ratelimit.DefaultPeriod/time.Second)-1)
					assert.LessOrEqual(t, reset, time.Now().Unix()+int64(ratelimit.DefaultPeriod/time.Second)+1)
				} else {
					assert.Equal(t, reset, hd.reset, "the window's end is fixed when it opens")
				}
			}
			for i := 0; i < 3; i++ {
				w := do(h, http.MethodGet, agentPath, withKey("key_a", 0))
				assertRateLimited(t, w, 100, ratelimit.DefaultPeriod)
				assert.Equal(t, reset, rateHeaders(t, w).reset, "rejections do not extend the window")
			}
		})
	}
}

func TestPerKeyIsolationAndCustomLimits(t *testing.T) {
	for _, sf := range stores {
		t.Run(sf.name, func(t *testing.T) {
			store, _ := sf.new(t)
			h := newEngine(t, ratelimit.New(store, ratelimit.Options{}), 0)

			// key_small has a custom limit of 5: the sixth request is refused.
			for i := 1; i <= 5; i++ {
				w := do(h, http.MethodGet, agentPath, withKey("key_small", 5))
				require.Equal(t, http.StatusOK, w.Code, "request %d", i)
				assert.Equal(t, headers{5, int64(5 - i), rateHeaders(t, w).reset}, rateHeaders(t, w))
			}
			assertRateLimited(t, do(h, http.MethodGet, agentPath, withKey("key_small", 5)), 5, ratelimit.DefaultPeriod)

			// Other keys are untouched by key_small's exhaustion.
			cases := []struct {
				key       string
				limit     int
				wantLimit int64
			}{
				{"key_default", 0, 100},
				{"key_big", 250, 250},
				{"key_negative", -3, 100},
			}
			for _, tc := range cases {
				w := do(h, http.MethodGet, agentPath, withKey(tc.key, tc.limit))
				require.Equal(t, http.StatusOK, w.Code, tc.key)
				hd := rateHeaders(t, w)
				assert.Equal(t, tc.wantLimit, hd.limit, tc.key)
				assert.Equal(t, tc.wantLimit-1, hd.remaining, tc.key)
			}

			// A big custom limit really allows more than the default.
			for i := 2; i <= 150; i++ {
				require.Equal(t, http.StatusOK, do(h, http.MethodGet, agentPath, withKey("key_big", 250)).Code, "request %d", i)
			}
			assert.Equal(t, int64(250-151), rateHeaders(t, do(h, http.MethodGet, agentPath, withKey("key_big", 250))).remaining)
		})
	}
}

func TestWindowExpiresAndReopens(t *testing.T) {
	for _, sf := range stores {
		t.Run(sf.name, func(t *testing.T) {
			t.Parallel()
			store, _ := sf.new(t)
			h := newEngine(t, ratelimit.New(store, ratelimit.Options{Period: time.Second}), 0)

			first := do(h, http.MethodGet, agentPath, withKey("key_w", 1))
			require.Equal(t, http.StatusOK, first.Code)
			// The window started with the request above and lasts a second,
			// so the next request, microseconds later, is inside it.
			assertRateLimited(t, do(h, http.MethodGet, agentPath, withKey("key_w", 1)), 1, time.Second)

			// Reset is rounded up: once it has passed, the window is over.
			reset := time.Unix(rateHeaders(t, first).reset, 0)
			time.Sleep(time.Until(reset) + 10*time.Millisecond)
			w := do(h, http.MethodGet, agentPath, withKey("key_w", 1))
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Equal(t, int64(0), rateHeaders(t, w).remaining)
			assert.Greater(t, rateHeaders(t, w).reset, reset.Unix()-1)
		})
	}
}

func TestPerKeyWithoutIdentityIsAWiringError(t *testing.T) {
	h := newEngine(t, ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{}), 0)
	w := do(h, http.MethodGet, agentPath)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Empty(t, w.Header().Get(ratelimit.HeaderLimit))
	assert.NotContains(t, w.Body.String(), "PerKey", "internal details stay out of the body")
}

func TestPerKeyCustomIdentify(t *testing.T) {
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	e := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{func(s *api.Server) {
		identify := func(c *gin.Context) (string, int, bool) {
			return c.GetHeader("X-Agent"), 2, c.GetHeader("X-Agent") != ""
		}
		s.Group("/x", ratelimit.PerKey(l, identify)).GET("/y", func(c *gin.Context) { api.OK(c, nil) })
	}}})
	agent := func(r *http.Request) { r.Header.Set("X-Agent", "ag_1") }
	assert.Equal(t, http.StatusOK, do(e, http.MethodGet, "/x/y", agent).Code)
	assert.Equal(t, http.StatusOK, do(e, http.MethodGet, "/x/y", agent).Code)
	assertRateLimited(t, do(e, http.MethodGet, "/x/y", agent), 2, ratelimit.DefaultPeriod)
	assert.Equal(t, http.StatusInternalServerError, do(e, http.MethodGet, "/x/y").Code)
}

func TestPerClientIP(t *testing.T) {
	const proxy = "192.0.2.1"
	tests := []struct {
		name    string
		trusted []string
		// first exhausts the budget of 2; second is then tried once.
		first, second []reqOpt
		wantSecond    int
	}{
		{
			name:       "same address shares a budget",
			first:      []reqOpt{from("198.51.100.7:1111", "")},
			second:     []reqOpt{from("198.51.100.7:2222", "")},
			wantSecond: http.StatusTooManyRequests,
		},
		{
			name:       "different addresses are separate",
			first:      []reqOpt{from("198.51.100.7:1111", "")},
			second:     []reqOpt{from("198.51.100.8:1111", "")},
			wantSecond: http.StatusOK,
		},
		{
			name:       "X-Forwarded-For from an untrusted peer cannot pick a new bucket",
			first:      []reqOpt{from("198.51.100.7:1111", "203.0.113.1")},
			second:     []reqOpt{from("198.51.100.7:1111", "203.0.113.2")},
			wantSecond: http.StatusTooManyRequests,
		},
		{
			name:       "X-Forwarded-For from a trusted proxy names the client",
			trusted:    []string{proxy},
			first:      []reqOpt{from(proxy+":1111", "203.0.113.1")},
			second:     []reqOpt{from(proxy+":1111", "203.0.113.2")},
			wantSecond: http.StatusOK,
		},
		{
			name:       "the same client behind a trusted proxy shares a budget",
			trusted:    []string{proxy},
			first:      []reqOpt{from(proxy+":1111", "203.0.113.1")},
			second:     []reqOpt{from(proxy+":2222", "203.0.113.1")},
			wantSecond: http.StatusTooManyRequests,
		},
		{
			name:       "IPv6 addresses of one /64 share a budget",
			first:      []reqOpt{from("[2001:db8:1:2::1]:1111", "")},
			second:     []reqOpt{from("[2001:db8:1:2:ffff::9]:1111", "")},
			wantSecond: http.StatusTooManyRequests,
		},
		{
			name:       "IPv6 addresses of different /64s are separate",
			first:      []reqOpt{from("[2001:db8:1:2::1]:1111", "")},
			second:     []reqOpt{from("[2001:db8:1:3::1]:1111", "")},
			wantSecond: http.StatusOK,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newEngine(t, ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{}), 2, tc.trusted...)
			for i := 1; i <= 2; i++ {
				w := do(h, http.MethodPost, devicePath, tc.first...)
				require.Equal(t, http.StatusOK, w.Code, "request %d", i)
				assert.Equal(t, int64(2-i), rateHeaders(t, w).remaining)
			}
			assertRateLimited(t, do(h, http.MethodPost, devicePath, tc.first...), 2, ratelimit.DefaultPeriod)
			w := do(h, http.MethodPost, devicePath, tc.second...)
			require.Equal(t, tc.wantSecond, w.Code, w.Body.String())
			rateHeaders(t, w) // present either way
		})
	}
}

func TestScopesAreSeparateBudgets(t *testing.T) {
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	ctx := context.Background()
	d, err := l.Scope("device").Allow(ctx, "ip:198.51.100.7", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, err = l.Scope("device").Allow(ctx, "ip:198.51.100.7", 1)
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	assert.Equal(t, 0, d.Remaining)

	d, err = l.Scope("link").Allow(ctx, "ip:198.51.100.7", 1)
	require.NoError(t, err)
	assert.True(t, d.Allowed, "another scope counts separately")
	d, err = l.Allow(ctx, "ip:198.51.100.7", 1)
	require.NoError(t, err)
	assert.True(t, d.Allowed, "the parent limiter counts separately")
}

func TestConcurrentRequestsNeverExceedTheLimit(t *testing.T) {
	for _, sf := range stores {
		t.Run(sf.name, func(t *testing.T) {
			store, _ := sf.new(t)
			h := newEngine(t, ratelimit.New(store, ratelimit.Options{}), 0)
			var ok, limited atomic.Int64
			var wg sync.WaitGroup
			for i := 0; i < 160; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					switch w := do(h, http.MethodGet, agentPath, withKey("key_c", 0)); w.Code {
					case http.StatusOK:
						ok.Add(1)
					case http.StatusTooManyRequests:
						limited.Add(1)
					default:
						t.Errorf("status %d: %s", w.Code, w.Body.String())
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, int64(100), ok.Load())
			assert.Equal(t, int64(60), limited.Load())
		})
	}
}

// TestRedisSharedBudgetAcrossInstances runs two API instances (separate gin
// engines, separate limiters and Redis connections) against one Redis: the
// key's 100 requests are shared between them, not 100 each.
func TestRedisSharedBudgetAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	instance := func() http.Handler {
		s, err := ratelimit.NewRedisStore(srv.URL)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return newEngine(t, ratelimit.New(s, ratelimit.Options{}), 0)
	}
	a, b := instance(), instance()

	t.Run("sequential, alternating", func(t *testing.T) {
		for i := 1; i <= 100; i++ {
			h := a
			if i%2 == 0 {
				h = b
			}
			w := do(h, http.MethodGet, agentPath, withKey("key_shared", 0))
			require.Equal(t, http.StatusOK, w.Code, "request %d", i)
			require.Equal(t, int64(100-i), rateHeaders(t, w).remaining, "request %d", i)
		}
		assertRateLimited(t, do(a, http.MethodGet, agentPath, withKey("key_shared", 0)), 100, ratelimit.DefaultPeriod)
		assertRateLimited(t, do(b, http.MethodGet, agentPath, withKey("key_shared", 0)), 100, ratelimit.DefaultPeriod)
		// Another key still has its whole budget on both instances.
		assert.Equal(t, int64(99), rateHeaders(t, do(b, http.MethodGet, agentPath, withKey("key_other", 0))).remaining)
	})

	t.Run("concurrent", func(t *testing.T) {
		var ok atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 150; i++ {
			h := a
			if i%2 == 0 {
				h = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := do(h, http.MethodGet, agentPath, withKey("key_conc", 0))
				switch w.Code {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
				default:
					t.Errorf("status %d: %s", w.Code, w.Body.String())
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, int64(100), ok.Load())
	})
}

func TestRedisDownFailurePolicy(t *testing.T) {
	tests := []struct {
		name       string
		failClosed bool
		wantStatus int
	}{
		{"fail open lets requests through unlimited", false, http.StatusOK},
		{"fail closed answers 503", true, http.StatusServiceUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store, srv := redisStore(t)
			h := newEngine(t, ratelimit.New(store, ratelimit.Options{FailClosed: tc.failClosed, StoreTimeout: 200 * time.Millisecond}), 0)
			require.Equal(t, http.StatusOK, do(h, http.MethodGet, agentPath, withKey("key_d", 0)).Code)
			srv.Stop()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			require.Error(t, store.Ping(ctx))

			w := do(h, http.MethodGet, agentPath, withKey("key_d", 0))
			require.Equal(t, tc.wantStatus, w.Code, w.Body.String())
			assert.Empty(t, w.Header().Get(ratelimit.HeaderLimit), "no counter, no headers")
			if tc.failClosed {
				b := decodeError(t, w)
				assert.Equal(t, "Service Unavailable", b.Error)
				assert.Equal(t, "rate_limiter_unavailable", b.Code)
				assert.Equal(t, 1, b.RetryAfter)
				assert.NotContains(t, b.Message, "127.0.0.1", "no infrastructure details for clients")
			}
		})
	}
}

func TestNewRedisStoreErrors(t *testing.T) {
	const secret = "s3cretPassw0rd"
	tests := []struct {
		name string
		url  string
		kind errs.Kind
	}{
		{"malformed URL", "redis://user:" + secret + "@localhost:notaport/0", errs.Invalid},
		{"wrong scheme", "http://user:" + secret + "@localhost:6379/0", errs.Invalid},
		{"nothing listening", "redis://:" + secret + "@127.0.0.1:1/0", errs.Transient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := ratelimit.NewRedisStore(tc.url)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Equal(t, tc.kind, errs.KindOf(err))
			assert.NotContains(t, err.Error(), secret, "the password must not leak into errors")
		})
	}
}

func TestMemoryStorePingAndClose(t *testing.T) {
	s := ratelimit.NewMemoryStore()
	assert.NoError(t, s.Ping(context.Background()))
	assert.NoError(t, s.Close())
}

func TestRateLimitedMessageNamesTheWindow(t *testing.T) {
	h := newEngine(t, ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{Period: 30 * time.Second}), 0)
	require.Equal(t, http.StatusOK, do(h, http.MethodGet, agentPath, withKey("k", 1)).Code)
	w := do(h, http.MethodGet, agentPath, withKey("k", 1))
	assertRateLimited(t, w, 1, 30*time.Second)
	msg := decodeError(t, w).Message
	assert.True(t, strings.HasPrefix(msg, "request limit of 1 per 30s exceeded; wait "), msg)
}
