package strategies_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

// Decide stores the execution's order PENDING under its idempotency key
// and leaves the execution unrecorded; a retry (the local activity run
// again after a worker died) finds the same order, never a second one;
// once the order is placed, Placed records the execution, once.
func TestDecideStoresTheOrderOncePlacedRecordsIt(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	d, err := fx.Engine.Decide(ctx, id, 1)
	if err != nil || d.Place == nil || d.Outcome.Executed {
		t.Fatalf("decide: %+v %v", d, err)
	}
	o, err := fx.Store.OrderByID(ctx, d.Place.OrderID)
	if err != nil || o.Status != models.OrderPending || o.IdempotencyKey == nil || *o.IdempotencyKey != strategies.IdempotencyKey(id, 1) {
		t.Fatalf("stored order %+v %v", o, err)
	}
	if st, _ := fx.Store.StrategyByID(ctx, id); st.Executions != 0 {
		t.Fatalf("recorded before the placement: %d executions", st.Executions)
	}
	again, err := fx.Engine.Decide(ctx, id, 1)
	if err != nil || again.Place == nil || again.Place.OrderID != d.Place.OrderID {
		t.Fatalf("decide again: %+v %v", again, err)
	}
	if _, placed := fx.Placer.Counts(); placed != 1 {
		t.Fatalf("%d orders stored", placed)
	}
	if _, err := fx.Placer.Settle(ctx, d.Place.OrderID); err != nil {
		t.Fatal(err)
	}
	out, err := fx.Engine.Placed(ctx, id, 1, *d.Place)
	if err != nil || !out.Executed || out.OrderID != d.Place.OrderID || out.State.Status != strategies.StatusCompleted {
		t.Fatalf("placed: %+v %v", out, err)
	}
	// Replayed: answered as recorded; a decision after it finds the
	// execution recorded and places nothing.
	if twice, err := fx.Engine.Placed(ctx, id, 1, *d.Place); err != nil || twice.OrderID != out.OrderID {
		t.Fatalf("placed again: %+v %v", twice, err)
	}
	if late, err := fx.Engine.Decide(ctx, id, 1); err != nil || late.Place != nil || !late.Outcome.Executed {
		t.Fatalf("decide after the record: %+v %v", late, err)
	}
	st, _ := fx.Store.StrategyByID(ctx, id)
	if st.Executions != 1 || st.BudgetUsedMicro != 3_400_000 {
		t.Fatalf("executions %d, budget %d", st.Executions, st.BudgetUsedMicro)
	}
}

// The agent's brake binds at acceptance: a paused agent's execution
// stores no order and parks the strategy, as through the order desk.
func TestDecideObeysTheAgentsBrakeAtAcceptance(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Fail = nil })
	if err := fx.Store.UpdateAgentStatus(ctx, fx.UserID, fx.AgentID, models.AgentPaused); err != nil {
		t.Fatal(err)
	}
	d, err := fx.Engine.Decide(ctx, id, 1)
	if err != nil || d.Place != nil || d.Outcome.State.Status == strategies.StatusActive {
		t.Fatalf("decide for a paused agent: %+v %v", d, err)
	}
	if _, placed := fx.Placer.Counts(); placed != 0 {
		t.Fatalf("%d orders stored for a paused agent", placed)
	}
}

// Placed records only an order of the strategy's own: a placement naming
// another strategy's order is refused.
func TestPlacedRefusesAnotherStrategysOrder(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	d, err := fx.Engine.Decide(ctx, st.ID, 1)
	if err != nil || d.Place == nil {
		t.Fatalf("decide: %+v %v", d, err)
	}
	if _, err := fx.Engine.Placed(ctx, id, 1, *d.Place); err == nil {
		t.Fatal("recorded an order that is not the strategy's")
	}
	if st, _ := fx.Store.StrategyByID(ctx, id); st.Executions != 0 {
		t.Fatalf("%d executions recorded", st.Executions)
	}
}
