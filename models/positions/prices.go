package positions

import (
	"context"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
)

// Midpointer gives a token's mid price; venue/clob.Client implements it.
type Midpointer interface {
	Midpoint(ctx context.Context, tokenID string) (decimal.Decimal, error)
}

// DefaultPriceTTL is how long MidpointPrices reuses a midpoint when the
// caller does not ask for fresh data: long enough that an agent polling its
// positions does not hit the venue per request, short enough to be current.
const DefaultPriceTTL = 3 * time.Second

// MidpointPrices is a PriceSource over the venue's midpoints with a short
// cache. A token the venue does not know (NotFound: no book any more) is
// left out; any other failure fails the lookup. Use one value (a pointer)
// for the process so the cache is shared.
type MidpointPrices struct {
	Source Midpointer
	// TTL of cached prices (DefaultPriceTTL when zero; negative disables).
	TTL time.Duration
	// Now is the cache clock (time.Now when nil).
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]cachedPrice
}

type cachedPrice struct {
	price decimal.Decimal
	found bool
	exp   time.Time
}

// maxCachedPrices bounds the cache; expired entries are swept when full.
const maxCachedPrices = 10_000

// Prices implements PriceSource. Duplicate ids are looked up once.
func (m *MidpointPrices) Prices(ctx context.Context, tokenIDs []string, fresh bool) (map[string]decimal.Decimal, error) {
	out := make(map[string]decimal.Decimal, len(tokenIDs))
	seen := make(map[string]bool, len(tokenIDs))
	for _, id := range tokenIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		p, found, err := m.price(ctx, id, fresh)
		if err != nil {
			return nil, err
		}
		if found {
			out[id] = p
		}
	}
	return out, nil
}

func (m *MidpointPrices) ttl() time.Duration {
	if m.TTL == 0 {
		return DefaultPriceTTL
	}
	return m.TTL
}

func (m *MidpointPrices) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *MidpointPrices) price(ctx context.Context, id string, fresh bool) (decimal.Decimal, bool, error) {
	if !fresh && m.ttl() > 0 {
		m.mu.Lock()
		c, ok := m.cache[id]
		m.mu.Unlock()
		if ok && m.now().Before(c.exp) {
			return c.price, c.found, nil
		}
	}
	mid, err := m.Source.Midpoint(ctx, id)
	found := true
	switch {
	case errs.Is(err, errs.NotFound):
		found, mid = false, decimal.Zero
	case err != nil:
		return decimal.Zero, false, err
	case mid.IsNegative() || mid.GreaterThan(decimal.NewFromInt(1)):
		return decimal.Zero, false, errs.Ef(errs.Transient, "the venue returned an invalid price for token %s", id)
	}
	if m.ttl() > 0 {
		m.mu.Lock()
		if m.cache == nil {
			m.cache = map[string]cachedPrice{}
		}
		now := m.now()
		if len(m.cache) >= maxCachedPrices {
			for k, v := range m.cache {
				if !now.Before(v.exp) {
					delete(m.cache, k)
				}
			}
		}
		if len(m.cache) < maxCachedPrices {
			m.cache[id] = cachedPrice{price: mid, found: found, exp: now.Add(m.ttl())}
		}
		m.mu.Unlock()
	}
	return mid, found, nil
}
