package dashboard

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/stats"
)

// chart is the P&L line drawn as inline SVG on the server: coordinates
// are computed here, the template only places them.
type chart struct {
	Class                          string
	W, H, Left, Right, Top, Bottom int
	Line, Area                     string
	LastX, LastY                   string
	ZeroY                          string
	Ticks                          []tick
	FirstLabel, LastLabel          string
	MinLabel, MaxLabel, NowLabel   string
}

type tick struct {
	Y     string
	Label string
}

// newChart lays out series (cumulative P&L over time) for a wide screen;
// nil when there is nothing to draw.
func newChart(series []stats.Point) *chart {
	return layoutChart(series, &chart{Class: "chart-wide", W: 720, H: 240, Left: 64, Right: 708, Top: 12, Bottom: 212})
}

// newNarrowChart lays the series out for a phone: fewer pixels, so the
// same type size stays legible.
func newNarrowChart(series []stats.Point) *chart {
	return layoutChart(series, &chart{Class: "chart-narrow", W: 360, H: 220, Left: 58, Right: 350, Top: 12, Bottom: 192})
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
	x := func(t time.Time) float64 {
		return float64(c.Left) + float64(c.Right-c.Left)*float64(t.Sub(t0))/float64(t1.Sub(t0))
	}
	y := func(v decimal.Decimal) float64 {
		f, _ := v.Sub(lo).Div(hi.Sub(lo)).Float64()
		return float64(c.Bottom) - f*float64(c.Bottom-c.Top)
	}
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
	layout := "Jan 2 15:04"
	if t1.Sub(t0) < 6*time.Hour {
		layout = "15:04:05"
	}
	c.FirstLabel, c.LastLabel = t0.UTC().Format(layout), t1.UTC().Format(layout)
	c.MinLabel, c.MaxLabel, c.NowLabel = usd(minV), usd(maxV), signedUSD(last.Realized)
	return c
}
