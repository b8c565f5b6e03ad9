package strategies

import (
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
)

// The backtest (models/backtesting) runs a type's own decision code over
// recorded prices: the registry's Type (Conditions, Decide, Done,
// SellsHoldings, pure by design), EndOf and Totals below, the same
// functions the engine calls, so the backtest carries no copy of them
// that could drift from what the live strategy does.

// Met reports whether the condition holds at the best bid and ask given
// (a side that is zero is empty and meets nothing), as the price feed
// evaluates it.
func (c Cond) Met(bid, ask decimal.Decimal) bool {
	v := ask
	if c.Field == FieldBestBid {
		v = bid
	}
	if v.Sign() <= 0 {
		return false
	}
	if c.Op == OpAtOrAbove {
		return v.GreaterThanOrEqual(c.Threshold)
	}
	return v.LessThanOrEqual(c.Threshold)
}

// Totals are what a strategy's orders add up to, counted as the live
// strategy counts them (tallyOf): the budget they used, the open size it
// may sell, and what its live buys may still fill (micro-units).
func Totals(os []models.Order) (used, open, buying int64) {
	t := tallyOf(os)
	return t.used, t.open, t.buying
}
