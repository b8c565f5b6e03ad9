package dashboard

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// chart is the P&L line drawn as inline SVG on the server: coordinates
// are computed here, the template only places them.
type chart struct {
	chartBox
	Line, Area                   string
	LastX, LastY                 string
	ZeroY                        string
	Ticks                        []tick
	FirstLabel, LastLabel        string
	MinLabel, MaxLabel, NowLabel string
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
// is short.
func timeLabels(t0, t1 time.Time) (string, string) {
	layout := "Jan 2 15:04"
	if t1.Sub(t0) < 6*time.Hour {
		layout = "15:04:05"
	}
	return t0.UTC().Format(layout), t1.UTC().Format(layout)
}

// newChart lays out series (cumulative P&L over time) for a wide screen;
// nil when there is nothing to draw.
func newChart(series []stats.Point) *chart {
	return layoutChart(series, &chart{chartBox: wideBox})
}

// newNarrowChart lays the series out for a phone.
func newNarrowChart(series []stats.Point) *chart {
	return layoutChart(series, &chart{chartBox: narrowBox})
}

func layoutChart(series []stats.Point, c *chart) *chart {
	if len(series) == 0 {
		return nil
	}
	pts := series
	if len(pts) == 1 {
		// One point: draw a flat line from the start of its day.
		pts = []stats.Point{{Time: pts[0].Time.Add(-time.Hour), Realized: decimal.Zero}, pts[0]}
	}
	t0, t1 := pts[0].Time, pts[len(pts)-1].Time
	if !t1.After(t0) {
		t1 = t0.Add(time.Minute)
	}
	lo, hi := decimal.Zero, decimal.Zero
	for _, p := range pts {
		lo, hi = decimal.Min(lo, p.Realized), decimal.Max(hi, p.Realized)
	}
	if hi.Equal(lo) {
		hi = lo.Add(decimal.NewFromInt(1))
	}
	// A little headroom above and below.
	pad := hi.Sub(lo).Div(decimal.NewFromInt(10))
	lo, hi = lo.Sub(pad), hi.Add(pad)
	// Only the layout uses floats; amounts stay decimals.
	x, y := c.timeX(t0, t1), c.valueY(lo, hi)
	var line, area strings.Builder
	for i, p := range pts {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&line, "%s%.1f %.1f ", cmd, x(p.Time), y(p.Realized))
	}
	zero := y(decimal.Zero)
	fmt.Fprintf(&area, "%sL%.1f %.1f L%.1f %.1f Z", line.String(), x(t1), zero, x(t0), zero)
	c.Line, c.Area = strings.TrimSpace(line.String()), area.String()
	last := pts[len(pts)-1]
	c.LastX, c.LastY = fmt.Sprintf("%.1f", x(last.Time)), fmt.Sprintf("%.1f", y(last.Realized))
	c.ZeroY = fmt.Sprintf("%.1f", zero)
	for i := 0; i <= 4; i++ {
		v := lo.Add(hi.Sub(lo).Mul(decimal.NewFromInt(int64(i))).Div(decimal.NewFromInt(4)))
		c.Ticks = append(c.Ticks, tick{Y: fmt.Sprintf("%.1f", y(v)), Label: usd(v.Round(2))})
	}
	minV, maxV := series[0].Realized, series[0].Realized
	for _, p := range series {
		minV, maxV = decimal.Min(minV, p.Realized), decimal.Max(maxV, p.Realized)
	}
	c.FirstLabel, c.LastLabel = timeLabels(t0, t1)
	c.MinLabel, c.MaxLabel, c.NowLabel = usd(minV), usd(maxV), signedUSD(last.Realized)
	return c
}

// strategyChart is a strategy's token price over time (the line) with its
// executions on it (the marks).
type strategyChart struct {
	chartBox
	Line string
	// PriceLabel is the latest price.
	PriceLabel            string
	Ticks                 []tick
	Marks                 []mark
	FirstLabel, LastLabel string
	Summary               string
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

// layoutStrategyChart draws prices and executions between from and to.
// Prices live in [0, 1], so the axis is the whole range: a strategy's
// trigger levels read at a glance wherever the price is.
func layoutStrategyChart(prices []clob.PricePoint, execs []strategies.Execution, from, to time.Time, c *strategyChart) *strategyChart {
	lo, hi := decimal.Zero, decimal.NewFromInt(1)
	x, y := c.timeX(from, to), c.valueY(lo, hi)
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
		// A sample holds until the next one: the line runs on to the
		// chart's end, so even a single sample shows.
		fmt.Fprintf(&line, "L%.1f %.1f", x(to), y(last.Price))
		c.PriceLabel = last.Price.StringFixed(2)
	}
	c.Line = strings.TrimSpace(line.String())
	for i := 0; i <= 4; i++ {
		v := decimal.New(int64(i)*25, -2)
		c.Ticks = append(c.Ticks, tick{Y: fmt.Sprintf("%.1f", y(v)), Label: v.StringFixed(2)})
	}
	var buys, sells int
	for _, e := range execs {
		if e.Time.Before(from) || e.Time.After(to) {
			continue
		}
		mx := x(e.Time)
		m := mark{Kind: e.Kind, X: fmt.Sprintf("%.1f", mx)}
		at := e.Time.UTC().Format("Jan 2 15:04:05")
		switch {
		case e.Kind == strategies.KindAction && e.Side != "":
			my := y(e.Price)
			m.Kind, m.Y = strings.ToLower(e.Side), fmt.Sprintf("%.1f", my)
			dir := 1.0 // a buy points up, a sell down
			if e.Side == "SELL" {
				dir, sells = -1, sells+1
			} else {
				buys++
			}
			m.Path = fmt.Sprintf("M%.1f %.1f L%.1f %.1f L%.1f %.1f Z", mx, my-7*dir, mx-6, my+5*dir, mx+6, my+5*dir)
			m.Label = fmt.Sprintf("%s %s %s at %s, %s", at, e.Side, e.Size.Round(4).String(), e.Price.Round(4).String(), strings.ToLower(e.OrderStatus))
		case e.Kind == strategies.KindError:
			m.Y = fmt.Sprintf("%d", c.Top+6)
			m.Label = at + " error: " + e.Reason
		default:
			m.Kind, m.Y = "skipped", fmt.Sprintf("%d", c.Bottom-6)
			m.Label = at + " " + e.Kind
			if e.Reason != "" {
				m.Label += ": " + e.Reason
			}
		}
		c.Marks = append(c.Marks, m)
	}
	c.FirstLabel, c.LastLabel = timeLabels(from, to)
	c.Summary = fmt.Sprintf("From %s to %s: %d price samples, %d buys, %d sells, %d executions in all.",
		c.FirstLabel, c.LastLabel, n, buys, sells, len(c.Marks))
	return c
}
