package chain

import (
	"errors"
	"math/big"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
)

func TestToMicro(t *testing.T) {
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
			got, err := ToMicro(decimal.RequireFromString(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ToMicro(%s) = %s, want error", tt.in, got)
				}
				if !venue.Is(err, venue.Invalid) {
					t.Fatalf("error kind = %v, want invalid", venue.CategoryOf(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("ToMicro(%s): %v", tt.in, err)
			}
			if got.String() != tt.want {
				t.Fatalf("ToMicro(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestToMicroInt64Overflow(t *testing.T) {
	if _, err := ToMicroInt64(decimal.RequireFromString("9223372036854.775807")); err != nil {
		t.Fatalf("max int64 rejected: %v", err)
	}
	if _, err := ToMicroInt64(decimal.RequireFromString("9223372036854.775808")); err == nil {
		t.Fatal("int64 overflow accepted")
	}
}

func TestFromMicro(t *testing.T) {
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
		if got := FromMicro(tt.in); got.String() != tt.want {
			t.Errorf("FromMicro(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := FromMicroInt64(7); got.String() != "0.000007" {
		t.Errorf("FromMicroInt64(7) = %s", got)
	}
}

// FuzzToMicro checks that every accepted amount converts back to the same
// value and that nothing panics on arbitrary input. The seed corpus runs in
// every normal `go test`.
func FuzzToMicro(f *testing.F) {
	for _, s := range []string{"0", "1", "0.000001", "0.0000001", "-3", "1e-7", "1e30", "123.456789", "99999999999.999999", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil || d.Exponent() < -1000 {
			return // not a number, or one whose expansion is uselessly huge
		}
		m, err := ToMicro(d)
		if err != nil {
			if !venue.Is(err, venue.Invalid) {
				t.Fatalf("ToMicro(%s) error of kind %v", s, venue.CategoryOf(err))
			}
			if !d.IsNegative() && d.Exponent() <= maxExponent && d.Mul(microPerUnit).IsInteger() {
				t.Fatalf("ToMicro(%s) rejected a valid amount: %v", s, err)
			}
			return
		}
		if m.Sign() < 0 {
			t.Fatalf("ToMicro(%s) = %s is negative", s, m)
		}
		if back := FromMicro(m); !back.Equal(d) {
			t.Fatalf("round trip %s -> %s -> %s", s, m, back)
		}
	})
}

// FuzzFromMicro checks FromMicro/ToMicro round trips for every
// non-negative integer.
func FuzzFromMicro(f *testing.F) {
	for _, b := range [][]byte{{}, {1}, {0x0f, 0x42, 0x40}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := new(big.Int).SetBytes(b)
		d := FromMicro(v)
		back, err := ToMicro(d)
		if err != nil {
			t.Fatalf("ToMicro(FromMicro(%s)): %v", v, err)
		}
		if back.Cmp(v) != 0 {
			t.Fatalf("round trip %s -> %s -> %s", v, d, back)
		}
		neg := new(big.Int).Neg(v)
		if v.Sign() > 0 {
			if _, err := ToMicro(FromMicro(neg)); err == nil {
				t.Fatalf("negative %s accepted", neg)
			}
		}
	})
}

func TestRedactURL(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://polygon-mainnet.example.com/v2/SECRETKEY?x=1", Err: errors.New("dial tcp: connection refused")}
	got := classifyRPC(err, "call")
	if strings.Contains(got.Error(), "SECRETKEY") {
		t.Fatalf("error leaks the RPC key: %v", got)
	}
	if !venue.Is(got, venue.Unavailable) {
		t.Fatalf("kind %v", venue.CategoryOf(got))
	}
}
