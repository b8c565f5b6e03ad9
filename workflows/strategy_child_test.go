package workflows_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	enumspb "go.temporal.io/api/enums/v1"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// registerVenueOrders registers, under the name of the Order workflow,
// a stand-in that places the accepted order as the fixture's venue does
// (strategiestest.Placer.Settle: filled by default, or as the test set
// it) and then behaves as Order does towards its parent strategy: a final
// order completes, a resting one signals StrategySignalPlaced. The real
// Order workflow is tested with the order activities (order_test.go);
// here the strategy's side of the placement is.
func registerVenueOrders(env *testsuite.TestWorkflowEnvironment, fx *strategiestest.Env) {
	env.RegisterWorkflowWithOptions(venueOrder(fx), workflow.RegisterOptions{Name: "Order"})
}

// venueOrder is the stand-in Order workflow of registerVenueOrders.
//
// An order started at the current shape (a strategy's execution at
// strategy-shape 2, OrderInput.Shape set) also amends its execution as the
// order's activities do (Engine.Settle) and signals the strategy when
// that ended it or woke an execution waiting for the order
// (StrategySignalSettled), as Order does.
func venueOrder(fx *strategiestest.Env) func(ctx workflow.Context, in workflows.OrderInput) (activities.OrderState, error) {
	p := fx.Placer
	settle := func(ctx context.Context, orderID string, amend bool) (activities.OrderState, error) {
		o, err := p.Settle(ctx, orderID)
		if err != nil {
			return activities.OrderState{}, temporalerr.To(err)
		}
		st := activities.OrderState{Status: o.Status, FilledMicro: o.FilledSizeMicro}
		if amend && o.StrategyID != nil {
			s, err := fx.Engine.Settle(ctx, orderID)
			if err != nil {
				return activities.OrderState{}, temporalerr.To(err)
			}
			st.StrategyID = *o.StrategyID
			st.StrategyEnded, st.StrategyWaits = s.Ended(), s.Wake
		}
		return st, nil
	}
	order := func(ctx workflow.Context, in workflows.OrderInput) (activities.OrderState, error) {
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
		var st activities.OrderState
		if err := workflow.ExecuteLocalActivity(ctx, settle, in.OrderID, in.Shape > 0).Get(ctx, &st); err != nil {
			return st, err
		}
		if st.StrategyEnded || st.StrategyWaits {
			_ = workflow.SignalExternalWorkflow(ctx, workflows.WorkflowID(workflows.KindStrategy, st.StrategyID), "", workflows.StrategySignalSettled, nil).Get(ctx, nil)
		}
		if orders.TerminalStatus(st.Status) {
			return st, nil
		}
		if parent := workflow.GetInfo(ctx).ParentWorkflowExecution; in.ReportPlacement && parent != nil {
			if err := workflow.SignalExternalWorkflow(ctx, parent.ID, "", workflows.StrategySignalPlaced, in.OrderID).Get(ctx, nil); err != nil {
				return st, err
			}
		}
		// Rests on the book until the venue reports an event of it.
		var h orders.EventHint
		workflow.GetSignalChannel(ctx, workflows.OrderSignalEvent).Receive(ctx, &h)
		return st, nil
	}
	return order
}

// TestStrategyChildOrderOnDevServer runs a PRICE_ALERT whose LIMIT order
// rests on the book, on a real Temporal server: the execution stores the
// order (DecideStrategy), starts its workflow as a child (id
// "order/<order id>", the order task queue, parent-close policy ABANDON),
// learns from the child's signal that it rests, records the execution
// with the order OPEN (RecordStrategyPlacement), and the strategy
// completes; the order's workflow goes on after its strategy ended. With
// ATS_RECORD_HISTORY=<path> it writes the strategy's history (the shape
// of the latest versions: strategy_child.json, strategy_child_untimed.json
// and now strategy_shape.json) for the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_shape.json \
//	  go test -run TestStrategyChildOrderOnDevServer ./workflows/
func TestStrategyChildOrderOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = models.OrderOpen })
	ctx, c := onDevServerWithOrders(t, venueOrder(fx), &activities.Strategies{Engine: fx.Engine, Intents: keys})
	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	// Started as a process before strategy-shape 2 started it: the run
	// asks the version (1), whose executions place child orders.
	svc := &workflows.StrategyDesk{Runs: shapeRuns{sc, 0}, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
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
	if err != nil || len(recs) != 1 || recs[0].OrderID == nil || recs[0].OrderStatus != models.OrderOpen || recs[0].Kind != strategies.KindAction {
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
	if info.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || info.ParentExecution.GetWorkflowId() != st.ID || info.TaskQueue != workflows.OrderTaskQueue {
		t.Fatalf("the order's workflow after its strategy completed: %v, parent %v, queue %s", info.Status, info.ParentExecution, info.TaskQueue)
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, st.ID, ""))
	}
	if err := c.SignalWorkflow(ctx, workflows.WorkflowID(workflows.KindOrder, oid), "", workflows.OrderSignalEvent, orders.EventHint{}); err != nil {
		t.Fatal(err)
	}
	if err := c.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindOrder, oid), "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// strategyChildHistory was recorded by TestStrategyChildOrderOnDevServer:
// an execution at version 1 of "child-orders" (decide, child order,
// placement signal, record).
const strategyChildHistory = "testdata/strategy_child.json"

func TestStrategyChildHistoryReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, strategyChildHistory, replayOptions(t), workflows.All()...)
}

// strategyChildUntimedHistory was recorded by
// TestStrategyChildOrderOnDevServer at version 2 of "child-orders": the
// placement awaited without a timer (no TIMER_STARTED/TIMER_CANCELED
// around the child's signal), 2 events fewer per execution.
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_child_untimed.json \
//	  go test -run TestStrategyChildOrderOnDevServer ./workflows/
const strategyChildUntimedHistory = "testdata/strategy_child_untimed.json"

func TestStrategyChildUntimedHistoryReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, strategyChildUntimedHistory, replayOptions(t), workflows.All()...)
}

// strategyShapeHistory was recorded by TestStrategyChildOrderOnDevServer
// at version 1 of "strategy-shape": one version marker at the start stands
// for market-check, agent-status and child-orders (2), so the execution
// records no marker of its own (29 events against 31 in
// strategy_child_untimed.json).
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_shape.json \
//	  go test -run TestStrategyChildOrderOnDevServer ./workflows/
const strategyShapeHistory = "testdata/strategy_shape.json"

func TestStrategyShapeHistoryReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, strategyShapeHistory, replayOptions(t), workflows.All()...)
}

// The pre-change histories do not replay with an execution that always
// places a child order: the version marker is what keeps them running.
func TestStrategyPreChildHistoryNeedsTheVersion(t *testing.T) {
	always := func(ctx workflow.Context, in workflows.StrategyInput) (strategies.State, error) {
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
		var a *activities.Strategies
		var d strategies.Decision
		err := workflow.ExecuteLocalActivity(ctx, a.DecideStrategy, activities.StrategyExecution{ID: in.StrategyID, Seq: 1}).Get(ctx, &d)
		return d.Outcome.State, err
	}
	for _, h := range strategyPreChildHistories {
		if err := replaytest.Replay(h, replayOptions(t), replaytest.Named{Name: "Strategy", Func: always}); err == nil {
			t.Fatalf("%s replayed with a changed workflow", h)
		}
	}
}

// TestPauseDuringASlowPlacementIsNotHeld: from version 2 of
// "child-orders" (runs before strategy-shape 2, whose executions wait for
// nothing but their order's start) an execution waiting for its order's placement, with no
// timer bounding the wait, gives way to a change: a pause sent while the
// order's workflow is still placing (its venue call blocked until the
// pause has answered — were the pause held by the placement, neither
// would ever end) applies at once, the execution recorded with its order
// as it stands (PENDING); the order's workflow goes on.
func TestPauseDuringASlowPlacementIsNotHeld(t *testing.T) {
	r := newStrategyRig(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.40,"sellAbove":0.60,"sizePerTrade":10}`, "100")
	r.shape = 0 // a run before strategy-shape 2, whose execution waits for its child's placement
	r.fx.Book.Set(strategiestest.Token, "0.37", "0.39")
	release := make(chan struct{})
	r.fx.Placer.Set(func(p *strategiestest.Placer) {
		p.Fill = func(req orders.PlaceRequest) (decimal.Decimal, decimal.Decimal) {
			<-release // the venue answers once the pause has
			return req.Size, req.Price
		}
	})
	var paused strategies.State
	var pauseErr error
	var ex []models.StrategyExecution
	var sent, answered time.Time
	r.at(time.Minute, r.hint)
	r.at(time.Minute+time.Millisecond, func() {
		sent = r.env.Now()
		ch := strategies.Change{StrategyID: r.id, Action: strategies.ActionPause, By: strategies.ByUser, Version: r.stored().Version}
		ch.Proof = r.keys.Sign(intent.StrategyPause, ch.ProofFields()...)
		r.env.UpdateWorkflow(ch.Action, "pause", &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { pauseErr = err; close(release) },
			OnComplete: func(v any, err error) {
				paused, _ = v.(strategies.State)
				pauseErr, ex, answered = err, r.executions(), r.env.Now()
				close(release)
			},
		}, ch)
	})
	var cancelled *updateResult
	r.at(time.Hour, func() { cancelled = r.change(strategies.ActionCancel, strategies.ByUser, strategies.Change{}) })
	st := r.run()
	if pauseErr != nil || paused.Status != strategies.StatusPaused {
		t.Fatalf("pause: %+v %v", paused, pauseErr)
	}
	// Version 1 ended the wait with its 20 s timer (in workflow time).
	if wait := answered.Sub(sent); wait >= 10*time.Second {
		t.Fatalf("the pause answered %s after it was sent: the placement held it", wait)
	}
	if len(ex) != 1 || ex[0].OrderID == nil || ex[0].OrderStatus != models.OrderPending {
		t.Fatalf("the execution was not recorded with its order PENDING when the pause answered: %+v", ex)
	}
	if cancelled == nil || !cancelled.done || st.Status != strategies.StatusCancelled {
		t.Fatalf("cancel %+v, ended %s", cancelled, st.Status)
	}
	if o, err := r.fx.Store.OrderByID(context.Background(), *ex[0].OrderID); err != nil || o.Status != models.OrderFilled {
		t.Fatalf("the order's workflow did not go on: %+v %v", o, err)
	}
}

// venueStarter is the rig's OrderStarter for runs at strategy-shape 2:
// it places the order at once as the fixture's venue does (the Order
// workflow's first attempt), amends the strategy side as the order's
// activities do (Engine.Settle) and, when that ended the strategy or
// woke an execution waiting for the order, signals the run as the Order
// workflow does (StrategySignalSettled). While hold.on, orders stay
// PENDING (a placement in flight) until release.
type venueStarter struct {
	env  *testsuite.TestWorkflowEnvironment
	fx   *strategiestest.Env
	hold *heldPlacements
}

// heldPlacements are the orders a venueStarter keeps PENDING.
type heldPlacements struct {
	on  bool
	ids []string
}

func (s venueStarter) StartPlacement(ctx context.Context, _ string, pm strategies.Placement) error {
	if s.hold != nil && s.hold.on {
		s.hold.ids = append(s.hold.ids, pm.OrderID)
		return nil
	}
	return s.place(ctx, pm.OrderID)
}

func (s venueStarter) place(ctx context.Context, orderID string) error {
	if _, err := s.fx.Placer.Settle(ctx, orderID); err != nil {
		return err
	}
	st, err := s.fx.Engine.Settle(ctx, orderID)
	if err != nil {
		return err
	}
	if st.Ended() || st.Wake {
		s.env.SignalWorkflow(workflows.StrategySignalSettled, nil)
	}
	return nil
}

// release places the orders held so far and stops holding.
func (s venueStarter) release(t *testing.T) {
	t.Helper()
	s.hold.on = false
	ids := s.hold.ids
	s.hold.ids = nil
	for _, id := range ids {
		if err := s.place(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
}

// shapeRuns starts strategies' workflows at a given shape (StartAt).
type shapeRuns struct {
	workflows.StrategyDeskClient
	shape int
}

func (r shapeRuns) Start(ctx context.Context, st strategies.State) error {
	return r.StartAt(ctx, st, r.shape)
}
