package workflows_test

import (
	"testing"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// housekeepingHistory was recorded on the Temporal dev server (CLI v1.5.1)
// by the worker package's integration test:
//
//	TEMPORAL_CLI=$PWD/.bin/temporal ATS_RECORD_HISTORY=$PWD/workflows/testdata/housekeeping.json \
//	  go test -run TestHousekeepingOnDevServer ./worker/
//
// Its payloads are encrypted with replaytest.HistoryCodecKey.
const housekeepingHistory = "testdata/housekeeping.json"

// housekeepingEventsHistory is a run with the agent-event purge (version
// "purge-events" 1), recorded the same way.
const housekeepingEventsHistory = "testdata/housekeeping_events.json"

func replayOptions(t *testing.T) sdkworker.WorkflowReplayerOptions {
	t.Helper()
	dc, fc, err := worker.Converters(replaytest.HistoryCodecKey)
	if err != nil {
		t.Fatal(err)
	}
	return sdkworker.WorkflowReplayerOptions{DataConverter: dc, FailureConverter: fc}
}

func TestHousekeepingReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, housekeepingHistory, replayOptions(t), workflows.All()...)
	replaytest.ReplayFileWithOptions(t, housekeepingEventsHistory, replayOptions(t), workflows.All()...)
}

// The replay test must be able to fail: an implementation that schedules
// its activities in another order is non-deterministic against the
// recorded history.
func TestHousekeepingReplayDetectsChanges(t *testing.T) {
	reordered := func(ctx workflow.Context) (workflows.HousekeepingResult, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var hk *activities.Housekeeping
		now := workflow.Now(ctx)
		var res workflows.HousekeepingResult
		if err := workflow.ExecuteActivity(ctx, hk.ExpireDeviceLinks, now).Get(ctx, &res.ExpiredDeviceLinks); err != nil {
			return res, err
		}
		err := workflow.ExecuteActivity(ctx, hk.PurgeExpiredIdempotency, now).Get(ctx, &res.PurgedIdempotency)
		return res, err
	}
	err := replaytest.Replay(housekeepingHistory, replayOptions(t), replaytest.Named{Name: "Housekeeping", Func: reordered})
	if err == nil {
		t.Fatal("replay of a reordered workflow succeeded")
	}
	t.Log(err)
}

// Without the key the recorded payloads cannot be read, so replay fails:
// the history really is encrypted.
func TestHousekeepingHistoryNeedsKey(t *testing.T) {
	if err := replaytest.Replay(housekeepingHistory, sdkworker.WorkflowReplayerOptions{}, workflows.All()...); err == nil {
		t.Fatal("replay without the codec key succeeded")
	} else {
		t.Log(err)
	}
}

// Payloads written since they are bound to their workflow decode only in
// it: replayed under the SDK's made-up execution (another namespace and
// workflow id) the history's payloads are refused, so the replay fails.
func TestBoundHistoryReplaysOnlyAsItsWorkflow(t *testing.T) {
	r, err := sdkworker.NewWorkflowReplayerWithOptions(replayOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	r.RegisterWorkflow(workflows.Order)
	if err := r.ReplayWorkflowHistoryFromJSONFile(nil, "testdata/order_proof.json"); err == nil {
		t.Fatal("a bound history replayed under another workflow")
	}
	replaytest.ReplayFileWithOptions(t, "testdata/order_proof.json", replayOptions(t), workflows.All()...)
}

// strategyHistory was recorded on the Temporal dev server by
// TestStrategyOnDevServer (create, user pause, agent resume, a refused
// resume, a price hint, the alert's execution, COMPLETED).
const strategyHistory = "testdata/strategy.json"

// strategyMarketHistory was recorded by TestStrategyMarketCheckOnDevServer
// (version 1 of "market-check": the workflow wakes at its market's end
// date, moves to the next window, then fires there).
const strategyMarketHistory = "testdata/strategy_market.json"

func TestStrategyReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, strategyHistory, replayOptions(t), workflows.All()...)
	replaytest.ReplayFileWithOptions(t, strategyMarketHistory, replayOptions(t), workflows.All()...)
}

// The strategy replay test can fail: a workflow that runs its steps in
// another order does not replay the recorded history.
func TestStrategyReplayDetectsChanges(t *testing.T) {
	other := func(ctx workflow.Context, in workflows.StrategyInput) (strategies.State, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var a *activities.Strategies
		var st strategies.State
		err := workflow.ExecuteActivity(ctx, a.ExpireStrategy, in.StrategyID).Get(ctx, &st)
		return st, err
	}
	if err := replaytest.Replay(strategyHistory, replayOptions(t), replaytest.Named{Name: "Strategy", Func: other}); err == nil {
		t.Fatal("replay of a changed strategy workflow succeeded")
	}
}

// webhookHistory is a webhook delivery whose first attempt the receiver
// answered 503 and whose second it took, recorded on the Temporal dev
// server through the whole stack:
//
//	TEMPORAL_CLI=$PWD/.bin/temporal ATS_RECORD_ORDER_HISTORY=$PWD/workflows/testdata/webhook.json \
//	  go test -run TestWebhookDeliveryOnTheStack ./cmd/ats/e2e/
const webhookHistory = "testdata/webhook.json"

func TestWebhookReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, webhookHistory, replayOptions(t), workflows.All()...)
}

// The webhook replay can fail: a delivery that gave up after one attempt
// is not the recorded one.
func TestWebhookReplayDetectsChanges(t *testing.T) {
	impatient := func(ctx workflow.Context, id string) error {
		var w *activities.Webhooks
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		return workflow.ExecuteActivity(ctx, w.GiveUpWebhook, id).Get(ctx, nil)
	}
	if err := replaytest.Replay(webhookHistory, replayOptions(t), replaytest.Named{Name: "WebhookDelivery", Func: impatient}); err == nil {
		t.Fatal("replay of a changed delivery succeeded")
	}
}

// strategyPreChildHistories were recorded before the Strategy workflow
// became a struct that places its orders as child Order workflows
// (strategyChildOrders): a PRICE_ALERT by TestStrategyOnDevServer and a
// COPY_TRADE by TestCopyTradeOnDevServer, both executing through the
// ExecuteStrategy activity:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_pre_child.json \
//	  go test -run 'TestStrategyOnDevServer$' ./workflows/
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_copy_pre_child.json \
//	  go test -run 'TestCopyTradeOnDevServer$' ./workflows/
//
// They replay with the current code: strategies running at the upgrade go
// on as they began.
var strategyPreChildHistories = []string{"testdata/strategy_pre_child.json", "testdata/strategy_copy_pre_child.json"}

func TestStrategyPreChildHistoriesReplay(t *testing.T) {
	for _, h := range strategyPreChildHistories {
		replaytest.ReplayFileWithOptions(t, h, replayOptions(t), workflows.All()...)
	}
}
