package strategies_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
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
	svc := &strategies.Service{Store: fx.Store, Runner: noRunner{}, Resolver: strategiestest.Resolver{}}
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
