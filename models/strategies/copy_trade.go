package strategies

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/micro"
)

// TypeCopyTrade copies the trades of a wallet (targetAddress) as they
// happen on chain: a Follower, whose executions run over the target's
// recorded trades (copytrade.go) instead of a market's prices.
const TypeCopyTrade = "COPY_TRADE"

type copyTrade struct{}

func (copyTrade) Name() string { return TypeCopyTrade }

func (copyTrade) Traits() Traits {
	return Traits{Market: MarketNone, Action: "BUY",
		// A copy is a marketable order at the target's price within
		// CopySlippage: when the book has moved past that (a late copy, a
		// thin market) it is a copy not made, not a failure of the
		// strategy, which must go on copying the next trade.
		Unfilled: "not copied: nothing to match at %s or better (the target's price within the slippage; the market moved): %s"}
}

func (copyTrade) Fields() []string {
	return []string{"targetAddress", "sizingMode", "fixedAmount", "proportionPct", "copySells", "maxPositionSize", "tokenFilter"}
}

// Target is the wallet it copies.
func (copyTrade) Target(c Config) string { return c.TargetAddress }

func (copyTrade) Feasible(c Config, budget, _ decimal.Decimal) error {
	if budget.LessThan(minMarketBuy) {
		return infeasible("maxBudget $%s is below the venue's $1 minimum for a market buy: no copy could be bought", budget)
	}
	if c.SizingMode == SizingFixed && c.FixedAmount.val().LessThan(minMarketBuy) {
		return infeasible("fixedAmount $%s is below the venue's $1 minimum for a market buy: every copied buy would be skipped", c.FixedAmount.val())
	}
	return nil
}

// Conditions: none, the target's trades wake it.
func (copyTrade) Conditions(Snapshot) []Cond { return nil }

func (copyTrade) Done(Snapshot) string { return "" }

// SellsHoldings: when it copies sells, it ends only with nothing to sell.
func (copyTrade) SellsHoldings(c Config) bool { return c.CopySells != nil && *c.CopySells }

// Validate checks a COPY_TRADE config and normalises it (the
// checksummed address, the lower-case mode, the filter sorted). Whether the
// target is the user's own wallet needs the user: Service.checkCopyTarget.
func (copyTrade) Validate(c *Config) error {
	c.TargetAddress = strings.TrimSpace(c.TargetAddress)
	if !common.IsHexAddress(c.TargetAddress) || !strings.HasPrefix(strings.ToLower(c.TargetAddress), "0x") {
		return errs.E(errs.Invalid, "config.targetAddress must be a 0x-prefixed Ethereum address").WithCode(errs.CodeInvalidTargetAddress)
	}
	addr := common.HexToAddress(c.TargetAddress)
	if addr == (common.Address{}) {
		return errs.E(errs.Invalid, "config.targetAddress is the zero address").WithCode(errs.CodeInvalidTargetAddress)
	}
	c.TargetAddress = addr.Hex()
	c.SizingMode = strings.ToLower(strings.TrimSpace(c.SizingMode))
	mode := func(msg string) error { return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidSizingMode) }
	switch c.SizingMode {
	case SizingFixed:
		if c.FixedAmount == nil {
			return mode("config.fixedAmount (USDC per copy) is required when sizingMode is fixed")
		}
		if c.ProportionPct != nil {
			return mode("config.proportionPct is for sizingMode proportional, not fixed")
		}
		if err := positive("fixedAmount", c.FixedAmount, true); err != nil {
			return err
		}
	case SizingProportional:
		if c.ProportionPct == nil {
			return mode("config.proportionPct (1 to 100) is required when sizingMode is proportional")
		}
		if c.FixedAmount != nil {
			return mode("config.fixedAmount is for sizingMode fixed, not proportional")
		}
		if msg, ok := precise(c.ProportionPct, AmountPlaces); !ok {
			return errs.Ef(errs.Invalid, "config.proportionPct %s", msg).WithCode(errs.CodeInvalidProportion)
		}
		if p := c.ProportionPct.Decimal; p.LessThan(MinProportionPct) || p.GreaterThan(MaxProportionPct) {
			return errs.Ef(errs.Invalid, "config.proportionPct must be between 1 and 100, got %s", p.String()).WithCode(errs.CodeInvalidProportion)
		}
	default:
		return mode("config.sizingMode must be fixed or proportional")
	}
	if c.CopySells == nil {
		return errs.E(errs.Invalid, "config.copySells is required: true mirrors the target's sells too, false only its buys").WithCode(errs.CodeInvalidCopySells)
	}
	if err := positive("maxPositionSize", c.MaxPositionSize, false); err != nil {
		return err
	}
	if len(c.TokenFilter) > MaxTokenFilter {
		return errs.Ef(errs.Invalid, "config.tokenFilter holds more than %d token ids", MaxTokenFilter).WithCode(errs.CodeInvalidTokenFilter)
	}
	for i, t := range c.TokenFilter {
		t = strings.TrimSpace(t)
		if !validTokenID(t) {
			return errs.Ef(errs.Invalid, "config.tokenFilter[%d] %q is not a token id (a decimal number)", i, t).WithCode(errs.CodeInvalidTokenFilter)
		}
		c.TokenFilter[i] = t
	}
	slices.Sort(c.TokenFilter)
	if len(slices.Compact(slices.Clone(c.TokenFilter))) != len(c.TokenFilter) {
		return errs.E(errs.Invalid, "config.tokenFilter names a token twice").WithCode(errs.CodeInvalidTokenFilter)
	}
	if len(c.TokenFilter) == 0 {
		c.TokenFilter = nil
	}
	return nil
}

func (copyTrade) Summary(c Config) string {
	size := "$" + c.FixedAmount.val().String() + " per copy"
	if c.SizingMode == SizingProportional {
		size = c.ProportionPct.val().String() + "% of the target's size"
	}
	sells := "buys only"
	if c.CopySells != nil && *c.CopySells {
		sells = "buys and sells"
	}
	out := fmt.Sprintf("copy %s: %s, %s", c.TargetAddress, size, sells)
	if c.MaxPositionSize != nil {
		out += ", at most " + c.MaxPositionSize.String() + " shares per token"
	}
	if len(c.TokenFilter) > 0 {
		out += fmt.Sprintf(", %d tokens", len(c.TokenFilter))
	}
	return out
}

// Decide turns a recorded event of the target into this strategy's
// copy: a skip (not a trade, stale, filtered, a sell with copySells false,
// nothing left to buy or sell within the caps) or a marketable order (FAK)
// at the target's price within CopySlippage, sized by the mode and capped
// by maxPositionSize and the budget (BUY) or the strategy's own shares of
// the token (SELL).
func (copyTrade) Decide(in Input) (Plan, error) {
	c, ct := in.Config, in.Trade.Event
	src := copySource(ct)
	skip := func(why string) (Plan, error) {
		return Plan{Kind: KindSkip, Reason: why + ": " + src, Order: orders.PlaceRequest{Side: ct.Side, TokenID: ct.TokenID}}, nil
	}
	switch {
	case ct.Kind == models.CopyKindSkip:
		return skip("not a trade, " + ct.Reason)
	case in.Now.Sub(ct.CreatedAt) > CopyMaxAge:
		return skip(fmt.Sprintf("stale: recorded %s ago (copies older than %s are not placed)", in.Now.Sub(ct.CreatedAt).Round(time.Second), CopyMaxAge))
	case len(c.TokenFilter) > 0 && !slices.Contains(c.TokenFilter, ct.TokenID):
		return skip("token " + ct.TokenID + " is not in tokenFilter")
	case ct.Side == "SELL" && (c.CopySells == nil || !*c.CopySells):
		return skip("a sell, and copySells is false")
	}
	price, shares := micro.Decimal(ct.PriceMicro), micro.Decimal(ct.SharesMicro)
	if price.Sign() <= 0 || price.GreaterThanOrEqual(one) || shares.Sign() <= 0 {
		return skip("the fill has no usable price or size")
	}
	size := shares.Mul(c.ProportionPct.val()).Div(MaxProportionPct)
	if c.SizingMode == SizingFixed {
		size = c.FixedAmount.val().Div(price)
	}
	held, committed := in.Trade.HeldMicro, in.Trade.CommittedMicro
	if ct.Side == "SELL" {
		if held <= 0 {
			return skip("the strategy holds no shares of token " + ct.TokenID + " to sell")
		}
		size = decimal.Min(size, micro.Decimal(held)).RoundFloor(2)
		worst := decimal.Max(price.Sub(CopySlippage), cent).Div(cent).Ceil().Mul(cent)
		if size.Sign() <= 0 {
			return skip("the copy rounds to no shares")
		}
		return Plan{Kind: KindAction, Reason: fmt.Sprintf("copy of %s: sell %s at %s or better", src, size.String(), worst.String()),
			Order: orders.PlaceRequest{TokenID: ct.TokenID, Side: "SELL", Type: orders.TypeFAK, Price: worst, Size: size, OwnSharesOnly: true}}, nil
	}
	worst := decimal.Min(price.Add(CopySlippage), one.Sub(cent)).Div(cent).Floor().Mul(cent)
	if worst.LessThan(price) {
		worst = price // a price above 0.99 on a finer tick
	}
	if c.MaxPositionSize != nil {
		room := c.MaxPositionSize.Sub(micro.Decimal(committed))
		if room.Sign() <= 0 {
			return skip(fmt.Sprintf("the strategy holds (or is buying) %s shares of token %s, maxPositionSize %s",
				micro.Decimal(committed).String(), ct.TokenID, c.MaxPositionSize.String()))
		}
		size = decimal.Min(size, room)
	}
	left := in.Left()
	size = decimal.Min(size, left.Div(worst)).RoundFloor(2)
	if size.Mul(worst).LessThan(minMarketBuy) {
		pl, _ := skip(fmt.Sprintf("the copy would buy less than the venue's $1 minimum ($%s of the strategy's budget left)", left.String()))
		if left.LessThan(minMarketBuy) && (!copyTrade{}.SellsHoldings(c) || in.OpenSizeMicro == 0) {
			pl.Complete = EndBudget
		}
		return pl, nil
	}
	return Plan{Kind: KindAction, Reason: fmt.Sprintf("copy of %s: buy %s at %s or better", src, size.String(), worst.String()),
		Order: orders.PlaceRequest{TokenID: ct.TokenID, Side: "BUY", Type: orders.TypeFAK, Price: worst, Size: size}}, nil
}
