package chain

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// BenchmarkCollateralBalance measures balance reads over the sandbox's
// JSON-RPC HTTP endpoint (the production path: ethclient over HTTP).
func BenchmarkCollateralBalance(b *testing.B) {
	s := newSandbox(b, 0)
	c, err := Dial(context.Background(), s.net, "", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	addr := crypto.PubkeyToAddress(s.ch.MarketMaker().PublicKey)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.CollateralBalance(ctx, addr); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "reads/s")
}

// BenchmarkWatcherBackfill measures fill delivery throughput: a watcher
// started behind a chain holding 2,000 fills in 20 blocks backfills them
// (FilterLogs in chunks, decode, de-duplicate, deliver, save watermark).
func BenchmarkWatcherBackfill(b *testing.B) {
	c := newSimChain(b, testExchange)
	const blocks, perBlock = 20, 100
	for range blocks {
		for j := range perBlock {
			c.emitFill(testExchange, common.Hash{byte(j)}, watched, other, Buy, 1, 600_000, 1_000_000, 0)
		}
		c.commit()
	}
	const total = blocks * perBlock
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		col := newCollector()
		w, err := NewWatcher(WatcherConfig{
			Dial: Static(c.sim.Client()), Exchanges: []common.Address{testExchange}, Makers: []common.Address{watched},
			Store: &MemoryWatermarks{}, Key: "bench", StartBlock: 1, ChunkSize: 5, PollInterval: time.Hour,
			Deliver: col.deliver,
		})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = w.Run(ctx); close(done) }()
		for len(col.snapshot()) < total {
			<-col.ch
		}
		cancel()
		<-done
	}
	b.ReportMetric(float64(b.N*total)/time.Since(start).Seconds(), "events/s")
}
