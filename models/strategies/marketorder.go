package strategies

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/clob"
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
