package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/strategies"
)

// Signal, update and query names of the strategy workflow.
const (
	// StrategySignalPrice hints that a price condition of the strategy was
	// met, or that a COPY_TRADE's target traded (no payload): the execution
	// re-checks the price, or claims the recorded event, before acting.
	StrategySignalPrice = "price"
	// StrategyQueryState returns the strategy's State.
	StrategyQueryState = "state"
	// StrategySignalAgent hints that the status of the strategy's agent
	// changed (no payload; sent by AgentControl): the workflow applies the
	// agent's status as the database holds it (ReconcileStrategyAgent).
	StrategySignalAgent = "agent"
)

// strategyAgentChange versions the handling of StrategySignalAgent
// (GetVersion): version 1 runs ReconcileStrategyAgent. No run recorded
// before it received the signal, so none replays the branch; the marker
// is recorded where a run first takes it.
const (
	strategyAgentChange  = "agent-status"
	strategyAgentVersion = 1
)

// StrategyInput starts a strategy workflow (id = the strategy id). It
// names the strategy only: config, owner and status are loaded from the
// database by every activity. Hinted carries an unhandled price hint
// across continue-as-new.
type StrategyInput struct {
	StrategyID string `json:"strategy_id"`
	Hinted     bool   `json:"hinted,omitempty"`
}

// strategyMarketCheck is the change id of the market check at the end
// date (see Strategy).
const strategyMarketCheck = "market-check"

// strategyRunExecutions bounds the executions of one run: continue-as-new
// keeps the history bounded. History grows with executions, hints and
// changes, never with evaluations (the price feed evaluates conditions
// outside the workflow and signals only when one is met).
const strategyRunExecutions = 200

var (
	// Timeouts are short: a worker killed mid-step is noticed only when
	// the step times out, and the strategy waits until then.
	strategyStepOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
		},
	}
	// An execution places an order and waits for its placement (up to
	// the order service's 20 s); transient failures are retried a few
	// times, then the execution counts as failed.
	strategyExecuteOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 45 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 4,
		},
	}
)

// Strategy runs one strategy until it is COMPLETED or CANCELLED: it waits
// for a price hint (PRICE_ALERT, BUY_LOW_SELL_HIGH), the next interval
// (RECURRING_BUY, a durable timer) or the expiry, runs one execution at a
// time, and applies the agent's and user's changes as updates (pause,
// resume, cancel, patch, extend), which wait for an execution in flight
// and answer with the new state. Search attributes StrategyStatus and
// TokenId follow every transition; the memo summarises the config.
func Strategy(ctx workflow.Context, in StrategyInput) (strategies.State, error) {
	var a *activities.Strategies
	step := workflow.WithActivityOptions(ctx, strategyStepOptions)
	var st strategies.State
	loaded := false
	shown := strategies.State{}
	publish := func() {
		if st.Status != shown.Status || st.TokenID != shown.TokenID {
			_ = workflow.UpsertTypedSearchAttributes(ctx, SAStrategyStatus.ValueSet(st.Status), SATokenID.ValueSet(st.TokenID))
		}
		if st.Summary != "" && st.Summary != shown.Summary {
			_ = workflow.UpsertMemo(ctx, map[string]any{MemoSummary: st.Summary})
		}
		shown = st
	}

	// Handlers are registered before the first activity, so a change sent
	// right after the start is not refused as unknown; they wait for the
	// state to be loaded.
	busy := false // one step (execution or change) at a time
	hinted := in.Hinted
	woken := false
	agentCheck := false // the agent's status is to be applied
	if err := workflow.SetQueryHandler(ctx, StrategyQueryState, func() (strategies.State, error) { return st, nil }); err != nil {
		return st, err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, StrategySignalPrice)
		for {
			ch.Receive(ctx, nil)
			hinted = true
		}
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, StrategySignalAgent)
		for {
			ch.Receive(ctx, nil)
			agentCheck = true
		}
	})
	for _, action := range []string{strategies.ActionPause, strategies.ActionResume, strategies.ActionCancel, strategies.ActionPatch, strategies.ActionExtend} {
		handler := func(ctx workflow.Context, ch strategies.Change) (strategies.State, error) {
			if err := workflow.Await(ctx, func() bool { return loaded && !busy }); err != nil {
				return st, err
			}
			if err := strategies.AllowedFor(action, st.Status, st.PausedBy); err != nil {
				return st, temporalerr.To(err)
			}
			busy = true
			defer func() { busy = false }()
			ch.StrategyID, ch.Action = in.StrategyID, action
			var next strategies.State
			if err := workflow.ExecuteActivity(step, a.ApplyStrategyChange, ch).Get(ctx, &next); err != nil {
				return st, err
			}
			st, woken = next, true
			publish()
			return st, nil
		}
		validator := func(ch strategies.Change) error {
			if ch.Proof == "" {
				return temporalerr.To(errs.E(errs.Forbidden, "the request was not made through an authenticated path").WithCode(errs.CodeUnvouchedRequest))
			}
			if !loaded {
				return nil // the handler checks once the state is known
			}
			if ch.Version < st.Version {
				// Made for a version this run has seen replaced: a change
				// taken from the history and sent again (versions only
				// grow). ApplyStrategyChange refuses the rest against the
				// database.
				return temporalerr.To(strategies.Stale())
			}
			return temporalerr.To(strategies.AllowedFor(action, st.Status, st.PausedBy))
		}
		if err := workflow.SetUpdateHandlerWithOptions(ctx, action, handler, workflow.UpdateHandlerOptions{Validator: validator}); err != nil {
			return st, err
		}
	}

	// Version 1 of "market-check": the workflow also wakes at its market's
	// end date (State.MarketCheckAt) and runs an execution, which moves a
	// marketQuery to the market it names now or ends a tokenId strategy
	// whose market closed. Runs recorded before it never wake for it.
	marketCheck := workflow.GetVersion(ctx, strategyMarketCheck, workflow.DefaultVersion, 1) >= 1
	marketDue := func(now time.Time) bool {
		return marketCheck && st.Status == strategies.StatusActive && st.MarketCheckAt != nil && !now.Before(*st.MarketCheckAt)
	}

	busy = true
	if err := workflow.ExecuteActivity(step, a.LoadStrategy, in.StrategyID).Get(ctx, &st); err != nil {
		return st, err
	}
	loaded, busy = true, false
	hinted = hinted || st.Pending
	publish()

	executions := 0
	for !strategies.Final(st.Status) {
		if executions >= strategyRunExecutions || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			if err := workflow.Await(ctx, func() bool { return !busy && workflow.AllHandlersFinished(ctx) }); err != nil {
				return st, err
			}
			return st, workflow.NewContinueAsNewError(ctx, Strategy, StrategyInput{StrategyID: in.StrategyID, Hinted: hinted})
		}
		now := workflow.Now(ctx)
		var deadline time.Time
		if st.ExpiresAt != nil {
			deadline = *st.ExpiresAt
		}
		if st.Status == strategies.StatusActive && st.Type == strategies.TypeRecurringBuy && st.NextEvaluationAt != nil &&
			(deadline.IsZero() || st.NextEvaluationAt.Before(deadline)) {
			deadline = *st.NextEvaluationAt
		}
		if marketCheck && st.Status == strategies.StatusActive && st.MarketCheckAt != nil &&
			(deadline.IsZero() || st.MarketCheckAt.Before(deadline)) {
			deadline = *st.MarketCheckAt
		}
		woken = false
		ready := func() bool {
			return !busy && (woken || agentCheck || (hinted && st.Status == strategies.StatusActive) || strategies.Final(st.Status))
		}
		var err error
		switch {
		case deadline.IsZero():
			err = workflow.Await(ctx, ready)
		case deadline.After(now):
			_, err = workflow.AwaitWithTimeout(ctx, deadline.Sub(now), ready)
		}
		if err != nil {
			return st, err
		}
		if err := workflow.Await(ctx, func() bool { return !busy }); err != nil {
			return st, err
		}
		if strategies.Final(st.Status) {
			break
		}
		now = workflow.Now(ctx)
		busy = true
		switch {
		case agentCheck:
			agentCheck = false
			if workflow.GetVersion(ctx, strategyAgentChange, workflow.DefaultVersion, strategyAgentVersion) >= strategyAgentVersion {
				var next strategies.State
				if err := workflow.ExecuteActivity(step, a.ReconcileStrategyAgent, in.StrategyID).Get(ctx, &next); err != nil {
					busy = false
					return st, err
				}
				st = next
			}
		case st.ExpiresAt != nil && !now.Before(*st.ExpiresAt):
			var next strategies.State
			if err := workflow.ExecuteActivity(step, a.ExpireStrategy, in.StrategyID).Get(ctx, &next); err != nil {
				busy = false
				return st, err
			}
			st = next
			if !strategies.Final(st.Status) && st.ExpiresAt != nil && !st.ExpiresAt.After(workflow.Now(ctx)) {
				// The activity's clock is behind the timer's: look again
				// shortly rather than spin.
				_ = workflow.Sleep(ctx, 5*time.Second)
			}
		case st.Status != strategies.StatusActive:
			hinted = false
		case hinted || (st.Type == strategies.TypeRecurringBuy && st.NextEvaluationAt != nil && !now.Before(*st.NextEvaluationAt)) || marketDue(now):
			hinted = false
			next, err := strategyExecute(ctx, in.StrategyID, st.Executions+1)
			if err != nil {
				busy = false
				return st, err
			}
			st = next
			executions++
			// A COPY_TRADE with more recorded events of its target runs
			// another execution at once (the state says so; no hint needed).
			hinted = hinted || st.Pending
			if st.Status == strategies.StatusActive && (st.Type == strategies.TypeRecurringBuy && st.NextEvaluationAt != nil &&
				!st.NextEvaluationAt.After(workflow.Now(ctx)) || marketDue(workflow.Now(ctx))) {
				// Nothing was recorded (the database disagrees with this
				// run): look again after a pause rather than spin.
				_ = workflow.Sleep(ctx, time.Minute)
			}
		}
		busy = false
		publish()
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return st, err
	}
	return st, nil
}

// strategyExecute runs execution seq; when its step gives up, the
// execution is recorded as failed (it counts towards ERROR).
func strategyExecute(ctx workflow.Context, id string, seq int) (strategies.State, error) {
	var a *activities.Strategies
	var out strategies.Outcome
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, strategyExecuteOptions), a.ExecuteStrategy,
		activities.StrategyExecution{ID: id, Seq: seq}).Get(ctx, &out)
	if err == nil {
		return out.State, nil
	}
	if temporal.IsCanceledError(err) {
		return out.State, err
	}
	var st strategies.State
	reason := "the execution failed: " + errs.PublicMessage(temporalerr.From(err))
	err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, strategyStepOptions), a.RecordStrategyFailure,
		activities.StrategyExecution{ID: id, Seq: seq, Reason: reason}).Get(ctx, &st)
	return st, err
}
