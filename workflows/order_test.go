package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// fakeVenueOrder is an in-memory order life: Submit places it (or fails
// transiently failSubmits times), each Sync fills fillPerSync shares until
// size, CancelAtVenue cancels it (unless the venue keeps it open),
// CancelPending cancels it before it is posted or after a post in flight.
// It implements activities.OrderSteps with the service's guarantees.
type fakeVenueOrder struct {
	mu          sync.Mutex
	status      string
	size        int64
	filled      int64
	fillPerSync int64
	// fillFromSync: syncs before this one fill nothing.
	fillFromSync int
	failSubmits  int
	// refuse fails every Submit with an error that is not retried.
	refuse     bool
	submits    int
	posts      int
	syncs      int
	cancels    int
	pendingCxl int
	abandons   int
	// submitStatus is the status right after placement.
	submitStatus string
	// keepOpen: this many venue cancels leave the order open.
	keepOpen int
	// gatePost holds a post in flight until a pending cancel comes, which
	// then waits for the post's outcome (as the posting claim makes it).
	gatePost bool
	inFlight bool
	gate     chan struct{}
	posted   chan struct{}
	// strategy placed the order ("" for an agent's own).
	strategy string
}

func (f *fakeVenueOrder) order() orders.Order {
	return orders.Order{ID: "ord_1", Status: f.status, FilledSize: decimal.New(f.filled, -6), StrategyID: f.strategy}
}

func (f *fakeVenueOrder) Submit(_ context.Context, _ string) (orders.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submits++
	if f.status != "PENDING" {
		return f.order(), nil // cancelled before its post: never posted
	}
	if f.submits <= f.failSubmits {
		return orders.Order{}, errs.E(errs.Transient, "venue unreachable")
	}
	if f.refuse {
		return orders.Order{}, errs.E(errs.Internal, "a fault no retry fixes")
	}
	if f.gatePost {
		f.inFlight, f.gate, f.posted = true, make(chan struct{}), make(chan struct{})
		gate, posted := f.gate, f.posted
		f.mu.Unlock()
		<-gate
		f.mu.Lock()
		f.inFlight = false
		defer close(posted)
	}
	f.posts++
	f.status = f.submitStatus
	return f.order(), nil
}

func (f *fakeVenueOrder) Sync(_ context.Context, _ string) (orders.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs++
	if orders.TerminalStatus(f.status) || f.status == "PENDING" || f.syncs < f.fillFromSync {
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
	if f.keepOpen > 0 {
		f.keepOpen--
		return "", orders.Order{}, errs.E(errs.Transient, "the venue has not confirmed the cancel").WithCode("cancel_unconfirmed")
	}
	prev := f.status
	f.status = "CANCELLED"
	return prev, f.order(), nil
}

func (f *fakeVenueOrder) CancelPending(ctx context.Context, id string) (string, orders.Order, error) {
	f.mu.Lock()
	f.pendingCxl++
	if f.inFlight {
		// A post is in flight: let it finish and wait for its outcome.
		posted := f.posted
		close(f.gate)
		f.inFlight = false
		f.mu.Unlock()
		<-posted
		f.mu.Lock()
	}
	switch f.status {
	case "PENDING", "CANCELLED":
		f.status = "CANCELLED"
		o := f.order()
		f.mu.Unlock()
		return "PENDING", o, nil
	case "OPEN", "PARTIALLY_FILLED":
		f.mu.Unlock()
		_, o, err := f.CancelAtVenue(ctx, id)
		return "PENDING", o, err
	}
	defer f.mu.Unlock()
	return "", orders.Order{}, orders.NotCancellable(f.status)
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
	env.RegisterActivity(&activities.Orders{Steps: f, Intents: intenttest.Keys(t)})
	env.RegisterWorkflow(workflows.Order)
	return env
}

// pollingVersion pins the run to the version before event hints
// (orderSignalsChange at DefaultVersion): the polling that runs started
// before it keep until they end or continue as new.
func pollingVersion(env *testsuite.TestWorkflowEnvironment) {
	bundledVersions(env)
	env.OnGetVersion("event-signals", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
}

// bundledVersions pins the run to the version before "order-shape", so
// that it asks for each change the bundle takes at its latest (a test
// pins one of them to an earlier version).
func bundledVersions(env *testsuite.TestWorkflowEnvironment) {
	env.OnGetVersion("order-shape", workflow.DefaultVersion, 2).Return(workflow.DefaultVersion)
}

// placementVersions are the ways an order is placed: a local activity
// (version "local-submit" 1, the default) and, in runs begun before it,
// the activity.
var placementVersions = []struct {
	name string
	set  func(env *testsuite.TestWorkflowEnvironment)
}{
	{"local activity", func(*testsuite.TestWorkflowEnvironment) {}},
	{"activity", func(env *testsuite.TestWorkflowEnvironment) {
		bundledVersions(env)
		env.OnGetVersion("local-submit", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}},
}

// sendHint signals an event hint after delay (workflow time).
func sendHint(env *testsuite.TestWorkflowEnvironment, delay time.Duration, h orders.EventHint) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.OrderSignalEvent, h) }, delay)
}

// cancelRequest is the cancel update's argument as the API sends it for
// order orderID.
func cancelRequest(t *testing.T, orderID string) workflows.OrderCancelRequest {
	return workflows.OrderCancelRequest{Proof: intenttest.Keys(t).Sign(intent.OrderCancel, orderID)}
}

var orderIn = workflows.OrderInput{OrderID: "ord_1", UserID: "usr_1", AgentID: "agt_1", TokenID: "123"}

// awaitPlacement sends the placement update as the workflow starts and
// records its answer in placed; a refused or failed placement fails t.
func awaitPlacement(t *testing.T, env *testsuite.TestWorkflowEnvironment, placed *activities.OrderState) {
	t.Helper()
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(workflows.OrderUpdatePlacement, "p1", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { t.Errorf("placement rejected: %v", err) },
			OnComplete: func(r any, err error) {
				if err != nil {
					t.Errorf("placement: %v", err)
					return
				}
				*placed = r.(activities.OrderState)
			},
		})
	}, 0)
}

// runOrder runs the order workflow for orderIn to its end and returns its
// result; a workflow that does not complete, or fails, fails t.
func runOrder(t *testing.T, env *testsuite.TestWorkflowEnvironment) activities.OrderState {
	t.Helper()
	env.ExecuteWorkflow(workflows.Order, orderIn)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("completed %v err %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	var res activities.OrderState
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestOrderWorkflowPlacesAndFollowsFills(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 10_000_000, fillPerSync: 4_000_000}
	env := orderEnv(t, f)
	pollingVersion(env)
	var placed activities.OrderState
	awaitPlacement(t, env, &placed)
	res := runOrder(t, env)
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
			sendHint(env, time.Second, orders.EventHint{Kind: orders.HintFill, Source: orders.SourceStream, FilledMicro: tc.fill})
			var got cancelResult
			sendCancel(t, env, 5*time.Second, "c1", &got)
			runOrder(t, env)
			if !got.done || got.err != nil || got.state.PreviousStatus != tc.wantPrev || got.state.Status != "CANCELLED" {
				t.Fatalf("cancel answered %+v", got)
			}
			if f.cancels != 1 {
				t.Fatalf("%d venue cancels", f.cancels)
			}
		})
	}
}

// cancelResult is what a cancel update answered.
type cancelResult struct {
	done  bool
	state activities.OrderState
	err   error
}

// sendCancel sends the cancel update after delay (workflow time) and
// records its answer in r.
func sendCancel(t *testing.T, env *testsuite.TestWorkflowEnvironment, delay time.Duration, id string, r *cancelResult) {
	t.Helper()
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(workflows.OrderUpdateCancel, id, &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { r.done, r.err = true, err },
			OnComplete: func(res any, err error) {
				r.done, r.err = true, err
				if err == nil {
					r.state = res.(activities.OrderState)
				}
			},
		}, cancelRequest(t, orderIn.OrderID))
	}, delay)
}

// A PENDING order is cancelled without waiting for its placement: before
// its first post, while placement backs off between failed attempts, and
// while a post is in flight (the cancel waits for the post, then cancels
// on the venue). The answer carries previousStatus PENDING, the order is
// never posted after the cancel, and the workflow ends at once instead of
// running out the 15 minute placement span.
func TestOrderWorkflowCancelWhilePending(t *testing.T) {
	tests := []struct {
		name        string
		failSubmits int
		gatePost    bool
		cancelAt    time.Duration
		wantPosts   int
		wantVenue   int // venue cancels
		maxRun      time.Duration
	}{
		{name: "before the first post", failSubmits: 1 << 30, cancelAt: 0, maxRun: time.Second},
		{name: "during the retry backoff", failSubmits: 1 << 30, cancelAt: 20 * time.Second, maxRun: 21 * time.Second},
		{name: "while a post is in flight", gatePost: true, cancelAt: 10 * time.Millisecond, wantPosts: 1, wantVenue: 1, maxRun: time.Second},
	}
	for _, v := range placementVersions {
		for _, tc := range tests {
			t.Run(v.name+"/"+tc.name, func(t *testing.T) {
				f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000, failSubmits: tc.failSubmits, gatePost: tc.gatePost}
				env := orderEnv(t, f)
				v.set(env)
				start := env.Now()
				var got cancelResult
				sendCancel(t, env, tc.cancelAt, "c1", &got)
				var placed activities.OrderState
				awaitPlacement(t, env, &placed)
				res := runOrder(t, env)
				if !got.done || got.err != nil || got.state.PreviousStatus != "PENDING" || got.state.Status != "CANCELLED" {
					t.Fatalf("cancel answered %+v", got)
				}
				if res.Status != "CANCELLED" || placed.Status != "CANCELLED" {
					t.Fatalf("workflow result %+v, placement answered %+v", res, placed)
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				if f.posts != tc.wantPosts || f.cancels != tc.wantVenue || f.pendingCxl != 1 || f.abandons != 0 {
					t.Fatalf("%d posts, %d venue cancels, %d pending cancels, %d abandons", f.posts, f.cancels, f.pendingCxl, f.abandons)
				}
				if ran := env.Now().Sub(start); ran > tc.maxRun {
					t.Fatalf("the workflow ran %v after a cancel at %v", ran, tc.cancelAt)
				}
			})
		}
	}
}

// A placement attempt that the cancel could not stop in time (the cancel
// failed: the order filled at once) goes on: the order is followed to its
// end, not abandoned, and the cancel answers order_not_cancellable.
func TestOrderWorkflowPendingCancelRefusedPlacesOn(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "FILLED", size: 1_000_000, gatePost: true}
	env := orderEnv(t, f)
	var got cancelResult
	sendCancel(t, env, 10*time.Millisecond, "c1", &got)
	res := runOrder(t, env)
	if err := temporalerr.From(got.err); !got.done || errs.CodeOf(err) != "order_not_cancellable" {
		t.Fatalf("cancel answered %+v (%v)", got, err)
	}
	if res.Status != "FILLED" || f.posts != 1 || f.abandons != 0 {
		t.Fatalf("result %+v, %d posts, %d abandons", res, f.posts, f.abandons)
	}
}

// A venue that still shows the order open after the cancel: the cancel
// answers a retryable cancel_unconfirmed error well within the API's
// timeout and the order stays followed, so a later fill is recorded (it
// is not marked CANCELLED and forgotten). A venue that confirms on a
// retry of the cancel step ends it CANCELLED.
func TestOrderWorkflowCancelNotConfirmedByTheVenue(t *testing.T) {
	tests := []struct {
		name       string
		keepOpen   int
		wantCode   string
		wantResult string
	}{
		{"the venue keeps it open", 1 << 30, "cancel_unconfirmed", "FILLED"},
		{"the venue confirms on a retry", 2, "", "CANCELLED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000, fillPerSync: 1_000_000, fillFromSync: 8, keepOpen: tc.keepOpen}
			env := orderEnv(t, f)
			pollingVersion(env)
			var got cancelResult
			var answeredAt time.Time
			sendCancel(t, env, 3*time.Second, "c1", &got)
			env.RegisterDelayedCallback(func() {}, 3*time.Second) // anchor for the timing check below
			env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
				if info.ActivityType.Name == "CancelOrder" && answeredAt.IsZero() {
					answeredAt = env.Now()
				}
			})
			start := env.Now()
			res := runOrder(t, env)
			err := temporalerr.From(got.err)
			if !got.done || errs.CodeOf(err) != tc.wantCode || tc.wantCode != "" && !errs.KindOf(err).Retryable() {
				t.Fatalf("cancel answered %+v (%v)", got, err)
			}
			if tc.wantCode == "" && (got.state.PreviousStatus != "OPEN" || got.state.Status != "CANCELLED") {
				t.Fatalf("cancel answered %+v", got.state)
			}
			if res.Status != tc.wantResult {
				t.Fatalf("result %+v", res)
			}
			if tc.wantResult == "FILLED" && res.FilledMicro != 1_000_000 {
				t.Fatalf("the fill after the refused cancel was not recorded: %+v", res)
			}
			if took := answeredAt.Sub(start); answeredAt.IsZero() || took > 3*time.Second+40*time.Second {
				t.Fatalf("the cancel answered %v after the start", took)
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
		refuse      bool
		want        string
		abandons    int
		// submits: the attempts, when the count is certain (0: not checked)
		submits int
	}{
		{"transient failures then success", 3, false, "FILLED", 0, 4},
		{"venue down for good", 1 << 30, false, "FAILED", 1, 0},
		{"a fault no retry fixes", 0, true, "FAILED", 1, 1},
	}
	for _, v := range placementVersions {
		for _, tc := range tests {
			t.Run(v.name+"/"+tc.name, func(t *testing.T) {
				f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000, fillPerSync: 1_000_000, failSubmits: tc.failSubmits, refuse: tc.refuse}
				env := orderEnv(t, f)
				v.set(env)
				sendHint(env, 20*time.Minute, orders.EventHint{Kind: orders.HintFill, Source: orders.SourceStream})
				res := runOrder(t, env)
				if res.Status != tc.want || f.abandons != tc.abandons || tc.submits > 0 && f.submits != tc.submits {
					t.Fatalf("result %+v, %d abandons, %d submits", res, f.abandons, f.submits)
				}
			})
		}
	}
}

// A resting order continues as new after orderPollsPerRun polls, carrying
// its state, so its history stays bounded.
func TestOrderWorkflowContinuesAsNew(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000}
	env := orderEnv(t, f)
	pollingVersion(env)
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
//	  go test -run TestOrderLifecycleAgainstTheSandbox ./cmd/ats/e2e/
//
// (a limit order placed, listed and cancelled). Payloads are encrypted with
// replaytest.HistoryCodecKey. It predates the cancel-pending change, so it
// replays the workflow's default version.
const orderHistory = "testdata/order.json"

// Histories of the cancel-pending version (1), recorded the same way:
//
//   - order_v1.json: the lifecycle test above (a resting order cancelled);
//   - order_cancel_pending.json: TestCancelPendingOrderAgainstTheSandbox
//     in cmd/ats/e2e (ATS_RECORD_ORDER_HISTORY=...), an order cancelled while
//     its workflow waited for a worker;
//   - order_cancel_backoff.json: TestOrderCancelDuringPlacementBackoffOnDevServer
//     (ATS_RECORD_HISTORY=...), a placement stopped in its retry backoff;
//   - order_proof.json: the lifecycle test again, after the cancel update
//     began to carry its proof (OrderCancelRequest, the cancel activities'
//     OrderCancel input) and payloads to be bound to their workflow.
var orderHistoriesV1 = []string{
	"testdata/order_v1.json",
	"testdata/order_cancel_pending.json",
	"testdata/order_cancel_backoff.json",
	"testdata/order_proof.json",
}

// orderHistoriesSignals are histories of the event-hints version
// (orderSignalsChange 1), recorded the same way:
//
//   - order_signals.json: TestRestingOrderFillReachesItsWorkflow in
//     cmd/ats/e2e (ATS_RECORD_ORDER_HISTORY=...), a resting order filled by
//     another trader's sell, told by the user channel and the chain;
//   - order_strategy_hint.json: TestStrategyOrderHintsItsStrategyOnDevServer
//     (ATS_RECORD_HISTORY=...), a strategy's order that hints the
//     strategy's workflow of its changes (orderStrategyHintChange 1);
//   - order_strategy_hint_v2.json: the same test at orderStrategyHintChange
//     2, where the placement's answer is not hinted, only the fill after it.
var orderHistoriesSignals = []string{
	"testdata/order_signals.json",
	"testdata/order_strategy_hint.json",
	"testdata/order_strategy_hint_v2.json",
}

// orderHistoriesLocal are histories of the local-submit version
// (orderLocalSubmitChange 1), recorded the same way:
//
//   - order_local.json: TestEagerPlacementAgainstTheSandbox in cmd/ats/e2e
//     (ATS_RECORD_ORDER_HISTORY=...), an order started eagerly whose
//     first attempt lost the venue's answer: a backoff timer, the
//     placement update, the second attempt adopting the posted order,
//     then a cancel;
//   - order_local_cancel_pending.json: TestCancelPendingOrderAgainstTheSandbox
//     in cmd/ats/e2e, an order cancelled while its workflow waited for a
//     worker: the cancel comes first in the first workflow task, so no
//     attempt starts.
var orderHistoriesLocal = []string{
	"testdata/order_local.json",
	"testdata/order_local_cancel_pending.json",
}

// orderHistoriesShape are histories of the bundle version (orderShapeChange
// 1), where one marker stands for the latest version of every earlier
// change:
//
//   - order_shape.json: TestStrategyOrderHintsItsStrategyOnDevServer
//     (ATS_RECORD_HISTORY=...), a strategy's order placed by a local
//     activity, filled at a venue event, hinting its strategy: one version
//     marker and its TemporalChangeVersion upsert where
//     order_strategy_hint_v2.json has four of each;
//   - order_shape_sync.json: the same test at version 2
//     (orderLocalSyncVersion), the venue read at the hint by a local
//     activity: 17 events where order_strategy_hint_v2.json has 28;
//   - order_settle.json: the same test at version 3 (orderSettleVersion,
//     given in the input: no marker), each step amending the strategy
//     side, no hint to the strategy.
var orderHistoriesShape = []string{
	"testdata/order_shape.json",
	"testdata/order_shape_sync.json",
	"testdata/order_settle.json",
}

func TestOrderReplays(t *testing.T) {
	all := append(append(append(append([]string{orderHistory}, orderHistoriesV1...), orderHistoriesSignals...), orderHistoriesLocal...), orderHistoriesShape...)
	for _, h := range all {
		t.Run(h, func(t *testing.T) {
			replaytest.ReplayFileWithOptions(t, h, replayOptions(t), workflows.All()...)
		})
	}
}

// oneActivity is an order workflow that only runs the order activity
// named by step (a method of *activities.Orders) with the order id.
func oneActivity(step func(*activities.Orders) any) func(workflow.Context, workflows.OrderInput) (activities.OrderState, error) {
	return func(ctx workflow.Context, in workflows.OrderInput) (activities.OrderState, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var st activities.OrderState
		err := workflow.ExecuteActivity(ctx, step(nil), in.OrderID).Get(ctx, &st)
		return st, err
	}
}

// A version that skips the placement step cannot replay the recorded
// history: the replay test can fail.
func TestOrderReplayDetectsChanges(t *testing.T) {
	changed := oneActivity(func(a *activities.Orders) any { return a.SyncOrder })
	if err := replaytest.Replay(orderHistory, replayOptions(t), replaytest.Named{Name: "Order", Func: changed}); err == nil {
		t.Fatal("replay of a changed workflow succeeded")
	}
}

// A placed order follows event hints: a hint that may tell something new
// runs one venue read (SyncOrder), a repeated one runs none, and nothing
// runs between hints, however long the order rests.
func TestOrderWorkflowFollowsEventHints(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 10_000_000, fillPerSync: 4_000_000}
	env := orderEnv(t, f)
	var placed activities.OrderState
	awaitPlacement(t, env, &placed)
	fill := func(micro int64) orders.EventHint {
		return orders.EventHint{Kind: orders.HintFill, Source: orders.SourceStream, FilledMicro: micro}
	}
	var syncsAt []int
	probe := func(at time.Duration) {
		env.RegisterDelayedCallback(func() {
			f.mu.Lock()
			syncsAt = append(syncsAt, f.syncs)
			f.mu.Unlock()
		}, at)
	}
	probe(24 * time.Hour)                                                                                // a day at rest: no read
	sendHint(env, 25*time.Hour, fill(4_000_000))                                                         // read → 4
	sendHint(env, 26*time.Hour, fill(4_000_000))                                                         // repeats what is known: no read
	sendHint(env, 26*time.Hour+time.Second, fill(0))                                                     // a chain fill (size unknown): read → 8
	probe(27 * time.Hour)                                                                                //
	sendHint(env, 30*24*time.Hour, orders.EventHint{Kind: orders.HintSweep, Source: orders.SourceSweep}) // read → 10, FILLED
	res := runOrder(t, env)
	if placed.Status != "OPEN" || res.Status != "FILLED" || res.FilledMicro != 10_000_000 || f.submits != 1 || f.syncs != 3 {
		t.Fatalf("placed %+v result %+v fake %+v", placed, res, f)
	}
	if len(syncsAt) != 2 || syncsAt[0] != 0 || syncsAt[1] != 2 {
		t.Fatalf("venue reads at the probes: %v", syncsAt)
	}
}

// A forged hint decides nothing: the workflow reads the venue, which says
// the order is still open, and the order stays OPEN until a real cancel.
func TestOrderWorkflowForgedHintChangesNothing(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 10_000_000}
	env := orderEnv(t, f)
	sendHint(env, time.Minute, orders.EventHint{Kind: orders.HintEnded, Source: orders.SourceStream})
	sendHint(env, 2*time.Minute, orders.EventHint{Kind: orders.HintFill, Source: orders.SourceChain, FilledMicro: 10_000_000})
	var during activities.OrderState
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(workflows.OrderQueryState)
		if err != nil {
			t.Error(err)
			return
		}
		if err := v.Get(&during); err != nil {
			t.Error(err)
		}
	}, 3*time.Minute)
	var got cancelResult
	sendCancel(t, env, time.Hour, "c1", &got)
	res := runOrder(t, env)
	if during.Status != "OPEN" || during.FilledMicro != 0 || f.syncs != 2 {
		t.Fatalf("after the forged hints: %+v, %d venue reads", during, f.syncs)
	}
	if !got.done || got.err != nil || res.Status != "CANCELLED" || f.cancels != 1 {
		t.Fatalf("cancel %+v result %+v", got, res)
	}
}

// A signal-driven run continues as new after orderSyncsPerRun venue
// reads, so the history of an order that is told of many events stays
// bounded.
func TestOrderWorkflowContinuesAsNewAfterHints(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000}
	env := orderEnv(t, f)
	for i := range 250 {
		sendHint(env, time.Duration(i+1)*time.Minute, orders.EventHint{Kind: orders.HintFill, Source: orders.SourceChain})
	}
	env.ExecuteWorkflow(workflows.Order, orderIn)
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("want continue-as-new, got %v", err)
	}
	if f.submits != 1 || f.syncs != 200 {
		t.Fatalf("%d submits %d syncs", f.submits, f.syncs)
	}
}

// The recorded signal-driven history does not replay on the polling
// version: the replay test of the new version can fail.
func TestOrderSignalsReplayDetectsPolling(t *testing.T) {
	polling := func(ctx workflow.Context, in workflows.OrderInput) (activities.OrderState, error) {
		var a *activities.Orders
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var st activities.OrderState
		if err := workflow.ExecuteActivity(ctx, a.SubmitOrder, in.OrderID).Get(ctx, &st); err != nil {
			return st, err
		}
		for !orders.TerminalStatus(st.Status) {
			if err := workflow.Sleep(ctx, 2*time.Second); err != nil {
				return st, err
			}
			if err := workflow.ExecuteActivity(ctx, a.SyncOrder, in.OrderID).Get(ctx, &st); err != nil {
				return st, err
			}
		}
		return st, nil
	}
	if err := replaytest.Replay(orderHistoriesSignals[0], replayOptions(t), replaytest.Named{Name: "Order", Func: polling}); err == nil {
		t.Fatal("replay of the polling version succeeded")
	}
}

// An order a strategy placed tells the strategy's workflow of every change
// it learns after its placement (each fill, the end), so a fill that
// arrives after the strategy's execution was recorded still re-arms the
// strategy; the placement's own answer is not hinted (version 2): the
// execution that placed the order records it. A strategy that has ended
// (the signal is refused) does not hold the order up. An agent's own
// order signals nothing (the other tests set no expectation, which the
// test environment would refuse).
func TestOrderWorkflowHintsItsStrategy(t *testing.T) {
	for _, refused := range []bool{false, true} {
		t.Run(fmt.Sprintf("strategy ended %v", refused), func(t *testing.T) {
			f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 10_000_000, fillPerSync: 4_000_000, strategy: "str_x"}
			env := orderEnv(t, f)
			var placed activities.OrderState
			awaitPlacement(t, env, &placed)
			var answer error
			if refused {
				answer = errors.New("workflow not found")
			}
			hints := 0
			env.OnSignalExternalWorkflow(mock.Anything, "str_x", "", workflows.StrategySignalPrice, mock.Anything).
				Return(func(string, string, string, string, any) error { hints++; return answer })
			for i := 1; i <= 3; i++ {
				sendHint(env, time.Duration(i)*time.Hour, orders.EventHint{Kind: orders.HintFill, Source: orders.SourceStream})
			}
			res := runOrder(t, env)
			// OPEN at the placement (no hint), then 4, 8, FILLED at 10:
			// three changes after it, three hints.
			if res.Status != "FILLED" || hints != 3 {
				t.Fatalf("result %+v, %d hints to the strategy, want 3", res, hints)
			}
		})
	}
}

// A strategy's order that ends at its placement (a FAK or FOK that fills
// or is killed at once, a copy of a target's trade) hints its strategy of
// nothing: the execution waiting for the placement records the end.
func TestOrderEndedAtPlacementDoesNotHintItsStrategy(t *testing.T) {
	for _, status := range []string{"FILLED", "CANCELLED"} {
		t.Run(status, func(t *testing.T) {
			f := &fakeVenueOrder{status: "PENDING", submitStatus: status, size: 10_000_000, strategy: "str_x"}
			env := orderEnv(t, f)
			var placed activities.OrderState
			awaitPlacement(t, env, &placed)
			hints := 0
			env.OnSignalExternalWorkflow(mock.Anything, "str_x", "", workflows.StrategySignalPrice, mock.Anything).
				Return(func(string, string, string, string, any) error { hints++; return nil })
			res := runOrder(t, env)
			if res.Status != status || placed.Status != status || hints != 0 {
				t.Fatalf("result %+v, placement %+v, %d hints to the strategy, want none", res, placed, hints)
			}
		})
	}
}

// The recorded local-submit history does not replay on a workflow that
// places with the activity: the replay test of the new version can fail.
func TestOrderLocalSubmitReplayDetectsTheActivity(t *testing.T) {
	activity := oneActivity(func(a *activities.Orders) any { return a.SubmitOrder })
	if err := replaytest.Replay(orderHistoriesLocal[0], replayOptions(t), replaytest.Named{Name: "Order", Func: activity}); err == nil {
		t.Fatal("replay of the activity version succeeded")
	}
}

// answerSettler is a StrategySettler answering each Settle with the next
// of its answers (then the last again), as the engine answers an order's
// successive steps.
type answerSettler struct {
	mu      sync.Mutex
	answers []strategies.Settled
	calls   int
}

func (s *answerSettler) Settle(context.Context, string) (strategies.Settled, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.answers[min(s.calls, len(s.answers))-1], nil
}

// An order at the current shape tells its strategy (StrategySignalSettled)
// of exactly the steps whose amendment ended the strategy or woke an
// execution waiting for the order; other steps cost the strategy nothing.
func TestOrderTellsItsStrategyWhatItMustKnow(t *testing.T) {
	active := strategies.Settled{StrategyID: "str_x", Status: strategies.StatusActive}
	for _, tc := range []struct {
		name      string
		placement strategies.Settled
		tells     int
	}{
		{"nothing to tell", active, 0},
		{"a waiting sell wakes", strategies.Settled{StrategyID: "str_x", Status: strategies.StatusActive, Wake: true}, 1},
		{"the strategy ended", strategies.Settled{StrategyID: "str_x", Status: strategies.StatusCompleted, Changed: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeVenueOrder{status: "PENDING", submitStatus: "FILLED", size: 10_000_000, strategy: "str_x"}
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			env.RegisterActivity(&activities.Orders{Steps: f, Intents: intenttest.Keys(t), Settler: &answerSettler{answers: []strategies.Settled{tc.placement, active}}})
			env.RegisterWorkflow(workflows.Order)
			tells := 0
			env.OnSignalExternalWorkflow(mock.Anything, "str_x", "", workflows.StrategySignalSettled, mock.Anything).
				Return(func(string, string, string, string, any) error { tells++; return nil })
			in := orderIn
			in.Shape = workflows.OrderShapeCurrent
			env.ExecuteWorkflow(workflows.Order, in)
			if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
				t.Fatalf("completed %v err %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
			}
			if tells != tc.tells {
				t.Fatalf("%d signals to the strategy, want %d", tells, tc.tells)
			}
		})
	}
}
