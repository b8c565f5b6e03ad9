// Package throttle limits guessing: it counts failed attempts (passwords,
// device user codes, API keys) per key and refuses further attempts for a
// while once a key has failed too often, with errs.RateLimited and the
// seconds to wait.
//
// Two policies build on one Counter:
//
//   - Limit: at most Max failures per Window (a fixed window started by
//     the key's first failure), then refused until the window ends;
//   - Backoff: Free failures per Window, then every further failure locks
//     the key for Base·2^(n−Free), at most Cap, so a slow guesser is held
//     to a few attempts an hour while a user who mistypes twice is not
//     bothered.
//
// The Counter is in process memory (NewMemory) or shared by every API
// instance: api/ratelimit.Store.Failures keeps it in the same store as the
// per-key request limits (Redis when --ratelimit-redis-url is set), so
// spreading guesses over instances gains nothing.
//
// Keys name what is counted ("addr:<client>", "acct:<email hash>",
// "user:<id>"); AddrKey turns a client address into its key, counting an
// IPv6 client per /64, since one subscriber usually holds a whole /64 and
// could otherwise rotate addresses to multiply its budget.
package throttle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/agent-trading/ats/models/errs"
)

// Counter counts failures per key in fixed windows, each started by the
// key's first failure and lasting the window given then. left is the time
// until the current window ends (0 without one). Errors mean the counter
// could not be reached.
type Counter interface {
	Count(ctx context.Context, key string, window time.Duration) (n int64, left time.Duration, err error)
	Add(ctx context.Context, key string, window time.Duration) (n int64, left time.Duration, err error)
	Reset(ctx context.Context, key string) error
}

// AddrKey is the counting key of a client address: "addr:" and the
// address for IPv4 (IPv4-mapped IPv6 included), its /64 network for IPv6.
// Anything else (an admin command's "cli") is used as it is.
func AddrKey(ip string) string { return "addr:" + ClientNet(ip) }

// ClientNet is what a client address is counted as: the address itself
// for IPv4, its /64 network for IPv6.
func ClientNet(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap()
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			return p.String()
		}
	}
	return addr.String()
}

// AccountKey is the counting key of a sign-in account: a hash of the
// normalised email, so that unknown emails are counted like known ones and
// no address is written to a shared store in clear.
func AccountKey(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "acct:" + hex.EncodeToString(sum[:16])
}

// Refused is the error of an attempt refused by a limit kept elsewhere (the
// database's count of an account's second factors) that may be retried
// after left: the same errs.RateLimited too_many_attempts as this package's.
func Refused(left time.Duration) error { return refused(left) }

// refused is the error of a refused attempt that may be retried after left.
func refused(left time.Duration) error {
	e := errs.E(errs.RateLimited, "too many failed attempts; wait before trying again").WithCode(errs.CodeTooManyAttempts)
	e.RetryAfterSeconds = max(1, int(math.Ceil(left.Seconds())))
	return e
}

func unavailable(err error) error {
	return errs.Wrap(errs.Transient, err, "the attempt limiter is unavailable; retry shortly")
}

// Limit allows Max failures per key per Window.
type Limit struct {
	Counter Counter
	Max     int
	Window  time.Duration
}

// Check refuses (errs.RateLimited) when any of keys has used up its
// failures, with the longest wait among them; errs.Transient when the
// counter cannot be read.
func (l Limit) Check(ctx context.Context, keys ...string) error {
	var wait time.Duration
	for _, k := range keys {
		n, left, err := l.Counter.Count(ctx, k, l.Window)
		if err != nil {
			return unavailable(err)
		}
		if n >= int64(l.Max) && left > 0 {
			wait = max(wait, left)
		}
	}
	if wait > 0 {
		return refused(wait)
	}
	return nil
}

// Fail records one failure against each of keys.
func (l Limit) Fail(ctx context.Context, keys ...string) error {
	for _, k := range keys {
		if _, _, err := l.Counter.Add(ctx, k, l.Window); err != nil {
			return unavailable(err)
		}
	}
	return nil
}

// Backoff allows Free failures per key per Window; each failure beyond
// them locks the key for Base·2^(failures−Free), at most Cap.
type Backoff struct {
	Counter Counter
	Free    int
	Base    time.Duration
	Cap     time.Duration
	Window  time.Duration
}

func lockKey(key string) string { return "lock:" + key }

// Check refuses (errs.RateLimited) while key is locked.
func (b Backoff) Check(ctx context.Context, key string) error {
	n, left, err := b.Counter.Count(ctx, lockKey(key), b.Cap)
	if err != nil {
		return unavailable(err)
	}
	if n > 0 && left > 0 {
		return refused(left)
	}
	return nil
}

// Fail records a failure of key and, beyond the free ones, locks it.
func (b Backoff) Fail(ctx context.Context, key string) error {
	n, _, err := b.Counter.Add(ctx, key, b.Window)
	if err != nil {
		return unavailable(err)
	}
	if n < int64(b.Free) {
		return nil
	}
	if _, _, err := b.Counter.Add(ctx, lockKey(key), b.Delay(n)); err != nil {
		return unavailable(err)
	}
	return nil
}

// Delay is how long the n-th failure in a window locks the key.
func (b Backoff) Delay(n int64) time.Duration {
	if n < int64(b.Free) {
		return 0
	}
	d := b.Base
	for i := int64(b.Free); i < n && d < b.Cap; i++ {
		d *= 2
	}
	return min(d, b.Cap)
}

// Reset forgets key's failures and lock (after a success).
func (b Backoff) Reset(ctx context.Context, key string) error {
	if err := b.Counter.Reset(ctx, key); err != nil {
		return unavailable(err)
	}
	if err := b.Counter.Reset(ctx, lockKey(key)); err != nil {
		return unavailable(err)
	}
	return nil
}

// maxMemoryKeys bounds the memory counter; past it, ended windows are
// swept on the next failure.
const maxMemoryKeys = 10_000

// Memory is a Counter in process memory, on the clock now (time.Now when
// nil), so tests can move time.
type Memory struct {
	now func() time.Time

	mu      sync.Mutex
	windows map[string]memWindow
}

type memWindow struct {
	end time.Time
	n   int64
}

// NewMemory returns an empty in-memory counter.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, windows: map[string]memWindow{}}
}

// Count implements Counter.
func (m *Memory) Count(_ context.Context, key string, _ time.Duration) (int64, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	w, ok := m.windows[key]
	if !ok || !now.Before(w.end) {
		return 0, 0, nil
	}
	return w.n, w.end.Sub(now), nil
}

// Add implements Counter.
func (m *Memory) Add(_ context.Context, key string, window time.Duration) (int64, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if len(m.windows) >= maxMemoryKeys {
		for k, w := range m.windows {
			if !now.Before(w.end) {
				delete(m.windows, k)
			}
		}
	}
	w, ok := m.windows[key]
	if !ok || !now.Before(w.end) {
		w = memWindow{end: now.Add(window)}
	}
	w.n++
	m.windows[key] = w
	return w.n, w.end.Sub(now), nil
}

// Reset implements Counter.
func (m *Memory) Reset(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.windows, key)
	return nil
}
