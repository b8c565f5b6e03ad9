package strategies

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// A strategy's "market" order walks the book up to a bound and takes what
// is there within it (fill-and-kill), never only the top level:
//
//   - RECURRING_BUY buys what amountPerInterval buys on the book, level by
//     level, up to priceLimit when set, else up to the best ask +
//     MarketSlippage. A book thinner than that within the bound sells what
//     it holds (a partial buy is a buy; the rest is a skip, not an error).
//   - PRICE_ALERT (orderType MARKET) trades its size up to priceLimit when
//     set, else up to triggerPrice + MarketSlippage for a BUY (−
//     for a SELL); what the book holds within it fills, the rest is
//     killed. orderType FOK is all of size within the same bound or
//     nothing; LIMIT rests at triggerPrice.
//
// Bounds are rounded to the market's tick in the strategy's favour and
// kept within 0.01–0.99.

// MarketSlippage is how far a strategy's market order may go beyond the
// price it starts from when no priceLimit bounds it (the best ask for
// RECURRING_BUY, the trigger for PRICE_ALERT): the same 0.02 as a
// position close and a copied trade.
var MarketSlippage = decimal.RequireFromString("0.02")

var (
	minPrice = decimal.RequireFromString("0.01")
	maxPrice = decimal.RequireFromString("0.99")
)

func clampPrice(p decimal.Decimal) decimal.Decimal {
	return decimal.Min(decimal.Max(p, minPrice), maxPrice)
}

// alertBound is the worst price a PRICE_ALERT's marketable order accepts
// (before the tick) and how it was set, for reasons and errors.
func alertBound(c Config) (decimal.Decimal, string) {
	if c.PriceLimit != nil {
		return c.PriceLimit.Decimal, "priceLimit " + c.PriceLimit.String()
	}
	if c.Side == "SELL" {
		return clampPrice(c.TriggerPrice.Sub(MarketSlippage)), fmt.Sprintf("triggerPrice %s − slippage %s", c.TriggerPrice.String(), MarketSlippage.String())
	}
	return clampPrice(c.TriggerPrice.Add(MarketSlippage)), fmt.Sprintf("triggerPrice %s + slippage %s", c.TriggerPrice.String(), MarketSlippage.String())
}

// recurringBound is the worst price of a RECURRING_BUY's interval buy
// (on the tick) and how it was set.
func recurringBound(c Config, ask decimal.Decimal, tick string) (decimal.Decimal, string) {
	if c.PriceLimit != nil {
		return onTick(c.PriceLimit.Decimal, tick, true), "priceLimit " + c.PriceLimit.String()
	}
	return onTick(clampPrice(ask.Add(MarketSlippage)), tick, true), fmt.Sprintf("best ask %s + slippage %s", ask.String(), MarketSlippage.String())
}

func condField(side string) string {
	if side == "SELL" {
		return FieldBestBid
	}
	return FieldBestAsk
}

// backWithin is the comparison that says a price is back within a bound.
func backWithin(buy bool) string {
	if buy {
		return OpAtOrBelow
	}
	return OpAtOrAbove
}

func worstWord(buy bool) string {
	if buy {
		return "most"
	}
	return "least"
}

// walkAsks walks asks (best first) up to worst: size is what amount buys
// there, level by level, in whole hundredths of a share, and cost what
// those shares cost on the book; depth is every share offered within
// worst.
func walkAsks(asks []clob.PriceLevel, worst, amount decimal.Decimal) (size, cost, depth decimal.Decimal) {
	left := amount
	for _, l := range asks {
		if l.Price.Sign() <= 0 || l.Price.GreaterThan(worst) {
			continue
		}
		depth = depth.Add(l.Size)
		if left.Sign() <= 0 {
			continue
		}
		take := decimal.Min(l.Size, left.Div(l.Price).RoundFloor(2))
		size = size.Add(take)
		cost = cost.Add(take.Mul(l.Price))
		left = left.Sub(take.Mul(l.Price))
	}
	return size.RoundFloor(2), cost, depth
}

// minBuySize is the fewest shares whose cost at price reaches the venue's
// $1 minimum for a marketable BUY (its amount is floored to the cent).
func minBuySize(price decimal.Decimal) decimal.Decimal {
	n := minMarketBuy.Div(price).RoundCeil(2)
	for n.Mul(price).RoundFloor(2).LessThan(minMarketBuy) {
		n = n.Add(decimal.New(1, -2))
	}
	return n
}

// intervalBuy plans a RECURRING_BUY's buy of this interval: what its
// amount (cut to what the budget and maxTotalAmount leave) buys on the
// book up to its bound, never more than what is left can pay at the
// bound, sent fill-and-kill at the bound.
func (e *Engine) intervalBuy(ctx context.Context, st *models.Strategy, c Config, token string, ask decimal.Decimal, tick string, left decimal.Decimal) (*plan, error) {
	amount := decimal.Min(c.AmountPerInterval.Decimal, left)
	room := left // the most this buy may cost at its worst
	complete := ""
	if c.MaxTotalAmount != nil {
		total := c.MaxTotalAmount.Sub(micro.Decimal(st.BudgetUsedMicro))
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
		return &plan{kind: KindSkip, complete: complete,
			reason: fmt.Sprintf("$%s buys less than the venue's $1 minimum at %s: the strategy's budget is spent", room.StringFixed(2), worst.String())}, nil
	}
	book, err := e.Quotes.Book(ctx, token)
	if err != nil {
		return nil, err
	}
	size, cost, depth := walkAsks(book.Asks, worst, amount)
	capped := false
	if most := room.Div(worst).RoundFloor(2); size.GreaterThan(most) {
		size, capped = most, true // even if the book moves to the bound, within the budget
	}
	if size.Mul(worst).RoundFloor(2).LessThan(minMarketBuy) {
		if depth.LessThan(need) {
			return &plan{kind: KindSkip, reason: fmt.Sprintf("the book offers %s shares at %s or better (%s), under the venue's $1 minimum for a market buy",
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
	return &plan{kind: KindAction, reason: reason,
		req: orders.PlaceRequest{TokenID: token, Side: "BUY", Type: orders.TypeFAK, Price: worst, Size: size}}, nil
}
