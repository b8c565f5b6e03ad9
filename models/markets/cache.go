package markets

import (
	"context"
	"sync"
	"time"
)

// maxCacheEntries bounds each cache; expired entries are swept when it is
// reached so a stream of distinct keys cannot grow memory without limit.
const maxCacheEntries = 10_000

// ttlCache is a small read-through cache with per-key request coalescing:
// concurrent misses on one key share a single venue call, which is what
// keeps a burst of agents asking for the same market from multiplying the
// load on the venue. Errors are never cached.
type ttlCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[string]*cacheEntry[V]
}

type cacheEntry[V any] struct {
	done chan struct{} // closed when v/err are set
	v    V
	err  error
	exp  time.Time
}

func newTTLCache[V any](ttl time.Duration, now func() time.Time) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: now, m: map[string]*cacheEntry[V]{}}
}

// get returns the cached value of key or calls fetch once for all
// concurrent callers. A waiter whose ctx ends stops waiting; the fetch
// itself runs under the first caller's ctx.
func (c *ttlCache[V]) get(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	var zero V
	if c.ttl <= 0 {
		return fetch(ctx)
	}
	c.mu.Lock()
	if e, ok := c.m[key]; ok {
		select {
		case <-e.done:
			if e.err == nil && c.now().Before(e.exp) {
				c.mu.Unlock()
				return e.v, nil
			}
		default:
			c.mu.Unlock()
			select {
			case <-e.done:
				return e.v, e.err
			case <-ctx.Done():
				return zero, ctx.Err()
			}
		}
	}
	e := &cacheEntry[V]{done: make(chan struct{})}
	c.sweepLocked()
	c.m[key] = e
	c.mu.Unlock()

	v, err := fetch(ctx)
	c.mu.Lock()
	e.v, e.err, e.exp = v, err, c.now().Add(c.ttl)
	if err != nil && c.m[key] == e {
		delete(c.m, key)
	}
	close(e.done)
	c.mu.Unlock()
	return v, err
}

// peek returns a fresh cached value without fetching.
func (c *ttlCache[V]) peek(key string) (V, bool) {
	var zero V
	if c.ttl <= 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return zero, false
	}
	select {
	case <-e.done:
		if e.err == nil && c.now().Before(e.exp) {
			return e.v, true
		}
	default:
	}
	return zero, false
}

// put stores a value fetched outside get (batch fetches).
func (c *ttlCache[V]) put(key string, v V) {
	if c.ttl <= 0 {
		return
	}
	e := &cacheEntry[V]{done: make(chan struct{}), v: v}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.exp = c.now().Add(c.ttl)
	close(e.done)
	if old, ok := c.m[key]; ok {
		select {
		case <-old.done:
		default:
			return // a coalesced fetch is in flight; let it finish and store
		}
	}
	c.sweepLocked()
	c.m[key] = e
}

// sweepLocked drops expired entries once the map is at its bound, and
// everything settled if that was not enough.
func (c *ttlCache[V]) sweepLocked() {
	if len(c.m) < maxCacheEntries {
		return
	}
	now := c.now()
	for k, e := range c.m {
		select {
		case <-e.done:
			if !now.Before(e.exp) || len(c.m) >= maxCacheEntries {
				delete(c.m, k)
			}
		default:
		}
	}
}
