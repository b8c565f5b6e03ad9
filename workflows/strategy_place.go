package workflows

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/strategies"
)

// StrategyDecider decides an execution and records it with its outcome
// open (*strategies.Engine).
type StrategyDecider interface {
	DecideOpen(ctx context.Context, id string, seq int) (strategies.Decision, error)
}

// StrategyPlacer runs an execution of a Strategy run at
// strategyStartsOrders as one local activity, PlaceStrategyExecution:
// it decides (the order checked and stored PENDING under the execution's
// idempotency key, the execution recorded with its outcome open:
// strategies.Engine.DecideOpen) and starts the order's workflow without
// waiting for it. The order's own activities amend the execution when the
// order settles (strategies.Engine.Settle), and its workflow tells the
// strategy's only when that ended the strategy (StrategySignalSettled).
//
// It lives here, not in activities, because it holds the Temporal client
// (activities never know the workflows); it starts a workflow and never
// waits on one. Not a child workflow: the order outlives the strategy and
// the strategy needs nothing back from it, while a child's start and
// completion would each add a workflow task and two or three events to
// the strategy's history per execution (docs/benchmarks.md, "Session 6").
type StrategyPlacer struct {
	Engine StrategyDecider
	// Orders starts the orders' workflows: OrderDeskClient, eagerly when
	// a worker of this process runs the order task queue.
	Orders OrderStarter
}

// OrderStarter starts the workflow of an order a strategy's execution
// stored, without waiting for it (OrderDeskClient.StartPlacement).
type OrderStarter interface {
	StartPlacement(ctx context.Context, strategyID string, pm strategies.Placement) error
}

// strategyPlacer names PlaceStrategyExecution for ExecuteLocalActivity.
var strategyPlacer *StrategyPlacer

// PlaceStrategyExecution runs execution in.Seq of strategy in.ID (see
// StrategyPlacer). Idempotent: a retry (a worker that died after the
// decision) finds the execution recorded and, while its order is still
// PENDING, starts the order's workflow again, which counts as started if
// it runs or ran already.
func (p *StrategyPlacer) PlaceStrategyExecution(ctx context.Context, in activities.StrategyExecution) (strategies.Outcome, error) {
	d, err := p.Engine.DecideOpen(ctx, in.ID, in.Seq)
	if err != nil {
		return strategies.Outcome{}, temporalerr.To(err)
	}
	if d.Place != nil {
		if err := p.Orders.StartPlacement(ctx, in.ID, *d.Place); err != nil {
			return strategies.Outcome{}, temporalerr.To(err)
		}
	}
	return d.Outcome, nil
}

// StartPlacement starts the workflow of the order a strategy's execution
// stored (pm) and does not wait for it: eagerly when Eager (the first
// workflow task, which places the order, runs in this process), at
// orderShapeCurrent. A workflow of the order that runs already, or ran
// (reuse policy REJECT_DUPLICATE), counts as started.
func (c OrderDeskClient) StartPlacement(ctx context.Context, strategyID string, pm strategies.Placement) error {
	opts, err := c.startOptions(pm.OrderID, pm.UserID, pm.AgentID, pm.TokenID, pm.Mode)
	if err != nil {
		return err
	}
	summary := strategyOrderSummary(pm, strategyID)
	opts.StaticSummary = summary
	opts.Memo[MemoSummary] = summary
	opts.EnableEagerStart = c.Eager
	_, err = c.Client.ExecuteWorkflow(ctx, opts, Order, OrderInput{OrderID: pm.OrderID, UserID: pm.UserID, AgentID: pm.AgentID,
		TokenID: pm.TokenID, Shape: orderShapeCurrent})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return temporalerr.From(err)
}

// strategyOrderSummary is the Web UI summary of the workflow of an order
// strategy strategyID placed, whether started as its child (runs before
// strategyStartsOrders) or by StartPlacement.
func strategyOrderSummary(pm strategies.Placement, strategyID string) string {
	return "order " + pm.OrderID + " of agent " + pm.AgentID + " (strategy " + strategyID + ")"
}
