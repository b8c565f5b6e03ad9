// Package micro converts between decimal amounts and integer micro-units,
// the base units of the venue's collateral (pUSD/USDC) and outcome tokens:
// one dollar or one share is PerUnit micro-units, a price of 0.55 is
// 550_000. Every conversion in the project goes through here, and each says
// how it rounds, because the rule differs by purpose: amounts a user signs
// must be exact, fills the venue reports are rounded, order legs truncate.
package micro

import (
	"math"
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
)

// Decimals is the number of decimals of the collateral and outcome tokens.
const Decimals = 6

// PerUnit is 10^Decimals: the micro-units of one dollar or one share.
const PerUnit = 1_000_000

// maxExponent bounds the decimal exponent Exact accepts; no real amount
// comes near 10^40.
const maxExponent = 40

var perUnit = decimal.New(1, Decimals)

// ---- micro-units to decimals (exact) ----

// Decimal is v micro-units as a decimal amount.
func Decimal(v int64) decimal.Decimal { return decimal.New(v, -Decimals) }

// DecimalBig is Decimal for big integers; nil is zero. Negative values are
// kept (balance deltas can be negative).
func DecimalBig(v *big.Int) decimal.Decimal {
	if v == nil {
		return decimal.Zero
	}
	return decimal.NewFromBigInt(v, -Decimals)
}

// FromUint64 is Decimal for unsigned micro-units; values beyond int64 are
// taken as its maximum.
func FromUint64(v uint64) decimal.Decimal {
	return decimal.New(int64(min(v, math.MaxInt64)), -Decimals)
}

// String formats v micro-units as a decimal string without trailing zeros
// ("0.52", "100"), the CLOB's wire form for prices and sizes. Values beyond
// int64 are shown as its maximum.
func String(v uint64) string { return FromUint64(v).String() }

// ---- decimals to micro-units, exactly ----

// Exact converts an amount someone asked for (dollars or shares) to
// micro-units. An amount with more than six decimals, or a negative one, is
// refused rather than rounded: silently trading a different size than
// asked is worse than refusing.
func Exact(d decimal.Decimal) (*big.Int, error) {
	// "1e1000000" is a short string but a huge integer: refuse it before
	// any arithmetic expands it.
	if d.Exponent() > maxExponent {
		return nil, venue.Ef(venue.Invalid, "amount %s is too large", d.String()).WithCode("invalid_amount")
	}
	if d.IsNegative() {
		return nil, venue.Ef(venue.Invalid, "amount %s must not be negative", d.String()).WithCode("invalid_amount")
	}
	scaled := d.Mul(perUnit)
	if !scaled.IsInteger() {
		return nil, venue.Ef(venue.Invalid, "amount %s has more than %d decimals", d.String(), Decimals).WithCode("invalid_amount")
	}
	return scaled.BigInt(), nil
}

// ExactInt64 is Exact for int64 micro-units; larger amounts are refused.
func ExactInt64(d decimal.Decimal) (int64, error) {
	v, err := Exact(d)
	if err != nil {
		return 0, err
	}
	if !v.IsInt64() {
		return 0, venue.Ef(venue.Invalid, "amount %s is too large", d.String()).WithCode("invalid_amount")
	}
	return v.Int64(), nil
}

// ParseExact parses a non-negative decimal string into micro-units,
// refusing more than six decimals and values beyond uint64.
func ParseExact(s string) (uint64, bool) {
	d, err := decimal.NewFromString(s)
	if err != nil || d.IsNegative() {
		return 0, false
	}
	m := d.Shift(Decimals)
	if !m.Equal(m.Truncate(0)) || !m.BigInt().IsUint64() {
		return 0, false
	}
	return m.BigInt().Uint64(), true
}

// ---- decimals to micro-units, rounded ----

// Round converts an amount the venue reported (a price or a size) to
// micro-units, rounding half away from zero. An amount beyond int64
// micro-units is an error rather than a wrapped, possibly negative, value.
// The magnitude is checked before any arithmetic, so no exponent makes
// rounding expand the number or overflow the exponent.
func Round(d decimal.Decimal) (int64, error) {
	if d.Sign() == 0 {
		return 0, nil
	}
	// 10^(mag-1) <= |d| < 10^mag.
	mag := int64(d.NumDigits()) + int64(d.Exponent())
	switch {
	case mag <= -7:
		return 0, nil // |d| < 0.0000001: under half a micro-unit
	case mag >= 14:
		// |d| >= 10^13, so |d|·10^6 >= 10^19 > MaxInt64.
		return 0, errOutOfRange
	}
	r := d.Mul(perUnit).Round(0)
	if b := r.BigInt(); !b.IsInt64() {
		return 0, errOutOfRange
	}
	return r.IntPart(), nil
}

// errOutOfRange does not print the amount: 1e2147483647 is a short decimal
// but two billion digits of text.
var errOutOfRange = venue.E(venue.Internal, "the venue reported an amount out of the range of int64 micro-units")

// Nearest converts to micro-units rounding half away from zero, without
// Round's range check: for amounts computed from int64 micro-units (a
// position's size, average entry and P&L), which fit.
func Nearest(d decimal.Decimal) int64 { return d.Mul(perUnit).Round(0).IntPart() }

// RoundUint64 converts to micro-units rounding half away from zero;
// negative values are clamped to zero and values beyond uint64 to its
// maximum (the sandbox's control inputs).
func RoundUint64(d decimal.Decimal) uint64 {
	if d.IsNegative() {
		return 0
	}
	b := d.Shift(Decimals).Round(0).BigInt()
	if !b.IsUint64() {
		return math.MaxUint64
	}
	return b.Uint64()
}

// Truncate converts to micro-units truncating toward zero (the fraction of
// a micro-unit is dropped). The amount must fit int64 micro-units; callers
// bound it first.
func Truncate(d decimal.Decimal) int64 { return d.Mul(perUnit).IntPart() }

// TruncateBig is Truncate for amounts of any size: an order's maker and
// taker legs.
func TruncateBig(d decimal.Decimal) *big.Int { return d.Mul(perUnit).Truncate(0).BigInt() }

// Ceil converts to micro-units rounding up: a cost to reserve is never
// short of the amount.
func Ceil(d decimal.Decimal) int64 { return d.Mul(perUnit).Ceil().IntPart() }

// ---- arithmetic on micro-units ----

// Mul is a×b for two micro-unit amounts (a price and a size), in
// micro-units, rounded half away from zero.
func Mul(a, b int64) int64 {
	return decimal.NewFromInt(a).Mul(decimal.NewFromInt(b)).Div(perUnit).Round(0).IntPart()
}

// Div is a÷b for two micro-unit amounts (a notional and a size: an average
// price), in micro-units, rounded half away from zero. b must not be 0.
func Div(a, b int64) int64 {
	return decimal.NewFromInt(a).Mul(perUnit).Div(decimal.NewFromInt(b)).Round(0).IntPart()
}
