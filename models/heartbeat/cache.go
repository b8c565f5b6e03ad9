package heartbeat

import (
	"context"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/venue/clob"
)

// CachedBalances serves wallet balances from a short-lived cache, so a
// heartbeat every few seconds does not read the chain every time; the
// budget it shows may be up to ttl old (orders still check live).
type CachedBalances struct {
	inner budget.WalletBalancer
	cache *expirable.LRU[string, int64]
}

// NewCachedBalances caches inner's answers for ttl, for up to size users.
func NewCachedBalances(inner budget.WalletBalancer, size int, ttl time.Duration) *CachedBalances {
	return &CachedBalances{inner: inner, cache: expirable.NewLRU[string, int64](size, nil, ttl)}
}

// WalletBalance implements budget.WalletBalancer. Errors are not cached.
func (c *CachedBalances) WalletBalance(ctx context.Context, userID string) (int64, error) {
	if v, ok := c.cache.Get(userID); ok {
		return v, nil
	}
	v, err := c.inner.WalletBalance(ctx, userID)
	if err != nil {
		return 0, err
	}
	c.cache.Add(userID, v)
	return v, nil
}

// MarketSource reads a market; *clob.Client implements it.
type MarketSource interface {
	Market(ctx context.Context, conditionID string) (*clob.Market, error)
}

// EndDates gives markets' closing times from the venue, cached (they
// rarely change). A market the venue cannot describe right now counts as
// having no known end (no POSITION_EXPIRING) rather than failing the
// heartbeat; that answer is cached for a minute only.
type EndDates struct {
	source MarketSource
	known  *expirable.LRU[string, time.Time]
	failed *expirable.LRU[string, bool]
}

// NewEndDates caches source's end dates for ttl.
func NewEndDates(source MarketSource, ttl time.Duration) *EndDates {
	return &EndDates{source: source,
		known:  expirable.NewLRU[string, time.Time](50_000, nil, ttl),
		failed: expirable.NewLRU[string, bool](10_000, nil, time.Minute)}
}

// ClosesAt implements MarketCloses.
func (e *EndDates) ClosesAt(ctx context.Context, conditionID string) (time.Time, error) {
	if t, ok := e.known.Get(conditionID); ok {
		return t, nil
	}
	if _, ok := e.failed.Get(conditionID); ok {
		return time.Time{}, nil
	}
	m, err := e.source.Market(ctx, conditionID)
	if err != nil {
		if ctx.Err() != nil {
			return time.Time{}, ctx.Err()
		}
		e.failed.Add(conditionID, true)
		return time.Time{}, nil
	}
	var t time.Time
	if m.EndDateISO != "" {
		if p, err := time.Parse(time.RFC3339, m.EndDateISO); err == nil {
			t = p.UTC()
		} else if p, err := time.Parse("2006-01-02", m.EndDateISO); err == nil {
			t = p.UTC()
		}
	}
	e.known.Add(conditionID, t)
	return t, nil
}
