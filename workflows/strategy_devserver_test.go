package workflows_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestStrategyOnDevServer runs a PRICE_ALERT through the service and its
// workflow on a real Temporal server: created (workflow id = strategy id,
// search attributes set), paused and resumed by the user through the
// updates (which answer with the new state), a resume of an ACTIVE
// strategy refused by the validator, a price hint that fires the alert,
// and the strategy COMPLETED. The Web UI's query
// StrategyType="PRICE_ALERT" AND StrategyStatus="COMPLETED" finds it.
// With ATS_RECORD_HISTORY=<path> it writes the history for the replay
// tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy.json \
//	  go test -run TestStrategyOnDevServer ./workflows/
func TestStrategyOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	ctx, c := onDevServerWithOrders(t, venueOrder(fx), &activities.Strategies{Engine: fx.Engine, Intents: keys})

	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Runs: sc, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	user := strategies.Actor{By: strategies.ByUser, UserID: fx.UserID}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT", Config: json.RawMessage(alertBuy),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := svc.Pause(ctx, user, st.ID); err != nil || p.Status != strategies.StatusPaused || p.PausedBy != strategies.ByUser {
		t.Fatalf("pause: %+v %v", p, err)
	}
	if p, err := svc.Resume(ctx, fx.Actor(), st.ID); err != nil || p.Status != strategies.StatusActive {
		t.Fatalf("resume: %+v %v", p, err)
	}
	// The service checks the state first; the workflow's validator refuses
	// what slips past it (here sent straight to the workflow).
	if _, err := sc.Change(ctx, strategies.Change{StrategyID: st.ID, Action: strategies.ActionResume, By: strategies.ByUser}); errs.CodeOf(err) != errs.CodeStrategyState {
		t.Fatalf("resume of an ACTIVE strategy: %v", err)
	}
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	if err := sc.Hint(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	var res strategies.State
	if err := c.GetWorkflow(ctx, st.ID, "").Get(ctx, &res); err != nil || res.Status != strategies.StatusCompleted {
		t.Fatalf("result %+v %v", res, err)
	}
	if _, err := svc.Resume(ctx, user, st.ID); errs.CodeOf(err) != errs.CodeStrategyFinal {
		t.Fatalf("resume of a COMPLETED strategy: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
			Query: `StrategyType="PRICE_ALERT" AND StrategyStatus="COMPLETED" AND AgentId="` + fx.AgentID + `"`})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Executions) == 1 && resp.Executions[0].Execution.WorkflowId == st.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the visibility query finds %d workflows", len(resp.Executions))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, st.ID, ""))
	}
}

// TestStrategyMarketCheckOnDevServer runs a PRICE_ALERT on a marketQuery
// whose window ends a few seconds after creation on a real Temporal
// server (version 1 of "market-check"): at the end date the workflow wakes
// with no price event, the market no longer trades and the query names
// the next window, so the strategy moves there; a price hint then fires
// it in the new window and it completes. With ATS_RECORD_HISTORY=<path>
// it writes the history for the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_market.json \
//	  go test -run TestStrategyMarketCheckOnDevServer ./workflows/
func TestStrategyMarketCheckOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	ctx, c := onDevServerWithOrders(t, venueOrder(fx), &activities.Strategies{Engine: fx.Engine, Intents: keys})
	const next = "3003"
	end, after := time.Now().Add(3*time.Second).UTC(), time.Now().Add(time.Hour).UTC()
	fx.Markets.Set(markets.TokenMarket{TokenID: strategiestest.Token, Question: "BTC window 1", Outcome: "Up", EndDate: &end, AcceptingOrders: true})
	fx.Markets.Set(markets.TokenMarket{TokenID: next, Question: "BTC window 2", Outcome: "Up", EndDate: &after, AcceptingOrders: true})
	fx.Book.Set(next, "0.45", "0.47")

	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Strategies: fx.Service(nil), Runs: sc}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"marketQuery":"btc 15m up","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.3,"size":10}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	fx.Markets.Close(strategiestest.Token)
	fx.Resolver.Set("btc 15m up", next)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		row, err := fx.Store.StrategyByID(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.TokenID == next {
			if time.Now().Before(end) {
				t.Fatal("moved before the window's end")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the strategy never moved to the next window: %+v", row)
		}
	}
	fx.Book.Set(next, "0.25", "0.28")
	if err := sc.Hint(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	var res strategies.State
	if err := c.GetWorkflow(ctx, st.ID, "").Get(ctx, &res); err != nil || res.Status != strategies.StatusCompleted {
		t.Fatalf("result %+v %v", res, err)
	}
	if r := fx.Placer.Requests; len(r) != 1 || r[0].TokenID != next {
		t.Fatalf("placed %+v", r)
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, st.ID, ""))
	}
}
