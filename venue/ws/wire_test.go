package ws

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func frame(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func dd(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func eqDec(t *testing.T, want string, got decimal.Decimal, what string) {
	t.Helper()
	assert.True(t, dd(want).Equal(got), "%s: want %s, got %s", what, want, got)
}

func parseOneFrame(t *testing.T, name string) Event {
	t.Helper()
	evs, err := Parse(frame(t, name))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	return evs[0]
}

// TestParseRecordedFrames holds the decoder to the frames recorded from the
// live venue (testdata, verbatim from the protocol reference).
func TestParseRecordedFrames(t *testing.T) {
	t.Run("book", func(t *testing.T) {
		b := parseOneFrame(t, "market_book.json").(*BookEvent)
		assert.Equal(t, "65818619657568813474341868652308942079804919287380422192892211131408793125422", b.AssetID)
		assert.Equal(t, "0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af", b.Market)
		// Sent worst-first; delivered best-first.
		require.Len(t, b.Bids, 3)
		require.Len(t, b.Asks, 3)
		eqDec(t, "0.50", b.Bids[0].Price, "best bid")
		eqDec(t, "15", b.Bids[0].Size, "best bid size")
		eqDec(t, "0.48", b.Bids[2].Price, "worst bid")
		eqDec(t, "0.52", b.Asks[0].Price, "best ask")
		eqDec(t, "25", b.Asks[0].Size, "best ask size")
		eqDec(t, "0.54", b.Asks[2].Price, "worst ask")
		assert.Equal(t, time.UnixMilli(1757908892351), b.Timestamp)
		assert.Equal(t, "ed47eb91f3c7985fac1cb18cb7c19535eddd3c0a", b.Hash)
		eqDec(t, "0.01", b.TickSize, "tick")
		require.True(t, b.LastTradePrice.Valid)
		eqDec(t, "0.92", b.LastTradePrice.Decimal, "last trade")
		assert.False(t, b.Backfill)
	})
	t.Run("price_change", func(t *testing.T) {
		p := parseOneFrame(t, "market_price_change.json").(*PriceChangeEvent)
		assert.Equal(t, "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1", p.Market)
		assert.Equal(t, time.UnixMilli(1757908892351), p.Timestamp)
		require.Len(t, p.Changes, 2)
		c0, c1 := p.Changes[0], p.Changes[1]
		assert.Equal(t, "7132...2563", c0.AssetID)
		eqDec(t, "0.5", c0.Price, "price")
		eqDec(t, "200", c0.Size, "size")
		assert.Equal(t, Buy, c0.Side)
		assert.Equal(t, "56621a121a47ed9333273e21c83b660cff37ae50", c0.Hash)
		require.True(t, c0.BestBid.Valid)
		require.True(t, c0.BestAsk.Valid)
		eqDec(t, "0.5", c0.BestBid.Decimal, "best bid")
		eqDec(t, "1", c0.BestAsk.Decimal, "best ask")
		assert.Equal(t, Sell, c1.Side)
		eqDec(t, "0", c1.BestBid.Decimal, "empty bid side")
	})
	t.Run("price_change legacy", func(t *testing.T) {
		p := parseOneFrame(t, "market_price_change_legacy.json").(*PriceChangeEvent)
		require.Len(t, p.Changes, 1)
		c := p.Changes[0]
		assert.Equal(t, "7132...2563", c.AssetID, "the asset moves from the frame onto the entry")
		assert.Equal(t, "3cd4d61e042c81560c9037ece0c61f3b1a8fbbdd", c.Hash)
		eqDec(t, "0.4", c.Price, "price")
		eqDec(t, "3300", c.Size, "size")
		assert.Equal(t, Sell, c.Side)
		assert.False(t, c.BestBid.Valid, "legacy frames carry no top of book")
	})
	t.Run("last_trade_price", func(t *testing.T) {
		l := parseOneFrame(t, "market_last_trade_price.json").(*LastTradePriceEvent)
		assert.Equal(t, "1141...1694", l.AssetID)
		eqDec(t, "0.456", l.Price, "price")
		eqDec(t, "219.217767", l.Size, "size")
		assert.Equal(t, Buy, l.Side)
		eqDec(t, "0", l.FeeRateBps, "fee")
		assert.Equal(t, time.UnixMilli(1750428146322), l.Timestamp)
		assert.Equal(t, "0xeeef...", l.TransactionHash)
	})
	t.Run("tick_size_change", func(t *testing.T) {
		c := parseOneFrame(t, "market_tick_size_change.json").(*TickSizeChangeEvent)
		assert.Equal(t, "6581...5422", c.AssetID)
		assert.Equal(t, "0xbd31...af", c.Market)
		eqDec(t, "0.01", c.OldTickSize, "old")
		eqDec(t, "0.001", c.NewTickSize, "new")
	})
	t.Run("best_bid_ask", func(t *testing.T) {
		b := parseOneFrame(t, "market_best_bid_ask.json").(*BestBidAskEvent)
		eqDec(t, "0.73", b.BestBid, "bid")
		eqDec(t, "0.77", b.BestAsk, "ask")
		eqDec(t, "0.04", b.Spread, "spread")
		assert.Equal(t, time.UnixMilli(1766789469958), b.Timestamp)
	})
	t.Run("new_market", func(t *testing.T) {
		n := parseOneFrame(t, "market_new_market.json").(*NewMarketEvent)
		assert.Equal(t, "1031769", n.ID)
		assert.Equal(t, "nvda-above-240-on-january-30-2026", n.Slug)
		assert.Equal(t, []string{"7604...6425", "3169...2770"}, n.AssetIDs)
		assert.Equal(t, []string{"Yes", "No"}, n.Outcomes)
		require.NotNil(t, n.EventMessage)
		assert.Equal(t, "125819", n.EventMessage.ID)
		assert.True(t, n.Active)
		eqDec(t, "0.01", n.OrderPriceMinTickSize, "tick")
		assert.Equal(t, "NVDA above $240", n.GroupItemTitle)
		assert.Equal(t, []string{"stocks"}, n.Tags)
	})
	t.Run("market_resolved", func(t *testing.T) {
		r := parseOneFrame(t, "market_market_resolved.json").(*MarketResolvedEvent)
		assert.Equal(t, "7604...6425", r.WinningAssetID)
		assert.Equal(t, "Yes", r.WinningOutcome)
		assert.Len(t, r.AssetIDs, 2)
	})
	t.Run("order", func(t *testing.T) {
		o := parseOneFrame(t, "user_order_placement.json").(*OrderEvent)
		assert.Equal(t, OrderPlacement, o.Type)
		assert.Equal(t, "0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b", o.ID)
		assert.Equal(t, "9180014b-33c8-9240-a14b-bdca11c0a465", o.Owner)
		assert.Equal(t, Sell, o.Side)
		assert.Equal(t, "YES", o.Outcome)
		eqDec(t, "10", o.OriginalSize, "original")
		eqDec(t, "0", o.SizeMatched, "matched")
		eqDec(t, "0.57", o.Price, "price")
		assert.Nil(t, o.AssociateTrades)
		assert.Equal(t, time.Unix(1672290687, 0), o.CreatedAt, "seconds, told apart from ms by magnitude")
		assert.Equal(t, time.Unix(1234567, 0), o.Expiration)
		assert.Equal(t, "GTD", o.OrderType)
		assert.Equal(t, "LIVE", o.Status)
		assert.Equal(t, time.Unix(1672290687, 0), o.Timestamp)
	})
	t.Run("trade", func(t *testing.T) {
		tr := parseOneFrame(t, "user_trade.json").(*TradeEvent)
		assert.Equal(t, "28c4d2eb-bbea-40e7-a9f0-b2fdb56b2c2e", tr.ID)
		assert.Equal(t, TradeMatched, tr.Status)
		assert.False(t, tr.Status.Terminal())
		assert.Equal(t, Buy, tr.Side)
		eqDec(t, "10", tr.Size, "size")
		eqDec(t, "0.57", tr.Price, "price")
		assert.Equal(t, time.Unix(1672290701, 0), tr.MatchTime)
		assert.Equal(t, "TAKER", tr.TraderSide)
		assert.Equal(t, "", tr.TransactionHash)
		require.Len(t, tr.MakerOrders, 1)
		m := tr.MakerOrders[0]
		assert.Equal(t, "0xff35...790b", m.OrderID)
		eqDec(t, "10", m.MatchedAmount, "matched")
		assert.Equal(t, Sell, m.Side)
	})
}

func TestParseFraming(t *testing.T) {
	book, change := frame(t, "market_book.json"), frame(t, "market_price_change.json")
	batch := []byte("[" + string(book) + "," + string(change) + "]")
	evs, err := Parse(batch)
	require.NoError(t, err)
	require.Len(t, evs, 2, "an array frame carries several events")
	assert.IsType(t, &BookEvent{}, evs[0])
	assert.IsType(t, &PriceChangeEvent{}, evs[1])

	for _, keepalive := range []string{"PONG", " PONG\n", "", "[]"} {
		evs, err := Parse([]byte(keepalive))
		assert.NoError(t, err, "%q", keepalive)
		assert.Empty(t, evs, "%q", keepalive)
	}

	evs, err = Parse([]byte(`[{"event_type":"someday_new","x":1},` + string(book) + `]`))
	assert.True(t, errors.Is(err, ErrUnknownEvent), "an unknown type is reported: %v", err)
	assert.Len(t, evs, 1, "and the known events of the frame still arrive")

	for _, bad := range []string{`{"event_type":"book","bids":"nope"}`, `[{`, `hello`} {
		_, err := Parse([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// TestParseObservedVariants covers what third parties saw on the wire
// beyond the spec (reference §2.2, §7.8, §7.9).
func TestParseObservedVariants(t *testing.T) {
	// FOK kill: size_matched "" and the venue's message in status.
	raw := strings.Replace(string(frame(t, "user_order_placement.json")), `"size_matched":"0"`, `"size_matched":""`, 1)
	raw = strings.Replace(raw, `"status":"LIVE"`, `"status":"CANCELED_order couldn't be fully filled. FOK orders are fully filled or killed."`, 1)
	raw = strings.Replace(raw, `"type":"PLACEMENT"`, `"type":"CANCELLATION"`, 1)
	o := parseOne1(t, raw).(*OrderEvent)
	assert.True(t, o.SizeMatched.IsZero())
	assert.Equal(t, classCanceled, classOf(o))

	// match_time spelling, millisecond timestamps.
	raw = strings.Replace(string(frame(t, "user_trade.json")), `"matchtime":"1672290701"`, `"match_time":"1672290701000"`, 1)
	tr := parseOne1(t, raw).(*TradeEvent)
	assert.Equal(t, time.Unix(1672290701, 0), tr.MatchTime)

	// Legacy book ladders named buys/sells.
	bk := parseOne1(t, `{"event_type":"book","asset_id":"1","market":"0x1","buys":[{"price":"0.4","size":"1"}],"sells":[{"price":"0.6","size":"2"}],"timestamp":"1"}`).(*BookEvent)
	require.Len(t, bk.Bids, 1)
	require.Len(t, bk.Asks, 1)
	eqDec(t, "0.6", bk.Asks[0].Price, "ask")
}

func parseOne1(t *testing.T, raw string) Event {
	t.Helper()
	evs, err := Parse([]byte(raw))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	return evs[0]
}

// TestMarshalRoundTrip: what the sandbox writes is what the client reads,
// and it carries every field name of the recorded frame.
func TestMarshalRoundTrip(t *testing.T) {
	for _, name := range []string{
		"market_book.json", "market_price_change.json", "market_last_trade_price.json",
		"market_tick_size_change.json", "market_best_bid_ask.json", "market_new_market.json",
		"market_market_resolved.json", "user_order_placement.json", "user_trade.json",
	} {
		t.Run(name, func(t *testing.T) {
			ev := parseOneFrame(t, name)
			out, err := Marshal(ev)
			require.NoError(t, err)
			back, err := Parse(out)
			require.NoError(t, err)
			require.Len(t, back, 1)
			again, err := Marshal(back[0])
			require.NoError(t, err)
			assert.JSONEq(t, string(out), string(again), "parse(marshal(ev)) marshals the same")
			assert.IsType(t, ev, back[0])

			var want, got map[string]any
			require.NoError(t, json.Unmarshal(frame(t, name), &want))
			require.NoError(t, json.Unmarshal(out, &got))
			for k := range want {
				switch k {
				case "sports_market_type", "line", "game_start_time":
					continue // sports fields the sandbox has no use for
				}
				assert.Contains(t, got, k, "written frame lacks %q", k)
			}
			for k, v := range got {
				if _, isNum := v.(float64); isNum {
					assert.Contains(t, []string{"bucket_index"}, k, "%q must be a string on the wire", k)
				}
			}
		})
	}
	// A book is written worst level first on both sides, as captured.
	out, err := Marshal(parseOneFrame(t, "market_book.json"))
	require.NoError(t, err)
	var w struct {
		Bids, Asks []struct{ Price string }
	}
	require.NoError(t, json.Unmarshal(out, &w))
	assert.Equal(t, "0.48", w.Bids[0].Price)
	assert.Equal(t, "0.5", w.Bids[2].Price)
	assert.Equal(t, "0.54", w.Asks[0].Price)
	assert.Equal(t, "0.52", w.Asks[2].Price)

	two, err := Marshal(&TickSizeChangeEvent{AssetID: "1"}, &TickSizeChangeEvent{AssetID: "2"})
	require.NoError(t, err)
	assert.Equal(t, byte('['), two[0], "several events go out as one array frame")
	one, err := MarshalArray(&TickSizeChangeEvent{AssetID: "1"})
	require.NoError(t, err)
	assert.Equal(t, byte('['), one[0], "a dump is an array even of one")
}

func TestSubscriptionFrames(t *testing.T) {
	var s Subscription
	require.NoError(t, json.Unmarshal(frame(t, "sub_market.json"), &s))
	assert.Equal(t, "market", s.Type)
	assert.Equal(t, []string{"6581...5422", "5211...2426"}, s.AssetsIDs)
	require.NotNil(t, s.InitialDump)
	assert.True(t, *s.InitialDump)
	assert.True(t, s.CustomFeatureEnabled)

	require.NoError(t, json.Unmarshal(frame(t, "sub_user.json"), &s))
	require.NotNil(t, s.Auth)
	assert.Equal(t, "<uuid>", s.Auth.APIKey)
	assert.Equal(t, "<base64 secret>", s.Auth.Secret)
	assert.Equal(t, []string{"0xbd31...af"}, s.Markets)

	// What the client writes has the reference's keys.
	c := &marketChannel{assets: map[string]bool{}, maxIDs: 2, custom: true}
	c.update([]string{"a", "b", "c"}, true)
	fs := c.initialFrames()
	require.Len(t, fs, 2, "ids are chunked")
	assert.JSONEq(t, `{"type":"market","assets_ids":["a","b"],"initial_dump":true,"custom_feature_enabled":true}`, string(fs[0]))
	assert.JSONEq(t, `{"operation":"subscribe","assets_ids":["c"],"custom_feature_enabled":true}`, string(fs[1]))
	assert.JSONEq(t, `{"operation":"unsubscribe","assets_ids":["c"]}`, string(c.frames(OpUnsubscribe, []string{"c"})[0]))

	u := &userChannel{auth: Auth{APIKey: "k", Secret: "s", Passphrase: "p"}, markets: map[string]bool{"0xm": true}, maxIDs: 100}
	assert.JSONEq(t, `{"auth":{"apiKey":"k","secret":"s","passphrase":"p"},"type":"user","markets":["0xm"],"assets_ids":[],"initial_dump":true}`,
		string(u.initialFrames()[0]))
}

func TestStampMagnitude(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"1672290687", time.Unix(1672290687, 0)},
		{"1757908892351", time.UnixMilli(1757908892351)},
		{"", time.Time{}},
		{"0", time.Time{}},
		{"x", time.Time{}},
	} {
		assert.Equal(t, c.want, stamp(c.in).time(), c.in)
	}
}
