package workflows_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/shopspring/decimal"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestStrategyStartsItsOrderOnDevServer runs a PRICE_ALERT whose LIMIT
// order rests on the book, at strategy-shape 2, on a real Temporal
// server: the execution is one local activity (PlaceStrategyExecution)
// that records the execution with its outcome open and starts the order's
// workflow — not a child, id "order/<order id>", the order task queue —
// without waiting; the order's first attempt amends the execution (OPEN:
// an action) and completes the alert, and tells the strategy's run
// (StrategySignalSettled), which reloads and completes. The order's
// workflow goes on. With ATS_RECORD_HISTORY=<path> it writes the
// strategy's history for the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_starts.json \
//	  go test -run TestStrategyStartsItsOrderOnDevServer ./workflows/
func TestStrategyStartsItsOrderOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = models.OrderOpen })
	ctx, c := onDevServerWithOrders(t, venueOrder(fx), &activities.Strategies{Engine: fx.Engine, Intents: keys})
	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Runs: sc, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"LIMIT"}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	if err := sc.Hint(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	var res strategies.State
	if err := c.GetWorkflow(ctx, st.ID, "").Get(ctx, &res); err != nil || res.Status != strategies.StatusCompleted || res.Executions != 1 {
		t.Fatalf("result %+v %v", res, err)
	}
	recs, err := fx.Store.ListStrategyExecutions(ctx, st.ID, 10)
	if err != nil || len(recs) != 1 || recs[0].OrderID == nil || recs[0].OrderStatus != models.OrderOpen || recs[0].Kind != strategies.KindAction || recs[0].Open {
		t.Fatalf("executions %+v %v", recs, err)
	}
	oid := *recs[0].OrderID
	if calls, placed := fx.Placer.Counts(); calls != 1 || placed != 1 {
		t.Fatalf("accept calls %d, orders %d", calls, placed)
	}
	d, err := c.DescribeWorkflowExecution(ctx, workflows.WorkflowID(workflows.KindOrder, oid), "")
	if err != nil {
		t.Fatal(err)
	}
	info := d.WorkflowExecutionInfo
	if info.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || info.ParentExecution != nil || info.TaskQueue != workflows.OrderTaskQueue {
		t.Fatalf("the order's workflow after its strategy completed: %v, parent %v, queue %s", info.Status, info.ParentExecution, info.TaskQueue)
	}
	h := replaytest.History(t, ctx, c, st.ID, "")
	kinds := map[enumspb.EventType]int{}
	for _, e := range h.Events {
		kinds[e.EventType]++
	}
	// No child, no version marker, one timer (the expiry's, started once):
	// the run's history is its start and load, the hint's task and its one
	// local activity, the settled signal's task, its reload, and the end.
	if n := kinds[enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED]; n != 0 {
		t.Fatalf("%d child workflows started by the strategy", n)
	}
	if n := kinds[enumspb.EVENT_TYPE_TIMER_STARTED]; n != 1 {
		t.Fatalf("%d timers started by the strategy (one for its expiry)", n)
	}
	if kinds[enumspb.EVENT_TYPE_MARKER_RECORDED] != 2 { // the execution, the reload (local activities)
		t.Fatalf("%d markers in the strategy's history", kinds[enumspb.EVENT_TYPE_MARKER_RECORDED])
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, h)
	}
	if err := c.SignalWorkflow(ctx, workflows.WorkflowID(workflows.KindOrder, oid), "", workflows.OrderSignalEvent, orders.EventHint{}); err != nil {
		t.Fatal(err)
	}
	if err := c.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindOrder, oid), "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// strategyStartsHistory was recorded by TestStrategyStartsItsOrderOnDevServer
// at strategy-shape 2.
const strategyStartsHistory = "testdata/strategy_starts.json"

func TestStrategyStartsHistoryReplays(t *testing.T) {
	if _, err := os.Stat(strategyStartsHistory); err != nil {
		t.Fatal(err)
	}
	replaytest.ReplayFileWithOptions(t, strategyStartsHistory, replayOptions(t), workflows.All()...)
}
