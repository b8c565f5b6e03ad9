package chain

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// The database-backed watermark store is what production watchers persist
// to; the store package does not import this one, so the conformance is
// checked here.
var _ WatermarkStore = store.FillWatermarks{}

// TestWatcherRestartOnDatabaseWatermark stops a watcher on the sandbox
// chain, trades while it is down, and starts a new Watcher (fresh memory:
// no seen set, no watermark) on the same database: it backfills exactly the
// fills made while it was down — none from before, none twice — and then
// continues live. The restarted watcher has no StartBlock, so without the
// persisted watermark it would begin at the head and miss them.
func TestWatcherRestartOnDatabaseWatermark(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		s := newSandbox(t, 0) // manual blocks: each Settle seals exactly one
		ctx := ctxT(t)
		target := crypto.PubkeyToAddress(s.ch.OutsideWallets()[0].PublicKey)
		markets := s.soldMarkets(t, 0xdb)
		start, err := s.ch.Client().BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		const key = "copy/str_restart"
		marks := st.FillWatermarks()
		saved := func() uint64 {
			b, err := marks.Load(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		cfg := WatcherConfig{
			Dial:         DialURL(s.net.WSURL),
			Exchanges:    []common.Address{s.net.Exchange, s.net.NegRiskExchange},
			Makers:       []common.Address{target},
			Store:        marks,
			Key:          key,
			StartBlock:   start + 1,
			PollInterval: 20 * time.Millisecond,
			MinBackoff:   20 * time.Millisecond,
			MaxBackoff:   100 * time.Millisecond,
		}

		first := newCollector()
		cfg.Deliver = first.deliver
		_, stop := runWatcher(t, cfg)
		before := s.settleBuy(t, markets[0], target, 1_000_000, 1)
		got := first.waitFor(t, 1)
		// Stop only once the delivery is persisted: a stop between the
		// delivery and the save re-delivers after a restart, which the
		// watcher allows but this test is not about.
		waitUntil(t, func() bool { return saved() >= got[0].Block })
		stop()
		assertFills(t, first.snapshot(), []common.Hash{before}, target)
		down := saved()

		// Trades on both exchanges while no watcher runs.
		var want []common.Hash
		for i := range 3 {
			want = append(want, s.settleBuy(t, markets[i%2], target, 2_000_000, byte(10+i)))
		}
		if head, _ := s.ch.Client().BlockNumber(ctx); head <= down {
			t.Fatalf("head %d is not past the saved watermark %d", head, down)
		}

		second := newCollector()
		cfg.Deliver = second.deliver
		cfg.StartBlock = 0 // only the database knows where to resume
		_, stop = runWatcher(t, cfg)
		second.waitFor(t, len(want))
		want = append(want, s.settleBuy(t, markets[1], target, 1_000_000, 20))
		second.waitFor(t, len(want))
		time.Sleep(100 * time.Millisecond) // several polls: would expose a re-delivery
		stop()
		assertFills(t, second.snapshot(), want, target)
		head, _ := s.ch.Client().BlockNumber(ctx)
		if b := saved(); b != head {
			t.Fatalf("saved watermark %d, want the head %d", b, head)
		}
	})
}

// assertFills checks that got is exactly the fills of want's transactions,
// in order, each once, all of maker.
func assertFills(t *testing.T, got []Fill, want []common.Hash, maker common.Address) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("delivered %d fills, want %d", len(got), len(want))
	}
	seen := map[FillKey]bool{}
	for i, f := range got {
		if seen[f.Key()] || f.TxHash != want[i] || f.Maker != maker {
			t.Fatalf("fill %d: %+v (duplicate, out of order or not one of the wanted)", i, f)
		}
		seen[f.Key()] = true
	}
}
