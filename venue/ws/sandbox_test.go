package ws_test

// The client against the sandbox's channels: the same code that runs
// against the live venue, on a real matching engine (paper chain).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/ws"
)

type env struct {
	t   *testing.T
	sb  *sandbox.Sandbox
	ctx context.Context
	m   markets.Info
	tok string
}

func startSandbox(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the sandbox venue")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	sb, err := sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 7, PaperChain: true, Ordinary: 2,
		DisableUpDown: true, QuoteInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })
	ms := sb.Venue().Markets()
	require.NotEmpty(t, ms)
	return &env{t: t, sb: sb, ctx: ctx, m: ms[0], tok: ms[0].TokenIDs[0]}
}

func (e *env) control(path string, body any) {
	e.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(e.t, err)
	resp, err := http.Post(e.sb.URL()+path, "application/json", bytes.NewReader(b))
	require.NoError(e.t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	require.Equal(e.t, http.StatusOK, resp.StatusCode, "%s: %s", path, raw)
}

type trader struct {
	addr   common.Address
	creds  clob.Creds
	client *clob.Client
	tr     *clob.Trader
}

// newTrader makes a wallet holding collateral and outcome tokens of tok on
// the paper chain, with venue credentials.
func (e *env) newTrader(tok string) *trader {
	e.t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(e.t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	mc := e.sb.Chain().(*markets.MemChain)
	mc.Credit(addr, "", 1000*exchange.One)
	mc.Credit(addr, tok, 1000*exchange.One)
	mc.Approve(addr, 1<<62, true)
	return e.traderFor(key)
}

func (e *env) traderFor(key *ecdsa.PrivateKey) *trader {
	pub := clob.NewClient(clob.ConfigFor(e.sb.Network()))
	creds, err := pub.CreateOrDeriveAPIKey(e.ctx, clob.NewKeySigner(key), 0)
	require.NoError(e.t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	cl := pub.WithCreds(creds, addr)
	return &trader{addr: addr, creds: creds, client: cl,
		tr: &clob.Trader{Client: cl, Network: e.sb.Network(), Signer: clob.NewKeySigner(key)}}
}

func (tr *trader) limit(t *testing.T, ctx context.Context, tok string, side clob.Side, price, size string) string {
	t.Helper()
	p, err := tr.tr.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: tok, Side: side,
		Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size)})
	require.NoError(t, err)
	return p.OrderID.Hex()
}

func opts(url string) ws.Options {
	return ws.Options{URL: url, PingInterval: 200 * time.Millisecond, PongTimeout: 2 * time.Second,
		MinBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}
}

// localBook applies market events to a book, as a consumer would.
type localBook struct {
	bids, asks map[string]decimal.Decimal
	books      int
	backfilled int
}

func (b *localBook) apply(tok string, ev ws.Event) {
	switch e := ev.(type) {
	case *ws.BookEvent:
		if e.AssetID != tok {
			return
		}
		b.books++
		if e.Backfill {
			b.backfilled++
		}
		b.bids, b.asks = map[string]decimal.Decimal{}, map[string]decimal.Decimal{}
		for _, l := range e.Bids {
			b.bids[l.Price.String()] = l.Size
		}
		for _, l := range e.Asks {
			b.asks[l.Price.String()] = l.Size
		}
	case *ws.PriceChangeEvent:
		for _, c := range e.Changes {
			if c.AssetID != tok || b.bids == nil {
				continue
			}
			side := b.bids
			if c.Side == ws.Sell {
				side = b.asks
			}
			if c.Size.IsZero() {
				delete(side, c.Price.String())
			} else {
				side[c.Price.String()] = c.Size
			}
		}
	}
}

func (b *localBook) equals(rest *clob.OrderBook) bool {
	if len(rest.Bids) != len(b.bids) || len(rest.Asks) != len(b.asks) {
		return false
	}
	for _, l := range rest.Bids {
		if s, ok := b.bids[l.Price.String()]; !ok || !s.Equal(l.Size) {
			return false
		}
	}
	for _, l := range rest.Asks {
		if s, ok := b.asks[l.Price.String()]; !ok || !s.Equal(l.Size) {
			return false
		}
	}
	return true
}

// collector drains a stream into a slice the test inspects.
type collector struct {
	ch  chan ws.Event
	all []ws.Event
}

func collect(src <-chan ws.Event) *collector {
	c := &collector{ch: make(chan ws.Event, 4096)}
	go func() {
		for ev := range src {
			c.ch <- ev
		}
		close(c.ch)
	}()
	return c
}

// until reads events until match reports done, failing after 10 s.
func (c *collector) until(t *testing.T, what string, match func(ws.Event) bool) ws.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-c.ch:
			require.True(t, ok, "stream ended while waiting for %s", what)
			c.all = append(c.all, ev)
			if match(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got %d events", what, len(c.all))
			return nil
		}
	}
}

func isOrder(id string, typ ws.OrderEventType) func(ws.Event) bool {
	return func(ev ws.Event) bool {
		o, ok := ev.(*ws.OrderEvent)
		return ok && o.ID == id && o.Type == typ
	}
}

func isTrade(status ws.TradeStatus) func(ws.Event) bool {
	return func(ev ws.Event) bool {
		tr, ok := ev.(*ws.TradeEvent)
		return ok && tr.Status == status
	}
}

func runStream(t *testing.T, run func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// TestStreamsAgainstSandbox follows one market and one maker's key through
// live trading, a forced disconnect during which orders are placed,
// matched and cancelled, and the reconnect whose backfill recovers every
// one of those changes; the consumer's book, built only from events, ends
// equal to the venue's.
func TestStreamsAgainstSandbox(t *testing.T) {
	e := startSandbox(t)
	ctx := e.ctx
	wsURL := e.sb.Network().StreamsURL
	pub := clob.NewClient(clob.ConfigFor(e.sb.Network()))
	maker, taker := e.newTrader(e.tok), e.newTrader(e.tok)

	// A finer tick leaves room inside the market makers' 2-tick spread.
	mkt := ws.NewMarketStream(ws.MarketConfig{Options: opts(wsURL), Assets: []string{e.tok}, Books: pub, CustomFeatures: true})
	runStream(t, mkt.Run)
	mc := collect(mkt.Events())
	book := &localBook{}
	first := mc.until(t, "the initial book", func(ev ws.Event) bool { _, ok := ev.(*ws.BookEvent); return ok }).(*ws.BookEvent)
	book.apply(e.tok, first)
	assert.False(t, first.Backfill)
	require.NotEmpty(t, first.Asks)
	e.control("/control/markets/"+e.m.ConditionID+"/tick", map[string]string{"tick": "0.001"})
	tick := mc.until(t, "tick_size_change", func(ev ws.Event) bool { _, ok := ev.(*ws.TickSizeChangeEvent); return ok }).(*ws.TickSizeChangeEvent)
	assert.Equal(t, "0.001", tick.NewTickSize.String())

	usr := ws.NewUserStream(ws.UserConfig{Options: opts(wsURL), REST: maker.client,
		Auth: ws.Auth{APIKey: maker.creds.Key, Secret: maker.creds.Secret, Passphrase: maker.creds.Passphrase}})
	runStream(t, usr.Run)
	uc := collect(usr.Events())
	require.Eventually(t, func() bool { return usr.Stats().Connects == 1 }, 10*time.Second, 10*time.Millisecond)

	bestAsk := first.Asks[0].Price
	px := func(ticksBelow int64) string { return bestAsk.Sub(decimal.New(ticksBelow, -3)).String() }
	a := maker.limit(t, ctx, e.tok, clob.Sell, px(4), "20") // SELL 20, the new best ask
	d := maker.limit(t, ctx, e.tok, clob.Sell, px(3), "10")
	placed := uc.until(t, "PLACEMENT of A", isOrder(a, ws.OrderPlacement)).(*ws.OrderEvent)
	assert.Equal(t, "20", placed.OriginalSize.String())
	assert.Equal(t, px(4), placed.Price.String())
	assert.False(t, placed.Backfill)
	uc.until(t, "PLACEMENT of D", isOrder(d, ws.OrderPlacement))

	// A live partial fill: MATCHED, MINED, the maker's UPDATE, CONFIRMED.
	taker.limit(t, ctx, e.tok, clob.Buy, px(4), "6")
	matched := uc.until(t, "trade MATCHED", isTrade(ws.TradeMatched)).(*ws.TradeEvent)
	assert.Equal(t, "MAKER", matched.TraderSide)
	require.Len(t, matched.MakerOrders, 1)
	assert.Equal(t, a, matched.MakerOrders[0].OrderID)
	assert.Equal(t, "6", matched.MakerOrders[0].MatchedAmount.String())
	assert.Empty(t, matched.TransactionHash)
	mined := uc.until(t, "trade MINED", isTrade(ws.TradeMined)).(*ws.TradeEvent)
	assert.Equal(t, matched.ID, mined.ID)
	assert.NotEmpty(t, mined.TransactionHash)
	upd := uc.until(t, "UPDATE of A", isOrder(a, ws.OrderUpdate)).(*ws.OrderEvent)
	assert.Equal(t, "6", upd.SizeMatched.String())
	assert.Equal(t, []string{matched.ID}, upd.AssociateTrades)
	uc.until(t, "trade CONFIRMED", isTrade(ws.TradeConfirmed))
	last := mc.until(t, "last_trade_price", func(ev ws.Event) bool { _, ok := ev.(*ws.LastTradePriceEvent); return ok }).(*ws.LastTradePriceEvent)
	assert.Equal(t, px(4), last.Price.String())
	assert.Equal(t, "6", last.Size.String())
	assert.Equal(t, ws.Buy, last.Side)

	// Forced disconnect: every socket is cut and refused for a while.
	e.control("/control/streams/drop", map[string]int{"refuse_ms": 1500})
	time.Sleep(100 * time.Millisecond) // both clients see the cut
	b := maker.limit(t, ctx, e.tok, clob.Sell, px(2), "7")
	_, err := maker.client.CancelOrder(ctx, d)
	require.NoError(t, err)
	taker.limit(t, ctx, e.tok, clob.Buy, px(4), "14") // fills the rest of A

	// After the reconnect the backfill recovers each change.
	got := map[string]*ws.OrderEvent{}
	var gapTrade *ws.TradeEvent
	uc.until(t, "the backfilled gap", func(ev ws.Event) bool {
		switch x := ev.(type) {
		case *ws.OrderEvent:
			got[x.ID+string(x.Type)] = x
		case *ws.TradeEvent:
			if x.ID != matched.ID {
				gapTrade = x
			}
		}
		return got[b+"PLACEMENT"] != nil && got[d+"CANCELLATION"] != nil && got[a+"UPDATE"] != nil && gapTrade != nil
	})
	for _, ev := range []ws.Event{got[b+"PLACEMENT"], got[d+"CANCELLATION"], got[a+"UPDATE"], gapTrade} {
		switch x := ev.(type) {
		case *ws.OrderEvent:
			assert.True(t, x.Backfill, "%s %s came from the backfill", x.Type, x.ID)
		case *ws.TradeEvent:
			assert.True(t, x.Backfill)
		}
	}
	assert.Equal(t, "20", got[a+"UPDATE"].SizeMatched.String())
	assert.Equal(t, "MATCHED", got[a+"UPDATE"].Status)
	assert.Contains(t, []ws.TradeStatus{ws.TradeMined, ws.TradeConfirmed}, gapTrade.Status)
	assert.Equal(t, "14", gapTrade.MakerOrders[0].MatchedAmount.String())
	require.Eventually(t, func() bool { return usr.Stats().Connects >= 2 }, 5*time.Second, 10*time.Millisecond,
		"counted once the backfill is through")

	// Live again: a cancel arrives from the socket, and nothing earlier is
	// delivered twice.
	_, err = maker.client.CancelOrder(ctx, b)
	require.NoError(t, err)
	live := uc.until(t, "live CANCELLATION of B", isOrder(b, ws.OrderCancellation)).(*ws.OrderEvent)
	assert.False(t, live.Backfill)
	seen := map[string]bool{}
	for _, ev := range uc.all {
		var k string
		switch x := ev.(type) {
		case *ws.OrderEvent:
			k = x.ID + string(x.Type) + x.SizeMatched.String()
		case *ws.TradeEvent:
			k = x.ID + string(x.Status)
		}
		assert.False(t, seen[k], "delivered twice: %s", k)
		seen[k] = true
	}

	// The market stream backfilled a book, and the book built from events
	// alone matches the venue's.
	for _, ev := range mc.all {
		book.apply(e.tok, ev)
	}
	mc.all = nil
	require.Eventually(t, func() bool {
		for {
			select {
			case ev := <-mc.ch:
				book.apply(e.tok, ev)
				continue
			default:
			}
			break
		}
		rest, err := pub.OrderBook(ctx, e.tok)
		return err == nil && book.equals(rest) && book.backfilled > 0
	}, 10*time.Second, 50*time.Millisecond, "the event-built book converges to REST /book")
}

// TestUserChannelRefusesBadAuth: the user channel authenticates with the
// raw L2 credentials.
func TestUserChannelRefusesBadAuth(t *testing.T) {
	e := startSandbox(t)
	tr := e.newTrader(e.tok)
	wsURL := e.sb.URL() + "/ws"
	var states []ws.State
	o := opts(wsURL)
	o.OnState = func(s ws.State) { states = append(states, s) }
	usr := ws.NewUserStream(ws.UserConfig{Options: o, Auth: ws.Auth{APIKey: tr.creds.Key, Secret: "wrong", Passphrase: tr.creds.Passphrase}})
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_ = usr.Run(ctx)
	require.NotEmpty(t, states)
	for _, s := range states {
		assert.False(t, s.Connected && usr.Stats().Frames > 0, "no data reaches a socket with a wrong secret")
	}
	assert.Zero(t, usr.Stats().Events)
}

// rawSocket reads frames of a socket as the venue sends them.
type rawSocket struct {
	t *testing.T
	c *websocket.Conn
}

func dialRaw(t *testing.T, url string) *rawSocket {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &rawSocket{t: t, c: c}
}

func (r *rawSocket) send(s string) {
	require.NoError(r.t, r.c.WriteMessage(websocket.TextMessage, []byte(s)))
}

// next returns the next frame that is not PONG, parsed.
func (r *rawSocket) next() (string, []ws.Event) {
	r.t.Helper()
	for {
		_ = r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, data, err := r.c.ReadMessage()
		require.NoError(r.t, err)
		if string(data) == "PONG" {
			continue
		}
		evs, err := ws.Parse(data)
		require.NoError(r.t, err)
		return string(data), evs
	}
}

// TestSandboxMarketChannelFrames checks the sandbox's market channel frame
// by frame with a bare socket: PING/PONG, the book dump as an array, the
// custom features, unsubscribe and initial_dump:false.
func TestSandboxMarketChannelFrames(t *testing.T) {
	e := startSandbox(t)
	ctx := e.ctx
	url := "ws" + strings.TrimPrefix(e.sb.URL(), "http") + "/ws/market"
	r := dialRaw(t, url)
	r.send("PING")
	_ = r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, pong, err := r.c.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, "PONG", string(pong))

	a, b := e.m.TokenIDs[0], e.m.TokenIDs[1]
	r.send(`{"assets_ids":["` + a + `"],"type":"market","custom_feature_enabled":true}`)
	raw, evs := r.next()
	assert.Equal(t, byte('['), raw[0], "the dump is one array frame")
	require.Len(t, evs, 1)
	bk := evs[0].(*ws.BookEvent)
	assert.Equal(t, a, bk.AssetID)
	assert.Regexp(t, `^[0-9a-f]{40}$`, bk.Hash)

	e.control("/control/markets/"+e.m.ConditionID+"/tick", map[string]string{"tick": "0.001"})
	_, evs = r.next()
	assert.IsType(t, &ws.TickSizeChangeEvent{}, evs[0])

	// A new best ask: price_change, then best_bid_ask for this custom socket.
	maker := e.newTrader(a)
	px := bk.Asks[0].Price.Sub(decimal.New(2, -3)).String()
	maker.limit(t, ctx, a, clob.Sell, px, "10")
	_, evs = r.next()
	pc := evs[0].(*ws.PriceChangeEvent)
	require.Len(t, pc.Changes, 1)
	assert.Equal(t, px, pc.Changes[0].Price.String())
	assert.Equal(t, "10", pc.Changes[0].Size.String())
	assert.Equal(t, px, pc.Changes[0].BestAsk.Decimal.String())
	_, evs = r.next()
	bba := evs[0].(*ws.BestBidAskEvent)
	assert.Equal(t, px, bba.BestAsk.String())
	assert.Equal(t, bba.BestAsk.Sub(bba.BestBid).String(), bba.Spread.String())

	// Unsubscribe a, subscribe b without a dump: an order on a is not
	// reported, the next one on b is, and no book precedes it.
	r.send(`{"operation":"unsubscribe","assets_ids":["` + a + `"]}`)
	r.send(`{"operation":"subscribe","assets_ids":["` + b + `"],"initial_dump":false,"custom_feature_enabled":true}`)
	time.Sleep(100 * time.Millisecond)
	maker.limit(t, ctx, a, clob.Sell, px, "5")
	mb := e.newTrader(b)
	bookB, err := clob.NewClient(clob.ConfigFor(e.sb.Network())).OrderBook(ctx, b)
	require.NoError(t, err)
	pxB := bookB.Asks[len(bookB.Asks)-1].Price.Sub(decimal.New(1, -3)).String()
	mb.limit(t, ctx, b, clob.Sell, pxB, "5")
	_, evs = r.next()
	pc = evs[0].(*ws.PriceChangeEvent)
	assert.Equal(t, b, pc.Changes[0].AssetID, "nothing for the unsubscribed token, no dump for b")

	// A new market reaches every custom-feature socket.
	e.control("/control/markets", map[string]any{"question": "Will the stream test pass?", "outcomes": []string{"Yes", "No"}})
	var nm *ws.NewMarketEvent
	for nm == nil {
		_, evs = r.next()
		nm, _ = evs[0].(*ws.NewMarketEvent)
	}
	assert.Equal(t, "Will the stream test pass?", nm.Question)
	assert.Len(t, nm.AssetIDs, 2)

	// Resolution of b's market: its orders leave the book, then market_resolved.
	e.control("/control/markets/"+e.m.ConditionID+"/resolve", map[string]string{"winner": e.m.Outcomes[1]})
	var res *ws.MarketResolvedEvent
	for res == nil {
		_, evs = r.next()
		res, _ = evs[0].(*ws.MarketResolvedEvent)
	}
	assert.Equal(t, b, res.WinningAssetID)
	assert.Equal(t, e.m.Outcomes[1], res.WinningOutcome)
}
