package strategies

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
)

// TypePriceAlert places one order when the price crosses a trigger, then
// completes (EndFired).
const TypePriceAlert = "PRICE_ALERT"

type priceAlert struct{}

func (priceAlert) Name() string { return TypePriceAlert }

func (priceAlert) Traits() Traits {
	return Traits{Market: MarketOne, EndsWhenPlaced: EndFired, Action: "ORDER"}
}

// PriceLimit is the worst price of its MARKET or FOK order.
func (priceAlert) Fields() []string {
	return []string{"tokenId", "marketQuery", "outcome", "side", "triggerCondition", "triggerPrice", "size", "orderType", "priceLimit"}
}

func (priceAlert) Validate(c *Config) error {
	c.Side = strings.ToUpper(strings.TrimSpace(c.Side))
	if c.Side != "BUY" && c.Side != "SELL" {
		return errs.E(errs.Invalid, "config.side must be BUY or SELL").WithCode(errs.CodeInvalidSide)
	}
	c.TriggerCondition = strings.ToUpper(strings.TrimSpace(c.TriggerCondition))
	if c.TriggerCondition != PriceLTE && c.TriggerCondition != PriceGTE {
		return errs.E(errs.Invalid, "config.triggerCondition must be PRICE_LTE or PRICE_GTE").WithCode(errs.CodeInvalidTriggerCondition)
	}
	if err := price("triggerPrice", c.TriggerPrice, true, errs.CodeInvalidTriggerPrice); err != nil {
		return err
	}
	if err := positiveIn("size", c.Size, true, SizePlaces); err != nil {
		return err
	}
	c.OrderType = strings.ToUpper(strings.TrimSpace(c.OrderType))
	switch c.OrderType {
	case "":
		c.OrderType = OrderMarket
	case OrderMarket, OrderLimit, OrderFOK:
	default:
		return errs.Ef(errs.Invalid, "config.orderType must be MARKET, LIMIT or FOK, not %q", c.OrderType).WithCode(errs.CodeInvalidOrderType)
	}
	if err := price("priceLimit", c.PriceLimit, false, errs.CodeInvalidPriceBand); err != nil || c.PriceLimit == nil {
		return err
	}
	// priceLimit bounds the market order the trigger places: the most a
	// BUY pays, the least a SELL takes. On the wrong side of the trigger
	// the alert could never trade when it fires.
	band := func(msg string) error { return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidPriceBand) }
	switch {
	case c.OrderType == OrderLimit:
		return band("config.priceLimit bounds a MARKET or FOK order; a LIMIT order rests at triggerPrice")
	case c.Side == "BUY" && c.PriceLimit.LessThan(c.TriggerPrice.Decimal):
		return band(fmt.Sprintf("config.priceLimit (%s), the most the BUY pays, must be at least triggerPrice (%s)", c.PriceLimit.String(), c.TriggerPrice.String()))
	case c.Side == "SELL" && c.PriceLimit.GreaterThan(c.TriggerPrice.Decimal):
		return band(fmt.Sprintf("config.priceLimit (%s), the least the SELL takes, must be at most triggerPrice (%s)", c.PriceLimit.String(), c.TriggerPrice.String()))
	}
	return nil
}

func (priceAlert) Feasible(c Config, budget, minSize decimal.Decimal) error {
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
	return nil
}

// Conditions: its trigger, on the best ask for a BUY and the best bid for
// a SELL, so a met condition is fillable at that price.
func (priceAlert) Conditions(s Snapshot) []Cond {
	c := s.Config
	op := OpAtOrBelow
	if c.TriggerCondition == PriceGTE {
		op = OpAtOrAbove
	}
	return []Cond{{TokenID: s.TokenID, Field: condField(c.Side), Op: op, Threshold: c.TriggerPrice.val()}}
}

func (priceAlert) Decide(in Input) (Plan, error) {
	c, token, tick := in.Config, in.TokenID, in.Top.Tick
	px := in.Top.Ask
	if c.Side == "SELL" {
		px = in.Top.Bid
	}
	met := px.Sign() > 0 && px.LessThan(decimal.NewFromInt(1))
	if c.TriggerCondition == PriceLTE {
		met = met && px.LessThanOrEqual(c.TriggerPrice.Decimal)
	} else {
		met = met && px.GreaterThanOrEqual(c.TriggerPrice.Decimal)
	}
	if !met {
		return Nothing(fmt.Sprintf("%s %s does not meet %s %s", fieldName(c.Side), px.String(), c.TriggerCondition, c.TriggerPrice.String())), nil
	}
	buy := c.Side == "BUY"
	why := fmt.Sprintf("%s price %s met %s %s", fieldName(c.Side), px.String(), c.TriggerCondition, c.TriggerPrice.String())
	req := orders.PlaceRequest{TokenID: token, Side: c.Side, Size: c.Size.Decimal}
	switch c.OrderType {
	case OrderLimit:
		// Rests at the trigger (on the tick, in the trader's favour).
		req.Type, req.Price = orders.TypeLimit, onTick(c.TriggerPrice.Decimal, tick, buy)
	default:
		// Walks the book up to the alert's bound: priceLimit, else the
		// trigger ± MarketSlippage. MARKET takes what is there within
		// it (fill-and-kill), FOK all of size or nothing.
		worst, how := alertBound(c)
		req.Price = onTick(worst, tick, buy)
		req.Type = orders.TypeFAK
		if c.OrderType == OrderFOK {
			req.Type = orders.TypeFOK
		}
		if buy && px.GreaterThan(req.Price) || !buy && px.LessThan(req.Price) {
			// Already beyond the bound (a breakout that gapped): not an
			// order that could fill. Wait for the price to come back
			// within it, then look again.
			return Plan{Kind: KindSkip, Conds: []Cond{{TokenID: token, Field: condField(c.Side), Op: backWithin(buy), Threshold: req.Price}},
				Reason: fmt.Sprintf("%s, but it is beyond %s, the %s the alert accepts (%s): waiting for the price to come back within it",
					why, req.Price.String(), worstWord(buy), how)}, nil
		}
	}
	if buy {
		if cost, left := req.Size.Mul(req.Price), in.Left(); cost.GreaterThan(left) {
			return Plan{Kind: KindSkip, Complete: EndBudget,
				Reason: fmt.Sprintf("the order would cost up to $%s but $%s of the strategy's budget is left", cost.StringFixed(2), left.String())}, nil
		}
	}
	return Plan{Kind: KindAction, Reason: why, Order: req, Complete: EndFired}, nil
}

func (priceAlert) Done(Snapshot) string { return "" }

func (priceAlert) SellsHoldings(Config) bool { return false }

func (priceAlert) Summary(c Config) string {
	op := "<="
	if c.TriggerCondition == PriceGTE {
		op = ">="
	}
	return fmt.Sprintf("%s %s %s when price %s %s", c.OrderType, c.Side, c.Size.val().String(), op, c.TriggerPrice.val().String())
}
