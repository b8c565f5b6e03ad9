package chain

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	sbchain "github.com/agent-trading/ats/sandbox/chain"
)

// settleBuy has an outside wallet buy YES shares at 0.60 from the market
// maker and returns the settlement's transaction hash.
func (s *sandbox) settleBuy(t *testing.T, m sbchain.Market, buyer common.Address, shares int64, salt byte) common.Hash {
	t.Helper()
	mm := crypto.PubkeyToAddress(s.ch.MarketMaker().PublicKey)
	cost := big.NewInt(shares * 6 / 10)
	h, err := s.ch.Settle(ctxT(t), m.NegRisk, sbchain.Match{
		Taker: sbchain.Fill{OrderHash: common.Hash{salt, 1}, Maker: buyer, Side: sbchain.Buy,
			TokenID: m.TokenIDs[0], MakerAmount: cost, TakerAmount: big.NewInt(shares)},
		Makers: []sbchain.Fill{{OrderHash: common.Hash{salt, 2}, Maker: mm, Side: sbchain.Sell,
			TokenID: m.TokenIDs[0], MakerAmount: big.NewInt(shares), TakerAmount: cost}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// soldMarkets prepares a market on each exchange (standard, then neg
// risk; condition ids tagged with tag) whose shares the market maker holds,
// for settleBuy to sell.
func (s *sandbox) soldMarkets(t *testing.T, tag byte) []sbchain.Market {
	t.Helper()
	ctx := ctxT(t)
	var markets []sbchain.Market
	for i, negRisk := range []bool{false, true} {
		m, err := s.ch.PrepareMarket(ctx, common.Hash{byte(i), tag}, negRisk)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ch.SplitTo(ctx, s.ch.MarketMaker(), m.ConditionID, big.NewInt(1_000_000_000)); err != nil {
			t.Fatal(err)
		}
		markets = append(markets, m)
	}
	return markets
}

// TestWatcherOnSandbox watches an outside wallet on the real sandbox chain
// over its WebSocket endpoint: a fill is delivered before the next block,
// and fills made while the endpoint is down are delivered exactly once
// after the watcher reconnects.
func TestWatcherOnSandbox(t *testing.T) {
	s := newSandbox(t, 0) // manual blocks: each Settle seals exactly one
	ctx := ctxT(t)
	target := crypto.PubkeyToAddress(s.ch.OutsideWallets()[0].PublicKey)
	markets := s.soldMarkets(t, 0xee)

	start, err := s.ch.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var dials atomic.Int32
	dial := DialURL(s.net.WSURL)
	col := newCollector()
	_, stop := runWatcher(t, WatcherConfig{
		Dial: func(ctx context.Context) (WatchBackend, func(), error) {
			dials.Add(1)
			return dial(ctx)
		},
		Exchanges:    []common.Address{s.net.Exchange, s.net.NegRiskExchange},
		Makers:       []common.Address{target},
		Store:        &MemoryWatermarks{},
		Key:          "sandbox",
		StartBlock:   start + 1,
		PollInterval: time.Hour, // live delivery must come from the subscription
		MinBackoff:   20 * time.Millisecond,
		MaxBackoff:   100 * time.Millisecond,
		Deliver:      col.deliver,
	})
	waitUntil(t, func() bool { return dials.Load() > 0 })
	time.Sleep(200 * time.Millisecond) // subscription established

	var want []common.Hash
	want = append(want, s.settleBuy(t, markets[0], target, 10_000_000, 1))
	head, _ := s.ch.Client().BlockNumber(ctx)
	got := col.waitFor(t, 1) // no further block is sealed while we wait
	if now, _ := s.ch.Client().BlockNumber(ctx); now != head {
		t.Fatalf("chain moved from %d to %d", head, now)
	}
	f := got[0]
	if f.Block != head || f.Maker != target || f.Side != Buy || !f.Price.Equal(mustDec("0.6")) || !f.Shares.Equal(mustDec("10")) ||
		f.TokenID.Cmp(markets[0].TokenIDs[0]) != 0 || f.Exchange != s.net.Exchange {
		t.Fatalf("fill %+v", f)
	}

	// Take the endpoint down mid-stream; trade on both exchanges meanwhile.
	s.cut()
	for i := range 3 {
		want = append(want, s.settleBuy(t, markets[i%2], target, 2_000_000, byte(10+i)))
	}
	time.Sleep(100 * time.Millisecond) // refused reconnects
	s.down.Store(false)
	col.waitFor(t, len(want))
	if dials.Load() < 2 {
		t.Fatalf("watcher dialled %d times; the cut did not force a reconnect", dials.Load())
	}

	want = append(want, s.settleBuy(t, markets[1], target, 1_000_000, 20))
	col.waitFor(t, len(want))
	stop()
	fills := col.snapshot()
	if len(fills) != len(want) {
		t.Fatalf("delivered %d fills, want %d", len(fills), len(want))
	}
	seen := map[FillKey]bool{}
	for i, f := range fills {
		if seen[f.Key()] || f.TxHash != want[i] || f.Maker != target {
			t.Fatalf("fill %d: %+v (duplicate or out of order)", i, f)
		}
		seen[f.Key()] = true
	}
	if fills[len(fills)-1].Exchange != s.net.NegRiskExchange {
		t.Fatal("neg-risk exchange fill not attributed to the neg-risk exchange")
	}
}
