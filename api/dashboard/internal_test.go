package dashboard

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/stats"
)

func TestParseBudgetFields(t *testing.T) {
	micro := []struct {
		in   string
		want int64 // -1 = unset, -2 = error
	}{
		{"", -1}, {"  ", -1}, {"5", 5_000_000}, {"1,250.5", 1_250_500_000}, {"0.000001", 1},
		{"0.0000001", -2}, {"0", -2}, {"-3", -2}, {"abc", -2}, {"1000000001", -2}, {"1000000000", 1_000_000_000_000_000},
	}
	for _, tt := range micro {
		got, err := parseMicro("x", tt.in)
		switch {
		case tt.want == -2 && err == nil:
			t.Errorf("parseMicro(%q) = %v, want an error", tt.in, *got)
		case tt.want == -1 && (err != nil || got != nil):
			t.Errorf("parseMicro(%q) = %v, %v, want unset", tt.in, got, err)
		case tt.want >= 0 && (err != nil || got == nil || *got != tt.want):
			t.Errorf("parseMicro(%q) = %v, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	pct := []struct {
		in   string
		want int32
	}{{"", -1}, {"25", 2500}, {"12.5%", 1250}, {"0.01", 1}, {"100", 10000}, {"0.001", -2}, {"0", -2}, {"100.01", -2}, {"x", -2}}
	for _, tt := range pct {
		got, err := parsePercent(tt.in)
		switch {
		case tt.want == -2 && err == nil:
			t.Errorf("parsePercent(%q) = %v, want an error", tt.in, *got)
		case tt.want == -1 && (err != nil || got != nil):
			t.Errorf("parsePercent(%q) = %v, %v, want unset", tt.in, got, err)
		case tt.want >= 0 && (err != nil || got == nil || *got != tt.want):
			t.Errorf("parsePercent(%q) = %v, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "$0.00"}, {"1234567.891", "$1,234,567.89"}, {"-12.5", "−$12.50"}, {"999.999", "$1,000.00"},
	}
	for _, tt := range tests {
		if got := usd(decimal.RequireFromString(tt.in)); got != tt.want {
			t.Errorf("usd(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := signedUSD(decimal.RequireFromString("2")); got != "+$2.00" {
		t.Errorf("signedUSD = %q", got)
	}
}

func TestChartLayout(t *testing.T) {
	if newChart(nil) != nil {
		t.Fatal("a chart of nothing")
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	series := []stats.Point{
		{Time: t0, Realized: decimal.RequireFromString("-1")},
		{Time: t0.Add(time.Hour), Realized: decimal.RequireFromString("3")},
		{Time: t0.Add(2 * time.Hour), Realized: decimal.RequireFromString("2")},
	}
	c := newChart(series)
	// y range -1.4..3.4 (10% headroom) over pixels 212..12.
	if c.Line != "M64.0 195.3 L386.0 28.7 L708.0 70.3" {
		t.Errorf("line %q", c.Line)
	}
	if c.MinLabel != "−$1.00" || c.MaxLabel != "$3.00" || c.NowLabel != "+$2.00" || c.FirstLabel != "00:00:00" || c.LastLabel != "02:00:00" {
		t.Errorf("labels %+v", c)
	}
	if len(c.Ticks) != 5 {
		t.Errorf("ticks %v", c.Ticks)
	}
	one := newNarrowChart(series[:1])
	if one == nil || one.Class != "chart-narrow" || one.LastX != "350.0" {
		t.Errorf("one point: %+v", one)
	}
}
