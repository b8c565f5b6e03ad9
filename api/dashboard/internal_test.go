package dashboard

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/agents"
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
		var fe fieldErrors
		got := amountField(&fe, "fixed_limit", "The fixed limit", tt.in)
		err := fe.err()
		switch {
		case tt.want == -2 && (err == nil || fe.fields["fixed_limit"] == ""):
			t.Errorf("amountField(%q) = %v, want an error on the field", tt.in, got)
		case tt.want == -2 && !strings.HasPrefix(fe.fields["fixed_limit"], "The fixed limit must be an amount in USDC"):
			t.Errorf("amountField(%q) says %q, not in the form's words", tt.in, fe.fields["fixed_limit"])
		case tt.want == -1 && (err != nil || got != nil):
			t.Errorf("amountField(%q) = %v, %v, want unset", tt.in, got, err)
		case tt.want >= 0 && (err != nil || got == nil || *got != tt.want):
			t.Errorf("amountField(%q) = %v, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	pct := []struct {
		in   string
		want int32
	}{{"", -1}, {"25", 2500}, {"12.5%", 1250}, {"0.01", 1}, {"100", 10000}, {"0.001", -2}, {"0", -2}, {"100.01", -2}, {"x", -2}}
	for _, tt := range pct {
		var fe fieldErrors
		got := percentField(&fe, tt.in)
		err := fe.err()
		switch {
		case tt.want == -2 && fe.fields["budget_percent"] == "":
			t.Errorf("percentField(%q) = %v, want an error on the field", tt.in, got)
		case tt.want == -1 && (err != nil || got != nil):
			t.Errorf("percentField(%q) = %v, %v, want unset", tt.in, got, err)
		case tt.want >= 0 && (err != nil || got == nil || *got != tt.want):
			t.Errorf("percentField(%q) = %v, %v, want %d", tt.in, got, err, tt.want)
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

func TestNiceTicks(t *testing.T) {
	d := decimal.RequireFromString
	for _, tt := range []struct {
		lo, hi string
		want   string
	}{
		{"0", "0.37", "0 0.1 0.2 0.3 0.4"},
		{"-12.3", "45.6", "-20 0 20 40 60"},
		{"0.48", "0.6", "0.45 0.5 0.55 0.6"},
		{"-1", "3", "-1 0 1 2 3"},
		{"0", "0", "0 0.25 0.5 0.75 1"},
	} {
		var got []string
		for _, v := range niceTicks(d(tt.lo), d(tt.hi), 4) {
			got = append(got, v.String())
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("niceTicks(%s, %s) = %v, want %s", tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestChartLayout: the realized P&L is drawn as the steps it took (flat
// between fills, from zero before the first), to the chart's end; "now
// with the open positions" is a dot of its own, not a slope to it; the
// axis ticks are round amounts.
func TestChartLayout(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if newChart(nil, t0, nil) != nil {
		t.Fatal("a chart of nothing")
	}
	series := []stats.Point{
		{Time: t0, Realized: decimal.RequireFromString("-1")},
		{Time: t0.Add(time.Hour), Realized: decimal.RequireFromString("3")},
		{Time: t0.Add(2 * time.Hour), Realized: decimal.RequireFromString("2")},
	}
	now := decimal.RequireFromString("2.5")
	c := newChart(series, t0.Add(3*time.Hour), &now)
	// x: 9 minutes before the first fill to the end (189 min) over
	// 64..708; y: -1..3 over 212..12.
	if c.Line != "M64.0 162.0 H94.7 V212.0 H299.1 V12.0 H503.6 V62.0 H708.0" {
		t.Errorf("line %q", c.Line)
	}
	if strings.Contains(c.Line, "L") {
		t.Errorf("the line slants: %q", c.Line)
	}
	if c.NowY != "37.0" || c.NowLabel != "+$2.50" || c.LastX != "708.0" {
		t.Errorf("now %q %q at %q", c.NowY, c.NowLabel, c.LastX)
	}
	var labels []string
	for _, tk := range c.Ticks {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, " ") != "−$1.00 $0.00 $1.00 $2.00 $3.00" {
		t.Errorf("ticks %v", labels)
	}
	if c.MinLabel != "−$1.00" || c.MaxLabel != "$3.00" || c.FirstLabel != "23:51:00" || c.LastLabel != "03:00:00 UTC" {
		t.Errorf("labels %+v", c)
	}
	one := newNarrowChart(series[:1], t0.Add(10*time.Minute), nil)
	if one == nil || one.Class != "chart-narrow" || one.LastX != "350.0" || one.NowY != "" {
		t.Errorf("one point: %+v", one)
	}
}

// TestStrategyChartLayout: the price axis is scaled to the prices, the
// executions and the thresholds (not 0 to 1); the thresholds are bands;
// a filled execution sits at its fill price; skips and errors sit on a
// track below the plot; the line holds its last sample to the end.
func TestStrategyChartLayout(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(100 * time.Minute)
	d := decimal.RequireFromString
	price := func(m int, p string) clob.PricePoint {
		return clob.PricePoint{Time: t0.Add(time.Duration(m) * time.Minute), Price: d(p)}
	}
	execs := []strategies.Execution{
		{Time: t0.Add(25 * time.Minute), Kind: strategies.KindAction, Side: "BUY", Price: d("0.53"), Size: d("5"), OrderStatus: "FILLED", OrderID: "ord_a"},
		{Time: t0.Add(50 * time.Minute), Kind: strategies.KindAction, Side: "SELL", Price: d("0.58"), Size: d("5"), OrderStatus: "OPEN", OrderID: "ord_b"},
		{Time: t0.Add(75 * time.Minute), Kind: strategies.KindSkip, Reason: "price above the limit"},
		{Time: t0.Add(90 * time.Minute), Kind: strategies.KindError, Reason: "venue down"},
		{Time: t0.Add(-time.Minute), Kind: strategies.KindSkip}, // before the span: left out
	}
	cfg := json.RawMessage(`{"tokenId":"1","buyBelow":0.52,"sellAbove":"0.57","sizePerTrade":5}`)
	ths := thresholds(strategies.TypeBuyLowSellHigh, cfg)
	fills := map[string]decimal.Decimal{"ord_a": d("0.52")}
	c := layoutStrategyChart([]clob.PricePoint{price(0, "0.50"), price(50, "0.54"), price(-5, "0.9")}, execs, ths, fills, t0, t1,
		&strategyChart{chartBox: wideBox})
	var labels []string
	for _, tk := range c.Ticks {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, " ") != "45¢ 50¢ 55¢ 60¢" {
		t.Errorf("ticks %v", labels)
	}
	// y: 0.45..0.60 over 196..12 (the track takes the bottom 16 px).
	if c.Line != "M64.0 134.7 L386.0 85.6 H708.0" || c.PriceLabel != "54¢" {
		t.Errorf("line %q label %q", c.Line, c.PriceLabel)
	}
	if len(c.Bands) != 2 || c.Bands[0].Kind != "buy" || c.Bands[0].Y != "110.1" || c.Bands[0].Height != "85.9" ||
		c.Bands[1].Kind != "sell" || c.Bands[1].Y != "12.0" || c.Bands[1].Height != "36.8" {
		t.Errorf("bands %+v", c.Bands)
	}
	var kinds []string
	for _, m := range c.Marks {
		kinds = append(kinds, m.Kind)
	}
	if strings.Join(kinds, " ") != "buy sell skipped error" {
		t.Fatalf("marks %v", kinds)
	}
	buy, sell, skip, failed := c.Marks[0], c.Marks[1], c.Marks[2], c.Marks[3]
	if buy.Y != "110.1" || !strings.Contains(buy.Label, "filled at 52¢ (limit 53¢)") {
		t.Errorf("the buy is not at its fill price: %+v", buy)
	}
	if sell.Y != "36.5" || !strings.Contains(sell.Label, "SELL 5 at 58¢, open") {
		t.Errorf("sell %+v", sell)
	}
	if skip.Y != "204" || failed.Y != "204" || c.TrackY != "204" || !strings.Contains(failed.Label, "error: venue down") {
		t.Errorf("skips and errors not on their track: %+v %+v", skip, failed)
	}
	empty := layoutStrategyChart(nil, nil, nil, nil, t0, t1, &strategyChart{chartBox: wideBox})
	if empty.Line != "" || len(empty.Ticks) != 5 {
		t.Errorf("no data: line %q ticks %v", empty.Line, empty.Ticks)
	}
}

// TestHeartbeatWarnings: never is a warning for an active agent, and a
// heartbeat more than an interval (and a minute) past its due check is
// late; an agent outside its active hours is not, nor a paused one.
func TestHeartbeatWarnings(t *testing.T) {
	at := func(d time.Duration) *time.Time { v := time.Now().Add(-d); return &v }
	minute := agents.Heartbeat{IntervalMs: 60_000}
	if h := heartbeatOf(nil, minute, "active"); !h.Warn || h.Text != "never" {
		t.Errorf("never: %+v", h)
	}
	if h := heartbeatOf(nil, minute, "paused"); h.Warn {
		t.Errorf("a paused agent never checked in: %+v", h)
	}
	if h := heartbeatOf(at(90*time.Second), minute, "active"); h.Warn {
		t.Errorf("on time: %+v", h)
	}
	if h := heartbeatOf(at(4*time.Minute), minute, "active"); !h.Warn || !strings.Contains(h.Note, "every 1 min") {
		t.Errorf("late: %+v", h)
	}
	// Active only in an hour that is not now: the next check is the
	// window's next opening, which is ahead.
	hour := (time.Now().UTC().Hour() + 2) % 24
	asleep := agents.Heartbeat{IntervalMs: 60_000, ActiveHours: &agents.ActiveHours{
		Start: fmt.Sprintf("%02d:00", hour), End: fmt.Sprintf("%02d:30", hour), Timezone: "UTC"}}
	if h := heartbeatOf(at(4*time.Minute), asleep, "active"); h.Warn {
		t.Errorf("outside its active hours: %+v", h)
	}
}

// TestExpiry: an ended strategy says it ended, whatever its expiry was
// set to; a running one counts down, or never expires.
func TestExpiry(t *testing.T) {
	soon := time.Now().Add(23*time.Hour + 30*time.Minute)
	for _, tc := range []struct {
		status string
		at     *time.Time
		want   string
	}{
		{strategies.StatusActive, &soon, "in 23 h"},
		{strategies.StatusPaused, nil, "never"},
		{strategies.StatusCancelled, &soon, "ended"},
		{strategies.StatusCompleted, &soon, "ended"},
		{strategies.StatusCompleted, nil, "ended"},
	} {
		if got := expiry(tc.status, tc.at); got != tc.want {
			t.Errorf("expiry(%s, %v) = %q, want %q", tc.status, tc.at, got, tc.want)
		}
	}
}
