package positions_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
)

func buy(price, size, fee int64) store.TokenFill {
	return store.TokenFill{Side: "BUY", PriceMicro: price, SizeMicro: size, FeeMicro: fee}
}

func sell(price, size, fee int64) store.TokenFill {
	return store.TokenFill{Side: "SELL", PriceMicro: price, SizeMicro: size, FeeMicro: fee}
}

const M = 1_000_000

func TestFold(t *testing.T) {
	tests := []struct {
		name             string
		fills            []store.TokenFill
		redeemed, payout int64
		want             positions.Folded
	}{
		{name: "no fills"},
		{name: "one buy", fills: []store.TokenFill{buy(400_000, 10*M, 0)},
			want: positions.Folded{SizeMicro: 10 * M, AvgEntryMicro: 400_000}},
		// 10 × 0.40 + 5 × 0.70 = 7.5 over 15 shares.
		{name: "cost-weighted average", fills: []store.TokenFill{buy(400_000, 10*M, 0), buy(700_000, 5*M, 0)},
			want: positions.Folded{SizeMicro: 15 * M, AvgEntryMicro: 500_000}},
		// Selling 6 at 0.80 against an average of 0.50 realizes 1.80.
		{name: "partial sell", fills: []store.TokenFill{buy(400_000, 10*M, 0), buy(700_000, 5*M, 0), sell(800_000, 6*M, 0)},
			want: positions.Folded{SizeMicro: 9 * M, AvgEntryMicro: 500_000, RealizedPnlMicro: 1_800_000}},
		// (0.50 − 0.40) × 10 = 1.00, less 0.05 + 0.02 of fees; the average
		// of the shares sold is kept on the closed position.
		{name: "fees reduce realized", fills: []store.TokenFill{buy(400_000, 10*M, 50_000), sell(500_000, 10*M, 20_000)},
			want: positions.Folded{AvgEntryMicro: 400_000, RealizedPnlMicro: 930_000}},
		{name: "selling more than bought realizes only what was bought", fills: []store.TokenFill{buy(400_000, 5*M, 0), sell(600_000, 8*M, 0)},
			want: positions.Folded{AvgEntryMicro: 400_000, RealizedPnlMicro: 1_000_000}},
		{name: "a sell with nothing held realizes nothing", fills: []store.TokenFill{sell(600_000, 8*M, 0)},
			want: positions.Folded{}},
		{name: "buying after a close starts a new average", fills: []store.TokenFill{buy(400_000, 10*M, 0), sell(500_000, 10*M, 0), buy(200_000, 5*M, 0)},
			want: positions.Folded{SizeMicro: 5 * M, AvgEntryMicro: 200_000, RealizedPnlMicro: 1_000_000}},
		// (0.33 + 2 × 0.34) / 3 = 0.33666…; selling 1 at 0.50 realizes 0.16333….
		{name: "repeating average rounds to the micro", fills: []store.TokenFill{buy(330_000, M, 0), buy(340_000, 2*M, 0), sell(500_000, M, 0)},
			want: positions.Folded{SizeMicro: 2 * M, AvgEntryMicro: 336_667, RealizedPnlMicro: 163_333}},
		// Redeemed at 1.00 a share after buying at 0.40: 6.00 realized.
		{name: "fully redeemed", fills: []store.TokenFill{buy(400_000, 10*M, 0)}, redeemed: 10 * M, payout: 10 * M,
			want: positions.Folded{AvgEntryMicro: 400_000, RealizedPnlMicro: 6 * M}},
		{name: "partly redeemed", fills: []store.TokenFill{buy(300_000, 10*M, 0)}, redeemed: 4 * M, payout: 4 * M,
			want: positions.Folded{SizeMicro: 6 * M, AvgEntryMicro: 300_000, RealizedPnlMicro: 2_800_000}},
		{name: "losing outcome redeemed for nothing", fills: []store.TokenFill{buy(300_000, 10*M, 0)}, redeemed: 10 * M,
			want: positions.Folded{AvgEntryMicro: 300_000, RealizedPnlMicro: -3 * M}},
		{name: "odd sizes", fills: []store.TokenFill{buy(123_456, 7_654_321, 0), sell(654_321, 1_234_567, 1)},
			// basis 1.234567 × 0.123456 = 0.152414703…; proceeds 0.807803114…; fee 0.000001
			want: positions.Folded{SizeMicro: 6_419_754, AvgEntryMicro: 123_456, RealizedPnlMicro: 655_387}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, positions.Fold(tt.fills, tt.redeemed, tt.payout))
		})
	}
}

// BenchmarkFold folds a busy token's history: 1000 fills, mostly buys.
func BenchmarkFold(b *testing.B) {
	fills := make([]store.TokenFill, 1000)
	for i := range fills {
		fills[i] = buy(int64(100_000+i*500), int64(i%7+1)*M, 1_000)
		if i%5 == 4 {
			fills[i] = sell(int64(300_000+i*300), 2*M, 1_000)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		positions.Fold(fills, 0, 0)
	}
}
