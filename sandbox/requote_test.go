package sandbox_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/ws"
)

// TestRequoteIsOneMarketFrame follows a market on the market channel while
// its price moves: each re-quote of the makers reaches the socket as one
// price_change frame after which the book built from frames is whole (three
// levels a side, as the makers quote), never an empty or half-built book,
// and that book ends equal to the venue's.
func TestRequoteIsOneMarketFrame(t *testing.T) {
	sb := start(t, sandbox.Config{Seed: 17, DisableUpDown: true, Ordinary: 2})
	m := firstMarket(t, sb)
	c, _, err := websocket.DefaultDialer.Dial(sb.Network().StreamsURL+"/market", nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	next := func() []ws.Event {
		t.Helper()
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, data, err := c.ReadMessage()
		require.NoError(t, err)
		evs, err := ws.Parse(data)
		require.NoError(t, err, string(data))
		return evs
	}
	require.NoError(t, c.WriteMessage(websocket.TextMessage,
		[]byte(`{"assets_ids":["`+m.TokenIDs[0]+`","`+m.TokenIDs[1]+`"],"type":"market"}`)))

	books := map[string]*[2]map[string]string{} // token → bids, asks → price → size
	for _, ev := range next() {
		b := ev.(*ws.BookEvent)
		bk := &[2]map[string]string{{}, {}}
		for i, side := range [][]ws.Level{b.Bids, b.Asks} {
			for _, l := range side {
				bk[i][l.Price.String()] = l.Size.String()
			}
		}
		books[b.AssetID] = bk
	}
	require.Len(t, books, 2, "one book per token in the dump")
	whole := func(when string) {
		t.Helper()
		for tok, bk := range books {
			for i, side := range bk {
				assert.Len(t, side, 3, "%s: token %s… side %d", when, tok[:6], i)
			}
		}
	}
	whole("the dump")

	prices := []string{"0.6", "0.61", "0.35", "0.5", "0.52", "0.5"}
	for _, p := range prices {
		r := postJSON(t, sb.URL()+"/control/markets/"+m.TokenIDs[0]+"/price", map[string]any{"price": p})
		require.Equal(t, 200, r.status, string(r.body))
		evs := next()
		require.Len(t, evs, 1, "re-quote to %s: one frame", p)
		pc, ok := evs[0].(*ws.PriceChangeEvent)
		require.True(t, ok, "re-quote to %s: a price_change, got %T", p, evs[0])
		for _, ch := range pc.Changes {
			side := books[ch.AssetID][0]
			if ch.Side == ws.Sell {
				side = books[ch.AssetID][1]
			}
			if ch.Size.IsZero() {
				delete(side, ch.Price.String())
			} else {
				side[ch.Price.String()] = ch.Size.String()
			}
		}
		whole(fmt.Sprintf("after the re-quote to %s", p))
	}

	// Nothing else was sent, and the frames add up to the venue's book.
	require.NoError(t, c.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, extra, err := c.ReadMessage()
	assert.Error(t, err, "no frame after the last re-quote's, got %s", extra)
	for tok, bk := range books {
		var rest book
		get(t, sb.URL()+"/clob/book?token_id="+tok).json(t, &rest)
		for i, side := range [][]struct{ Price, Size string }{rest.Bids, rest.Asks} {
			want := map[string]string{}
			for _, l := range side {
				want[decimal.RequireFromString(l.Price).String()] = decimal.RequireFromString(l.Size).String()
			}
			assert.Equal(t, want, bk[i], "token %s… side %d", tok[:6], i)
		}
	}
}
