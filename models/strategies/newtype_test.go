package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

// dipBuy is a strategy type that exists only in this file: it buys
// sizePerTrade once, fill-and-kill up to buyBelow, when the best ask falls
// to buyBelow, then completes. It is the whole of what a new type is: this
// file's type and one registration (here RegisterForTest, in the product
// one line of the registry).
type dipBuy struct{}

const typeDipBuy = "DIP_BUY"

func (dipBuy) Name() string { return typeDipBuy }
func (dipBuy) Traits() strategies.Traits {
	return strategies.Traits{Market: strategies.MarketOne, EndsWhenPlaced: strategies.EndFired, Action: "BUY"}
}
func (dipBuy) Fields() []string {
	return []string{"tokenId", "marketQuery", "outcome", "buyBelow", "sizePerTrade"}
}

func (dipBuy) Validate(c *strategies.Config) error {
	if c.BuyBelow == nil || c.BuyBelow.Sign() <= 0 || c.BuyBelow.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return errs.E(errs.Invalid, "config.buyBelow must be between 0 and 1").WithCode(errs.CodeInvalidPriceBand)
	}
	if c.SizePerTrade == nil || c.SizePerTrade.Sign() <= 0 {
		return errs.E(errs.Invalid, "config.sizePerTrade must be positive").WithCode(errs.CodeInvalidStrategyAmount)
	}
	return nil
}

func (dipBuy) Feasible(c strategies.Config, budget, _ decimal.Decimal) error {
	if c.SizePerTrade.Mul(c.BuyBelow.Decimal).GreaterThan(budget) {
		return errs.E(errs.Invalid, "the dip buy costs more than maxBudget").WithCode(errs.CodeStrategyInfeasible)
	}
	return nil
}

func (dipBuy) Conditions(s strategies.Snapshot) []strategies.Cond {
	return []strategies.Cond{{TokenID: s.TokenID, Field: strategies.FieldBestAsk, Op: strategies.OpAtOrBelow, Threshold: s.Config.BuyBelow.Decimal}}
}

func (dipBuy) Decide(in strategies.Input) (strategies.Plan, error) {
	c := in.Config
	if in.Top.Ask.Sign() <= 0 || in.Top.Ask.GreaterThan(c.BuyBelow.Decimal) {
		return strategies.Nothing("best ask " + in.Top.Ask.String() + " is above buyBelow"), nil
	}
	return strategies.Plan{Kind: strategies.KindAction, Reason: "dip: best ask " + in.Top.Ask.String(), Complete: strategies.EndFired,
		Order: orders.PlaceRequest{TokenID: in.TokenID, Side: "BUY", Type: orders.TypeFAK, Price: c.BuyBelow.Decimal, Size: c.SizePerTrade.Decimal}}, nil
}

func (dipBuy) Done(strategies.Snapshot) string      { return "" }
func (dipBuy) SellsHoldings(strategies.Config) bool { return false }
func (dipBuy) Summary(c strategies.Config) string {
	return fmt.Sprintf("buy %s once at <= %s", c.SizePerTrade.String(), c.BuyBelow.String())
}

// A type defined and registered in a test file alone is a strategy type
// like the others: the API's validation knows it and its fields, creation
// stores its conditions, an execution asks it what to do and places its
// order, and the summary describes it. Nothing else in the package names
// it.
func TestANewTypeIsOneFileAndOneLine(t *testing.T) {
	undo := strategies.RegisterForTest(dipBuy{})
	t.Cleanup(undo)
	ctx := context.Background()

	if !slices.Contains(strategies.Types, typeDipBuy) || strategies.CheckType(typeDipBuy) != nil {
		t.Fatalf("types %v: the registered type is not known", strategies.Types)
	}
	if got := strategies.ConfigFields(typeDipBuy); !slices.Equal(got, dipBuy{}.Fields()) {
		t.Fatalf("fields %v", got)
	}
	if err := strategies.CheckType("NOPE"); err == nil || !strings.Contains(err.Error(), "COPY_TRADE or DIP_BUY") {
		t.Fatalf("unknown type: %v", err)
	}
	// Validation: a field of another type, and the type's own check.
	if _, _, err := strategies.ParseConfig(typeDipBuy, json.RawMessage(`{"tokenId":"1001","buyBelow":0.3,"sizePerTrade":10,"side":"BUY"}`)); errs.CodeOf(err) != errs.CodeUnknownField {
		t.Fatalf("a PRICE_ALERT field: %v", err)
	}
	if _, _, err := strategies.ParseConfig(typeDipBuy, json.RawMessage(`{"tokenId":"1001","buyBelow":1.5,"sizePerTrade":10}`)); errs.CodeOf(err) != errs.CodeInvalidPriceBand {
		t.Fatalf("buyBelow 1.5: %v", err)
	}
	// The market selector is checked for it like for every type with a
	// market.
	if _, _, err := strategies.ParseConfig(typeDipBuy, json.RawMessage(`{"buyBelow":0.3,"sizePerTrade":10}`)); errs.CodeOf(err) != errs.CodeInvalidMarketSelector {
		t.Fatalf("no market: %v", err)
	}

	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	svc := fx.Service(strategiestest.Direct{Engine: fx.Engine}, nil)
	if _, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: typeDipBuy,
		Config: json.RawMessage(`{"tokenId":"1001","buyBelow":0.3,"sizePerTrade":10}`), MaxBudget: strategies.D(decimal.NewFromInt(2))}); errs.CodeOf(err) != errs.CodeStrategyInfeasible {
		t.Fatalf("infeasible: %v", err)
	}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: typeDipBuy,
		Config: json.RawMessage(`{"tokenId":"1001","buyBelow":0.3,"sizePerTrade":10}`), MaxBudget: strategies.D(decimal.NewFromInt(20))})
	if err != nil {
		t.Fatal(err)
	}
	// Its conditions are stored for the triggers to arm.
	row, err := fx.Store.StrategyByID(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	var conds []strategies.Cond
	if err := json.Unmarshal([]byte(row.Triggers), &conds); err != nil || len(conds) != 1 || conds[0].Op != strategies.OpAtOrBelow ||
		!conds[0].Threshold.Equal(decimal.RequireFromString("0.3")) || conds[0].TokenID != strategiestest.Token {
		t.Fatalf("stored conditions %q (%v)", row.Triggers, err)
	}
	state, err := fx.Engine.Load(ctx, st.ID)
	if err != nil || !strings.HasPrefix(state.Summary, "DIP_BUY "+st.ID+" on token 1001") ||
		!strings.Contains(state.Summary, ": buy 10 once at <= 0.3; budget $20;") {
		t.Fatalf("summary %q (%v)", state.Summary, err)
	}

	// Above buyBelow: nothing to do, nothing placed.
	fx.Book.Set(strategiestest.Token, "0.38", "0.40")
	out, err := fx.Engine.Execute(ctx, st.ID, 1)
	if err != nil || out.Executed {
		t.Fatalf("above buyBelow: %+v %v", out, err)
	}
	// The dip: its order is placed and the strategy completes.
	fx.Book.Set(strategiestest.Token, "0.27", "0.29")
	out, err = fx.Engine.Execute(ctx, st.ID, 1)
	if err != nil || !out.Executed || out.Kind != strategies.KindAction || out.OrderID == "" || out.State.Status != strategies.StatusCompleted {
		t.Fatalf("the dip: %+v %v", out, err)
	}
	o, err := fx.Store.OrderByID(ctx, out.OrderID)
	if err != nil || o.Side != "BUY" || o.SizeMicro != 10_000_000 || o.PriceMicro != 300_000 || o.StrategyID == nil || *o.StrategyID != st.ID {
		t.Fatalf("order %+v (%v)", o, err)
	}
	if calls, placed := fx.Placer.Counts(); calls != 1 || placed != 1 {
		t.Fatalf("place calls %d, placed %d", calls, placed)
	}
}

// The decision is a pure function of its input: the backtest runs it over
// recorded prices without a store, a venue or Temporal.
func TestDecideIsPure(t *testing.T) {
	c, _, err := strategies.ParseConfig(strategies.TypeBuyLowSellHigh, json.RawMessage(`{"tokenId":"1001","buyBelow":0.3,"sellAbove":0.6,"sizePerTrade":10,"maxOpenSize":20}`))
	if err != nil {
		t.Fatal(err)
	}
	typ := strategies.TypeOf(strategies.TypeBuyLowSellHigh)
	d := decimal.RequireFromString
	for _, tc := range []struct {
		name            string
		bid, ask        string
		open, used      int64
		kind, side, why string
	}{
		{"a dip buys", "0.25", "0.28", 0, 0, strategies.KindAction, "BUY", "best ask 0.28 at or below buyBelow 0.3"},
		{"a rise sells what it holds", "0.61", "0.63", 10_000_000, 3_000_000, strategies.KindAction, "SELL", "best bid 0.61 at or above sellAbove 0.6"},
		{"a rise with nothing held", "0.61", "0.63", 0, 0, "", "", ""},
		{"full: no room to buy", "0.25", "0.28", 20_000_000, 6_000_000, "", "", ""},
		{"no budget for a buy, nothing held", "0.25", "0.28", 0, 19_000_000, strategies.KindSkip, "", "a buy would cost up to $3.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strategies.Input{Snapshot: strategies.Snapshot{Config: c, TokenID: "1001", MaxBudgetMicro: 20_000_000,
				BudgetUsedMicro: tc.used, OpenSizeMicro: tc.open}, Top: strategies.Top{Bid: d(tc.bid), Ask: d(tc.ask), Tick: "0.01"}}
			pl, err := typ.Decide(in)
			if err != nil || pl.Kind != tc.kind || pl.Order.Side != tc.side || !strings.Contains(pl.Reason, tc.why) {
				t.Fatalf("plan %+v (%v)", pl, err)
			}
			if tc.kind == "" && pl.Reason == "" {
				t.Fatal("nothing to do says why")
			}
		})
	}
}
