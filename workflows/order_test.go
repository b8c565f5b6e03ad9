package workflows_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// fakeVenueOrder is an in-memory order life: Submit places it (or fails
// transiently failSubmits times), each Sync fills fillPerSync shares until
// size, CancelAtVenue cancels it. It implements activities.OrderSteps.
type fakeVenueOrder struct {
	mu          sync.Mutex
	status      string
	size        int64
	filled      int64
	fillPerSync int64
	failSubmits int
	submits     int
	syncs       int
	cancels     int
	abandons    int
	// submitStatus is the status right after placement.
	submitStatus string
}

func (f *fakeVenueOrder) order() orders.Order {
	return orders.Order{ID: "ord_1", Status: f.status, FilledSize: decimal.New(f.filled, -6)}
}

func (f *fakeVenueOrder) Submit(_ context.Context, _ string) (orders.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submits++
	if f.submits <= f.failSubmits {
		return orders.Order{}, errs.E(errs.Transient, "venue unreachable")
	}
	if f.status == "PENDING" {
		f.status = f.submitStatus
	}
	return f.order(), nil
}

func (f *fakeVenueOrder) Sync(_ context.Context, _ string) (orders.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs++
	if orders.TerminalStatus(f.status) || f.status == "PENDING" {
		return f.order(), nil
	}
	f.filled = min(f.size, f.filled+f.fillPerSync)
	switch {
	case f.filled == f.size:
		f.status = "FILLED"
	case f.filled > 0:
		f.status = "PARTIALLY_FILLED"
	}
	return f.order(), nil
}

func (f *fakeVenueOrder) CancelAtVenue(_ context.Context, _ string) (string, orders.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels++
	if orders.TerminalStatus(f.status) {
		return "", orders.Order{}, orders.NotCancellable(f.status)
	}
	prev := f.status
	f.status = "CANCELLED"
	return prev, f.order(), nil
}

func (f *fakeVenueOrder) Abandon(_ context.Context, _ string) (orders.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.abandons++
	if f.status == "PENDING" {
		f.status = "FAILED"
	}
	return f.order(), nil
}

func orderEnv(t *testing.T, f *fakeVenueOrder) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	env.RegisterActivity(&activities.Orders{Steps: f})
	env.RegisterWorkflow(workflows.Order)
	return env
}

var orderIn = workflows.OrderInput{OrderID: "ord_1", UserID: "usr_1", AgentID: "agt_1", TokenID: "123"}

func TestOrderWorkflowPlacesAndFollowsFills(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 10_000_000, fillPerSync: 4_000_000}
	env := orderEnv(t, f)
	var placed activities.OrderState
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(workflows.OrderUpdatePlacement, "p1", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { t.Errorf("placement rejected: %v", err) },
			OnComplete: func(r any, err error) {
				if err != nil {
					t.Errorf("placement: %v", err)
				}
				placed = r.(activities.OrderState)
			},
		})
	}, 0)
	env.ExecuteWorkflow(workflows.Order, orderIn)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("completed %v err %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	var res activities.OrderState
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if placed.Status != "OPEN" || res.Status != "FILLED" || res.FilledMicro != 10_000_000 || f.submits != 1 || f.syncs != 3 {
		t.Fatalf("placed %+v result %+v fake %+v", placed, res, f)
	}
}

func TestOrderWorkflowCancel(t *testing.T) {
	tests := []struct {
		name     string
		fill     int64
		wantPrev string
	}{
		{"open order", 0, "OPEN"},
		{"partially filled order", 3_000_000, "PARTIALLY_FILLED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 10_000_000, fillPerSync: tc.fill}
			env := orderEnv(t, f)
			var got activities.OrderState
			env.RegisterDelayedCallback(func() {
				env.UpdateWorkflow(workflows.OrderUpdateCancel, "c1", &testsuite.TestUpdateCallback{
					OnAccept: func() {}, OnReject: func(err error) { t.Errorf("cancel rejected: %v", err) },
					OnComplete: func(r any, err error) {
						if err != nil {
							t.Errorf("cancel: %v", err)
							return
						}
						got = r.(activities.OrderState)
					},
				})
			}, 5*time.Second)
			env.ExecuteWorkflow(workflows.Order, orderIn)
			if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
				t.Fatalf("completed %v err %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
			}
			if got.PreviousStatus != tc.wantPrev || got.Status != "CANCELLED" {
				t.Fatalf("cancel result %+v", got)
			}
			if f.cancels != 1 {
				t.Fatalf("%d venue cancels", f.cancels)
			}
		})
	}
}

// An order whose placement keeps failing is abandoned after the placement
// span (reconciled, here FAILED), never left PENDING; a placement that
// succeeds after transient failures is placed exactly once.
func TestOrderWorkflowPlacementRetries(t *testing.T) {
	tests := []struct {
		name        string
		failSubmits int
		want        string
		abandons    int
	}{
		{"transient failures then success", 3, "FILLED", 0},
		{"venue down for good", 1 << 30, "FAILED", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000, fillPerSync: 1_000_000, failSubmits: tc.failSubmits}
			env := orderEnv(t, f)
			env.ExecuteWorkflow(workflows.Order, orderIn)
			if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
				t.Fatalf("completed %v err %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
			}
			var res activities.OrderState
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.want || f.abandons != tc.abandons {
				t.Fatalf("result %+v, %d abandons, %d submits", res, f.abandons, f.submits)
			}
		})
	}
}

// A resting order continues as new after orderPollsPerRun polls, carrying
// its state, so its history stays bounded.
func TestOrderWorkflowContinuesAsNew(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000}
	env := orderEnv(t, f)
	env.ExecuteWorkflow(workflows.Order, orderIn)
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want continue-as-new, got %v", err)
	}
	if f.submits != 1 || f.syncs != 500 {
		t.Fatalf("%d submits %d syncs", f.submits, f.syncs)
	}
}

// orderHistory was recorded on the Temporal dev server (CLI v1.5.1) by the
// end-to-end test of the order endpoints:
//
//	TEMPORAL_CLI=/root/go/bin/temporal ATS_RECORD_ORDER_HISTORY=$PWD/workflows/testdata/order.json \
//	  go test -run TestOrderLifecycleAgainstTheSandbox ./cmd/ats/
//
// (a limit order placed, listed and cancelled). Payloads are encrypted with
// replaytest.HistoryCodecKey.
const orderHistory = "testdata/order.json"

func TestOrderReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, orderHistory, replayOptions(t), workflows.All()...)
}

// A version that skips the placement step cannot replay the recorded
// history: the replay test can fail.
func TestOrderReplayDetectsChanges(t *testing.T) {
	changed := func(ctx workflow.Context, in workflows.OrderInput) (activities.OrderState, error) {
		var a *activities.Orders
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var st activities.OrderState
		err := workflow.ExecuteActivity(ctx, a.SyncOrder, in.OrderID).Get(ctx, &st)
		return st, err
	}
	if err := replaytest.Replay(orderHistory, replayOptions(t), replaytest.Named{Name: "Order", Func: changed}); err == nil {
		t.Fatal("replay of a changed workflow succeeded")
	}
}
