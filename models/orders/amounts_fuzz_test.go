package orders

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
)

// refMicro is d·10^6 rounded half away from zero, computed with exact
// rationals.
func refMicro(d decimal.Decimal) *big.Int {
	r := new(big.Rat).Mul(d.Rat(), big.NewRat(1_000_000, 1))
	abs := new(big.Rat).Abs(r)
	abs.Add(abs, big.NewRat(1, 2))
	q := new(big.Int).Quo(abs.Num(), abs.Denom()) // floor(|x| + 1/2)
	if r.Sign() < 0 {
		q.Neg(q)
	}
	return q
}

func TestToMicro(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"0.5", 500_000, false},
		{"0.000001", 1, false},
		{"0.0000005", 1, false}, // half a micro-unit rounds away from zero
		{"0.00000049", 0, false},
		{"-0.0000005", -1, false},
		{"12.3456789", 12_345_679, false},
		{"9223372036854.775807", math.MaxInt64, false},
		{"9223372036854.7758074", math.MaxInt64, false},
		{"-9223372036854.775808", math.MinInt64, false},
		{"9223372036854.775808", 0, true}, // used to wrap to MinInt64
		{"-9223372036854.775809", 0, true},
		{"18446744073709.551616", 0, true}, // used to wrap to 0
		{"1e13", 0, true},
		{"1e10000", 0, true},
		{"-1e10000", 0, true},
		{"1e-10000", 0, false},
		{"5000000e-13", 1, false},      // 0.0000005
		{"99999999999999e-1", 0, true}, // 9999999999999.9·10^6 > MaxInt64
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := toMicro(decimal.RequireFromString(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("toMicro(%s) = %d, want an error", tt.in, got)
				}
				if !errs.Is(err, errs.Internal) {
					t.Fatalf("error kind %v", errs.KindOf(err))
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("toMicro(%s) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
	// Decoding caps exponents at ±10000, but a constructed decimal has
	// any exponent: the old Mul panicked on the largest one.
	if _, err := toMicro(decimal.New(1, math.MaxInt32)); err == nil {
		t.Error("1e2147483647 converted")
	}
	if v, err := toMicro(decimal.New(123, math.MinInt32)); err != nil || v != 0 {
		t.Errorf("123e-2147483648 = %d, %v", v, err)
	}
}

// FuzzToMicro checks the conversion of venue amounts against exact
// rational arithmetic: no panic; every result is d·10^6 rounded half away
// from zero; an error exactly when that does not fit int64; six-decimal
// amounts convert exactly and back.
func FuzzToMicro(f *testing.F) {
	for _, s := range []string{"0", "0.5", "0.000001", "0.0000005", "-0.0000005", "12.3456789", "1e6",
		"9223372036854.775807", "9223372036854.775808", "-9223372036854.775808", "18446744073709.551616",
		"1e10000", "-1e-10000", "99999999999999e-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return
		}
		got, err := toMicro(d)
		// Decoding caps exponents at ±10000: the exact reference is cheap.
		want := refMicro(d)
		if !want.IsInt64() {
			if err == nil {
				t.Fatalf("toMicro(%s) = %d, want an overflow error (exact %s)", s, got, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("toMicro(%s): %v, want %s", s, err, want)
		}
		if got != want.Int64() {
			t.Fatalf("toMicro(%s) = %d, want %s", s, got, want)
		}
		if d.Mul(decimal.New(1, 6)).IsInteger() && !decimal.New(got, -6).Equal(d) {
			t.Fatalf("six-decimal %s round-trips to %s", s, decimal.New(got, -6))
		}
	})
}

// FuzzToMicroMonotonic checks that a larger amount never converts to fewer
// micro-units, and that every int64 of micro-units converts back to itself.
func FuzzToMicroMonotonic(f *testing.F) {
	f.Add(int64(0), int8(-6), int64(1), int8(-7))
	f.Add(int64(5), int8(-7), int64(4), int8(-7))
	f.Add(int64(math.MaxInt64), int8(-6), int64(-math.MaxInt64), int8(-6))
	f.Add(int64(9223372036854775807), int8(-5), int64(1), int8(13))
	f.Fuzz(func(t *testing.T, ca int64, ea int8, cb int64, eb int8) {
		a, b := decimal.New(ca, int32(ea)), decimal.New(cb, int32(eb))
		if a.GreaterThan(b) {
			a, b = b, a
		}
		ma, errA := toMicro(a)
		mb, errB := toMicro(b)
		if errA == nil && errB == nil && ma > mb {
			t.Fatalf("%s < %s but toMicro gives %d > %d", a, b, ma, mb)
		}
		for _, v := range []int64{ca, cb} {
			back, err := toMicro(decimal.New(v, -6))
			if err != nil || back != v {
				t.Fatalf("toMicro(%d micro) = %d, %v", v, back, err)
			}
		}
	})
}
