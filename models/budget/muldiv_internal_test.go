package budget

import (
	"math"
	"math/big"
	"testing"
)

// TestMulDiv64: the allocation-free path agrees with the exact one wherever
// it answers, and declines (ok false) exactly where the exact result does
// not fit in int64 or an operand is outside its domain.
func TestMulDiv64(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b, c int64
		ok      bool
	}{
		{"zero", 0, 550_000, 1_000_000, true},
		{"position value", 8_000_000, 550_000, 1_000_000, true},
		{"truncates", 3, 1, 2, true},
		{"percent of a wallet", 500_000_000, 2_500, 10_000, true},
		{"product over 64 bits, quotient fits", math.MaxInt64, 1_000_000, 1_000_000, true},
		{"quotient just fits", math.MaxInt64, 2, 2, true},
		{"quotient over int64", math.MaxInt64, 3, 2, false},
		{"quotient over 64 bits", math.MaxInt64, math.MaxInt64, 1, false},
		{"negative operand", -5, 10, 3, false},
		{"zero divisor", 5, 10, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := mulDiv64(tc.a, tc.b, tc.c)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			want := mulDiv(tc.a, tc.b, tc.c)
			if want.Cmp(big.NewInt(got)) != 0 {
				t.Fatalf("mulDiv64 = %d, exact %s", got, want)
			}
		})
	}
}
