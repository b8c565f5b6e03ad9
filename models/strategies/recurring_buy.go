package strategies

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/micro"
)

// TypeRecurringBuy buys amountPerInterval every interval, in the market
// its marketQuery names at that moment.
const TypeRecurringBuy = "RECURRING_BUY"

type recurringBuy struct{}

func (recurringBuy) Name() string { return TypeRecurringBuy }

func (recurringBuy) Traits() Traits {
	return Traits{Market: MarketEach, Interval: true, Action: "BUY",
		// Fill-and-kill within the bound: the book moved between the read
		// and the match and nothing was left within it. The interval buys
		// nothing; a skip, not a failure.
		Unfilled: "bought nothing: no ask was left at %s or better when the order reached the book (%s)"}
}

func (recurringBuy) Fields() []string {
	return []string{"tokenId", "marketQuery", "outcome", "amountPerInterval", "intervalMs", "interval", "maxTotalAmount", "priceLimit"}
}

func (recurringBuy) Validate(c *Config) error {
	if err := positive("amountPerInterval", c.AmountPerInterval, true); err != nil {
		return err
	}
	if _, err := c.interval(); err != nil {
		return err
	}
	if err := positive("maxTotalAmount", c.MaxTotalAmount, false); err != nil {
		return err
	}
	return price("priceLimit", c.PriceLimit, false, errs.CodeInvalidPriceBand)
}

func (recurringBuy) Feasible(c Config, budget, _ decimal.Decimal) error {
	first, what := c.AmountPerInterval.val(), "amountPerInterval"
	if budget.LessThan(first) {
		first, what = budget, "maxBudget"
	}
	if c.MaxTotalAmount != nil && c.MaxTotalAmount.LessThan(first) {
		first, what = c.MaxTotalAmount.Decimal, "maxTotalAmount"
	}
	if first.LessThan(minMarketBuy) {
		return infeasible("%s $%s is below the venue's $1 minimum for a market buy: every buy would be refused", what, first)
	}
	return nil
}

// Conditions: none, it runs on its timer.
func (recurringBuy) Conditions(Snapshot) []Cond { return nil }

func (recurringBuy) Decide(in Input) (Plan, error) {
	c, ask := in.Config, in.Top.Ask
	if ask.Sign() <= 0 || ask.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return Plan{Kind: KindSkip, Reason: "no ask on the book"}, nil
	}
	if c.PriceLimit != nil && ask.GreaterThan(c.PriceLimit.Decimal) {
		return Plan{Kind: KindSkip, Reason: fmt.Sprintf("best ask %s is above priceLimit %s", ask.String(), c.PriceLimit.String())}, nil
	}
	return intervalBuy(in)
}

// intervalBuy plans a RECURRING_BUY's buy of this interval: what its
// amount (cut to what the budget and maxTotalAmount leave) buys on the
// book up to its bound, never more than what is left can pay at the
// bound, sent fill-and-kill at the bound.
func intervalBuy(in Input) (Plan, error) {
	c, token, ask, tick, left := in.Config, in.TokenID, in.Top.Ask, in.Top.Tick, in.Left()
	amount := decimal.Min(c.AmountPerInterval.Decimal, left)
	room := left // the most this buy may cost at its worst
	complete := ""
	if c.MaxTotalAmount != nil {
		total := c.MaxTotalAmount.Sub(micro.Decimal(in.BudgetUsedMicro))
		if total.LessThanOrEqual(amount) {
			amount, complete = total, EndTotal
		}
		room = decimal.Min(room, total)
	}
	if amount.Equal(left) {
		complete = EndBudget
	}
	worst, how := recurringBound(c, ask, tick)
	need := minBuySize(worst)
	if need.Mul(worst).GreaterThan(room) {
		// What is left can no longer buy the venue's minimum.
		return Plan{Kind: KindSkip, Complete: complete,
			Reason: fmt.Sprintf("$%s buys less than the venue's $1 minimum at %s: the strategy's budget is spent", room.StringFixed(2), worst.String())}, nil
	}
	book, err := in.Book()
	if err != nil {
		return Plan{}, err
	}
	size, cost, depth := walkAsks(book.Asks, worst, amount)
	capped := false
	if most := room.Div(worst).RoundFloor(2); size.GreaterThan(most) {
		size, capped = most, true // even if the book moves to the bound, within the budget
	}
	if size.Mul(worst).RoundFloor(2).LessThan(minMarketBuy) {
		if depth.LessThan(need) {
			return Plan{Kind: KindSkip, Reason: fmt.Sprintf("the book offers %s shares at %s or better (%s), under the venue's $1 minimum for a market buy",
				depth.String(), worst.String(), how)}, nil
		}
		size = need // the minimum, a few cents above the amount
	}
	reason := fmt.Sprintf("interval buy of $%s: %s shares from best ask %s, walking the book up to %s (%s)",
		amount.StringFixed(2), size.String(), ask.String(), worst.String(), how)
	switch {
	case capped:
		reason += fmt.Sprintf("; cut to what the $%s left can pay at %s", room.StringFixed(2), worst.String())
	case cost.LessThan(amount.Sub(decimal.New(1, -2))):
		// A thin book: the interval buys what is there within the bound.
		reason += fmt.Sprintf("; partial buy: the book offers only %s shares ($%s) at %s or better, the rest of the $%s is not bought",
			depth.String(), cost.StringFixed(2), worst.String(), amount.StringFixed(2))
	}
	// Whether this buy completes the strategy is for what it spent to say
	// (record): a partial fill leaves budget to buy with.
	return Plan{Kind: KindAction, Reason: reason,
		Order: orders.PlaceRequest{TokenID: token, Side: "BUY", Type: orders.TypeFAK, Price: worst, Size: size}}, nil
}

// Done: what maxTotalAmount or the budget leaves cannot buy the venue's
// minimum ever again.
func (recurringBuy) Done(s Snapshot) string {
	c := s.Config
	switch {
	case c.MaxTotalAmount != nil && c.MaxTotalAmount.Sub(micro.Decimal(s.BudgetUsedMicro)).LessThan(minMarketBuy):
		return EndTotal
	case s.Left().LessThan(minMarketBuy):
		return EndBudget
	}
	return ""
}

func (recurringBuy) SellsHoldings(Config) bool { return false }

func (recurringBuy) Summary(c Config) string {
	terms := fmt.Sprintf("buy $%s every %s", c.AmountPerInterval.val().String(), c.IntervalDuration())
	if c.PriceLimit != nil {
		terms += " up to " + c.PriceLimit.String()
	}
	return terms
}
