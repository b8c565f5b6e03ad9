package chain

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// BenchmarkSettle measures one settled match (one maker) including sealing
// its block, in manual mode.
func BenchmarkSettle(b *testing.B) {
	c, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	m, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("bench")), false)
	if err != nil {
		b.Fatal(err)
	}
	seller := c.MarketMaker()
	if err := c.SplitTo(ctx, seller, m.ConditionID, big.NewInt(int64(b.N+1)*1_000_000)); err != nil {
		b.Fatal(err)
	}
	buyer := address(c.OutsideWallets()[0])
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		match := Match{
			Taker: Fill{OrderHash: crypto.Keccak256Hash([]byte{byte(i), 1}), Maker: buyer, Side: Buy, TokenID: m.TokenIDs[0],
				MakerAmount: big.NewInt(500_000), TakerAmount: big.NewInt(1_000_000)},
			Makers: []Fill{{OrderHash: crypto.Keccak256Hash([]byte{byte(i), 2}), Maker: address(seller), Side: Sell, TokenID: m.TokenIDs[0],
				MakerAmount: big.NewInt(1_000_000), TakerAmount: big.NewInt(500_000)}},
		}
		if _, err := c.Settle(ctx, false, match); err != nil {
			b.Fatal(err)
		}
	}
}
