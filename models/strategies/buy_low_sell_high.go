package strategies

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/micro"
)

// TypeBuyLowSellHigh buys sizePerTrade at or below buyBelow while it has
// room (maxOpenSize) and sells what it holds at or above sellAbove.
const TypeBuyLowSellHigh = "BUY_LOW_SELL_HIGH"

type buyLowSellHigh struct{}

func (buyLowSellHigh) Name() string { return TypeBuyLowSellHigh }

func (buyLowSellHigh) Traits() Traits { return Traits{Market: MarketOne, Action: "BUY"} }

func (buyLowSellHigh) Fields() []string {
	return []string{"tokenId", "marketQuery", "outcome", "buyBelow", "sellAbove", "sizePerTrade", "maxOpenSize"}
}

func (buyLowSellHigh) Validate(c *Config) error {
	if err := price("buyBelow", c.BuyBelow, true, errs.CodeInvalidPriceBand); err != nil {
		return err
	}
	if err := price("sellAbove", c.SellAbove, true, errs.CodeInvalidPriceBand); err != nil {
		return err
	}
	if !c.SellAbove.GreaterThan(c.BuyBelow.Decimal) {
		return errs.Ef(errs.Invalid, "config.sellAbove (%s) must be greater than config.buyBelow (%s)", c.SellAbove.String(), c.BuyBelow.String()).
			WithCode(errs.CodeInvalidPriceBand)
	}
	if err := positiveIn("sizePerTrade", c.SizePerTrade, true, SizePlaces); err != nil {
		return err
	}
	if err := positive("maxOpenSize", c.MaxOpenSize, false); err != nil {
		return err
	}
	if c.MaxOpenSize != nil && c.MaxOpenSize.LessThan(c.SizePerTrade.Decimal) {
		return amountErr("maxOpenSize", "must be at least sizePerTrade")
	}
	return nil
}

func (buyLowSellHigh) Feasible(c Config, budget, minSize decimal.Decimal) error {
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
	return nil
}

// Conditions: a buy on the best ask at or below buyBelow while it has
// room and budget, and a sell on the best bid at or above sellAbove while
// it holds shares. A buy reads the best ask and a sell the best bid, so a
// met condition is fillable at that price.
func (buyLowSellHigh) Conditions(s Snapshot) []Cond {
	c := s.Config
	var out []Cond
	if hasRoom(s) && s.Left().Sign() > 0 {
		out = append(out, Cond{TokenID: s.TokenID, Field: FieldBestAsk, Op: OpAtOrBelow, Threshold: c.BuyBelow.val()})
	}
	if s.Sellable().Sign() > 0 {
		out = append(out, sellCond(s))
	}
	return out
}

// sellCond is the condition of a sell: the best bid at or above sellAbove.
func sellCond(s Snapshot) Cond {
	return Cond{TokenID: s.TokenID, Field: FieldBestBid, Op: OpAtOrAbove, Threshold: s.Config.SellAbove.val()}
}

func (buyLowSellHigh) Decide(in Input) (Plan, error) {
	c, token, bid, ask, tick := in.Config, in.TokenID, in.Top.Bid, in.Top.Ask, in.Top.Tick
	open := in.Sellable()
	if open.Sign() > 0 && bid.Sign() > 0 && bid.GreaterThanOrEqual(c.SellAbove.Decimal) {
		// Worst prices are the thresholds: any fill within the band
		// the user set, not only at the level read.
		return Plan{Kind: KindAction, Reason: fmt.Sprintf("best bid %s at or above sellAbove %s", bid.String(), c.SellAbove.String()),
			Order: orders.PlaceRequest{TokenID: token, Side: "SELL", Type: orders.TypeMarket, Price: onTick(c.SellAbove.Decimal, tick, false), Size: open,
				OwnSharesOnly: true}}, nil
	}
	if hasRoom(in.Snapshot) && ask.Sign() > 0 && ask.LessThanOrEqual(c.BuyBelow.Decimal) {
		size := c.SizePerTrade.Decimal
		worst := onTick(c.BuyBelow.Decimal, tick, true)
		if cost, left := size.Mul(worst), in.Left(); cost.GreaterThan(left) {
			if open.Sign() > 0 || in.BuyingMicro > 0 {
				// Not the end: it holds shares to sell, or has a buy that
				// may still fill (whose settling re-arms it). Only the
				// sell is armed meanwhile: the buy's condition, met now,
				// would fire again at once and decide this again, for as
				// long as the ask stays low.
				pl := Nothing("no budget for another buy: waiting to sell")
				pl.Conds = []Cond{}
				if open.Sign() > 0 {
					pl.Conds = append(pl.Conds, sellCond(in.Snapshot))
				}
				return pl, nil
			}
			return Plan{Kind: KindSkip, Complete: EndBudget,
				Reason: fmt.Sprintf("a buy would cost up to $%s but $%s of the strategy's budget is left", cost.StringFixed(2), left.String())}, nil
		}
		return Plan{Kind: KindAction, Reason: fmt.Sprintf("best ask %s at or below buyBelow %s", ask.String(), c.BuyBelow.String()),
			Order: orders.PlaceRequest{TokenID: token, Side: "BUY", Type: orders.TypeMarket, Price: worst, Size: size}}, nil
	}
	return Nothing(fmt.Sprintf("best bid %s below sellAbove %s (or nothing to sell), best ask %s above buyBelow %s (or no room to buy)",
		bid.String(), c.SellAbove.String(), ask.String(), c.BuyBelow.String())), nil
}

func maxOpen(c Config) decimal.Decimal {
	if c.MaxOpenSize != nil {
		return c.MaxOpenSize.Decimal
	}
	return c.SizePerTrade.val()
}

// hasRoom reports whether another lot keeps the strategy within
// maxOpenSize, counting what its live BUYs may still fill, so a buy whose
// fill has not arrived yet is not bought again.
func hasRoom(s Snapshot) bool {
	return s.Sellable().Add(micro.Decimal(s.BuyingMicro)).Add(s.Config.SizePerTrade.val()).LessThanOrEqual(maxOpen(s.Config))
}

func (buyLowSellHigh) Done(Snapshot) string { return "" }

// SellsHoldings: it ends only with nothing left to sell.
func (buyLowSellHigh) SellsHoldings(Config) bool { return true }

func (buyLowSellHigh) Summary(c Config) string {
	return fmt.Sprintf("buy %s at <= %s, sell at >= %s", c.SizePerTrade.val().String(), c.BuyBelow.val().String(), c.SellAbove.val().String())
}
