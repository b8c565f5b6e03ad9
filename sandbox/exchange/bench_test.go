package exchange

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/sandbox/persist"
)

// BenchmarkMatchSettleInMemory measures matched-and-settled orders per
// second against the in-memory ledger: each iteration rests a maker ask and
// sends a taker bid that fills it completely (one match, one settlement).
func BenchmarkMatchSettleInMemory(b *testing.B) { benchMatchSettle(b, nil) }

// BenchmarkMatchSettleObserved is the same with a listening event sink (a
// WebSocket subscriber in the sandbox): the cost of building the events.
func BenchmarkMatchSettleObserved(b *testing.B) { benchMatchSettle(b, &countSink{}) }

// countSink is a listening sink that only counts.
type countSink struct{ n int }

func (c *countSink) Active() bool        { return true }
func (c *countSink) Publish(evs []Event) { c.n += len(evs) }

func benchMatchSettle(b *testing.B, sink EventSink) {
	l := NewMemLedger()
	e := New(Config{Ledger: l, Settler: l})
	if sink != nil {
		e.SetEventSink(sink)
	}
	if err := e.AddMarket(Market{ConditionID: "0xb", Tokens: [2]string{"1", "2"}, Outcomes: [2]string{"Yes", "No"}, TickMicro: 10_000, MinSizeMicro: 5 * One}); err != nil {
		b.Fatal(err)
	}
	maker, taker := common.HexToAddress("0x1"), common.HexToAddress("0x2")
	l.Credit(maker, "1", 1<<60)
	l.Credit(taker, "", 1<<60)
	l.Approve(maker, 1<<62, true)
	l.Approve(taker, 1<<62, true)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		ask := Order{ID: fmt.Sprintf("a%d", i), Owner: "m", Maker: maker, TokenID: "1", Side: Sell, MakerAmount: 10 * One, TakerAmount: 5 * One, Type: GTC}
		bid := Order{ID: fmt.Sprintf("b%d", i), Owner: "t", Maker: taker, TokenID: "1", Side: Buy, MakerAmount: 5 * One, TakerAmount: 10 * One, Type: FOK}
		if _, err := e.Place(ctx, ask); err != nil {
			b.Fatal(err)
		}
		if r, err := e.Place(ctx, bid); err != nil || r.Status != "matched" {
			b.Fatal(err, r.Status)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "matches/s")
}

// BenchmarkBookDepthInsert measures resting-order admission into a deep
// book (1 000 price-time levels already present).
func BenchmarkBookDepthInsert(b *testing.B) {
	e := New(Config{Clock: func() time.Time { return time.Unix(0, 0) }})
	if err := e.AddMarket(Market{ConditionID: "0xb", Tokens: [2]string{"1", "2"}, Outcomes: [2]string{"Yes", "No"}, TickMicro: 100, MinSizeMicro: One}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range 1000 {
		p := uint64(100 + 100*(i%4000))
		if _, err := e.Place(ctx, Order{ID: fmt.Sprintf("s%d", i), Owner: "m", TokenID: "1", Side: Buy, MakerAmount: p * 10, TakerAmount: 10 * One, Type: GTC}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		p := uint64(100 + 100*(i%4000))
		if _, err := e.Place(ctx, Order{ID: fmt.Sprintf("x%d", i), Owner: "m", TokenID: "1", Side: Buy, MakerAmount: p * 10, TakerAmount: 10 * One, Type: GTC}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "orders/s")
}

// BenchmarkMatchSettleJournaled is BenchmarkMatchSettleInMemory with the
// engine's journal on disk (sandbox/persist, synced per batch): every
// placement answers once durable, a match is recorded before it settles.
// Eight clients at once share the disk syncs (group commit), as the
// sandbox's HTTP clients do.
//
//	go test -run '^$' -bench MatchSettleJournaled -benchtime 2s ./sandbox/exchange/
func BenchmarkMatchSettleJournaled(b *testing.B) {
	st, err := persist.Open(b.TempDir(), persist.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	l := NewMemLedger()
	e := New(Config{Ledger: l, Settler: l, Journal: st})
	if err := e.AddMarket(Market{ConditionID: "0xb", Tokens: [2]string{"1", "2"}, Outcomes: [2]string{"Yes", "No"}, TickMicro: 10_000, MinSizeMicro: 5 * One}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var n atomic.Int64
	const clients = 8
	var makers, takers [clients]common.Address
	for i := range clients {
		makers[i], takers[i] = common.BigToAddress(big.NewInt(int64(100+i))), common.BigToAddress(big.NewInt(int64(200+i)))
		l.Credit(makers[i], "1", 1<<60)
		l.Credit(takers[i], "", 1<<60)
		l.Approve(makers[i], 1<<62, true)
		l.Approve(takers[i], 1<<62, true)
	}
	b.ReportAllocs()
	b.SetParallelism(clients / max(1, runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := int(n.Add(1)-1) % clients
		for i := 0; pb.Next(); i++ {
			id := fmt.Sprintf("%d-%d", c, i)
			ask := Order{ID: "a" + id, Owner: "m", Maker: makers[c], TokenID: "1", Side: Sell, MakerAmount: 10 * One, TakerAmount: 5 * One, Type: GTC}
			// GTC: a bid that finds the asks taken by another client rests
			// and the next ask fills it.
			bid := Order{ID: "b" + id, Owner: "t", Maker: takers[c], TokenID: "1", Side: Buy, MakerAmount: 5 * One, TakerAmount: 10 * One, Type: GTC}
			if _, err := e.Place(ctx, ask); err != nil {
				b.Error(err)
				return
			}
			if _, err := e.Place(ctx, bid); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(len(e.Trades(TradeFilter{})))/b.Elapsed().Seconds(), "matches/s")
}
