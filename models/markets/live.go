package markets

import (
	"context"
	"strconv"

	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/wire"
)

// LiveBooks is the process's price feed as the market-data reads use it:
// the book of a token some consumer keeps subscribed, kept current by the
// venue's market channel. *pricefeed.Feed implements it.
type LiveBooks interface {
	Book(tokenID string) (pricefeed.Book, bool)
}

// liveBook serves a token from the feed when it holds a book: prices and
// levels from the stream, and the static minimum size and neg-risk flag
// from the CLOB client's market-info cache. ok is false when the token must
// be read over REST.
func (s *Service) liveBook(ctx context.Context, token string) (*clob.OrderBook, bool) {
	if s.Live == nil {
		return nil, false
	}
	fb, ok := s.Live.Book(token)
	if !ok {
		return nil, false
	}
	info, err := s.CLOB.MarketInfo(ctx, token)
	if err != nil {
		return nil, false
	}
	b := &clob.OrderBook{Market: fb.Market, AssetID: token, Hash: fb.Hash,
		Timestamp: strconv.FormatInt(fb.Timestamp.UnixMilli(), 10), TickSize: info.TickSize, NegRisk: info.NegRisk,
		MinOrderSize: wire.LooseDecimal{Decimal: info.MinOrderSize}}
	if t, err := clob.TickSizeFromDecimal(fb.TickSize); err == nil {
		b.TickSize = t
	}
	if fb.Last.Valid {
		b.LastTradePrice = wire.LooseDecimal{Decimal: fb.Last.Decimal}
	}
	for _, l := range fb.Bids { // best first, as normalise leaves REST books
		b.Bids = append(b.Bids, clob.PriceLevel{Price: l.Price, Size: l.Size})
	}
	for _, l := range fb.Asks {
		b.Asks = append(b.Asks, clob.PriceLevel{Price: l.Price, Size: l.Size})
	}
	return b, true
}
