package ws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agent-trading/ats/venue/clob"
)

// fakeVenue is a scriptable market channel: it records what clients send,
// answers PING (unless silenced) and lets a test push frames or drop sockets.
type fakeVenue struct {
	t      *testing.T
	srv    *httptest.Server
	silent atomic.Bool // stop answering PING
	mu     sync.Mutex
	conns  []*websocket.Conn
	frames [][]string // per connection, the text frames received
	pings  atomic.Int64
	onSub  func(c *websocket.Conn, s Subscription)
}

func newFakeVenue(t *testing.T) *fakeVenue {
	f := &fakeVenue{t: t}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != MarketPath && r.URL.Path != UserPath {
			http.NotFound(w, r)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		f.mu.Lock()
		idx := len(f.conns)
		f.conns = append(f.conns, c)
		f.frames = append(f.frames, nil)
		f.mu.Unlock()
		var wmu sync.Mutex
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.frames[idx] = append(f.frames[idx], string(data))
			f.mu.Unlock()
			if string(data) == pingFrame {
				f.pings.Add(1)
				if !f.silent.Load() {
					wmu.Lock()
					_ = c.WriteMessage(websocket.TextMessage, []byte(pongFrame))
					wmu.Unlock()
				}
				continue
			}
			var s Subscription
			if json.Unmarshal(data, &s) == nil && f.onSub != nil {
				wmu.Lock()
				f.onSub(c, s)
				wmu.Unlock()
			}
		}
	}))
	t.Cleanup(f.close)
	return f
}

// close stops the fake (also in Cleanup; deferred by tests that check for
// leaked goroutines, which runs it first).
func (f *fakeVenue) close() {
	f.dropAll()
	f.srv.Close()
}

func (f *fakeVenue) url() string { return f.srv.URL } // http://; the client turns it into ws://

func (f *fakeVenue) connCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

func (f *fakeVenue) received(i int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.frames) {
		return nil
	}
	return append([]string(nil), f.frames[i]...)
}

func (f *fakeVenue) dropAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		_ = c.UnderlyingConn().Close()
	}
}

func fastOptions(url string) Options {
	return Options{URL: url, PingInterval: 20 * time.Millisecond, PongTimeout: 300 * time.Millisecond,
		MinBackoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
}

// fakeBooks serves the REST backfill.
type fakeBooks struct {
	calls atomic.Int64
}

func (b *fakeBooks) OrderBooks(_ context.Context, ps []clob.BookParams) ([]clob.OrderBook, error) {
	b.calls.Add(1)
	out := make([]clob.OrderBook, len(ps))
	for i, p := range ps {
		out[i] = clob.OrderBook{AssetID: p.TokenID, Market: "0xm", Timestamp: "1757908892351", TickSize: "0.01",
			Bids: []clob.PriceLevel{{Price: dd("0.4"), Size: dd("1")}, {Price: dd("0.45"), Size: dd("2")}}}
	}
	return out, nil
}

func (b *fakeBooks) OrderBook(ctx context.Context, id string) (*clob.OrderBook, error) {
	bs, _ := b.OrderBooks(ctx, []clob.BookParams{{TokenID: id}})
	return &bs[0], nil
}

func run(t *testing.T, runFn func(context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runFn(ctx) }()
	return func() {
		cancel()
		select {
		case err := <-done:
			assert.True(t, errors.Is(err, context.Canceled) || errors.Is(err, ErrClosed), "Run returned %v", err)
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return")
		}
	}
}

func next[T Event](t *testing.T, ch <-chan Event) T {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "events closed")
			if v, ok := ev.(T); ok {
				return v
			}
		case <-deadline:
			var zero T
			t.Fatalf("no %T arrived", zero)
			return zero
		}
	}
}

func TestKeepaliveResubscribeAndBackfill(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFakeVenue(t)
	defer f.close()
	f.onSub = func(c *websocket.Conn, s Subscription) {
		if s.Operation == OpUnsubscribe {
			return
		}
		for _, a := range s.AssetsIDs {
			_ = c.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(
				`[{"event_type":"book","asset_id":%q,"market":"0xm","bids":[],"asks":[{"price":"0.6","size":"1"}],"timestamp":"1"}]`, a)))
		}
	}
	books := &fakeBooks{}
	var states []State
	var smu sync.Mutex
	opt := fastOptions(f.url())
	opt.OnState = func(s State) {
		smu.Lock()
		states = append(states, s)
		smu.Unlock()
	}
	m := NewMarketStream(MarketConfig{Options: opt, Assets: []string{"a1"}, Books: books})
	stop := run(t, m.Run)
	b := next[*BookEvent](t, m.Events())
	assert.Equal(t, "a1", b.AssetID)
	assert.False(t, b.Backfill, "the first connection has no gap to backfill")
	eqDec(t, "0.6", b.Asks[0].Price, "ask")

	m.Subscribe("a2", "a1") // a1 is already subscribed: only a2 goes out
	assert.Equal(t, "a2", next[*BookEvent](t, m.Events()).AssetID)
	require.Eventually(t, func() bool { return f.pings.Load() >= 2 }, 2*time.Second, 5*time.Millisecond, "PING every interval")
	got := f.received(0)
	assert.JSONEq(t, `{"type":"market","assets_ids":["a1"],"initial_dump":true}`, got[0])
	assert.JSONEq(t, `{"operation":"subscribe","assets_ids":["a2"]}`, got[1])
	m.Unsubscribe("a1")
	require.Eventually(t, func() bool {
		for _, fr := range f.received(0) {
			if strings.Contains(fr, `"unsubscribe"`) {
				return true
			}
		}
		return false
	}, 2*time.Second, 5*time.Millisecond)

	// Cut the socket: the client reconnects, replays its whole set and
	// backfills each asset's book over REST before reading.
	f.dropAll()
	bf := next[*BookEvent](t, m.Events())
	assert.True(t, bf.Backfill)
	assert.Equal(t, "a2", bf.AssetID)
	eqDec(t, "0.45", bf.Bids[0].Price, "REST levels are sorted best first")
	require.Eventually(t, func() bool { return f.connCount() >= 2 && len(f.received(1)) > 0 }, 2*time.Second, 5*time.Millisecond)
	assert.JSONEq(t, `{"type":"market","assets_ids":["a2"],"initial_dump":true}`, f.received(1)[0])
	assert.Equal(t, int64(1), books.calls.Load())

	// A venue that stops answering PING is taken for dead.
	f.silent.Store(true)
	require.Eventually(t, func() bool { return f.connCount() >= 3 }, 3*time.Second, 10*time.Millisecond, "reconnect after the pong timeout")
	f.silent.Store(false)
	require.Eventually(t, func() bool { return m.Stats().Connects >= 3 }, 3*time.Second, 10*time.Millisecond)

	require.NoError(t, m.Close())
	stop()
	_, open := <-m.Events()
	for open { // drain what was buffered; the channel is closed
		_, open = <-m.Events()
	}
	smu.Lock()
	defer smu.Unlock()
	var ups, downs int
	for _, s := range states {
		if s.Connected {
			ups++
		} else {
			downs++
		}
	}
	assert.GreaterOrEqual(t, ups, 3)
	assert.GreaterOrEqual(t, downs, 2)
}

// TestOverflowResynchronises: a consumer that does not keep up loses no
// state: the stream drops, reconnects and backfills.
func TestOverflowResynchronises(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFakeVenue(t)
	defer f.close()
	f.onSub = func(c *websocket.Conn, s Subscription) {
		if s.Type != "market" {
			return
		}
		for i := range 50 {
			_ = c.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(
				`{"event_type":"last_trade_price","asset_id":"a1","market":"0xm","price":"0.5","size":"%d","side":"BUY","timestamp":"1"}`, i+1)))
		}
	}
	books := &fakeBooks{}
	opt := fastOptions(f.url())
	opt.Buffer = 4
	m := NewMarketStream(MarketConfig{Options: opt, Assets: []string{"a1"}, Books: books})
	stop := run(t, m.Run)
	defer stop()
	require.Eventually(t, func() bool { return m.Stats().Dropped > 0 }, 3*time.Second, 5*time.Millisecond)
	// The consumer wakes up: a backfilled book restores the state.
	bf := next[*BookEvent](t, m.Events())
	assert.True(t, bf.Backfill)
	assert.GreaterOrEqual(t, books.calls.Load(), int64(1))
	assert.GreaterOrEqual(t, f.connCount(), 2)
}

func TestCloseBeforeAndAfterRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	m := NewMarketStream(MarketConfig{Options: Options{URL: "ws://127.0.0.1:1"}})
	require.NoError(t, m.Close())
	assert.ErrorIs(t, m.Run(context.Background()), ErrClosed)

	// Unreachable venue: Run retries with backoff until closed.
	m = NewMarketStream(MarketConfig{Options: Options{URL: "ws://127.0.0.1:1", MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond}})
	errc := make(chan error, 1)
	go func() { errc <- m.Run(context.Background()) }()
	time.Sleep(30 * time.Millisecond)
	require.NoError(t, m.Close())
	assert.ErrorIs(t, <-errc, ErrClosed)
}

func TestBackoffBounds(t *testing.T) {
	s := newStream(Options{MinBackoff: 100 * time.Millisecond, MaxBackoff: 800 * time.Millisecond}, &marketChannel{})
	want := []time.Duration{100, 200, 400, 800, 800, 800, 800, 800, 800} // before attempts 1…9
	for range 20 {
		b := s.newBackoff()
		for i, w := range want {
			d := b.NextBackOff()
			assert.GreaterOrEqual(t, d, w*time.Millisecond/2, "attempt %d", i+1)
			assert.LessOrEqual(t, d, w*time.Millisecond, "attempt %d", i+1)
		}
		b.Reset()
		d := b.NextBackOff()
		assert.True(t, d >= 50*time.Millisecond && d <= 100*time.Millisecond, "after a reset the first wait again: %v", d)
	}
}

func TestChannelURL(t *testing.T) {
	for in, want := range map[string]string{
		"wss://ws-subscriptions-clob.polymarket.com":  "wss://ws-subscriptions-clob.polymarket.com/ws/market",
		"wss://ws-subscriptions-clob.polymarket.com/": "wss://ws-subscriptions-clob.polymarket.com/ws/market",
		"http://127.0.0.1:8090/ws":                    "ws://127.0.0.1:8090/ws/market",
		"https://example.test/ws/market":              "wss://example.test/ws/market",
		"ws://127.0.0.1:8090/ws/":                     "ws://127.0.0.1:8090/ws/market",
	} {
		assert.Equal(t, want, channelURL(in, MarketPath), in)
	}
}

// TestIdleMarketStreamHasNoSocket: with nothing subscribed the stream does
// not connect; the first Subscribe brings it up.
func TestIdleMarketStreamHasNoSocket(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFakeVenue(t)
	defer f.close()
	m := NewMarketStream(MarketConfig{Options: fastOptions(f.url())})
	stop := run(t, m.Run)
	defer stop()
	time.Sleep(100 * time.Millisecond)
	assert.Zero(t, f.connCount(), "no socket while idle")
	m.Subscribe("a1")
	require.Eventually(t, func() bool { return len(f.received(0)) > 0 }, 2*time.Second, 5*time.Millisecond)
	assert.JSONEq(t, `{"type":"market","assets_ids":["a1"],"initial_dump":true}`, f.received(0)[0])
}
