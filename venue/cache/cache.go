// Package cache is the read-through cache of venue answers (market
// metadata, order books, tick sizes): bounded (at most Size entries, the
// least recently used evicted first, hashicorp/golang-lru), expiring (each
// entry trusted for a TTL on an injectable clock, so tests pin time), and
// coalescing (concurrent misses of one key share a single fetch,
// x/sync/singleflight), which keeps a burst of callers asking for the same
// market from multiplying the load on the venue. Errors are never kept.
package cache

import (
	"context"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// Cache holds values of type V by string key. The zero value is not usable;
// use New.
type Cache[V any] struct {
	ttl    time.Duration
	now    func() time.Time
	lru    *lru.Cache[string, entry[V]] // nil: caching disabled
	flight singleflight.Group
	mu     sync.Mutex // serialises Update's read-modify-write with Put
}

type entry[V any] struct {
	v   V
	exp time.Time
}

// New returns a cache of at most size entries (size > 0), each fresh for
// ttl on the clock now (nil: time.Now). A ttl <= 0 disables caching: Get
// fetches every time, Peek finds nothing, Put and Update keep nothing.
func New[V any](size int, ttl time.Duration, now func() time.Time) *Cache[V] {
	if now == nil {
		now = time.Now
	}
	c := &Cache[V]{ttl: ttl, now: now}
	if ttl > 0 {
		l, err := lru.New[string, entry[V]](size)
		if err != nil {
			panic("cache: " + err.Error()) // a non-positive size is a programming error
		}
		c.lru = l
	}
	return c
}

// Get returns the fresh value of key, or fetches it once for all
// concurrent callers and keeps it when the fetch succeeds. The fetch runs
// under the first caller's ctx; a caller whose ctx ends stops waiting.
func (c *Cache[V]) Get(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	if c.lru == nil {
		return fetch(ctx)
	}
	if v, ok := c.Peek(key); ok {
		return v, nil
	}
	return c.await(ctx, c.flight.DoChan(key, func() (any, error) {
		// A fetch that finished between the Peek above and this one
		// starting has stored its value: use it.
		if v, ok := c.Peek(key); ok {
			return v, nil
		}
		return c.fetch(ctx, key, fetch)
	}))
}

// Load fetches key once for all concurrent Load callers, whatever is
// cached, and keeps the value when the fetch succeeds: for a cached value
// that lacks what the caller needs.
func (c *Cache[V]) Load(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	if c.lru == nil {
		return fetch(ctx)
	}
	// Its own flight: a Load must not settle for a Get's cached answer.
	return c.await(ctx, c.flight.DoChan("load\x00"+key, func() (any, error) {
		return c.fetch(ctx, key, fetch)
	}))
}

func (c *Cache[V]) fetch(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	v, err := fetch(ctx)
	if err == nil {
		c.Put(key, v)
	}
	return v, err
}

func (c *Cache[V]) await(ctx context.Context, ch <-chan singleflight.Result) (V, error) {
	var zero V
	select {
	case r := <-ch:
		if r.Err != nil {
			return zero, r.Err
		}
		return r.Val.(V), nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Peek returns the fresh value of key without fetching.
func (c *Cache[V]) Peek(key string) (V, bool) {
	var zero V
	if c.lru == nil {
		return zero, false
	}
	e, ok := c.lru.Get(key)
	if !ok {
		return zero, false
	}
	if !c.now().Before(e.exp) {
		c.lru.Remove(key)
		return zero, false
	}
	return e.v, true
}

// Put stores v as the fresh value of key (values fetched outside Get, e.g.
// by a batch call).
func (c *Cache[V]) Put(key string, v V) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(key, v)
}

// Update applies f to key's fresh value (the zero value when there is
// none) and stores the result as fresh: for values assembled from several
// answers.
func (c *Cache[V]) Update(key string, f func(*V)) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, _ := c.Peek(key)
	f(&v)
	c.add(key, v)
}

func (c *Cache[V]) add(key string, v V) {
	c.lru.Add(key, entry[V]{v: v, exp: c.now().Add(c.ttl)})
}

// Remove forgets key.
func (c *Cache[V]) Remove(key string) {
	if c.lru != nil {
		c.lru.Remove(key)
	}
}

// Len is the number of entries held, fresh or not yet found expired.
func (c *Cache[V]) Len() int {
	if c.lru == nil {
		return 0
	}
	return c.lru.Len()
}
