package chain

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestSendCoversStateCreatedBeforeInclusion: a transaction's gas is
// estimated on the latest block, but it runs after what is mined before
// it. Here a split is estimated while the CTF holds collateral, and a
// merge mined just before it empties that balance, so the split must
// create the balance again: about 100k gas more than estimated, a third
// of the split. The send's margin covers it; with the old 25 % the split
// ran out of gas (seen as TestWalletKinds failing under load, where other
// wallets' redemptions emptied the CTF between estimate and inclusion).
func TestSendCoversStateCreatedBeforeInclusion(t *testing.T) {
	c := newTestChain(t) // manual mode: a block only on Commit
	ctx := ctxT(t)
	b := bindAll(t, c)
	mm := c.MarketMaker()
	const amount = 5_000_000
	partition := []*big.Int{big.NewInt(1), big.NewInt(2)}
	prepare := func(name string) Market {
		m, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte(name)), false)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	held, next := prepare("held"), prepare("next")
	if err := c.SplitTo(ctx, mm, held.ConditionID, big.NewInt(amount)); err != nil {
		t.Fatal(err)
	}
	wantBig(t, "CTF collateral", collBalance(t, b, c.net.ConditionalTokens), amount)

	merge, err := c.send(ctx, mm, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return b.ctf.MergePositions(o, c.net.Collateral, [32]byte{}, held.ConditionID, partition, big.NewInt(amount))
	})
	if err != nil {
		t.Fatal(err)
	}
	// Estimated now, on the latest block, where the CTF still holds the
	// collateral the pending merge takes out.
	split, err := c.send(ctx, mm, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return b.ctf.SplitPosition(o, c.net.Collateral, [32]byte{}, next.ConditionID, partition, big.NewInt(amount))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitMined(ctx, merge.Hash()); err != nil {
		t.Fatal(err)
	}
	r, err := c.WaitMined(ctx, split.Hash())
	if err != nil {
		t.Fatalf("the split estimated before the merge emptied the CTF: %v", err)
	}
	if r.BlockNumber.Cmp(mustReceipt(t, c, merge.Hash()).BlockNumber) != 0 {
		t.Fatal("merge and split were not mined in one block: the test did not set up the race")
	}
	if r.GasUsed <= split.Gas()/2*5/4 {
		t.Fatalf("the split used %d gas of %d: no state was created after the estimate, the test proves nothing", r.GasUsed, split.Gas())
	}
	wantBig(t, "CTF collateral", collBalance(t, b, c.net.ConditionalTokens), amount)
}

func mustReceipt(t *testing.T, c *Chain, h common.Hash) *types.Receipt {
	t.Helper()
	r, err := c.client.TransactionReceipt(ctxT(t), h)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
