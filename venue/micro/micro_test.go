package micro

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"

	"github.com/agent-trading/ats/venue"
)

// Exact: amounts someone asked for (formerly chain.ToMicro/FromMicro).

func TestExact(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"0", "0", false},
		{"1", "1000000", false},
		{"0.000001", "1", false},
		{"12.345678", "12345678", false},
		{"12.3456780000", "12345678", false},
		{"1e3", "1000000000", false},
		{"123456789012345678901234567890", "123456789012345678901234567890000000", false},
		{"0.0000001", "", true},
		{"1.1234567", "", true},
		{"-1", "", true},
		{"-0.000001", "", true},
		{"1e5000", "", true},
		{"1e40", "10000000000000000000000000000000000000000000000", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Exact(decimal.RequireFromString(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Exact(%s) = %s, want error", tt.in, got)
				}
				if !venue.Is(err, venue.Invalid) {
					t.Fatalf("error kind = %v, want invalid", venue.CategoryOf(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("Exact(%s): %v", tt.in, err)
			}
			if got.String() != tt.want {
				t.Fatalf("Exact(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestExactInt64Overflow(t *testing.T) {
	if _, err := ExactInt64(decimal.RequireFromString("9223372036854.775807")); err != nil {
		t.Fatalf("max int64 rejected: %v", err)
	}
	if _, err := ExactInt64(decimal.RequireFromString("9223372036854.775808")); err == nil {
		t.Fatal("int64 overflow accepted")
	}
}

func TestDecimalBig(t *testing.T) {
	tests := []struct {
		in   *big.Int
		want string
	}{
		{nil, "0"},
		{big.NewInt(0), "0"},
		{big.NewInt(1), "0.000001"},
		{big.NewInt(1500000), "1.5"},
		{big.NewInt(-2500000), "-2.5"},
	}
	for _, tt := range tests {
		if got := DecimalBig(tt.in); got.String() != tt.want {
			t.Errorf("DecimalBig(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := Decimal(7); got.String() != "0.000007" {
		t.Errorf("Decimal(7) = %s", got)
	}
}

// FuzzExact checks that every accepted amount converts back to the same
// value and that nothing panics on arbitrary input. The seed corpus runs in
// every normal `go test`.
func FuzzExact(f *testing.F) {
	for _, s := range []string{"0", "1", "0.000001", "0.0000001", "-3", "1e-7", "1e30", "123.456789", "99999999999.999999", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil || d.Exponent() < -1000 {
			return // not a number, or one whose expansion is uselessly huge
		}
		m, err := Exact(d)
		if err != nil {
			if !venue.Is(err, venue.Invalid) {
				t.Fatalf("Exact(%s) error of kind %v", s, venue.CategoryOf(err))
			}
			if !d.IsNegative() && d.Exponent() <= maxExponent && d.Mul(perUnit).IsInteger() {
				t.Fatalf("Exact(%s) rejected a valid amount: %v", s, err)
			}
			return
		}
		if m.Sign() < 0 {
			t.Fatalf("Exact(%s) = %s is negative", s, m)
		}
		if back := DecimalBig(m); !back.Equal(d) {
			t.Fatalf("round trip %s -> %s -> %s", s, m, back)
		}
	})
}

// FuzzDecimalBig checks DecimalBig/Exact round trips for every
// non-negative integer.
func FuzzDecimalBig(f *testing.F) {
	for _, b := range [][]byte{{}, {1}, {0x0f, 0x42, 0x40}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := new(big.Int).SetBytes(b)
		d := DecimalBig(v)
		back, err := Exact(d)
		if err != nil {
			t.Fatalf("Exact(DecimalBig(%s)): %v", v, err)
		}
		if back.Cmp(v) != 0 {
			t.Fatalf("round trip %s -> %s -> %s", v, d, back)
		}
		neg := new(big.Int).Neg(v)
		if v.Sign() > 0 {
			if _, err := Exact(DecimalBig(neg)); err == nil {
				t.Fatalf("negative %s accepted", neg)
			}
		}
	})
}

// Round: amounts the venue reported (formerly the order path's toMicro).

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

func TestRound(t *testing.T) {
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
			got, err := Round(decimal.RequireFromString(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Round(%s) = %d, want an error", tt.in, got)
				}
				if !venue.Is(err, venue.Internal) {
					t.Fatalf("error kind %v", venue.CategoryOf(err))
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Round(%s) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
	// Decoding caps exponents at ±10000, but a constructed decimal has
	// any exponent: the old Mul panicked on the largest one.
	if _, err := Round(decimal.New(1, math.MaxInt32)); err == nil {
		t.Error("1e2147483647 converted")
	}
	if v, err := Round(decimal.New(123, math.MinInt32)); err != nil || v != 0 {
		t.Errorf("123e-2147483648 = %d, %v", v, err)
	}
}

// FuzzRound checks the conversion of venue amounts against exact
// rational arithmetic: no panic; every result is d·10^6 rounded half away
// from zero; an error exactly when that does not fit int64; six-decimal
// amounts convert exactly and back.
func FuzzRound(f *testing.F) {
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
		got, err := Round(d)
		// Decoding caps exponents at ±10000: the exact reference is cheap.
		want := refMicro(d)
		if !want.IsInt64() {
			if err == nil {
				t.Fatalf("Round(%s) = %d, want an overflow error (exact %s)", s, got, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("Round(%s): %v, want %s", s, err, want)
		}
		if got != want.Int64() {
			t.Fatalf("Round(%s) = %d, want %s", s, got, want)
		}
		if d.Mul(decimal.New(1, 6)).IsInteger() && !decimal.New(got, -6).Equal(d) {
			t.Fatalf("six-decimal %s round-trips to %s", s, decimal.New(got, -6))
		}
	})
}

// FuzzRoundMonotonic checks that a larger amount never converts to fewer
// micro-units, and that every int64 of micro-units converts back to itself.
func FuzzRoundMonotonic(f *testing.F) {
	f.Add(int64(0), int8(-6), int64(1), int8(-7))
	f.Add(int64(5), int8(-7), int64(4), int8(-7))
	f.Add(int64(math.MaxInt64), int8(-6), int64(-math.MaxInt64), int8(-6))
	f.Add(int64(9223372036854775807), int8(-5), int64(1), int8(13))
	f.Fuzz(func(t *testing.T, ca int64, ea int8, cb int64, eb int8) {
		a, b := decimal.New(ca, int32(ea)), decimal.New(cb, int32(eb))
		if a.GreaterThan(b) {
			a, b = b, a
		}
		ma, errA := Round(a)
		mb, errB := Round(b)
		if errA == nil && errB == nil && ma > mb {
			t.Fatalf("%s < %s but Round gives %d > %d", a, b, ma, mb)
		}
		for _, v := range []int64{ca, cb} {
			back, err := Round(decimal.New(v, -6))
			if err != nil || back != v {
				t.Fatalf("Round(%d micro) = %d, %v", v, back, err)
			}
		}
	})
}

// RoundUint64, String, ParseExact: the sandbox's control inputs and the
// CLOB's wire form (formerly exchange.DecimalMicro, Micro, ParseMicro).

// refRoundUint64 is RoundUint64's contract in exact rationals: d·10^6
// rounded half away from zero, negatives clamped to 0, values beyond
// uint64 capped at MaxUint64.
func refRoundUint64(d decimal.Decimal) uint64 {
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

// FuzzRoundUint64 checks the control API's decimal → micro-unit
// conversion against exact arithmetic on any decodable decimal (decoding
// caps exponents at ±10000), and that six-decimal amounts survive the round
// trip through the CLOB's wire form (Micro, ParseExact).
func FuzzRoundUint64(f *testing.F) {
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
		got := RoundUint64(d)
		if want := refRoundUint64(d); got != want {
			t.Fatalf("RoundUint64(%s) = %d, want %d", s, got, want)
		}
		if d.IsNegative() || !d.Shift(6).IsInteger() || got == math.MaxUint64 || got > math.MaxInt64 {
			return
		}
		// Exact six-decimal amount in the range Micro prints.
		wire := String(got)
		if back, ok := ParseExact(wire); !ok || back != got {
			t.Fatalf("ParseExact(String(%d)) = %d, %v", got, back, ok)
		}
		if !decimal.RequireFromString(wire).Equal(d) {
			t.Fatalf("%s → %d → %s", s, got, wire)
		}
	})
}

// FuzzRoundUint64Monotonic checks that a larger decimal never gives fewer
// micro-units and that every micro-unit amount converts back to itself.
func FuzzRoundUint64Monotonic(f *testing.F) {
	f.Add(int64(1), int8(-7), int64(4), int8(-7), uint64(0))
	f.Add(int64(-5), int8(0), int64(5), int8(-7), uint64(1))
	f.Add(int64(math.MaxInt64), int8(0), int64(math.MaxInt64), int8(1), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, ca int64, ea int8, cb int64, eb int8, u uint64) {
		a, b := decimal.New(ca, int32(ea)), decimal.New(cb, int32(eb))
		if a.GreaterThan(b) {
			a, b = b, a
		}
		if ma, mb := RoundUint64(a), RoundUint64(b); ma > mb {
			t.Fatalf("%s < %s but RoundUint64 gives %d > %d", a, b, ma, mb)
		}
		if back := RoundUint64(decimal.NewFromBigInt(new(big.Int).SetUint64(u), -6)); back != u {
			t.Fatalf("RoundUint64(%d micro) = %d", u, back)
		}
	})
}

func TestString(t *testing.T) {
	for in, want := range map[uint64]string{0: "0", 520_000: "0.52", 100 * PerUnit: "100", 1: "0.000001"} {
		assert.Equal(t, want, String(in))
		back, ok := ParseExact(want)
		assert.True(t, ok)
		assert.Equal(t, in, back)
	}
	_, ok := ParseExact("0.0000001")
	assert.False(t, ok)
	_, ok = ParseExact("-1")
	assert.False(t, ok)
}

// TruncateBig: order legs (formerly clob's toUnits).

// ratUnits is x·10^6 as an exact rational.
func ratUnits(x decimal.Decimal) *big.Rat {
	return new(big.Rat).Mul(x.Rat(), big.NewRat(1_000_000, 1))
}

// FuzzTruncateBig: TruncateBig is x·10^6 truncated toward zero; every amount with
// at most six decimals converts exactly and back; larger amounts never give
// fewer units.
func FuzzTruncateBig(f *testing.F) {
	f.Add(int64(0), int16(0), int64(1), int16(-6))
	f.Add(int64(123456789), int16(-9), int64(123456), int16(-6))
	f.Add(int64(-15), int16(-7), int64(9223372036854775807), int16(30))
	f.Add(int64(5), int16(-32768), int64(1), int16(32767))
	f.Fuzz(func(t *testing.T, ca int64, ea int16, cb int64, eb int16) {
		a, b := decimal.New(ca, int32(ea)), decimal.New(cb, int32(eb))
		for _, x := range []decimal.Decimal{a, b} {
			got := TruncateBig(x)
			r := ratUnits(x)
			want := new(big.Int).Quo(r.Num(), r.Denom()) // truncates toward zero
			if got.Cmp(want) != 0 {
				t.Fatalf("TruncateBig(%s) = %s, want %s", x, got, want)
			}
			if x.Shift(Decimals).IsInteger() && !decimal.NewFromBigInt(got, -Decimals).Equal(x) {
				t.Fatalf("six-decimal %s round-trips to %s", x, decimal.NewFromBigInt(got, -Decimals))
			}
		}
		if a.Sign() >= 0 && b.Sign() >= 0 {
			if a.GreaterThan(b) {
				a, b = b, a
			}
			if TruncateBig(a).Cmp(TruncateBig(b)) > 0 {
				t.Fatalf("%s < %s but TruncateBig gives %s > %s", a, b, TruncateBig(a), TruncateBig(b))
			}
		}
	})
}

// The remaining rules, each on the cases that tell it from the others.
func TestRules(t *testing.T) {
	d := decimal.RequireFromString
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{"Truncate drops a fraction", Truncate(d("0.5555559")), 555_555},
		{"Truncate toward zero", Truncate(d("-0.0000019")), -1},
		{"Ceil rounds a cost up", Ceil(d("0.5555551")), 555_556},
		{"Ceil of an exact amount", Ceil(d("12.5")), 12_500_000},
		{"Nearest rounds half away", Nearest(d("0.0000005")), 1},
		{"Nearest negative", Nearest(d("-0.0000005")), -1},
		{"Mul price by size", Mul(550_000, 10_000_000), 5_500_000},
		{"Mul rounds half away", Mul(500_001, 1), 1},
		{"Div average price", Div(5_500_000, 10_000_000), 550_000},
		{"Div rounds", Div(1, 3_000_000), 0},
		{"Div rounds half up", Div(1_500_000, 3_000_000), 500_000},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if Decimal(-2_500_000).String() != "-2.5" || String(550_000) != "0.55" || String(math.MaxUint64) != String(math.MaxInt64) {
		t.Error("formatting")
	}
	if PerUnit != 1_000_000 || !perUnit.Equal(decimal.New(1, Decimals)) {
		t.Error("scale")
	}
}
