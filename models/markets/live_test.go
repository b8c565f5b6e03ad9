package markets

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/ws"
)

// TestBooksFromTheFeed: a token the price feed holds is read from the feed
// (no GET /book); any other token from the venue.
func TestBooksFromTheFeed(t *testing.T) {
	var bookCalls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var v any
		switch {
		case r.URL.Path == "/book":
			bookCalls.Add(1)
			v = map[string]any{"market": "0xm", "asset_id": r.URL.Query().Get("token_id"), "timestamp": "1",
				"bids": []map[string]string{{"price": "0.2", "size": "1"}}, "asks": []map[string]string{},
				"tick_size": "0.01", "min_order_size": "5", "neg_risk": false, "last_trade_price": "0.2"}
		case r.URL.Path == "/markets-by-token/111":
			v = map[string]string{"condition_id": "0xm"}
		case r.URL.Path == "/clob-markets/0xm":
			v = map[string]any{"c": "0xm", "mts": "0.01", "nr": true, "mos": "5"}
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}))
	defer srv.Close()

	feed := pricefeed.New(pricefeed.Config{})
	sub := feed.Subscribe("111")
	defer sub.Close()
	d := decimal.RequireFromString
	feed.Apply(&ws.BookEvent{AssetID: "111", Market: "0xm", TickSize: d("0.01"),
		Bids: []ws.Level{{Price: d("0.40"), Size: d("3")}, {Price: d("0.45"), Size: d("2")}},
		Asks: []ws.Level{{Price: d("0.55"), Size: d("1")}}})
	feed.Apply(&ws.LastTradePriceEvent{AssetID: "111", Price: d("0.45")})

	s := &Service{CLOB: clob.NewClient(clob.Config{BaseURL: srv.URL}), Live: feed}
	bs, err := s.Books(context.Background(), []string{"111", "222"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), bookCalls.Load(), "only the token the feed lacks went to the venue")
	live := bs[0]
	assert.Equal(t, "0.45", live.Bids[0].Price.String(), "best first")
	assert.Equal(t, "0.55", live.Asks[0].Price.String())
	assert.True(t, live.NegRisk, "static fields from the market info")
	assert.Equal(t, "5", live.MinOrderSize.String())
	q := QuoteOf("111", live)
	assert.Equal(t, "0.5", q.Midpoint.Decimal.String())
	assert.Equal(t, "0.45", q.LastTradePrice.Decimal.String())
	assert.Equal(t, "222", bs[1].AssetID)

	// Once the feed lets go of the token, reads go back to the venue.
	s2 := &Service{CLOB: clob.NewClient(clob.Config{BaseURL: srv.URL}), Live: pricefeed.New(pricefeed.Config{})}
	_, err = s2.Book(context.Background(), "111")
	require.NoError(t, err)
	assert.Equal(t, int32(2), bookCalls.Load())
}
