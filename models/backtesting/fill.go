package backtesting

import (
	"time"

	"github.com/shopspring/decimal"
)

// The fill model (docs/backtesting.md). The venue records a token's price
// path (/prices-history: one price per interval, no book) and its trades;
// a simulated order fills against those records:
//
//   - a buy pays the recorded ask: the recorded price plus half the
//     typical spread, rounded up to the tick; a sell receives the recorded
//     bid: the price less half the spread, rounded down to the tick. The
//     typical spread is the market's spread now (its book), never less than
//     one tick;
//   - no fill is larger than Participation of the volume the venue
//     recorded in the market over the VolumeWindow that ends with the
//     price point's interval (or over the interval, when longer); when
//     the venue recorded no trade of the market over the whole window, fills
//     are not capped (a warning says so);
//   - a marketable order (MARKET, FAK) fills what the cap allows at that
//     price when it is within its limit, and the rest is killed; FOK fills
//     all of its size or nothing; a LIMIT that does not cross rests and
//     fills at its price at the first later point whose ask (bid, for a
//     sell) reaches it, within the cap;
//   - a market that resolved inside the window settles its shares at 1
//     (the winning outcome) or 0 when its history ends.

// Participation is the largest share of the recorded volume (over
// VolumeWindow) that a simulated order may take.
var Participation = decimal.RequireFromString("0.10")

// VolumeWindow is the span of recorded volume a point's cap is a share of:
// the hour up to the end of the point's interval. A minute of a prediction
// market often records no trade at all although its book holds shares; an
// hour says how much it trades.
const VolumeWindow = time.Hour

// Model is the fill model of one token.
type Model struct {
	Tick   decimal.Decimal // the market's tick
	Spread decimal.Decimal // the typical spread (≥ one tick)
}

var (
	half = decimal.RequireFromString("0.5")
	one  = decimal.NewFromInt(1)
)

// Quote is the bid and ask the model derives from a recorded price:
// price ∓ half the spread, on the tick, within [tick, 1 − tick].
func (m Model) Quote(price decimal.Decimal) (bid, ask decimal.Decimal) {
	tick := m.Tick
	if tick.Sign() <= 0 {
		tick = decimal.RequireFromString("0.01")
	}
	spread := decimal.Max(m.Spread, tick)
	h := spread.Mul(half)
	ask = price.Add(h).Div(tick).Ceil().Mul(tick)
	bid = price.Sub(h).Div(tick).Floor().Mul(tick)
	lo, hi := tick, one.Sub(tick)
	ask = decimal.Min(decimal.Max(ask, lo), hi)
	bid = decimal.Min(decimal.Max(bid, lo), hi)
	return bid, ask
}

// Cap is the most an order may fill at a point whose interval recorded
// volume shares: Participation of it; unlimited (ok false) when the
// window has no volume record at all.
func Cap(volume decimal.Decimal, recorded bool) (decimal.Decimal, bool) {
	if !recorded {
		return decimal.Zero, false
	}
	return volume.Mul(Participation).RoundFloor(2), true
}

// Fill is what a simulated order filled.
type Fill struct {
	Size  decimal.Decimal // shares
	Price decimal.Decimal // the price paid or received
}

// Marketable fills an order of size shares that takes liquidity (MARKET,
// FAK, FOK) at price px, within its limit and the cap: a buy when px ≤
// limit, a sell when px ≥ limit. allOrNothing (FOK) fills size or nothing.
func Marketable(buy bool, size, limit, px decimal.Decimal, cap decimal.Decimal, capped, allOrNothing bool) Fill {
	if px.Sign() <= 0 || buy && px.GreaterThan(limit) || !buy && px.LessThan(limit) {
		return Fill{}
	}
	n := size
	if capped && cap.LessThan(n) {
		if allOrNothing {
			return Fill{}
		}
		n = cap
	}
	if n.Sign() <= 0 {
		return Fill{}
	}
	return Fill{Size: n, Price: px}
}

// Point is one price point of the window with what the model makes of it.
type Point struct {
	Time     time.Time
	Price    decimal.Decimal
	Bid, Ask decimal.Decimal
	// Cap is the most an order may fill at this point (when Capped).
	Cap    decimal.Decimal
	Capped bool
}
