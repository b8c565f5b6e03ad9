// Package updown generates the slugs of the venue's recurring crypto "Up or
// Down" markets and finds the window currently accepting orders.
//
// Slug formats (protocol doc §5):
//
//	5m, 15m, 4h  {sym}-updown-{tf}-{startUnix}       e.g. btc-updown-5m-1778583600
//	hourly       {name}-up-or-down-{month}-{day}-{year}-{h}{am|pm}-et
//	daily        {name}-up-or-down-on-{month}-{day}-{year}
//
// 5m and 15m windows are aligned to the Unix epoch. 4h windows start at
// 00/04/08/12/16/20 h America/New_York, so across a DST change one window
// lasts 3 or 5 hours. Hourly slugs name the ET start hour on a 12-hour clock
// (on the autumn fall-back night the 1am slug names two different hours;
// the venue has the same ambiguity and the lookup simply tries it). Daily
// markets resolve at 12:00 ET on the slug date: the window runs from noon
// ET the day before to noon ET on that date — our choice, following
// third-party evidence, since the venue does not document it.
//
// Until about March 2026 the hourly and daily slugs had no year; each window
// lists that older form as a fallback after the current one, and the
// polygon asset also tries "matic" as its long name.
package updown

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the ET alignment must work on hosts without zoneinfo

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/gamma"
)

// Asset is a crypto asset with its short symbol and long slug names.
type Asset struct {
	Symbol string   // used in 5m/15m/4h slugs
	Names  []string // used in hourly/daily slugs, preferred first
}

var assets = []Asset{
	{Symbol: "btc", Names: []string{"bitcoin"}},
	{Symbol: "eth", Names: []string{"ethereum"}},
	{Symbol: "sol", Names: []string{"solana"}},
	{Symbol: "xrp", Names: []string{"xrp"}},
	{Symbol: "doge", Names: []string{"dogecoin"}},
	{Symbol: "matic", Names: []string{"polygon", "matic"}},
}

// Assets lists the supported assets.
func Assets() []Asset { return append([]Asset(nil), assets...) }

// ParseAsset accepts a symbol or long name in any letter case ("BTC",
// "bitcoin", "pol"/"polygon"/"matic").
func ParseAsset(s string) (Asset, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "pol" {
		s = "matic"
	}
	for _, a := range assets {
		if a.Symbol == s {
			return a, nil
		}
		for _, n := range a.Names {
			if n == s {
				return a, nil
			}
		}
	}
	return Asset{}, venue.Ef(venue.Invalid, "unsupported asset %q (want btc, eth, sol, xrp, doge or matic)", s).WithCode("invalid_asset")
}

// Timeframe is a recurring window length.
type Timeframe string

// The supported timeframes.
const (
	TF5m     Timeframe = "5m"
	TF15m    Timeframe = "15m"
	TF4h     Timeframe = "4h"
	TFHourly Timeframe = "hourly"
	TFDaily  Timeframe = "daily"
)

// ParseTimeframe accepts the five timeframes and common aliases
// ("1h", "60m", "1d", "24h", "5min", "15min").
func ParseTimeframe(s string) (Timeframe, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "5m", "5min":
		return TF5m, nil
	case "15m", "15min":
		return TF15m, nil
	case "4h", "240m":
		return TF4h, nil
	case "hourly", "1h", "60m", "hour":
		return TFHourly, nil
	case "daily", "1d", "24h", "day", "":
		return TFDaily, nil
	}
	return "", venue.Ef(venue.Invalid, "unsupported timeframe %q (want 5m, 15m, 4h, hourly or daily)", s).WithCode("invalid_timeframe")
}

// Window is one market window.
type Window struct {
	// Slug is the current slug form; Alternates are older or alias forms
	// tried after it, in order.
	Slug       string
	Alternates []string
	Start, End time.Time // UTC
}

// Slugs returns Slug followed by Alternates.
func (w Window) Slugs() []string { return append([]string{w.Slug}, w.Alternates...) }

var eastern = mustLoad("America/New_York")

func mustLoad(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // cannot happen: time/tzdata is embedded
	}
	return l
}

// WindowAt returns the window of asset and tf that contains t.
func WindowAt(a Asset, tf Timeframe, t time.Time) (Window, error) {
	switch tf {
	case TF5m, TF15m:
		step := int64(300)
		if tf == TF15m {
			step = 900
		}
		u := t.Unix()
		start := u - ((u%step)+step)%step // floor, also for t before 1970
		return Window{
			Slug:  fmt.Sprintf("%s-updown-%s-%d", a.Symbol, tf, start),
			Start: time.Unix(start, 0).UTC(), End: time.Unix(start+step, 0).UTC(),
		}, nil
	case TF4h:
		et := t.In(eastern)
		h := et.Hour() / 4 * 4
		start := time.Date(et.Year(), et.Month(), et.Day(), h, 0, 0, 0, eastern)
		end := time.Date(et.Year(), et.Month(), et.Day(), h+4, 0, 0, 0, eastern)
		return Window{Slug: fmt.Sprintf("%s-updown-4h-%d", a.Symbol, start.Unix()), Start: start.UTC(), End: end.UTC()}, nil
	case TFHourly:
		// Truncating in absolute time is exact: ET offsets are whole hours.
		start := t.Truncate(time.Hour)
		et := start.In(eastern)
		w := Window{Start: start.UTC(), End: start.Add(time.Hour).UTC()}
		for _, n := range a.Names {
			withYear := fmt.Sprintf("%s-up-or-down-%s-%d-%d-%s-et", n, monthName(et.Month()), et.Day(), et.Year(), hour12(et.Hour()))
			noYear := fmt.Sprintf("%s-up-or-down-%s-%d-%s-et", n, monthName(et.Month()), et.Day(), hour12(et.Hour()))
			w.add(withYear)
			w.add(noYear)
		}
		return w, nil
	case TFDaily:
		et := t.In(eastern)
		noon := time.Date(et.Year(), et.Month(), et.Day(), 12, 0, 0, 0, eastern)
		if !t.Before(noon) {
			noon = time.Date(et.Year(), et.Month(), et.Day()+1, 12, 0, 0, 0, eastern)
		}
		prev := time.Date(noon.Year(), noon.Month(), noon.Day()-1, 12, 0, 0, 0, eastern)
		w := Window{Start: prev.UTC(), End: noon.UTC()}
		for _, n := range a.Names {
			w.add(fmt.Sprintf("%s-up-or-down-on-%s-%d-%d", n, monthName(noon.Month()), noon.Day(), noon.Year()))
			w.add(fmt.Sprintf("%s-up-or-down-on-%s-%d", n, monthName(noon.Month()), noon.Day()))
		}
		return w, nil
	}
	return Window{}, venue.Ef(venue.Invalid, "unsupported timeframe %q", string(tf)).WithCode("invalid_timeframe")
}

func (w *Window) add(slug string) {
	if w.Slug == "" {
		w.Slug = slug
		return
	}
	w.Alternates = append(w.Alternates, slug)
}

func monthName(m time.Month) string { return strings.ToLower(m.String()) }

func hour12(h int) string {
	suffix := "am"
	if h >= 12 {
		suffix = "pm"
	}
	h %= 12
	if h == 0 {
		h = 12
	}
	return strconv.Itoa(h) + suffix
}

// Windows returns the window containing now followed by the next n windows.
func Windows(a Asset, tf Timeframe, now time.Time, n int) ([]Window, error) {
	w, err := WindowAt(a, tf, now)
	if err != nil {
		return nil, err
	}
	out := []Window{w}
	for i := 0; i < n; i++ {
		// Every window's End is the next window's Start.
		if w, err = WindowAt(a, tf, w.End); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// MarketFinder looks a market up by slug (gamma.Client implements it).
type MarketFinder interface {
	MarketBySlug(ctx context.Context, slug string) (*gamma.Market, error)
}

// LookAhead is how many windows after the current one FindAccepting tries.
const LookAhead = 2

// FindAccepting returns the first market accepting orders among the window
// containing now and the next LookAhead windows, trying each window's
// slugs in order. Unknown slugs are skipped; other lookup errors abort. A
// market past its end date counts as not accepting (it may not have been
// closed yet). No accepting market is NotFound with code
// no_accepting_market.
func FindAccepting(ctx context.Context, g MarketFinder, a Asset, tf Timeframe, now time.Time) (*gamma.Market, Window, error) {
	ws, err := Windows(a, tf, now, LookAhead)
	if err != nil {
		return nil, Window{}, err
	}
	for _, w := range ws {
		for _, slug := range w.Slugs() {
			m, err := g.MarketBySlug(ctx, slug)
			if venue.Is(err, venue.NotFound) {
				continue
			}
			if err != nil {
				return nil, Window{}, err
			}
			if m.AcceptingOrders && !m.Closed && !m.Archived && (m.EndDate.IsZero() || m.EndDate.After(now)) {
				return m, w, nil
			}
			break // the window exists but is not open; try the next one
		}
	}
	return nil, Window{}, venue.Ef(venue.NotFound, "no %s %s up/down market is accepting orders", a.Symbol, tf).WithCode("no_accepting_market")
}
