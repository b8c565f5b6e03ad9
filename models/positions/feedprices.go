package positions

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/pricefeed"
)

// Quotes is the process's price feed as positions read it;
// *pricefeed.Feed implements it.
type Quotes interface {
	Quote(tokenID string) (pricefeed.Quote, bool)
}

// FeedPrices prices tokens from the process's price feed where it holds a
// live midpoint (a consumer subscribed them: the dashboard's live pages,
// a strategy's trigger), and from Fallback (the venue's midpoints) for the
// rest, so a page that re-reads its positions on every price change does
// not ask the venue each time.
type FeedPrices struct {
	Fallback PriceSource
	feed     atomic.Pointer[Quotes]
}

// FeedMaxAge is how old a feed quote may be and still price a position:
// older, the feed lost its stream and the venue is asked.
const FeedMaxAge = time.Minute

// SetFeed sets the feed (it starts after the services are built).
func (f *FeedPrices) SetFeed(q Quotes) { f.feed.Store(&q) }

// Prices implements PriceSource. fresh skips the feed too.
func (f *FeedPrices) Prices(ctx context.Context, tokenIDs []string, fresh bool) (map[string]decimal.Decimal, error) {
	out := make(map[string]decimal.Decimal, len(tokenIDs))
	rest := tokenIDs
	if q := f.feed.Load(); q != nil && !fresh {
		rest = nil
		for _, id := range tokenIDs {
			if quote, ok := (*q).Quote(id); ok && quote.Mid.Valid && time.Since(quote.Updated) < FeedMaxAge {
				out[id] = quote.Mid.Decimal
				continue
			}
			rest = append(rest, id)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	more, err := f.Fallback.Prices(ctx, rest, fresh)
	if err != nil {
		return nil, err
	}
	for id, p := range more {
		out[id] = p
	}
	return out, nil
}
