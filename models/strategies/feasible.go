package strategies

import (
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
)

// feasible refuses (CodeStrategyInfeasible) a strategy that could never
// place its order, rather than accept it and let it end without trading:
// its one order costs more than maxBudget, or is below the venue's $1
// minimum for a marketable BUY, or below the market's minimum order size
// (m, when known) where the venue applies it (a resting order, and any
// SELL). Create and every PATCH of the config or the budget check it.
func feasible(typ string, c Config, budget decimal.Decimal, m *markets.TokenMarket) error {
	minSize := decimal.Zero
	if m != nil {
		minSize = m.MinOrderSize
	}
	switch typ {
	case TypePriceAlert:
		size := c.Size.val()
		worst, how := c.TriggerPrice.val(), "triggerPrice"
		if c.OrderType != OrderLimit {
			worst, how = alertBound(c)
		}
		if c.Side == "BUY" {
			cost := size.Mul(worst)
			if cost.GreaterThan(budget) {
				return infeasible("size %s × %s (the most the alert pays: %s) = $%s is more than maxBudget $%s: raise maxBudget to at least %s, or lower size to at most %s",
					size, worst, how, cost.StringFixed(2), budget, cost.RoundCeil(6), budget.Div(worst).RoundFloor(SizePlaces))
			}
			if c.OrderType != OrderLimit && cost.RoundFloor(2).LessThan(minMarketBuy) {
				return infeasible("size %s × %s (%s) = $%s is below the venue's $1 minimum for a market buy: raise size to at least %s",
					size, worst, how, cost.StringFixed(2), minBuySize(worst))
			}
		}
		if (c.OrderType == OrderLimit || c.Side == "SELL") && size.LessThan(minSize) {
			return infeasible("size %s is below the market's minimum order size of %s shares", size, minSize)
		}
	case TypeRecurringBuy:
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
	case TypeBuyLowSellHigh:
		size := c.SizePerTrade.val()
		cost := size.Mul(c.BuyBelow.val())
		if cost.GreaterThan(budget) {
			return infeasible("sizePerTrade %s × buyBelow %s = $%s is more than maxBudget $%s: raise maxBudget to at least %s, or lower sizePerTrade to at most %s",
				size, c.BuyBelow.val(), cost.StringFixed(2), budget, cost.RoundCeil(6), budget.Div(c.BuyBelow.val()).RoundFloor(SizePlaces))
		}
		if cost.RoundFloor(2).LessThan(minMarketBuy) {
			return infeasible("sizePerTrade %s × buyBelow %s = $%s is below the venue's $1 minimum for a market buy: raise sizePerTrade to at least %s",
				size, c.BuyBelow.val(), cost.StringFixed(2), minBuySize(c.BuyBelow.val()))
		}
		if size.LessThan(minSize) {
			return infeasible("sizePerTrade %s is below the market's minimum order size of %s shares (its sells could not be placed)", size, minSize)
		}
	case TypeCopyTrade:
		if budget.LessThan(minMarketBuy) {
			return infeasible("maxBudget $%s is below the venue's $1 minimum for a market buy: no copy could be bought", budget)
		}
		if c.SizingMode == SizingFixed && c.FixedAmount.val().LessThan(minMarketBuy) {
			return infeasible("fixedAmount $%s is below the venue's $1 minimum for a market buy: every copied buy would be skipped", c.FixedAmount.val())
		}
	}
	return nil
}

func infeasible(format string, args ...any) error {
	for i, a := range args {
		if d, ok := a.(decimal.Decimal); ok {
			args[i] = d.String()
		}
	}
	return errs.Ef(errs.Invalid, "the strategy could never place its order: "+format, args...).WithCode(errs.CodeStrategyInfeasible)
}
