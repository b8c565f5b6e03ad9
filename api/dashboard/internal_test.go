package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
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

func TestStrategyChartLayout(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(100 * time.Minute)
	d := decimal.RequireFromString
	price := func(m int, p string) clob.PricePoint {
		return clob.PricePoint{Time: t0.Add(time.Duration(m) * time.Minute), Price: d(p)}
	}
	execs := []strategies.Execution{
		{Time: t0.Add(25 * time.Minute), Kind: strategies.KindAction, Side: "BUY", Price: d("0.5"), Size: d("5"), OrderStatus: "FILLED"},
		{Time: t0.Add(50 * time.Minute), Kind: strategies.KindAction, Side: "SELL", Price: d("0.75"), Size: d("5"), OrderStatus: "OPEN"},
		{Time: t0.Add(75 * time.Minute), Kind: strategies.KindSkip, Reason: "price above the limit"},
		{Time: t0.Add(90 * time.Minute), Kind: strategies.KindError, Reason: "venue down"},
		{Time: t0.Add(-time.Minute), Kind: strategies.KindSkip}, // before the span: left out
	}
	for _, tc := range []struct {
		name   string
		prices []clob.PricePoint
		line   string
		label  string
	}{
		// Wide box: x 64..708 over 100 min, y 212 (0) .. 12 (1).
		{"samples", []clob.PricePoint{price(0, "0.25"), price(50, "0.5"), price(-5, "0.9")}, "M64.0 162.0 L386.0 112.0 L708.0 112.0", "0.50"},
		{"one sample runs on to the end", []clob.PricePoint{price(100, "0.75")}, "M708.0 62.0 L708.0 62.0", "0.75"},
		{"no prices: marks only", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := layoutStrategyChart(tc.prices, execs, t0, t1, &strategyChart{chartBox: wideBox})
			if c.Line != tc.line || c.PriceLabel != tc.label {
				t.Errorf("line %q label %q", c.Line, c.PriceLabel)
			}
			var kinds []string
			for _, m := range c.Marks {
				kinds = append(kinds, m.Kind)
			}
			if strings.Join(kinds, " ") != "buy sell skipped error" {
				t.Errorf("marks %v", kinds)
			}
			buy, sell := c.Marks[0], c.Marks[1]
			if buy.X != "225.0" || buy.Y != "112.0" || buy.Path != "M225.0 105.0 L219.0 117.0 L231.0 117.0 Z" {
				t.Errorf("buy %+v", buy)
			}
			if sell.Path != "M386.0 69.0 L380.0 57.0 L392.0 57.0 Z" || !strings.Contains(sell.Label, "SELL 5 at 0.75, open") {
				t.Errorf("sell %+v", sell)
			}
			if !strings.Contains(c.Marks[3].Label, "error: venue down") {
				t.Errorf("error %+v", c.Marks[3])
			}
		})
	}
}
