package workflows

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/strategies"
)

// StrategyDeskRuns is the Temporal side of StrategyDesk: a strategy
// workflow's start and its change updates. StrategyDeskClient implements
// it; tests give it a stand-in for the workflow.
type StrategyDeskRuns interface {
	// Start starts the workflow of a stored strategy (id = strategy id).
	Start(ctx context.Context, st strategies.State) error
	// Change sends a change as an update and returns the state after it.
	Change(ctx context.Context, ch strategies.Change) (strategies.State, error)
}

// StrategyDesk is how a strategy is created and changed, for the API, the
// dashboard, the user's controls and the admin commands, as OrderDesk is
// for orders: the strategy service checks and stores (Accept,
// PrepareChange, PatchChanges) and returns, then the desk starts the
// strategy's workflow or sends it the change. The service never calls a
// workflow, so the walk api/strategies → workflows → Temporal → activities
// → models/strategies enters no package twice. Reads go to the service.
type StrategyDesk struct {
	Strategies *strategies.Service
	// Runs is nil in a process without Temporal: reads work, changes are
	// refused.
	Runs StrategyDeskRuns
}

var errNoStrategyRuns = errs.E(errs.Internal, "strategies are not configured in this process")

// Create validates and stores the strategy (Service.Accept), starts its
// workflow and returns it; a strategy whose workflow cannot start is
// withdrawn.
func (d *StrategyDesk) Create(ctx context.Context, a strategies.Actor, r strategies.CreateRequest) (strategies.Strategy, error) {
	if d.Runs == nil {
		return strategies.Strategy{}, errNoStrategyRuns // refused before anything is stored
	}
	st, err := d.Strategies.Accept(ctx, a, r)
	if err != nil {
		return strategies.Strategy{}, err
	}
	if err := d.Runs.Start(ctx, st); err != nil {
		if werr := d.Strategies.Withdraw(ctx, st.ID); werr != nil {
			return strategies.Strategy{}, werr
		}
		return strategies.Strategy{}, err
	}
	return d.Strategies.Created(ctx, a, st.ID)
}

// Get returns a strategy the actor may see, with its latest executions.
func (d *StrategyDesk) Get(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.Strategies.Get(ctx, a, id)
}

// List returns the actor's strategies, newest first.
func (d *StrategyDesk) List(ctx context.Context, a strategies.Actor, f strategies.ListFilter) ([]strategies.Strategy, error) {
	return d.Strategies.List(ctx, a, f)
}

// Pause pauses an ACTIVE strategy; PausedBy records who.
func (d *StrategyDesk) Pause(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.change(ctx, a, id, strategies.Change{Action: strategies.ActionPause})
}

// Resume resumes a PAUSED or ERROR strategy (its error count reset).
func (d *StrategyDesk) Resume(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.change(ctx, a, id, strategies.Change{Action: strategies.ActionResume})
}

// Cancel cancels a strategy for good.
func (d *StrategyDesk) Cancel(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.change(ctx, a, id, strategies.Change{Action: strategies.ActionCancel})
}

// Extend moves a strategy's expiry to until: in the future and at most
// strategies.MaxExpiry from now.
func (d *StrategyDesk) Extend(ctx context.Context, a strategies.Actor, id string, until time.Time) (strategies.Strategy, error) {
	ch, err := d.Strategies.ExtendChange(until)
	if err != nil {
		return strategies.Strategy{}, err
	}
	return d.change(ctx, a, id, ch)
}

// Patch applies r (its config or budget, then its expiry) and returns the
// strategy after it.
func (d *StrategyDesk) Patch(ctx context.Context, a strategies.Actor, id string, r strategies.PatchRequest) (strategies.Strategy, error) {
	chs, err := d.Strategies.PatchChanges(ctx, a, id, r)
	if err != nil {
		return strategies.Strategy{}, err
	}
	for _, ch := range chs {
		if _, err := d.change(ctx, a, id, ch); err != nil {
			return strategies.Strategy{}, err
		}
	}
	return d.Strategies.Get(ctx, a, id)
}

// change sends ch for the strategy as it is now (Service.PrepareChange
// binds it to its version). A change refused because an execution moved
// the strategy's status meanwhile is prepared and sent again, up to
// strategies.ChangeAttempts times.
func (d *StrategyDesk) change(ctx context.Context, a strategies.Actor, id string, base strategies.Change) (strategies.Strategy, error) {
	if d.Runs == nil {
		return strategies.Strategy{}, errNoStrategyRuns
	}
	for attempt := 1; ; attempt++ {
		ch, err := d.Strategies.PrepareChange(ctx, a, id, base)
		if err != nil {
			return strategies.Strategy{}, err
		}
		_, err = d.Runs.Change(ctx, ch)
		if err == nil {
			return d.Strategies.Changed(ctx, ch.StrategyID)
		}
		if attempt == strategies.ChangeAttempts || !d.Strategies.Retry(ctx, a, ch, err) {
			return strategies.Strategy{}, err
		}
	}
}

// StrategyDeskClient drives strategy workflows over a Temporal client; it
// implements StrategyDeskRuns for StrategyDesk. Its caller, the desk, has
// had the strategy service check whose strategy it is, so it attaches the
// proof of each change, made with Intents. Hint is the signal the worker's
// price and copy triggers send.
type StrategyDeskClient struct {
	Client  client.Client
	Intents *intent.Keys
}

var _ StrategyDeskRuns = StrategyDeskClient{}

// Start starts the strategy's workflow (at strategyShapeCurrent).
func (c StrategyDeskClient) Start(ctx context.Context, st strategies.State) error {
	return c.start(ctx, st, strategyShapeCurrent)
}

func (c StrategyDeskClient) start(ctx context.Context, st strategies.State, shape int) error {
	opts, err := StartOptions(StartSpec{
		Kind: KindStrategy, BusinessID: st.ID, Summary: st.Summary, Mode: st.Mode,
		SearchAttributes: []temporal.SearchAttributeUpdate{
			SAStrategyType.ValueSet(st.Type), SAStrategyStatus.ValueSet(st.Status), SAAgentID.ValueSet(st.AgentID),
			SAUserID.ValueSet(st.UserID), SATokenID.ValueSet(st.TokenID),
		},
	})
	if err != nil {
		return err
	}
	_, err = c.Client.ExecuteWorkflow(ctx, opts, Strategy, StrategyInput{StrategyID: st.ID, Shape: shape})
	return temporalerr.From(err)
}

// Change sends ch as the update of its action, with its proof.
func (c StrategyDeskClient) Change(ctx context.Context, ch strategies.Change) (strategies.State, error) {
	kind, ok := activities.ProofKind(ch.Action)
	if !ok || c.Intents == nil {
		return strategies.State{}, errs.Ef(errs.Internal, "the strategy client cannot vouch for %q", ch.Action)
	}
	ch.Proof = c.Intents.Sign(kind, ch.ProofFields()...)
	h, err := c.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: WorkflowID(KindStrategy, ch.StrategyID), UpdateName: ch.Action, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{ch},
	})
	if nf := (*serviceerror.NotFound)(nil); errors.As(err, &nf) {
		return strategies.State{}, errs.E(errs.Conflict, "the strategy is not running").WithCode(errs.CodeStrategyState).WithCause(err)
	}
	if err != nil {
		return strategies.State{}, temporalerr.From(err)
	}
	var st strategies.State
	if err := h.Get(ctx, &st); err != nil {
		return st, temporalerr.From(err)
	}
	return st, nil
}

// Hint signals the strategy's workflow that a price condition was met.
func (c StrategyDeskClient) Hint(ctx context.Context, strategyID string) error {
	err := c.Client.SignalWorkflow(ctx, WorkflowID(KindStrategy, strategyID), "", StrategySignalPrice, nil)
	return temporalerr.From(err)
}
