package workflows

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/orders"
)

// AgentControlSignalAgain tells a running AgentControl that the agent's
// status changed again (no payload): it makes one more pass.
const AgentControlSignalAgain = "again"

// AgentControlInput starts an agent's control workflow (id
// "agent-control/<agent id>"). It names the agent only: the status to
// apply is read from the database at every pass. After and Again carry a
// run's progress across continue-as-new.
type AgentControlInput struct {
	AgentID string `json:"agent_id"`
	After   string `json:"after,omitempty"`
	// Again: a change was signalled before the continue-as-new, so a
	// whole pass follows the pages.
	Again bool `json:"again,omitempty"`
}

// AgentControlResult is what a run did.
type AgentControlResult struct {
	Status string `json:"status"`
	// Strategies counts the strategy workflows told of the status.
	Strategies int `json:"strategies"`
	// Cancelled counts the orders cancelled; Failed names those that could
	// not be (still live: the user sees them on the orders page).
	Cancelled int      `json:"cancelled"`
	Failed    []string `json:"failed,omitempty"`
}

var (
	agentControlStepOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
		},
	}
	// A cancel of a PENDING order may wait for a post in flight (its
	// claim lasts about 20 s); a venue that does not answer is retried for
	// a while, then the order is reported as failed.
	agentControlCancelOptions = workflow.ActivityOptions{
		StartToCloseTimeout:    40 * time.Second,
		ScheduleToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
		},
	}
)

// agentControlParallel bounds the order cancels in flight at once (each
// waits for the wallet's cancel pacing anyway).
const agentControlParallel = 10

// maxReportedFailures bounds AgentControlResult.Failed.
const maxReportedFailures = 100

// AgentControl applies an agent's status, as stored, to everything that
// acts in its name, durably: each of its strategies that is not final is
// told (signal StrategySignalAgent) and applies the status itself through
// its own workflow — parked with a paused agent, resumed with it,
// cancelled with a revoked one — and a revoked agent's live orders are
// cancelled (CancelRevokedAgentOrder), each order's workflow then told to
// read it again. A status that changes again while it runs (signal
// AgentControlSignalAgain) gets another pass. workflows.Controls starts
// it (signal-with-start) after each status change; a worker that dies
// half-way leaves the rest to the next one, since the run goes on.
func AgentControl(ctx workflow.Context, in AgentControlInput) (AgentControlResult, error) {
	var a *activities.AgentControls
	step := workflow.WithActivityOptions(ctx, agentControlStepOptions)
	cancelCtx := workflow.WithActivityOptions(ctx, agentControlCancelOptions)
	again := workflow.GetSignalChannel(ctx, AgentControlSignalAgain)
	var res AgentControlResult
	after, pending := in.After, in.Again
	for {
		if after == "" {
			// A whole pass starts: the changes signalled so far are
			// covered by its plan.
			for again.ReceiveAsync(nil) {
			}
			pending = false
		}
		var plan agents.ControlPlan
		if err := workflow.ExecuteActivity(step, a.PlanAgentControl, activities.AgentControlPage{AgentID: in.AgentID, After: after}).Get(ctx, &plan); err != nil {
			return res, err
		}
		res.Status = plan.Status
		res.Strategies += tellStrategies(ctx, plan.Strategies)
		for i := 0; i < len(plan.Orders); i += agentControlParallel {
			cancelOrders(ctx, cancelCtx, plan.Orders[i:min(i+agentControlParallel, len(plan.Orders))], &res)
		}
		after = ""
		if plan.More && len(plan.Orders) > 0 {
			after = plan.Orders[len(plan.Orders)-1] // the next page
		} else if !pending && !again.ReceiveAsync(nil) {
			return res, nil
		}
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			// Signals do not cross continue-as-new: a pending change is
			// carried as Again.
			for again.ReceiveAsync(nil) {
				pending = true
			}
			return res, workflow.NewContinueAsNewError(ctx, AgentControl, AgentControlInput{AgentID: in.AgentID, After: after, Again: pending || after == ""})
		}
	}
}

// tellStrategies signals each strategy's workflow to apply its agent's
// status and returns how many were reached. One that has ended is no
// error: a final strategy has nothing to obey, and a strategy whose
// workflow is gone stops at its next load anyway.
func tellStrategies(ctx workflow.Context, ids []string) int {
	fs := make([]workflow.Future, len(ids))
	for i, id := range ids {
		fs[i] = workflow.SignalExternalWorkflow(ctx, WorkflowID(KindStrategy, id), "", StrategySignalAgent, nil)
	}
	told := 0
	for i, f := range fs {
		if err := f.Get(ctx, nil); err != nil {
			workflow.GetLogger(ctx).Info("strategy workflow not reached", "strategy_id", ids[i], "error", err)
			continue
		}
		told++
	}
	return told
}

// cancelOrders cancels a batch of a revoked agent's orders at once and
// tells each order's workflow to read its order again (a sweep hint: the
// order is terminal in the database, so its workflow ends).
func cancelOrders(ctx, cancelCtx workflow.Context, ids []string, res *AgentControlResult) {
	var a *activities.AgentControls
	fs := make([]workflow.Future, len(ids))
	for i, id := range ids {
		fs[i] = workflow.ExecuteActivity(cancelCtx, a.CancelRevokedAgentOrder, id)
	}
	var hints []workflow.Future
	for i, f := range fs {
		var st activities.OrderState
		if err := f.Get(ctx, &st); err != nil {
			workflow.GetLogger(ctx).Warn("revoked agent's order not cancelled", "order_id", ids[i], "error", err)
			if len(res.Failed) < maxReportedFailures {
				res.Failed = append(res.Failed, ids[i])
			}
			continue
		}
		if st.PreviousStatus != "" {
			res.Cancelled++
		}
		hints = append(hints, workflow.SignalExternalWorkflow(ctx, WorkflowID(KindOrder, ids[i]), "", OrderSignalEvent,
			orders.EventHint{Kind: orders.HintSweep, Source: orders.SourceSweep}))
	}
	for _, h := range hints {
		_ = h.Get(ctx, nil) // an order whose workflow ended needs no hint
	}
}

// AgentControlClient starts agents' control workflows; it implements
// AgentControlRuns.
type AgentControlClient struct {
	Client client.Client
}

// Apply starts the control workflow of agentID, or tells the running one
// to make another pass (signal-with-start): either way the agent's status
// as stored now is applied.
func (c AgentControlClient) Apply(ctx context.Context, agentID, userID string) error {
	opts, err := StartOptions(StartSpec{
		Kind: KindAgentControl, BusinessID: agentID,
		Summary:          "applies agent " + agentID + "'s status to its strategies and orders",
		SearchAttributes: []temporal.SearchAttributeUpdate{SAAgentID.ValueSet(agentID), SAUserID.ValueSet(userID)},
	})
	if err != nil {
		return err
	}
	opts.WorkflowExecutionErrorWhenAlreadyStarted = false
	_, err = c.Client.SignalWithStartWorkflow(ctx, opts.ID, AgentControlSignalAgain, nil, opts, AgentControl, AgentControlInput{AgentID: agentID})
	return temporalerr.From(err)
}
