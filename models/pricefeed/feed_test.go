package pricefeed

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/ws"
)

// fakeSource records the venue subscriptions the feed asks for.
type fakeSource struct {
	mu     sync.Mutex
	subs   map[string]int // token → Subscribe calls
	unsubs map[string]int
	ch     chan ws.Event
}

func newFakeSource() *fakeSource {
	return &fakeSource{subs: map[string]int{}, unsubs: map[string]int{}, ch: make(chan ws.Event, 1024)}
}

func (s *fakeSource) Subscribe(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.subs[id]++
	}
}

func (s *fakeSource) Unsubscribe(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.unsubs[id]++
	}
}

func (s *fakeSource) Events() <-chan ws.Event { return s.ch }

func (s *fakeSource) counts(id string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[id], s.unsubs[id]
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func lv(p, s string) ws.Level { return ws.Level{Price: d(p), Size: d(s)} }

func book(tok string, bids, asks []ws.Level) *ws.BookEvent {
	return &ws.BookEvent{AssetID: tok, Market: "0xm", Bids: bids, Asks: asks, Timestamp: time.Now(), TickSize: d("0.01")}
}

func change(tok string, side ws.Side, price, size string) *ws.PriceChangeEvent {
	return &ws.PriceChangeEvent{Market: "0xm", Changes: []ws.PriceChange{{AssetID: tok, Side: side, Price: d(price), Size: d(size)}}}
}

func TestOneSubscriptionPerTokenAndGrace(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	src := newFakeSource()
	f := New(Config{Source: src, Grace: 30 * time.Millisecond})
	var subs []*Subscription
	for range 50 {
		subs = append(subs, f.Subscribe("t1"))
	}
	subs = append(subs, f.Subscribe("t2"))
	n, _ := src.counts("t1")
	assert.Equal(t, 1, n, "one venue subscription however many consumers")
	assert.Equal(t, []string{"t1", "t2"}, f.Tokens())

	for _, s := range subs[:49] {
		s.Close()
		s.Close() // idempotent
	}
	time.Sleep(60 * time.Millisecond)
	_, un := src.counts("t1")
	assert.Zero(t, un, "a consumer still holds t1")
	subs[49].Close()
	// A consumer that comes back within the grace period keeps the
	// subscription: no churn on the venue.
	back := f.Subscribe("t1")
	time.Sleep(60 * time.Millisecond)
	n, un = src.counts("t1")
	assert.Equal(t, 1, n)
	assert.Zero(t, un)
	back.Close()
	require.Eventually(t, func() bool { _, un := src.counts("t1"); return un == 1 }, time.Second, 5*time.Millisecond,
		"the last consumer's departure unsubscribes after the grace period")
	assert.False(t, f.Subscribed("t1"))
	assert.True(t, f.Subscribed("t2"))
	_, ok := f.Quote("t1")
	assert.False(t, ok, "the book is forgotten with the subscription")
	subs[50].Close()
	require.Eventually(t, func() bool { return !f.Subscribed("t2") }, time.Second, 5*time.Millisecond)
}

func TestQuoteFromEvents(t *testing.T) {
	f := New(Config{})
	s := f.Subscribe("t")
	defer s.Close()
	_, ok := f.Quote("t")
	assert.False(t, ok, "no book yet")
	f.Apply(change("t", ws.Buy, "0.4", "10"))
	_, ok = f.Quote("t")
	assert.False(t, ok, "a delta before any snapshot is ignored")

	f.Apply(book("t", []ws.Level{lv("0.40", "10"), lv("0.45", "5")}, []ws.Level{lv("0.55", "3"), lv("0.60", "1")}))
	q, ok := f.Quote("t")
	require.True(t, ok)
	assert.Equal(t, "0.45", q.BestBid.Decimal.String())
	assert.Equal(t, "0.55", q.BestAsk.Decimal.String())
	assert.Equal(t, "0.5", q.Mid.Decimal.String())
	assert.False(t, q.Last.Valid)
	assert.True(t, q.Live)

	f.Apply(change("t", ws.Sell, "0.55", "0")) // best ask taken
	f.Apply(change("t", ws.Buy, "0.47", "2"))
	f.Apply(&ws.LastTradePriceEvent{AssetID: "t", Price: d("0.55"), Size: d("3"), Side: ws.Buy})
	q, _ = f.Quote("t")
	assert.Equal(t, "0.47", q.BestBid.Decimal.String())
	assert.Equal(t, "0.6", q.BestAsk.Decimal.String())
	assert.Equal(t, "0.535", q.Mid.Decimal.String())
	assert.Equal(t, "0.55", q.Last.Decimal.String())
	got := <-s.Updates()
	assert.Equal(t, q, got, "the consumer holds the latest quote, conflated")

	b, ok := f.Book("t")
	require.True(t, ok)
	assert.Equal(t, []ws.Level{lv("0.47", "2"), lv("0.45", "5"), lv("0.40", "10")}, b.Bids)
	assert.Equal(t, []ws.Level{lv("0.60", "1")}, b.Asks)

	f.Apply(&ws.TickSizeChangeEvent{AssetID: "t", NewTickSize: d("0.001")})
	q, _ = f.Quote("t")
	assert.Equal(t, "0.001", q.TickSize.String())
	f.Apply(change("t", ws.Sell, "0.6", "0"))
	q, _ = f.Quote("t")
	assert.False(t, q.BestAsk.Valid, "an empty side has no best price")
	assert.False(t, q.Mid.Valid)
}

func TestConditionsFireOncePerSatisfyingEvent(t *testing.T) {
	src := newFakeSource()
	f := New(Config{Source: src})
	var mu sync.Mutex
	hits := map[string]int{}
	reg := func(name string, c Condition) *Trigger {
		tr, err := f.When(c, func(fr Fire) {
			mu.Lock()
			hits[name]++
			mu.Unlock()
			assert.True(t, fr.Quote.Ready)
		})
		require.NoError(t, err)
		return tr
	}
	count := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[name]
	}
	reg("ask<=0.50", Condition{TokenID: "t", Field: BestAsk, Op: AtOrBelow, Threshold: d("0.50")})
	reg("ask<0.50", Condition{TokenID: "t", Field: BestAsk, Op: Below, Threshold: d("0.50")})
	reg("bid>=0.45", Condition{TokenID: "t", Field: BestBid, Op: AtOrAbove, Threshold: d("0.45")})
	reg("mid>0.5", Condition{TokenID: "t", Field: Mid, Op: Above, Threshold: d("0.5")})
	reg("last>=0.6 once", Condition{TokenID: "t", Field: Last, Op: AtOrAbove, Threshold: d("0.6"), Once: true})
	stopped := reg("ask<=0.9 stopped", Condition{TokenID: "t", Field: BestAsk, Op: AtOrBelow, Threshold: d("0.9")})
	n, _ := src.counts("t")
	assert.Equal(t, 1, n, "conditions share the token's one subscription")

	f.Apply(book("t", []ws.Level{lv("0.44", "1")}, []ws.Level{lv("0.52", "1")}))
	assert.Equal(t, 1, count("ask<=0.9 stopped"), "met on the first book")
	stopped.Stop()
	stopped.Stop()
	assert.Zero(t, count("ask<=0.50"))

	f.Apply(change("t", ws.Sell, "0.50", "4")) // ask 0.50
	assert.Equal(t, 1, count("ask<=0.50"))
	assert.Zero(t, count("ask<0.50"), "strict comparison at equality")
	f.Apply(change("t", ws.Sell, "0.50", "9")) // same ask, bigger size: the price did not move
	assert.Equal(t, 1, count("ask<=0.50"), "no new event for the watched price, no new fire")
	f.Apply(change("t", ws.Sell, "0.49", "1")) // ask 0.49
	assert.Equal(t, 2, count("ask<=0.50"))
	assert.Equal(t, 1, count("ask<0.50"))
	f.Apply(change("t", ws.Buy, "0.45", "1")) // bid 0.45, mid 0.47
	assert.Equal(t, 1, count("bid>=0.45"))
	assert.Zero(t, count("mid>0.5"))
	assert.Equal(t, 1, count("ask<=0.9 stopped"), "a stopped condition never fires again")

	for range 3 {
		f.Apply(&ws.LastTradePriceEvent{AssetID: "t", Price: d("0.61")})
	}
	assert.Equal(t, 1, count("last>=0.6 once"), "a Once condition fires one time")
	f.Apply(&ws.LastTradePriceEvent{AssetID: "t", Price: d("0.3")})

	_, err := f.When(Condition{TokenID: "", Field: Mid}, func(Fire) {})
	assert.Error(t, err)
	_, err = f.When(Condition{TokenID: "t", Field: Field(9)}, func(Fire) {})
	assert.Error(t, err)
}

// TestResolvedMarketFiresItsConditions: a resolved market trades no more,
// so no price will meet a condition on its tokens again; the venue's
// market_resolved fires every condition on them once (Resolved), and
// none of another market's.
func TestResolvedMarketFiresItsConditions(t *testing.T) {
	f := New(Config{Source: newFakeSource()})
	var mu sync.Mutex
	var got []Fire
	for _, c := range []Condition{
		{TokenID: "up", Field: BestAsk, Op: AtOrBelow, Threshold: d("0.30"), Once: true},
		{TokenID: "up", Field: BestBid, Op: AtOrAbove, Threshold: d("0.70"), Once: true},
		{TokenID: "down", Field: BestAsk, Op: AtOrBelow, Threshold: d("0.20"), Once: true},
		{TokenID: "other", Field: BestAsk, Op: AtOrBelow, Threshold: d("0.20"), Once: true},
	} {
		_, err := f.When(c, func(fr Fire) {
			mu.Lock()
			got = append(got, fr)
			mu.Unlock()
		})
		require.NoError(t, err)
	}
	f.Apply(book("up", []ws.Level{lv("0.50", "1")}, []ws.Level{lv("0.52", "1")}))
	require.Empty(t, got)
	ev := &ws.MarketResolvedEvent{Market: "0xm", AssetIDs: []string{"up", "down"}, WinningAssetID: "up"}
	f.Apply(ev)
	f.Apply(ev) // Once conditions fired already
	require.Len(t, got, 3)
	for _, fr := range got {
		assert.True(t, fr.Resolved)
		assert.NotEqual(t, "other", fr.Condition.TokenID)
	}
}

// TestFanOutUnderRace: many consumers and conditions on a few tokens while
// events stream in and consumers come and go; run with -race.
func TestFanOutUnderRace(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	src := newFakeSource()
	f := New(Config{Source: src, Grace: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	tokens := []string{"a", "b", "c"}
	var fires atomic.Int64
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := tokens[i%len(tokens)]
			s := f.Subscribe(tok)
			tr, err := f.When(Condition{TokenID: tok, Field: Mid, Op: AtOrAbove, Threshold: d("0.5")}, func(Fire) { fires.Add(1) })
			require.NoError(t, err)
			deadline := time.After(200 * time.Millisecond)
			for {
				select {
				case q := <-s.Updates():
					_ = q.Mid
					_, _ = f.Book(tok)
				case <-deadline:
					tr.Stop()
					s.Close()
					return
				}
			}
		}()
	}
	for _, tok := range tokens {
		src.ch <- book(tok, []ws.Level{lv("0.49", "1")}, []ws.Level{lv("0.51", "1")})
	}
	for i := range 2000 {
		tok := tokens[i%len(tokens)]
		p := fmt.Sprintf("0.%02d", 40+i%20)
		src.ch <- change(tok, ws.Buy, p, "1")
		if i%7 == 0 {
			src.ch <- &ws.LastTradePriceEvent{AssetID: tok, Price: d(p)}
		}
	}
	wg.Wait()
	cancel()
	<-done
	assert.Positive(t, fires.Load())
	require.Eventually(t, func() bool { return len(f.Tokens()) == 0 }, time.Second, 5*time.Millisecond,
		"every token unsubscribed once its consumers left")
	for _, tok := range tokens {
		_, un := src.counts(tok)
		assert.GreaterOrEqual(t, un, 1)
	}
}

// fakePoller serves the REST fallback.
type fakePoller struct{ calls atomic.Int64 }

func (p *fakePoller) OrderBooks(_ context.Context, ps []clob.BookParams) ([]clob.OrderBook, error) {
	p.calls.Add(1)
	out := make([]clob.OrderBook, len(ps))
	for i, bp := range ps {
		out[i] = clob.OrderBook{AssetID: bp.TokenID, Timestamp: "1757908892351",
			Bids: []clob.PriceLevel{{Price: d("0.3"), Size: d("1")}}, Asks: []clob.PriceLevel{{Price: d("0.7"), Size: d("1")}}}
	}
	return out, nil
}

func TestPollingFallback(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := &fakePoller{}
	var now atomic.Int64
	now.Store(time.Unix(1_800_000_000, 0).UnixNano())
	f := New(Config{Poller: p, PollInterval: time.Second, Now: func() time.Time { return time.Unix(0, now.Load()) }})
	assert.Equal(t, MinPollInterval, f.cfg.PollInterval, "never faster than every 10 s")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	s := f.Subscribe("t")
	defer s.Close()
	q := <-s.Updates()
	assert.Equal(t, "0.5", q.Mid.Decimal.String())
	assert.False(t, q.Live, "polled, not streamed")
	assert.Equal(t, int64(1), p.calls.Load())
	cancel()
	<-done
}
