package sandbox_test

import (
	"context"
	"crypto/ecdsa"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
)

// BenchmarkMatchSettleEVM measures orders matched and settled on the
// sandbox EVM chain (matchOrders mined in a block) per second: each
// operation rests a signed maker ask and fills it with a signed FOK bid,
// both from funded, approved outside wallets, through the engine. The
// data-dir cases keep the chain and the venue on disk (each block and each
// answer synced).
//
//	go test -run '^$' -bench MatchSettleEVM -benchtime 200x ./sandbox/
func BenchmarkMatchSettleEVM(b *testing.B) {
	for _, c := range []struct {
		block time.Duration
		disk  bool
	}{{10 * time.Millisecond, false}, {time.Second, false}, {10 * time.Millisecond, true}, {time.Second, true}} {
		name := "block=" + c.block.String()
		if c.disk {
			name += ",data-dir"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			cfg := sandbox.Config{Addr: "127.0.0.1:0", Seed: 99, BlockInterval: c.block,
				QuoteInterval: time.Hour, Ordinary: 1, DisableUpDown: true}
			if c.disk {
				cfg.DataDir = b.TempDir()
			}
			sb, err := sandbox.Start(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			v := sb.Venue()
			m := v.Markets()[0]
			keys := sb.Chain().OutsideWallets()
			seller := keys[0]
			if err := sb.Chain().SplitTo(ctx, seller, common.HexToHash(m.ConditionID), false, 1_000_000*exchange.One); err != nil {
				b.Fatal(err)
			}
			var n atomic.Int64
			b.SetParallelism(8) // many clients at once, as on a live venue
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					placePair(ctx, b, v, m, seller, keys[1+int(n.Add(1))%2])
				}
			})
			b.StopTimer()
			var shares uint64
			trades := v.Engine().Trades(exchange.TradeFilter{ConditionID: m.ConditionID})
			for _, t := range trades {
				shares += t.SizeMicro
			}
			if shares != uint64(b.N)*5*exchange.One {
				b.Fatalf("settled %d micro-shares, want %d", shares, uint64(b.N)*5*exchange.One)
			}
			b.ReportMetric(float64(len(trades))/b.Elapsed().Seconds(), "settled-matches/s")
		})
	}
}

func placePair(ctx context.Context, b *testing.B, v *markets.Venue, m markets.Info, seller, buyer *ecdsa.PrivateKey) bool {
	ask, err := v.SignedOrder(seller, m, m.TokenIDs[0], exchange.Sell, 500_000, 5*exchange.One, exchange.GTC, "bench-seller")
	if err != nil {
		b.Error(err)
		return false
	}
	if _, err := v.Engine().Place(ctx, ask); err != nil {
		b.Error(err)
		return false
	}
	bid, err := v.SignedOrder(buyer, m, m.TokenIDs[0], exchange.Buy, 500_000, 5*exchange.One, exchange.GTC, "bench-buyer")
	if err != nil {
		b.Error(err)
		return false
	}
	// Under RunParallel a bid may find the asks taken by another bid in
	// flight and rest instead; the next ask then matches it.
	if _, err := v.Engine().Place(ctx, bid); err != nil {
		b.Error(err)
		return false
	}
	return true
}
