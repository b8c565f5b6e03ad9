package chain

import (
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
)

// Decimals is the number of decimals of the collateral (pUSD/USDC) and of
// the outcome tokens: one share or one dollar is 1_000_000 base units.
const Decimals = 6

// maxExponent bounds the decimal exponent ToMicro accepts; no real amount
// comes near 10^40.
const maxExponent = 40

// microPerUnit is 10^Decimals.
var microPerUnit = decimal.New(1, Decimals)

// ToMicro converts a human amount (dollars or shares) to base units. It is
// exact: an amount with more than six significant decimals, or a negative
// amount, is rejected rather than rounded, because silently trading a
// different size than asked is worse than refusing.
func ToMicro(d decimal.Decimal) (*big.Int, error) {
	// "1e1000000" is a short string but a huge integer: refuse it before
	// any arithmetic expands it.
	if d.Exponent() > maxExponent {
		return nil, venue.Ef(venue.Invalid, "amount %s is too large", d.String()).WithCode("invalid_amount")
	}
	if d.IsNegative() {
		return nil, venue.Ef(venue.Invalid, "amount %s must not be negative", d.String()).WithCode("invalid_amount")
	}
	scaled := d.Mul(microPerUnit)
	if !scaled.IsInteger() {
		return nil, venue.Ef(venue.Invalid, "amount %s has more than %d decimals", d.String(), Decimals).WithCode("invalid_amount")
	}
	return scaled.BigInt(), nil
}

// ToMicroInt64 is ToMicro for callers that store micro-units in an int64
// column; amounts beyond int64 are rejected.
func ToMicroInt64(d decimal.Decimal) (int64, error) {
	v, err := ToMicro(d)
	if err != nil {
		return 0, err
	}
	if !v.IsInt64() {
		return 0, venue.Ef(venue.Invalid, "amount %s is too large", d.String()).WithCode("invalid_amount")
	}
	return v.Int64(), nil
}

// FromMicro converts base units back to a human amount. A nil value is zero.
// Negative inputs are kept (balance deltas can be negative); the conversion
// is exact for every integer.
func FromMicro(v *big.Int) decimal.Decimal {
	if v == nil {
		return decimal.Zero
	}
	return decimal.NewFromBigInt(v, -Decimals)
}

// FromMicroInt64 is FromMicro for int64 micro-units.
func FromMicroInt64(v int64) decimal.Decimal {
	return decimal.New(v, -Decimals)
}
