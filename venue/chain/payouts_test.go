package chain

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestPayouts reads payout vectors from the real sandbox chain: a condition
// that was never prepared, a prepared but unresolved one, and resolved
// normal and neg-risk markets with either outcome winning.
func TestPayouts(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	c := s.client(t)
	ctx := ctxT(t)

	nums, den, err := c.Payouts(ctx, crypto.Keccak256Hash([]byte("never prepared")))
	if err != nil || len(nums) != 0 || den.Sign() != 0 {
		t.Fatalf("unknown condition: %v %v %v", nums, den, err)
	}

	for _, tc := range []struct {
		name    string
		negRisk bool
		winner  int
		want    []int64
	}{
		{"normal yes", false, 0, []int64{1, 0}},
		{"normal no", false, 1, []int64{0, 1}},
		{"neg-risk yes", true, 0, []int64{1, 0}},
		{"neg-risk no", true, 1, []int64{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := s.ch.PrepareMarket(ctx, crypto.Keccak256Hash([]byte(t.Name())), tc.negRisk)
			if err != nil {
				t.Fatal(err)
			}
			nums, den, err := c.Payouts(ctx, m.ConditionID)
			if err != nil || len(nums) != 2 || nums[0].Sign() != 0 || nums[1].Sign() != 0 || den.Sign() != 0 {
				t.Fatalf("unresolved: %v %v %v", nums, den, err)
			}
			if err := s.ch.Resolve(ctx, m.ConditionID, tc.winner); err != nil {
				t.Fatal(err)
			}
			nums, den, err = c.Payouts(ctx, m.ConditionID)
			if err != nil || len(nums) != len(tc.want) {
				t.Fatalf("resolved: %v %v %v", nums, den, err)
			}
			sum := int64(0)
			for i, w := range tc.want {
				if nums[i].Int64() != w {
					t.Fatalf("numerator %d = %s, want %d", i, nums[i], w)
				}
				sum += w
			}
			if den.Int64() != sum {
				t.Fatalf("denominator %s, want %d", den, sum)
			}
			// Payouts agrees with the existing single-value reader.
			if d, err := c.PayoutDenominator(ctx, common.Hash(m.ConditionID)); err != nil || d.Cmp(den) != 0 {
				t.Fatalf("PayoutDenominator %v %v", d, err)
			}
		})
	}
}

func TestPayoutFor(t *testing.T) {
	b := func(v int64) *big.Int { return big.NewInt(v) }
	for _, tc := range []struct {
		name             string
		shares, num, den *big.Int
		want             int64
	}{
		{"winner pays one per share", b(10_000_000), b(1), b(1), 10_000_000},
		{"loser pays nothing", b(10_000_000), b(0), b(1), 0},
		{"split payout", b(10_000_000), b(1), b(2), 5_000_000},
		{"rounds down like the contract", b(3), b(1), b(2), 1},
		{"unresolved pays nothing", b(10), b(0), b(0), 0},
		{"nil denominator", b(10), b(1), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PayoutFor(tc.shares, tc.num, tc.den); got.Int64() != tc.want {
				t.Fatalf("PayoutFor = %s, want %d", got, tc.want)
			}
		})
	}
}
