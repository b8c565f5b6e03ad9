package dashboard

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// chart is the P&L line drawn as inline SVG on the server: coordinates
// are computed here, the template only places them.
type chart struct {
	chartBox
	Line, Area            string
	LastX                 string
	ZeroY                 string
	Ticks                 []tick
	FirstLabel, LastLabel string
	MinLabel, MaxLabel    string
	// NowY and NowLabel place "now, with the open positions at market":
	// a dot of its own at the chart's end, not a point of the line.
	NowY, NowLabel string
}

type tick struct {
	Y     string
	Label string
}

// chartBox is a chart's drawing area: the SVG's size and the plot's edges
// inside it. Each chart is drawn twice, wide and narrow; CSS shows the one
// that fits the screen.
type chartBox struct {
	Class                          string
	W, H, Left, Right, Top, Bottom int
}

var (
	wideBox = chartBox{Class: "chart-wide", W: 720, H: 240, Left: 64, Right: 708, Top: 12, Bottom: 212}
	// narrowBox is for a phone: fewer pixels, so the same type size stays
	// legible.
	narrowBox = chartBox{Class: "chart-narrow", W: 360, H: 220, Left: 58, Right: 350, Top: 12, Bottom: 192}
)

// PlotW is the plot's width.
func (b chartBox) PlotW() int { return b.Right - b.Left }

// timeX maps times in [t0, t1] to the box's x range.
func (b chartBox) timeX(t0, t1 time.Time) func(time.Time) float64 {
	return func(t time.Time) float64 {
		return float64(b.Left) + float64(b.Right-b.Left)*float64(t.Sub(t0))/float64(t1.Sub(t0))
	}
}

// valueY maps values in [lo, hi] to the box's y range (up is more).
func (b chartBox) valueY(lo, hi decimal.Decimal) func(decimal.Decimal) float64 {
	return func(v decimal.Decimal) float64 {
		f, _ := v.Sub(lo).Div(hi.Sub(lo)).Float64()
		return float64(b.Bottom) - f*float64(b.Bottom-b.Top)
	}
}

// timeLabels labels the ends of the time axis, with seconds when the span
// is short. They are UTC, and say so: an SVG's text is not the page's
// <time>.
func timeLabels(t0, t1 time.Time) (string, string) {
	layout := "Jan 2 15:04"
	if t1.Sub(t0) < 6*time.Hour {
		layout = "15:04:05"
	}
	return t0.UTC().Format(layout), t1.UTC().Format(layout) + " UTC"
}

// niceTicks picks the axis ticks for values in [lo, hi]: about n steps of
// 1, 2, 2.5 or 5 times a power of ten, from a multiple of the step at or
// below lo to one at or above hi. Amounts stay decimals; only the step's
// size is found with floats.
func niceTicks(lo, hi decimal.Decimal, n int) []decimal.Decimal {
	if !hi.GreaterThan(lo) {
		hi = lo.Add(decimal.NewFromInt(1))
	}
	raw, _ := hi.Sub(lo).Div(decimal.NewFromInt(int64(n))).Float64()
	exp := int32(math.Floor(math.Log10(raw)))
	var step decimal.Decimal
	for _, m := range []int64{10, 20, 25, 50, 100} {
		step = decimal.New(m, exp-1)
		if f, _ := step.Float64(); f >= raw*0.999 {
			break
		}
	}
	first := lo.Div(step).Floor().Mul(step)
	last := hi.Div(step).Ceil().Mul(step)
	var out []decimal.Decimal
	for v := first; !v.GreaterThan(last) && len(out) < 4*n; v = v.Add(step) {
		out = append(out, v)
	}
	return out
}

// newChart lays out the realized P&L series for a wide screen, up to end,
// with now (when not nil) as a dot at the end; nil when there is nothing
// to draw.
func newChart(series []stats.Point, end time.Time, now *decimal.Decimal) *chart {
	return layoutChart(series, end, now, &chart{chartBox: wideBox})
}

// newNarrowChart lays the series out for a phone.
func newNarrowChart(series []stats.Point, end time.Time, now *decimal.Decimal) *chart {
	return layoutChart(series, end, now, &chart{chartBox: narrowBox})
}

// layoutChart draws the realized P&L as the steps it really took: flat
// between fills, a vertical step at each (no line slants between two
// fills as if P&L had accrued in between), from zero before the first
// fill to the chart's end.
func layoutChart(series []stats.Point, end time.Time, now *decimal.Decimal, c *chart) *chart {
	if len(series) == 0 && now == nil {
		return nil
	}
	t1 := end
	first := t1.Add(-time.Hour)
	if len(series) > 0 {
		first = series[0].Time
		if last := series[len(series)-1].Time; !t1.After(last) {
			t1 = last.Add(time.Minute)
		}
	}
	// A little room before the first fill, so its step from zero shows.
	t0 := first.Add(-max(t1.Sub(first)/20, time.Minute))
	lo, hi := decimal.Zero, decimal.Zero
	for _, p := range series {
		lo, hi = decimal.Min(lo, p.Realized), decimal.Max(hi, p.Realized)
	}
	if now != nil {
		lo, hi = decimal.Min(lo, *now), decimal.Max(hi, *now)
	}
	ticks := niceTicks(lo, hi, 4)
	lo, hi = ticks[0], ticks[len(ticks)-1]
	// Only the layout uses floats; amounts stay decimals.
	x, y := c.timeX(t0, t1), c.valueY(lo, hi)
	var line strings.Builder
	fmt.Fprintf(&line, "M%.1f %.1f", x(t0), y(decimal.Zero))
	for _, p := range series {
		fmt.Fprintf(&line, " H%.1f V%.1f", x(p.Time), y(p.Realized))
	}
	fmt.Fprintf(&line, " H%.1f", x(t1))
	zero := y(decimal.Zero)
	c.Line = line.String()
	c.Area = fmt.Sprintf("%s V%.1f H%.1f Z", c.Line, zero, x(t0))
	c.LastX, c.ZeroY = fmt.Sprintf("%.1f", x(t1)), fmt.Sprintf("%.1f", zero)
	for _, v := range ticks {
		c.Ticks = append(c.Ticks, tick{Y: fmt.Sprintf("%.1f", y(v)), Label: usd(v)})
	}
	minV, maxV := decimal.Zero, decimal.Zero
	for _, p := range series {
		minV, maxV = decimal.Min(minV, p.Realized), decimal.Max(maxV, p.Realized)
	}
	c.FirstLabel, c.LastLabel = timeLabels(t0, t1)
	c.MinLabel, c.MaxLabel = usd(minV), usd(maxV)
	if now != nil {
		c.NowY, c.NowLabel = fmt.Sprintf("%.1f", y(*now)), signedUSD(*now)
	}
	return c
}

// strategyChart is a strategy's token price over time (the line) with its
// executions on it (the marks), its price thresholds as bands, and its
// skips and errors on a track of their own below the plot.
type strategyChart struct {
	chartBox
	Line string
	// PriceLabel is the latest price.
	PriceLabel            string
	Ticks                 []tick
	Bands                 []band
	Marks                 []mark
	TrackY                string
	FirstLabel, LastLabel string
	Summary               string
	// Simulated: the executions are a backtest's, drawn hollow and named
	// as simulated so they never read as live ones.
	Simulated bool
}

// band is a price range the strategy acts in (buy below, sell above, the
// trigger's side), drawn behind the line.
type band struct {
	Kind, Label string
	Y, Height   string
	EdgeY       string
}

// mark is one execution on the chart: Kind is buy, sell, skipped or error
// (its CSS class and shape); Label is its tooltip and accessible name.
type mark struct {
	Kind, Label string
	X, Y        string
	// Path is the marker's outline (a triangle up for a buy, down for a
	// sell); circles use X and Y.
	Path string
}

// trackHeight is the strip below the plot where skips and errors sit, so
// they never read as a price.
const trackHeight = 16

// threshold is one price level of a strategy's configuration and the side
// of it the strategy acts on.
type threshold struct {
	Price       decimal.Decimal
	Below       bool
	Kind, Label string
}

// thresholds reads the price levels of a strategy's configuration.
func thresholds(typ string, cfg json.RawMessage) []threshold {
	var c struct {
		Side             string          `json:"side"`
		TriggerCondition string          `json:"triggerCondition"`
		TriggerPrice     json.RawMessage `json:"triggerPrice"`
		PriceLimit       json.RawMessage `json:"priceLimit"`
		BuyBelow         json.RawMessage `json:"buyBelow"`
		SellAbove        json.RawMessage `json:"sellAbove"`
	}
	if json.Unmarshal(cfg, &c) != nil {
		return nil
	}
	dec := func(raw json.RawMessage) (decimal.Decimal, bool) {
		if len(raw) == 0 {
			return decimal.Decimal{}, false
		}
		d, err := decimal.NewFromString(strings.Trim(string(raw), `"`))
		return d, err == nil
	}
	var out []threshold
	switch typ {
	case strategies.TypeBuyLowSellHigh:
		if p, ok := dec(c.BuyBelow); ok {
			out = append(out, threshold{p, true, "buy", "buys at or below " + notify.Cents(p)})
		}
		if p, ok := dec(c.SellAbove); ok {
			out = append(out, threshold{p, false, "sell", "sells at or above " + notify.Cents(p)})
		}
	case strategies.TypePriceAlert:
		if p, ok := dec(c.TriggerPrice); ok {
			below := strings.HasSuffix(c.TriggerCondition, "LTE") || strings.HasSuffix(c.TriggerCondition, "LT") || strings.Contains(c.TriggerCondition, "BELOW")
			kind := "buy"
			if c.Side == "SELL" {
				kind = "sell"
			}
			word := "at or above "
			if below {
				word = "at or below "
			}
			out = append(out, threshold{p, below, kind, "triggers " + word + notify.Cents(p)})
		}
	case strategies.TypeRecurringBuy:
		if p, ok := dec(c.PriceLimit); ok {
			out = append(out, threshold{p, true, "buy", "buys only at or below " + notify.Cents(p)})
		}
	}
	return out
}

// layoutStrategyChart draws prices and executions between from and to.
// The price axis is scaled to what there is to see — the prices, the
// executions' prices and the strategy's thresholds — within 0 to 1, so a
// move of a few cents is visible; the thresholds are bands. An execution
// that traded sits at its fill price (fills, by order id), not its limit.
func layoutStrategyChart(prices []clob.PricePoint, execs []strategies.Execution, ths []threshold, fills map[string]decimal.Decimal,
	from, to time.Time, c *strategyChart) *strategyChart {
	one := decimal.NewFromInt(1)
	price := func(e strategies.Execution) (decimal.Decimal, bool) {
		if p, ok := fills[e.OrderID]; ok && e.OrderID != "" {
			return p, true
		}
		if c.Simulated && e.AvgFillPrice.IsPositive() {
			// A backtest's execution carries its simulated fill.
			return e.AvgFillPrice, true
		}
		return e.Price, false
	}
	var seen []decimal.Decimal
	for _, p := range prices {
		if !p.Time.Before(from) && !p.Time.After(to) {
			seen = append(seen, p.Price)
		}
	}
	for _, e := range execs {
		if e.Kind == strategies.KindAction && e.Side != "" && !e.Time.Before(from) && !e.Time.After(to) {
			p, _ := price(e)
			seen = append(seen, p)
		}
	}
	for _, t := range ths {
		seen = append(seen, t.Price)
	}
	lo, hi := decimal.Zero, one
	if len(seen) > 0 {
		lo, hi = seen[0], seen[0]
		for _, v := range seen {
			lo, hi = decimal.Min(lo, v), decimal.Max(hi, v)
		}
		// Headroom of a tenth of the range (at least two cents).
		pad := decimal.Max(hi.Sub(lo).Div(decimal.NewFromInt(10)), decimal.New(2, -2))
		lo, hi = decimal.Max(decimal.Zero, lo.Sub(pad)), decimal.Min(one, hi.Add(pad))
	}
	ticks := niceTicks(lo, hi, 4)
	lo, hi = decimal.Max(decimal.Zero, ticks[0]), decimal.Min(one, ticks[len(ticks)-1])
	// The plot ends above the skips-and-errors track.
	plot := c.chartBox
	plot.Bottom -= trackHeight
	x, y := plot.timeX(from, to), plot.valueY(lo, hi)
	for _, v := range ticks {
		if v.LessThan(lo) || v.GreaterThan(hi) {
			continue
		}
		c.Ticks = append(c.Ticks, tick{Y: fmt.Sprintf("%.1f", y(v)), Label: notify.Cents(v)})
	}
	for _, t := range ths {
		if (t.Below && t.Price.LessThan(lo)) || (!t.Below && t.Price.GreaterThan(hi)) {
			// The band lies wholly outside the axis: nothing to shade.
			continue
		}
		edge := decimal.Min(hi, decimal.Max(lo, t.Price))
		top, bottom := y(hi), y(edge)
		if t.Below {
			top, bottom = y(edge), y(lo)
		}
		c.Bands = append(c.Bands, band{Kind: t.Kind, Label: t.Label, Y: fmt.Sprintf("%.1f", top),
			Height: fmt.Sprintf("%.1f", bottom-top), EdgeY: fmt.Sprintf("%.1f", y(edge))})
	}
	var line strings.Builder
	n := 0
	var last clob.PricePoint
	for _, p := range prices {
		if p.Time.Before(from) || p.Time.After(to) {
			continue
		}
		cmd := "L"
		if n == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&line, "%s%.1f %.1f ", cmd, x(p.Time), y(p.Price))
		n, last = n+1, p
	}
	if n > 0 {
		// A sample holds until the next one: the line runs on, level, to
		// the chart's end, so even a single sample shows.
		fmt.Fprintf(&line, "H%.1f", x(to))
		c.PriceLabel = notify.Cents(last.Price)
	}
	c.Line = strings.TrimSpace(line.String())
	trackY := c.Bottom - trackHeight/2
	c.TrackY = fmt.Sprintf("%d", trackY)
	var buys, sells int
	for _, e := range execs {
		if e.Time.Before(from) || e.Time.After(to) {
			continue
		}
		mx := x(e.Time)
		m := mark{Kind: e.Kind, X: fmt.Sprintf("%.1f", mx)}
		at := e.Time.UTC().Format("Jan 2 15:04:05 UTC")
		if c.Simulated {
			at = "Simulated " + at
		}
		switch {
		case e.Kind == strategies.KindAction && e.Side != "":
			p, filled := price(e)
			my := y(p)
			m.Kind, m.Y = strings.ToLower(e.Side), fmt.Sprintf("%.1f", my)
			dir := 1.0 // a buy points up, a sell down
			if e.Side == "SELL" {
				dir, sells = -1, sells+1
			} else {
				buys++
			}
			m.Path = fmt.Sprintf("M%.1f %.1f L%.1f %.1f L%.1f %.1f Z", mx, my-7*dir, mx-6, my+5*dir, mx+6, my+5*dir)
			if filled {
				m.Label = fmt.Sprintf("%s %s %s filled at %s (limit %s), %s", at, e.Side, e.Size.Round(4).String(),
					notify.Cents(p), notify.Cents(e.Price), orderStatus(e.OrderStatus))
			} else {
				m.Label = fmt.Sprintf("%s %s %s at %s, %s", at, e.Side, e.Size.Round(4).String(), notify.Cents(e.Price), orderStatus(e.OrderStatus))
			}
		case e.Kind == strategies.KindError:
			m.Y = c.TrackY
			m.Label = at + " error: " + e.Reason
		default:
			m.Kind, m.Y = "skipped", c.TrackY
			m.Label = at + " " + e.Kind
			if e.Reason != "" {
				m.Label += ": " + e.Reason
			}
		}
		c.Marks = append(c.Marks, m)
	}
	c.FirstLabel, c.LastLabel = timeLabels(from, to)
	c.Summary = fmt.Sprintf("From %s to %s: %d price samples between %s and %s, %d buys, %d sells, %d executions in all.",
		c.FirstLabel, c.LastLabel, n, notify.Cents(lo), notify.Cents(hi), buys, sells, len(c.Marks))
	if c.Simulated {
		c.Summary = "Backtest, simulated executions. " + c.Summary
	}
	return c
}
