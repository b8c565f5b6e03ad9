// Package ratelimit enforces the agent API's request budgets: 100 requests
// per minute per API key by default (configurable per key), and a per-client
// address budget for the unauthenticated device-link endpoints.
//
// # Semantics: fixed window started by the first request
//
// A counter (one per API key, or per client address) is created by the first
// request that finds none, and lives for exactly one Period (default one
// minute). Every request in that window increments it; the request that
// brings it to N (the limit) is the last allowed one, and request N+1 and
// later are answered 429 until the counter expires. The next request after
// expiry starts a new window. So at most N requests are allowed per window
// per key, and a caller that paces itself never sees a 429. The window is
// not aligned to the clock minute; it starts at the key's first request.
// Rejected requests still count (the counter keeps growing past N), which
// does not extend the window: the expiry is fixed when the window opens.
//
// Like every fixed window, a client can spend N at the end of one window and
// N at the start of the next, so 2N can pass in a short burst straddling the
// boundary. We accept that: the limit exists to stop runaway agent loops and
// protect the venue, and the semantics are the ones agents can reason about
// from the headers (Remaining requests until Reset).
//
// # Library and stores
//
// Counting is done by github.com/ulule/limiter/v3, chosen because it ships
// an in-memory store and a Redis store that implement the SAME algorithm:
// the memory store keeps (count, expiry) per key under a mutex, and the
// Redis store runs one Lua script that does INCRBY and, when the key is new,
// PEXPIRE, atomically on the server. Several API instances pointing at the
// same Redis therefore share one budget per key, with no race between
// instances. The alternatives were worse fits: go-redis/redis_rate is
// Redis-only (GCRA), and golang.org/x/time/rate is an in-process token
// bucket, so pairing them would give different semantics per deployment.
//
// The per-key limit is a parameter of every call (ulule's stores take the
// rate per call), so a key's custom limit needs no separate limiter.
//
// # Headers
//
// Every response that passes through the middleware, allowed or not, carries
// X-RateLimit-Limit (the window's budget), X-RateLimit-Remaining (requests
// left in the window, never negative) and X-RateLimit-Reset (Unix seconds
// when the window ends, rounded up, so a caller waiting until then is never
// early). A 429 additionally carries Retry-After and the body member
// retryAfter (seconds until Reset, at least 1), written by api.Fail.
// When the store cannot be reached there is no counter to report: the
// request is let through without the headers (or answered 503 with
// Options.FailClosed).
//
// # Wiring
//
// One Limiter per process, over NewMemoryStore() for a single instance or
// NewRedisStore(url) when several instances serve the same keys:
//
//	l := ratelimit.New(store, ratelimit.Options{})
//	agent := s.Group("/api/agent/v1", agentauth.Middleware(keys, nil), ratelimit.PerKey(l, nil))
//	device := s.Group("/api/auth/device", ratelimit.PerClientIP(l.Scope("device"), 60))
//
// The API key middleware hands the caller over with SetIdentity (key id and
// the agent's per-minute limit); PerKey with a nil identify reads it back.
package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/throttle"
)

// DefaultLimit is the per-window budget of an API key without a custom limit
// (spec, "Limits": 100 requests per minute per API key).
const DefaultLimit = 100

// DefaultPeriod is the window length.
const DefaultPeriod = time.Minute

// DefaultStoreTimeout bounds one call to a remote (Redis) store, so that a
// slow Redis delays requests by at most this much before the failure policy
// applies.
const DefaultStoreTimeout = 500 * time.Millisecond

// Options configure a Limiter. The zero value gives the spec's defaults.
type Options struct {
	// Period is the window length; 0 means DefaultPeriod. Sub-millisecond
	// precision is lost in the Redis store, so keep it a whole number of
	// milliseconds.
	Period time.Duration
	// DefaultLimit applies when a caller passes a limit <= 0; 0 means
	// DefaultLimit.
	DefaultLimit int
	// StoreTimeout bounds each call to a remote store; 0 means
	// DefaultStoreTimeout. The in-memory store never blocks and ignores it.
	StoreTimeout time.Duration
	// FailClosed makes the middleware answer 503 when the store cannot be
	// reached. The default (false) lets requests through unlimited and logs
	// a warning: a Redis outage should not take the whole trading API down,
	// and the money-relevant limits (budgets) are enforced elsewhere.
	FailClosed bool
}

// Limiter counts requests per key in a Store. It is safe for concurrent use;
// one Limiter serves all requests of an API instance.
type Limiter struct {
	store  *Store
	opts   Options
	scope  string
	resets *resetMemo
}

// New returns a Limiter over store. store must not be nil.
func New(store *Store, opts Options) *Limiter {
	if store == nil {
		panic("ratelimit: New with a nil store")
	}
	if opts.Period <= 0 {
		opts.Period = DefaultPeriod
	}
	if opts.DefaultLimit <= 0 {
		opts.DefaultLimit = DefaultLimit
	}
	if opts.StoreTimeout <= 0 {
		opts.StoreTimeout = DefaultStoreTimeout
	}
	return &Limiter{store: store, opts: opts, scope: "default", resets: &resetMemo{m: map[string]time.Time{}}}
}

// Scope returns a Limiter sharing l's store and options whose counters are
// separate from l's: l.Scope("device") and l.Scope("link") give the device
// endpoints and the link page independent per-address budgets. The name is
// part of the storage key; keep it short and constant.
func (l *Limiter) Scope(name string) *Limiter {
	c := *l
	c.scope = name
	return &c
}

// Period is the window length in force.
func (l *Limiter) Period() time.Duration { return l.opts.Period }

// Decision is the outcome of one counted request.
type Decision struct {
	// Allowed is false once the window's budget is spent.
	Allowed bool
	// Limit is the window's budget.
	Limit int
	// Remaining is how many more requests the window allows (>= 0).
	Remaining int
	// Reset is when the window ends, rounded up to a whole second.
	Reset time.Time
}

// RetryAfter is the whole number of seconds, at least 1, a rejected caller
// should wait from now before the window resets.
func (d Decision) RetryAfter(now time.Time) int {
	secs := int(d.Reset.Unix() - now.Unix())
	return max(1, secs)
}

// Allow counts one request for key against limit (<= 0 means the Limiter's
// default) and reports whether it may proceed. key identifies the caller
// within the Limiter's scope (an API key id, never the secret). The error is
// errs.Transient when the store cannot be reached.
func (l *Limiter) Allow(ctx context.Context, key string, limit int) (Decision, error) {
	return l.AllowN(ctx, key, limit, 1)
}

// AllowN is Allow for n requests at once (an MCP POST carrying n JSON-RPC
// calls): all n are counted, and they may proceed only if all fit in the
// window's budget.
func (l *Limiter) AllowN(ctx context.Context, key string, limit, n int) (Decision, error) {
	if limit <= 0 {
		limit = l.opts.DefaultLimit
	}
	if l.store.remote {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.opts.StoreTimeout)
		defer cancel()
	}
	rate := limiter.Rate{Period: l.opts.Period, Limit: int64(limit)}
	var (
		res limiter.Context
		err error
	)
	if n == 1 {
		res, err = l.store.s.Get(ctx, l.scope+":"+key, rate)
	} else {
		res, err = l.store.s.Increment(ctx, l.scope+":"+key, int64(n), rate)
	}
	if err != nil {
		return Decision{}, errs.Wrap(errs.Transient, fmt.Errorf("ratelimit: %s store: %w", l.store.kind, err),
			"rate limiter unavailable; retry later")
	}
	return Decision{
		Allowed:   !res.Reached,
		Limit:     int(res.Limit),
		Remaining: int(max(0, res.Remaining)),
		// The stores truncate the expiry to whole seconds; +1 rounds it up
		// so that a caller retrying at Reset finds the new window open.
		Reset: l.resets.stable(l.scope+":"+key, time.Unix(res.Reset+1, 0)),
	}, nil
}

// resetMemo keeps the announced end of each key's current window. The Redis
// store derives the end from the local clock plus the key's remaining TTL,
// so consecutive answers for one window can straddle a second boundary by
// the round-trip time; remembering the first estimate keeps
// X-RateLimit-Reset fixed for the whole window, as clients expect.
type resetMemo struct {
	mu sync.Mutex
	m  map[string]time.Time
}

// resetSlack is how far a new estimate may drift from the remembered one
// and still name the same window; windows are at least a second long and a
// new window's end lies a whole period later.
const resetSlack = 2 * time.Second

// resetMemoPrune bounds the memo: beyond it, ended windows are dropped.
const resetMemoPrune = 4096

func (r *resetMemo) stable(key string, est time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.m[key]; ok {
		if d := est.Sub(prev); d <= resetSlack && d >= -resetSlack {
			return prev
		}
	}
	if len(r.m) >= resetMemoPrune {
		now := time.Now()
		for k, t := range r.m {
			if t.Before(now) {
				delete(r.m, k)
			}
		}
	}
	r.m[key] = est
	return est
}

// clientKey is the per-address key of ip: the address itself for IPv4, and
// its /64 network for IPv6, because one subscriber usually holds a whole /64
// and could otherwise rotate addresses to multiply its budget.
func clientKey(ip string) string { return throttle.ClientNet(ip) }
