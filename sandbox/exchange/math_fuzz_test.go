package exchange

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

// refDecimalMicro is DecimalMicro's contract in exact rationals: d·10^6
// rounded half away from zero, negatives clamped to 0, values beyond
// uint64 capped at MaxUint64.
func refDecimalMicro(d decimal.Decimal) uint64 {
	if d.Sign() <= 0 {
		return 0
	}
	r := new(big.Rat).Mul(d.Rat(), big.NewRat(1_000_000, 1))
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsUint64() {
		return math.MaxUint64
	}
	return q.Uint64()
}

// FuzzDecimalMicro checks the control API's decimal → micro-unit
// conversion against exact arithmetic on any decodable decimal (decoding
// caps exponents at ±10000), and that six-decimal amounts survive the round
// trip through the CLOB's wire form (Micro, ParseMicro).
func FuzzDecimalMicro(f *testing.F) {
	for _, s := range []string{"0", "-0", "0.52", "0.000001", "0.0000005", "0.00000049", "-0.0000005", "-3", "1e-7",
		"100", "18446744073709.551615", "18446744073709.5516155", "18446744073709.551616", "9223372036854.775807",
		"1e10000", "1e-10000", "123.4567895"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return
		}
		got := DecimalMicro(d)
		if want := refDecimalMicro(d); got != want {
			t.Fatalf("DecimalMicro(%s) = %d, want %d", s, got, want)
		}
		if d.IsNegative() || !d.Shift(6).IsInteger() || got == math.MaxUint64 || got > math.MaxInt64 {
			return
		}
		// Exact six-decimal amount in the range Micro prints.
		wire := Micro(got)
		if back, ok := ParseMicro(wire); !ok || back != got {
			t.Fatalf("ParseMicro(Micro(%d)) = %d, %v", got, back, ok)
		}
		if !decimal.RequireFromString(wire).Equal(d) {
			t.Fatalf("%s → %d → %s", s, got, wire)
		}
	})
}

// FuzzDecimalMicroMonotonic checks that a larger decimal never gives fewer
// micro-units and that every micro-unit amount converts back to itself.
func FuzzDecimalMicroMonotonic(f *testing.F) {
	f.Add(int64(1), int8(-7), int64(4), int8(-7), uint64(0))
	f.Add(int64(-5), int8(0), int64(5), int8(-7), uint64(1))
	f.Add(int64(math.MaxInt64), int8(0), int64(math.MaxInt64), int8(1), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, ca int64, ea int8, cb int64, eb int8, u uint64) {
		a, b := decimal.New(ca, int32(ea)), decimal.New(cb, int32(eb))
		if a.GreaterThan(b) {
			a, b = b, a
		}
		if ma, mb := DecimalMicro(a), DecimalMicro(b); ma > mb {
			t.Fatalf("%s < %s but DecimalMicro gives %d > %d", a, b, ma, mb)
		}
		if back := DecimalMicro(decimal.NewFromBigInt(new(big.Int).SetUint64(u), -6)); back != u {
			t.Fatalf("DecimalMicro(%d micro) = %d", u, back)
		}
	})
}
