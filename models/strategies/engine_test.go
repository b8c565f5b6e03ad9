package strategies_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

type noRunner struct{}

func (noRunner) Start(context.Context, strategies.State) error { return nil }
func (noRunner) Change(context.Context, strategies.Change) (strategies.State, error) {
	return strategies.State{}, errs.E(errs.Internal, "no runner")
}

func newAlert(t *testing.T) (*strategiestest.Env, string) {
	t.Helper()
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	return fx, st.ID
}

// An execution whose order was placed but not recorded (the worker died
// in between) adopts the order on its retry instead of placing another,
// even if the price moved away meanwhile.
func TestExecuteAdoptsTheOrderOfAnEarlierAttempt(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	p := orders.Principal{AgentID: fx.AgentID, UserID: fx.UserID}
	if _, err := fx.Placer.Place(ctx, p, orders.PlaceRequest{TokenID: strategiestest.Token, Side: "BUY", Type: "MARKET",
		Price: decimal.RequireFromString("0.34"), Size: decimal.NewFromInt(10), IdempotencyKey: strategies.IdempotencyKey(id, 1), StrategyID: id}); err != nil {
		t.Fatal(err)
	}
	fx.Book.Set(strategiestest.Token, "0.50", "0.52")
	out, err := fx.Engine.Execute(ctx, id, 1)
	if err != nil || !out.Executed || out.OrderID == "" || out.State.Status != strategies.StatusCompleted {
		t.Fatalf("execute: %+v %v", out, err)
	}
	// Again (a replayed activity): answered as recorded.
	again, err := fx.Engine.Execute(ctx, id, 1)
	if err != nil || again.OrderID != out.OrderID {
		t.Fatalf("again: %+v %v", again, err)
	}
	if calls, placed := fx.Placer.Counts(); calls != 1 || placed != 1 {
		t.Fatalf("place calls %d, placed %d", calls, placed)
	}
	st, _ := fx.Store.StrategyByID(ctx, id)
	if st.BudgetUsedMicro != 3_400_000 || st.Executions != 1 {
		t.Fatalf("budget %d, executions %d", st.BudgetUsedMicro, st.Executions)
	}
}

func TestExecuteEnforcesTheStrategyBudget(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	// An earlier buy of the strategy spent 18 of its 20 USDC (the budget
	// is derived from its orders); 10 shares at up to 0.35 cost 3.50.
	if _, err := fx.Placer.Place(ctx, orders.Principal{AgentID: fx.AgentID, UserID: fx.UserID}, orders.PlaceRequest{
		TokenID: strategiestest.Token, Side: "BUY", Type: "MARKET", Price: decimal.RequireFromString("0.4"), Size: decimal.NewFromInt(45),
		IdempotencyKey: "earlier", StrategyID: id}); err != nil {
		t.Fatal(err)
	}
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	out, err := fx.Engine.Execute(ctx, id, 1)
	if err != nil || out.Kind != strategies.KindSkip || out.State.Status != strategies.StatusCompleted || out.State.EndedReason != strategies.EndBudget {
		t.Fatalf("execute: %+v %v", out, err)
	}
	if calls, _ := fx.Placer.Counts(); calls != 1 { // the earlier buy only
		t.Fatal("an order over the strategy's budget was placed")
	}
}

// A hint the re-check does not confirm records nothing and re-arms.
func TestExecuteRechecksThePrice(t *testing.T) {
	fx, id := newAlert(t)
	out, err := fx.Engine.Execute(context.Background(), id, 1)
	if err != nil || out.Executed || out.State.Status != strategies.StatusActive || !out.State.Armed {
		t.Fatalf("execute: %+v %v", out, err)
	}
	if calls, _ := fx.Placer.Counts(); calls != 0 {
		t.Fatal("placed above the trigger")
	}
}

// A market order the book killed unfilled is a failed execution: a
// condition that keeps firing on a book too thin to trade ends in ERROR.
func TestUnfilledOrderIsAFailedExecution(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "CANCELLED" })
	var out strategies.Outcome
	for seq := 1; seq <= 3; seq++ {
		var err error
		if out, err = fx.Engine.Execute(ctx, id, seq); err != nil || out.Kind != strategies.KindError {
			t.Fatalf("execution %d: %+v %v", seq, out, err)
		}
	}
	if out.State.Status != strategies.StatusError || out.State.ConsecutiveErrors != 3 {
		t.Fatalf("after 3 unfilled orders: %+v", out.State)
	}
}

// A BUY whose fill arrives after its execution was recorded (the order
// was still live then): the strategy holds nothing yet, so no sell is
// armed, and the live buy takes its room (no second lot is bought while
// it may still fill). The order's hint then runs a check that finds
// nothing due, which stores the shares and arms the sell; the sell comes
// when the bid reaches sellAbove.
func TestLateBuyFillArmsTheSell(t *testing.T) {
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	ctx := context.Background()
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	created, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "BUY_LOW_SELL_HIGH",
		Config:    json.RawMessage(`{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	id := created.ID
	conds := func() []strategies.Cond { t.Helper(); return storedConds(t, fx, id) }
	hasSell := func() bool {
		for _, c := range conds() {
			if c.Field == strategies.FieldBestBid && c.Op == strategies.OpAtOrAbove {
				return true
			}
		}
		return false
	}

	fx.Book.Set(strategiestest.Token, "0.30", "0.35")
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "OPEN" }) // placed, not filled yet
	out, err := fx.Engine.Execute(ctx, id, 1)
	if err != nil || out.Kind != strategies.KindAction || out.OrderID == "" {
		t.Fatalf("buy: %+v %v", out, err)
	}
	if hasSell() || len(conds()) != 0 {
		t.Fatalf("conditions with a buy not filled yet: %+v", conds())
	}
	// A hint while the buy is live: the ask is still low, but the live
	// buy takes the room of maxOpenSize (one lot).
	if out, err := fx.Engine.Execute(ctx, id, 2); err != nil || out.Executed {
		t.Fatalf("check while the buy is live: %+v %v", out, err)
	}
	if calls, _ := fx.Placer.Counts(); calls != 1 {
		t.Fatalf("%d placements: a second lot was bought while the first could still fill", calls)
	}

	// The fill arrives; the order's hint runs a check: nothing is due at
	// a bid of 0.30, the shares are stored and the sell is armed.
	filled, avg := int64(5_000_000), int64(350_000)
	if err := fx.Store.UpdateOrder(ctx, out.OrderID, nil, store.OrderUpdate{Status: ptr("FILLED"), FilledSizeMicro: &filled, AvgFillPriceMicro: &avg}); err != nil {
		t.Fatal(err)
	}
	if out, err := fx.Engine.Execute(ctx, id, 2); err != nil || out.Executed || !out.State.Armed {
		t.Fatalf("check after the fill: %+v %v", out, err)
	}
	st, _ := fx.Store.StrategyByID(ctx, id)
	if st.OpenSizeMicro != 5_000_000 || st.BudgetUsedMicro != 1_750_000 || !hasSell() {
		t.Fatalf("after the late fill: open %d, budget used %d, conditions %+v", st.OpenSizeMicro, st.BudgetUsedMicro, conds())
	}
	fx.Book.Set(strategiestest.Token, "0.65", "0.67")
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "" })
	out, err = fx.Engine.Execute(ctx, id, 2)
	if err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("sell: %+v %v", out, err)
	}
	// The order path caps the sell at the strategy's own shares.
	if reqs := fx.Placer.Requests; len(reqs) != 2 || reqs[1].Side != "SELL" || !reqs[1].Size.Equal(decimal.NewFromInt(5)) || !reqs[1].OwnSharesOnly {
		t.Fatalf("placements: %+v", reqs)
	}
}

func ptr[T any](v T) *T { return &v }

// A market buy sized at the level read that filled at a better price got
// a little more than its size; after the sell of what can be sold (whole
// hundredths), the dust left is not held: no sell of it is armed or
// tried, and it takes no room from the next lot.
func TestDustLeftAfterTheSellIsNotHeld(t *testing.T) {
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	ctx := context.Background()
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	created, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "BUY_LOW_SELL_HIGH",
		Config:    json.RawMessage(`{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	id := created.ID
	fx.Book.Set(strategiestest.Token, "0.30", "0.35")
	out, err := fx.Engine.Execute(ctx, id, 1)
	if err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("buy: %+v %v", out, err)
	}
	filled := int64(5_007_058) // 1.75 USDC at 0.3495 instead of 0.35
	if err := fx.Store.UpdateOrder(ctx, out.OrderID, nil, store.OrderUpdate{FilledSizeMicro: &filled}); err != nil {
		t.Fatal(err)
	}
	fx.Book.Set(strategiestest.Token, "0.65", "0.67")
	if out, err := fx.Engine.Execute(ctx, id, 2); err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("sell: %+v %v", out, err)
	}
	if r := fx.Placer.Requests[1]; r.Side != "SELL" || !r.Size.Equal(decimal.RequireFromString("5")) {
		t.Fatalf("sell %+v, want the 5 whole hundredths", r)
	}
	// Still at a high bid: nothing is due (no sell of 0.007058 shares),
	// and only the buy is armed.
	if out, err := fx.Engine.Execute(ctx, id, 3); err != nil || out.Executed {
		t.Fatalf("with only dust at a high bid: %+v %v", out, err)
	}
	st, _ := fx.Store.StrategyByID(ctx, id)
	if st.OpenSizeMicro != 7_058 || st.ConsecutiveFailures != 0 || strings.Contains(st.Triggers, strategies.FieldBestBid) ||
		!strings.Contains(st.Triggers, strategies.FieldBestAsk) {
		t.Fatalf("open %d, failures %d, conditions %s", st.OpenSizeMicro, st.ConsecutiveFailures, st.Triggers)
	}
	// Low again: the next lot is bought (the dust takes no room).
	fx.Book.Set(strategiestest.Token, "0.30", "0.35")
	if out, err = fx.Engine.Execute(ctx, id, 3); err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("next buy: %+v %v", out, err)
	}
	if r := fx.Placer.Requests[2]; r.Side != "BUY" {
		t.Fatalf("third order %+v", r)
	}
}

// A BUY_LOW_SELL_HIGH with room for another lot but not the budget for it
// decides nothing while the ask is low ("waiting to sell"): its buy
// condition must not stay armed then, or it fires again at once and
// decides the same, a workflow task after another for as long as the ask
// stays low. Only the sell is armed; once it sold, holding nothing, the
// buy's condition is armed again and ends the strategy on its budget.
func TestNoBudgetForAnotherLotArmsOnlyTheSell(t *testing.T) {
	fx, id := shortOfALot(t, false)
	ctx := context.Background()
	conds := func() (buy, sell bool) {
		t.Helper()
		for _, c := range storedConds(t, fx, id) {
			buy = buy || c.Field == strategies.FieldBestAsk && c.Op == strategies.OpAtOrBelow
			sell = sell || c.Field == strategies.FieldBestBid && c.Op == strategies.OpAtOrAbove
		}
		return buy, sell
	}

	if buy, sell := conds(); buy || !sell {
		t.Fatalf("armed after deciding nothing: buy %v (met now: it would decide this again at once), sell %v", buy, sell)
	}
	fx.Book.Set(strategiestest.Token, "0.65", "0.67")
	if out, err := fx.Engine.Execute(ctx, id, 2); err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("sell: %+v %v", out, err)
	}
	if buy, sell := conds(); !buy || sell {
		t.Fatalf("armed after selling everything: buy %v, sell %v", buy, sell)
	}
	fx.Book.Set(strategiestest.Token, "0.30", "0.35")
	out, err := fx.Engine.Execute(ctx, id, 3)
	if err != nil || out.Kind != strategies.KindSkip || out.State.Status != strategies.StatusCompleted {
		t.Fatalf("holding nothing and unable to buy a lot: %+v %v", out, err)
	}
}

// The same with the first lot's buy still live (it may fill): nothing is
// armed until it settles, and no skip is recorded meanwhile — the end on
// the budget waits for what the buy fills.
func TestNoBudgetForAnotherLotWhileTheBuyIsLiveArmsNothing(t *testing.T) {
	fx, id := shortOfALot(t, true)
	st, err := fx.Store.StrategyByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Triggers != "" || st.Executions != 1 || st.Status != strategies.StatusActive {
		t.Fatalf("after deciding nothing with the buy live: conditions %q, %d executions, %s", st.Triggers, st.Executions, st.Status)
	}
}

// shortOfALot creates a BUY_LOW_SELL_HIGH with room for two lots and the
// budget for one (a lot costs up to 5 × 0.40 = $2, its budget is $3),
// buys one at an ask of 0.35 (left live, not filled yet, when live) and
// checks again at that ask: room for a second lot, $1.25 left for it, so
// nothing is executed.
func shortOfALot(t *testing.T, live bool) (*strategiestest.Env, string) {
	t.Helper()
	ctx := context.Background()
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	created, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "BUY_LOW_SELL_HIGH",
		Config:    json.RawMessage(`{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5,"maxOpenSize":10}`),
		MaxBudget: strategies.D(decimal.RequireFromString("3"))})
	if err != nil {
		t.Fatal(err)
	}
	id := created.ID
	fx.Book.Set(strategiestest.Token, "0.30", "0.35")
	if live {
		fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "OPEN" }) // placed, not filled yet
	}
	if out, err := fx.Engine.Execute(ctx, id, 1); err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("buy: %+v %v", out, err)
	}
	if out, err := fx.Engine.Execute(ctx, id, 2); err != nil || out.Executed {
		t.Fatalf("check with no budget for a second lot (buy live %v): %+v %v", live, out, err)
	}
	if live {
		fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "" })
	}
	return fx, id
}

// storedConds are the conditions strategy id stores (what the triggers arm).
func storedConds(t *testing.T, fx *strategiestest.Env, id string) []strategies.Cond {
	t.Helper()
	st, err := fx.Store.StrategyByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []strategies.Cond
	if st.Triggers != "" {
		if err := json.Unmarshal([]byte(st.Triggers), &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
