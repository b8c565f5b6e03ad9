package exchange

import (
	"math"
	"math/big"
	"math/bits"
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
