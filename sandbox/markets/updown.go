package markets

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // the up/down calendar is America/New_York, whatever the host has

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue/updown"
)

// The up/down series: every asset × timeframe of venue/updown, the one
// implementation of the live venue's windows and slugs (shared with the
// client's lookup, so the sandbox lists exactly what the client asks for).
var (
	Assets     = symbols()
	Timeframes = []updown.Timeframe{updown.TF5m, updown.TF15m, updown.TF4h, updown.TFHourly, updown.TFDaily}
)

func symbols() []string {
	var out []string
	for _, a := range updown.Assets() {
		out = append(out, a.Symbol)
	}
	return out
}

var assetTitles = map[string]string{
	"btc": "Bitcoin", "eth": "Ethereum", "sol": "Solana", "xrp": "XRP", "doge": "Dogecoin", "matic": "Polygon",
}

// basePrices are the price paths' anchors, in micro-USD.
var basePrices = map[string]int64{
	"btc": 95_000_000_000, "eth": 3_500_000_000, "sol": 180_000_000, "xrp": 2_500_000, "doge": 250_000, "matic": 600_000,
}

var eastern = mustLoad("America/New_York")

func mustLoad(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // embedded tzdata makes this unreachable
	}
	return l
}

// UpDown describes an up/down market's window.
type UpDown struct {
	Asset      string
	Timeframe  string
	Start, End time.Time
}

// Title is the up/down market's question in the live venue's style.
func Title(asset, timeframe string, start, end time.Time) string {
	s, e := start.In(eastern), end.In(eastern)
	name := assetTitles[asset]
	hm := func(t time.Time) string { return t.Format("3:04PM") }
	switch timeframe {
	case "hourly":
		return fmt.Sprintf("%s Up or Down - %s %d, %s ET", name, s.Month(), s.Day(), strings.ToUpper(clock12(s)))
	case "daily":
		return fmt.Sprintf("%s Up or Down on %s %d?", name, e.Month(), e.Day())
	}
	return fmt.Sprintf("%s Up or Down - %s %d, %s-%s ET", name, s.Month(), s.Day(), hm(s), hm(e))
}

// SeriesSlug is the Gamma series an up/down market belongs to.
func SeriesSlug(asset, timeframe string) string {
	return fmt.Sprintf("%s-up-or-down-%s", asset, timeframe)
}

// PricePath is the sandbox's own, deterministic price of each up/down
// underlying: value noise over several time scales, a pure function of
// (seed, asset, time), so a window's start and end prices are the same
// whenever they are asked for and the outcome needs no stored state.
type PricePath struct{ seed int64 }

// NewPricePath returns the path of a seed.
func NewPricePath(seed int64) PricePath { return PricePath{seed: seed} }

var pathScales = []struct {
	period int64 // seconds
	ampPPM int64 // amplitude in parts per million
}{{60, 800}, {300, 1_500}, {1_800, 4_000}, {10_800, 9_000}, {86_400, 25_000}}

// noise is a deterministic value in [-1e6, 1e6] for a lattice point.
func (p PricePath) noise(asset string, period, k int64) int64 {
	var buf [24]byte
	binary.BigEndian.PutUint64(buf[0:], uint64(p.seed))
	binary.BigEndian.PutUint64(buf[8:], uint64(period))
	binary.BigEndian.PutUint64(buf[16:], uint64(k))
	h := crypto.Keccak256(buf[:], []byte(asset))
	return int64(binary.BigEndian.Uint64(h[:8])%2_000_001) - 1_000_000
}

// At returns the asset's price at t in micro-USD (zero for an unknown asset).
func (p PricePath) At(asset string, t time.Time) int64 {
	base, ok := basePrices[asset]
	if !ok {
		return 0
	}
	ms := t.UnixMilli()
	var dev int64 // ppm
	for _, s := range pathScales {
		pm := s.period * 1000
		k := floorDiv(ms, pm)
		frac := ms - k*pm // 0..pm
		a, b := p.noise(asset, s.period, k), p.noise(asset, s.period, k+1)
		v := a + (b-a)*frac/pm
		dev += v * s.ampPPM / 1_000_000
	}
	return base + base/1_000_000*dev
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Outcome is the winning index of a finished window: 0 ("Up") when the end
// price is at least the start price (ties resolve Up), else 1 ("Down").
func (p PricePath) Outcome(u UpDown) int {
	if p.At(u.Asset, u.End) >= p.At(u.Asset, u.Start) {
		return 0
	}
	return 1
}

// Fair is the "Up" probability the market makers quote at now, in micro:
// one half before the window opens, then leaning with the move so far.
func (p PricePath) Fair(u UpDown, now time.Time) uint64 {
	if now.Before(u.Start) {
		return 500_000
	}
	if now.After(u.End) {
		now = u.End
	}
	s, c := p.At(u.Asset, u.Start), p.At(u.Asset, now)
	if s == 0 {
		return 500_000
	}
	movePPM := (c - s) * 1_000_000 / s
	f := 500_000 + movePPM*100
	f = max(30_000, min(970_000, f))
	return uint64(f) / 10_000 * 10_000
}

// clock12 renders the hour of t on a 12-hour clock ("9pm").
func clock12(t time.Time) string {
	h := t.Hour() % 12
	if h == 0 {
		h = 12
	}
	if t.Hour() < 12 {
		return fmt.Sprintf("%dam", h)
	}
	return fmt.Sprintf("%dpm", h)
}
