package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/strategies"
)

// StrategyEngine runs the steps of a strategy; *strategies.Engine
// implements it. Every step takes the strategy id and loads owner, config
// and status from the database, and is idempotent.
type StrategyEngine interface {
	Load(ctx context.Context, id string) (strategies.State, error)
	Execute(ctx context.Context, id string, seq int) (strategies.Outcome, error)
	Decide(ctx context.Context, id string, seq int) (strategies.Decision, error)
	DecideOpen(ctx context.Context, id string, seq int) (strategies.Decision, error)
	Settle(ctx context.Context, orderID string) (strategies.Settled, error)
	Placed(ctx context.Context, id string, seq int, pm strategies.Placement) (strategies.Outcome, error)
	RecordFailure(ctx context.Context, id string, seq int, reason string) (strategies.State, error)
	Apply(ctx context.Context, ch strategies.Change) (strategies.State, error)
	Expire(ctx context.Context, id string) (strategies.State, error)
	Reconcile(ctx context.Context, id string) (strategies.State, error)
}

// Strategies holds the strategy activities. Workflows reference its
// methods through a nil *Strategies.
//
// A change (pause, resume, cancel, patch, extend) acts for the strategy's
// agent or user, so it carries the proof the authenticated path made
// (models/intent); ApplyStrategyChange verifies it before anything
// changes. An execution spends the wallet's money only for the owner and
// within the config stored in the database, whatever the payload says.
type Strategies struct {
	Engine  StrategyEngine
	Intents *intent.Keys
}

// StrategyExecution names execution Seq of strategy ID.
type StrategyExecution struct {
	ID     string `json:"id"`
	Seq    int    `json:"seq"`
	Reason string `json:"reason,omitempty"` // RecordStrategyFailure only
}

// ProofKind is the intent kind of a strategy change's action.
func ProofKind(action string) (string, bool) {
	switch action {
	case strategies.ActionPause:
		return intent.StrategyPause, true
	case strategies.ActionResume:
		return intent.StrategyResume, true
	case strategies.ActionCancel:
		return intent.StrategyCancel, true
	case strategies.ActionPatch:
		return intent.StrategyPatch, true
	case strategies.ActionExtend:
		return intent.StrategyExtend, true
	}
	return "", false
}

// LoadStrategy returns the strategy's state and arms its price conditions
// in this worker.
func (a *Strategies) LoadStrategy(ctx context.Context, id string) (strategies.State, error) {
	st, err := a.Engine.Load(ctx, id)
	return st, temporalerr.To(err)
}

// ExecuteStrategy runs one execution (see strategies.Engine.Execute).
func (a *Strategies) ExecuteStrategy(ctx context.Context, in StrategyExecution) (strategies.Outcome, error) {
	out, err := a.Engine.Execute(ctx, in.ID, in.Seq)
	if err != nil {
		return out, temporalerr.To(err)
	}
	if out.Executed {
		activity.GetLogger(ctx).Info("strategy executed", "strategy_id", in.ID, "seq", in.Seq, "kind", out.Kind, "order_id", out.OrderID, "status", out.State.Status)
	}
	return out, nil
}

// DecideStrategy decides execution Seq and, when it places an order,
// stores the order PENDING under the execution's idempotency key after the
// order service's checks, for the workflow to place as a child Order
// workflow (strategies.Engine.Decide). The workflow runs it as a local
// activity: it is idempotent, so a worker killed mid-attempt costs a
// retry that finds the stored order.
func (a *Strategies) DecideStrategy(ctx context.Context, in StrategyExecution) (strategies.Decision, error) {
	d, err := a.Engine.Decide(ctx, in.ID, in.Seq)
	if err != nil {
		return d, temporalerr.To(err)
	}
	if d.Outcome.Executed {
		activity.GetLogger(ctx).Info("strategy executed", "strategy_id", in.ID, "seq", in.Seq, "kind", d.Outcome.Kind, "status", d.Outcome.State.Status)
	}
	return d, nil
}

// StrategyPlaced names execution Seq of strategy ID and the order its
// workflow placed.
type StrategyPlaced struct {
	ID        string               `json:"id"`
	Seq       int                  `json:"seq"`
	Placement strategies.Placement `json:"placement"`
}

// RecordStrategyPlacement records execution Seq once its order's
// workflow placed the order (strategies.Engine.Placed). The order is
// read from the database: the payload names it only, and must be one of
// the strategy's.
func (a *Strategies) RecordStrategyPlacement(ctx context.Context, in StrategyPlaced) (strategies.Outcome, error) {
	out, err := a.Engine.Placed(ctx, in.ID, in.Seq, in.Placement)
	if err != nil {
		return out, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("strategy executed", "strategy_id", in.ID, "seq", in.Seq, "kind", out.Kind, "order_id", out.OrderID, "status", out.State.Status)
	return out, nil
}

// RecordStrategyFailure records an execution whose step gave up.
func (a *Strategies) RecordStrategyFailure(ctx context.Context, in StrategyExecution) (strategies.State, error) {
	st, err := a.Engine.RecordFailure(ctx, in.ID, in.Seq, in.Reason)
	return st, temporalerr.To(err)
}

// ApplyStrategyChange verifies a change's proof and applies it.
func (a *Strategies) ApplyStrategyChange(ctx context.Context, ch strategies.Change) (strategies.State, error) {
	kind, ok := ProofKind(ch.Action)
	if !ok {
		return strategies.State{}, temporalerr.To(errs.Ef(errs.Invalid, "unknown strategy action %q", ch.Action))
	}
	if err := a.Intents.Verify(ch.Proof, kind, ch.ProofFields()...); err != nil {
		activity.GetLogger(ctx).Warn("strategy change refused: no valid proof", "strategy_id", ch.StrategyID, "action", ch.Action)
		return strategies.State{}, temporalerr.To(err)
	}
	st, err := a.Engine.Apply(ctx, ch)
	return st, temporalerr.To(err)
}

// ExpireStrategy cancels the strategy if its expiry passed.
func (a *Strategies) ExpireStrategy(ctx context.Context, id string) (strategies.State, error) {
	st, err := a.Engine.Expire(ctx, id)
	return st, temporalerr.To(err)
}

// ReconcileStrategyAgent applies the status of the strategy's agent, as
// the database holds it, to the strategy (strategies.Engine.Reconcile):
// the workflow runs it when told the agent's status changed. The hint
// decides nothing; the agent's status was written by the user's
// authenticated change.
func (a *Strategies) ReconcileStrategyAgent(ctx context.Context, id string) (strategies.State, error) {
	st, err := a.Engine.Reconcile(ctx, id)
	return st, temporalerr.To(err)
}
