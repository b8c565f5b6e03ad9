package markets

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue"
)

// bookWatch is a market-channel subscriber of one market: it keeps each
// token's book from a snapshot taken under the engine's lock and the level
// changes and book frames after it, exactly what the sandbox's WebSocket
// hub sends, and notes every moment a side of a book had fewer levels than
// the makers quote.
type bookWatch struct {
	cond string
	want int // levels per side the makers quote

	mu     sync.Mutex
	books  map[string]*[2]map[uint64]uint64 // token → side → price → size
	frames int
	bad    []string
}

func (w *bookWatch) Active() bool { return true }

func (w *bookWatch) Publish(evs []exchange.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.books == nil {
		return // before the snapshot
	}
	for _, ev := range evs {
		switch e := ev.(type) {
		case exchange.LevelsChanged:
			if e.ConditionID != w.cond {
				continue
			}
			for _, c := range e.Changes {
				side := w.books[c.TokenID][c.Side]
				if c.SizeMicro == 0 {
					delete(side, c.PriceMicro)
				} else {
					side[c.PriceMicro] = c.SizeMicro
				}
			}
			w.check("price_change")
		case exchange.BookSnapshot:
			if _, ours := w.books[e.Book.TokenID]; ours {
				w.set(e.Book)
				w.check("book")
			}
		}
	}
}

func (w *bookWatch) set(b exchange.Book) {
	bk := &[2]map[uint64]uint64{{}, {}}
	for _, l := range b.Bids {
		bk[exchange.Buy][l.PriceMicro] = l.SizeMicro
	}
	for _, l := range b.Asks {
		bk[exchange.Sell][l.PriceMicro] = l.SizeMicro
	}
	w.books[b.TokenID] = bk
}

func (w *bookWatch) check(frame string) {
	w.frames++
	for tok, bk := range w.books {
		for side, levels := range bk {
			if len(levels) != w.want {
				w.bad = append(w.bad, fmt.Sprintf("after a %s frame token %s…%s had %d levels, not %d",
					frame, tok[:6], exchange.Side(side), len(levels), w.want))
			}
		}
	}
}

// TestRequoteIsAtomicForTakersAndSubscribers hammers a market with
// marketable orders while its makers re-quote it around a moving price:
// none may be killed for want of liquidity, and a subscriber of the market
// channel may never see a side of a book empty or half quoted.
func TestRequoteIsAtomicForTakersAndSubscribers(t *testing.T) {
	ctx := context.Background()
	v, ch, _ := newVenue(t, false)
	m := v.Markets()[0]
	_, err := v.SetPrice(ctx, m.TokenIDs[0], 500_000)
	require.NoError(t, err)

	w := &bookWatch{cond: m.ConditionID, want: len(quoteLevels)}
	v.Engine().SetEventSink(w)
	t.Cleanup(func() { v.Engine().SetEventSink(nil) })
	v.Engine().Books(m.TokenIDs[:], func(bs []exchange.Book) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.books = map[string]*[2]map[uint64]uint64{}
		for _, b := range bs {
			w.set(b)
		}
		w.check("book")
	})

	// Each taker hits one side of one token's book with one share at a
	// time; all of them together take less than a best level holds, so
	// only a re-quote could leave a taker nothing to trade with.
	const perTaker = 40
	takers := []struct {
		name  string
		token int
		side  exchange.Side
		typ   exchange.OrderType
	}{
		{"FAK buy of the first outcome", 0, exchange.Buy, exchange.FAK},
		{"FOK sell of the first outcome", 0, exchange.Sell, exchange.FOK},
		{"FOK buy of the second outcome", 1, exchange.Buy, exchange.FOK},
		{"FAK sell of the second outcome", 1, exchange.Sell, exchange.FAK},
	}
	keys := ch.OutsideWallets()
	for _, k := range keys {
		require.NoError(t, ch.SplitTo(ctx, k, common.HexToHash(m.ConditionID), m.NegRisk, 1_000*exchange.One))
	}

	done := make(chan struct{})
	requotes := make(chan int)
	go func() {
		n := 0
		defer func() { requotes <- n }()
		for prices := []uint64{520_000, 500_000}; ; n++ {
			select {
			case <-done:
				if n >= 10 {
					return
				}
			default:
			}
			if _, err := v.SetPrice(ctx, m.TokenIDs[0], prices[n%2]); err != nil {
				t.Errorf("re-quote: %v", err)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for i, tc := range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := keys[i%len(keys)]
			price := uint64(990_000) // crosses every ask
			if tc.side == exchange.Sell {
				price = 10_000 // crosses every bid
			}
			for range perTaker {
				o, err := v.SignedOrder(key, m, m.TokenIDs[tc.token], tc.side, price, exchange.One, tc.typ, OutsideOwner)
				if err != nil {
					t.Errorf("%s: %v", tc.name, err)
					return
				}
				res, err := v.Engine().Place(ctx, o)
				if err != nil {
					t.Errorf("%s killed: %s", tc.name, venue.MessageOf(err))
					continue
				}
				assert.Equal(t, "matched", res.Status, tc.name)
				assert.Equal(t, exchange.One, sharesOf(tc.side, res), tc.name)
			}
		}()
	}
	wg.Wait()
	close(done)
	n := <-requotes
	t.Logf("%d re-quotes while %d marketable orders traded", n, perTaker*len(takers))

	w.mu.Lock()
	defer w.mu.Unlock()
	// A frame per re-quote, and per trade its levels and its book.
	assert.GreaterOrEqual(t, w.frames, n+2*perTaker*len(takers), "the subscriber saw the re-quotes and the trades")
	if len(w.bad) > 0 {
		t.Errorf("a subscriber saw an empty or partial book %d times, first: %s", len(w.bad), w.bad[0])
	}
}

// sharesOf is how many shares an order that matched at once traded.
func sharesOf(side exchange.Side, r exchange.Result) uint64 {
	if side == exchange.Buy {
		return r.TakingMicro
	}
	return r.MakingMicro
}
