package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue"
)

// payoutsABI holds the conditional-tokens view methods Payouts reads. The
// public payoutNumerators mapping of arrays compiles to a getter taking the
// condition and the outcome index, on Polymarket's CTF and the sandbox's.
var payoutsABI = mustABI(`[
	{"type":"function","name":"getOutcomeSlotCount","stateMutability":"view","inputs":[{"name":"c","type":"bytes32"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"payoutNumerators","stateMutability":"view","inputs":[{"name":"c","type":"bytes32"},{"name":"i","type":"uint256"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"payoutDenominator","stateMutability":"view","inputs":[{"name":"c","type":"bytes32"}],"outputs":[{"name":"","type":"uint256"}]}
	]`)

// maxOutcomeSlots bounds the numerators read for one condition: the CTF
// allows up to 256 outcome slots, Polymarket markets use 2.
const maxOutcomeSlots = 256

// Payouts reads a condition's payout vector from the conditional-tokens
// contract: one numerator per outcome slot (index 0 is the first outcome,
// YES on a binary market) and their denominator. A denominator of zero means
// the condition is not resolved yet; the numerators are then all zero. A
// condition that was never prepared has no outcome slots: no numerators and
// a zero denominator.
//
// A share of outcome i redeems for numerators[i]/denominator collateral
// units per base unit (see PayoutFor).
func (c *Client) Payouts(ctx context.Context, conditionID common.Hash) (numerators []*big.Int, denominator *big.Int, err error) {
	den := new(big.Int)
	if err := c.call(ctx, c.net.ConditionalTokens, payoutsABI, &den, "payoutDenominator", conditionID); err != nil {
		return nil, nil, err
	}
	slots := new(big.Int)
	if err := c.call(ctx, c.net.ConditionalTokens, payoutsABI, &slots, "getOutcomeSlotCount", conditionID); err != nil {
		return nil, nil, err
	}
	if !slots.IsInt64() || slots.Int64() > maxOutcomeSlots {
		return nil, nil, venue.Ef(venue.Internal, "condition %s reports %s outcome slots", conditionID.Hex(), slots)
	}
	n := int(slots.Int64())
	nums := make([]*big.Int, n)
	sum := new(big.Int)
	for i := range nums {
		v := new(big.Int)
		if err := c.call(ctx, c.net.ConditionalTokens, payoutsABI, &v, "payoutNumerators", conditionID, big.NewInt(int64(i))); err != nil {
			return nil, nil, err
		}
		nums[i] = v
		sum.Add(sum, v)
	}
	// The reads are separate calls; a resolution mined between them would
	// pair a zero denominator with set numerators (or the reverse). The
	// contract keeps denominator == sum(numerators), so a mismatch means
	// "changed while reading": the caller retries.
	if sum.Cmp(den) != 0 {
		return nil, nil, venue.Ef(venue.Unavailable, "the payouts of condition %s changed while being read; try again", conditionID.Hex())
	}
	return nums, den, nil
}

// PayoutFor is the collateral (base units) that shares (base units) of an
// outcome with payout numerator pay when redeemed, as the conditional-tokens
// contract computes it: shares × numerator / denominator, rounded down. It
// is zero for an unresolved condition (denominator zero).
func PayoutFor(shares, numerator, denominator *big.Int) *big.Int {
	if shares == nil || numerator == nil || denominator == nil || denominator.Sign() <= 0 {
		return new(big.Int)
	}
	out := new(big.Int).Mul(shares, numerator)
	return out.Quo(out, denominator)
}
