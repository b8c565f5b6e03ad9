package budget

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/micro"
)

// Midpointer gives a token's mid price; venue/clob.Client implements it.
type Midpointer interface {
	Midpoint(ctx context.Context, tokenID string) (decimal.Decimal, error)
}

// MidpointPrices is a PriceSource over the venue's midpoints. A token the
// venue does not know (NotFound, e.g. no order book any more) is left out,
// so its position counts at cost; any other failure fails the lookup.
type MidpointPrices struct{ Source Midpointer }

// Prices implements PriceSource. Duplicate token IDs are looked up once.
func (m MidpointPrices) Prices(ctx context.Context, tokenIDs []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tokenIDs))
	seen := make(map[string]bool, len(tokenIDs))
	for _, id := range tokenIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		mid, err := m.Source.Midpoint(ctx, id)
		switch {
		case errs.Is(err, errs.NotFound):
			continue
		case err != nil:
			return nil, err
		}
		if mid.IsNegative() || mid.GreaterThan(decimal.NewFromInt(1)) {
			return nil, errs.Ef(errs.Transient, "the venue returned an invalid price for token %s", id)
		}
		out[id] = micro.Truncate(mid)
	}
	return out, nil
}
