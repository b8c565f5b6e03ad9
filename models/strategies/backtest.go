package strategies

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
)

// The backtest (models/backtest) runs a type's own decision code over
// recorded prices: the functions below are that code (decide, decideCopy,
// conditionsFor, endOf) called with no store, venue or workflow, so the
// backtest never carries a copy of it that could drift from what the live
// strategy does.

// Decision is what a type's decision code decided at one instant.
type Decision struct {
	Kind      string // KindAction or KindSkip
	Reason    string
	TokenID   string
	Side      string          // BUY or SELL (an action)
	OrderType string          // orders.TypeLimit, TypeMarket, TypeFAK or TypeFOK
	Price     decimal.Decimal // the order's limit: the worst price it accepts
	Size      decimal.Decimal // shares
	// Complete is the ended reason the decision asks for ("" to go on);
	// End applies it after the simulated fill.
	Complete string
	// Wait, when set, are the conditions the strategy waits for after this
	// decision instead of its type's own (a PRICE_ALERT whose price is
	// beyond its bound waits for it to come back within it).
	Wait []Cond
}

func decisionOf(pl *plan) *Decision {
	if pl == nil {
		return nil
	}
	return &Decision{Kind: pl.kind, Reason: pl.reason, TokenID: pl.req.TokenID, Side: pl.req.Side, OrderType: pl.req.Type,
		Price: pl.req.Price, Size: pl.req.Size, Complete: pl.complete, Wait: pl.conds}
}

// Decide runs the decision code of st's type (PRICE_ALERT, RECURRING_BUY,
// BUY_LOW_SELL_HIGH) at instant now over the quotes and book q answers:
// nil when nothing is due (its condition is not met, its interval has not
// passed). st carries the strategy's totals (BudgetUsedMicro,
// OpenSizeMicro, NextEvaluationAt) as the caller keeps them; buying is what
// its live buys may still fill.
func Decide(ctx context.Context, q Quoter, now time.Time, st *models.Strategy, c Config, buying int64) (*Decision, error) {
	e := &Engine{Quotes: q, Now: func() time.Time { return now }}
	pl, err := e.decide(ctx, st, c, buying)
	if err != nil {
		return nil, err
	}
	return decisionOf(pl), nil
}

// DecideCopy runs COPY_TRADE's decision code at instant now for the
// target's fill ct, with the strategy's shares of each token as held says.
func DecideCopy(ctx context.Context, now time.Time, st *models.Strategy, c Config, ct *models.CopyTrade, held func(tokenID string) int64) (*Decision, error) {
	e := &Engine{Now: func() time.Time { return now }, held: held}
	pl, err := e.decideCopy(ctx, st, c, ct)
	if err != nil {
		return nil, err
	}
	return decisionOf(pl), nil
}

// Conditions are the price conditions an ACTIVE st waits for (none for
// RECURRING_BUY and COPY_TRADE), as the live strategy arms them.
func Conditions(st *models.Strategy, c Config, buying int64) []Cond {
	return conditionsFor(st, c, buying)
}

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

// End is the reason an ACTIVE strategy ends after an execution whose
// decision asked complete, given its totals after the execution (next):
// "" when it goes on. The live strategy's record applies the same rule.
func End(c Config, next *models.Strategy, complete string, buying int64) string {
	return endOf(next.Type, c, next, complete, buying)
}

// Totals are what a strategy's orders add up to, counted as the live
// strategy counts them (tallyOf): the budget they used, the open size it
// may sell, and what its live buys may still fill (micro-units).
func Totals(os []models.Order) (used, open, buying int64) {
	t := tallyOf(os)
	return t.used, t.open, t.buying
}
