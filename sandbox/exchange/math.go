package exchange

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"
)

// mulDiv returns floor(a*b/c) with a 128-bit intermediate, saturating at
// MaxUint64 when the quotient does not fit (never the case for real amounts:
// the whole USDC supply is below 2^64 micro-units).
func mulDiv(a, b, c uint64) uint64 {
	if c == 0 {
		return 0
	}
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, c)
	return q
}

// mulDivExact is mulDiv that also reports whether the division was exact.
func mulDivExact(a, b, c uint64) (uint64, bool) {
	if c == 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return math.MaxUint64, false
	}
	q, r := bits.Div64(hi, lo, c)
	return q, r == 0
}

// cmpProducts compares a*b with c*d exactly.
func cmpProducts(a, b, c, d uint64) int {
	h1, l1 := bits.Mul64(a, b)
	h2, l2 := bits.Mul64(c, d)
	switch {
	case h1 < h2 || (h1 == h2 && l1 < l2):
		return -1
	case h1 == h2 && l1 == l2:
		return 0
	}
	return 1
}

// satUint64 converts a non-negative big integer to uint64, saturating.
func satUint64(x *big.Int) uint64 {
	if x == nil || x.Sign() <= 0 {
		return 0
	}
	if !x.IsUint64() {
		return math.MaxUint64
	}
	return x.Uint64()
}

// Micro formats micro-units as a decimal string without trailing zeros
// ("0.52", "100"), the CLOB's wire form for prices and sizes.
func Micro(v uint64) string {
	return decimal.New(int64(min(v, math.MaxInt64)), -6).String()
}

// ParseMicro parses a non-negative decimal string into micro-units, refusing
// more than six decimals.
func ParseMicro(s string) (uint64, bool) {
	d, err := decimal.NewFromString(s)
	if err != nil || d.IsNegative() {
		return 0, false
	}
	m := d.Shift(6)
	if !m.Equal(m.Truncate(0)) || !m.BigInt().IsUint64() {
		return 0, false
	}
	return m.BigInt().Uint64(), true
}

// DecimalMicro converts a decimal to micro-units, rounding half away from
// zero at six decimals; negative values are clamped to zero.
func DecimalMicro(d decimal.Decimal) uint64 {
	if d.IsNegative() {
		return 0
	}
	b := d.Shift(6).Round(0).BigInt()
	if !b.IsUint64() {
		return math.MaxUint64
	}
	return b.Uint64()
}
