package workflows

import (
	"time"

	enumspb "go.temporal.io/api/enums/v1"
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
	// StrategySignalPlaced tells the strategy that the order it started as
	// a child workflow (payload: the order id) was placed and rests on the
	// book; an order final at once answers by its workflow's completion.
	// A hint: the execution's record reads the order from the database.
	StrategySignalPlaced = "order-placed"
	// StrategySignalSettled tells a run at strategyStartsOrders that the
	// settling of one of its orders ended the strategy (COMPLETED or
	// ERROR; no payload): the run reloads the state from the database.
	// A hint: a forged one costs a reload.
	StrategySignalSettled = "settled"
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
	// Shape is the version of strategyShapeChange the run is at, given by
	// its starter (strategyShapeCurrent) instead of asked with GetVersion
	// (no marker, no TemporalChangeVersion upsert); zero in runs begun
	// before or started by an older process, which ask (up to
	// strategyShapeVersion) and continue as new at strategyShapeCurrent.
	Shape int `json:"shape,omitempty"`
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

// strategyChildOrders versions how an execution places its order
// (GetVersion): version 1 decides in a local activity (DecideStrategy,
// which stores the order PENDING under the execution's idempotency key),
// starts the order's workflow as a child (placeOrder) and records the
// execution in a second local activity (RecordStrategyPlacement), so no
// activity waits on a workflow. Before it the ExecuteStrategy activity
// placed through the order desk and waited for the order's workflow. The
// version is taken at a run's first execution, so a run that executed
// before the upgrade goes on with the activity (its history says so)
// until it continues as new, and one still waiting takes version 1.
//
// Version 2 waits for the placement without a timer (strategyUntimedWait).
const (
	strategyChildOrders        = "child-orders"
	strategyChildOrdersVersion = 1
	// strategyUntimedWait: the execution waits for its order's placement
	// until the order reports (its completion or its placement signal)
	// or until the run is needed elsewhere — a change (update) waiting for
	// the execution or the agent's hint — instead of at most
	// strategyPlacementWait: no timer started and cancelled per execution
	// (2 history events and their timer task), and a pause waits for no
	// placement at all. The order is then recorded as it stands, as when
	// the timer fired.
	strategyUntimedWait = 2
)

var (
	// strategyDecideOptions: the local activities of an execution
	// (version strategyChildOrders); as strategyExecuteOptions, a few
	// attempts, then the execution counts as failed. Each attempt is
	// idempotent (the order is found by its key).
	strategyDecideOptions = workflow.LocalActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy:         strategyExecuteOptions.RetryPolicy,
	}
	// strategyPlacementWait bounds, in runs at version 1 of
	// strategyChildOrders, how long an execution waits for its order's
	// placement before it records the order as it stands (still PENDING:
	// its workflow goes on), as the order desk's 20 s did: the strategy's
	// updates (pause, cancel) wait for the execution. From
	// strategyUntimedWait a waiting update ends the wait instead.
	strategyPlacementWait = 20 * time.Second
)

// Strategy runs one strategy until it is COMPLETED or CANCELLED: it waits
// for a price hint (PRICE_ALERT, BUY_LOW_SELL_HIGH), the next interval
// (RECURRING_BUY, a durable timer) or the expiry, runs one execution at a
// time, and applies the agent's and user's changes as updates (pause,
// resume, cancel, patch, extend), which wait for an execution in flight
// and answer with the new state. Search attributes StrategyStatus and
// TokenId follow every transition; the memo summarises the config. An
// execution's order is a child Order workflow that outlives the strategy
// (parent-close policy ABANDON).
func Strategy(ctx workflow.Context, in StrategyInput) (strategies.State, error) {
	w := &strategyWorkflow{id: in.StrategyID, hinted: in.Hinted, shape: workflow.Version(in.Shape)}
	if err := w.setHandlers(ctx); err != nil {
		return w.st, err
	}
	// Version 1 of "market-check": the workflow also wakes at its market's
	// end date (State.MarketCheckAt) and runs an execution, which moves a
	// marketQuery to the market it names now or ends a tokenId strategy
	// whose market closed. Runs recorded before it never wake for it.
	if in.Shape < strategyStartsOrders {
		// Begun before, or started by a process older than this code: the
		// shapes before (its orders, started by this run, follow it).
		w.shape = workflow.GetVersion(ctx, strategyShapeChange, workflow.DefaultVersion, strategyShapeVersion)
	}
	w.shaped = w.shape >= strategyShapeVersion
	w.marketCheck = w.version(ctx, strategyMarketCheck, 1) >= 1
	if err := w.load(ctx); err != nil {
		return w.st, err
	}
	for !strategies.Final(w.st.Status) {
		if w.executions >= strategyRunExecutions || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			return w.st, w.continueAsNew(ctx)
		}
		if err := w.wait(ctx); err != nil {
			return w.st, err
		}
		if strategies.Final(w.st.Status) {
			break
		}
		if err := w.step(ctx); err != nil {
			return w.st, err
		}
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return w.st, err
	}
	return w.st, nil
}

// strategyShapeChange bundles the strategy workflow's earlier changes
// (GetVersion): a run begun at version 1 takes the latest version of
// each — market-check 1, agent-status 1, child-orders 2
// (strategyUntimedWait) — without asking for it. Every GetVersion the SDK
// records writes a marker and an upsert of the TemporalChangeVersion
// search attribute; a run asked for two or three of them, one
// (child-orders) at its first execution, so a strategy that executes once
// per run (a PRICE_ALERT, a copier of a quiet target) paid two more
// events in its execution. The bundle is taken once, at the start. Runs
// begun before it ask for each change as before.
//
// Version 2 (strategyStartsOrders): an execution is one local activity
// (PlaceStrategyExecution) that decides, records the execution with its
// outcome open and starts the order's workflow without waiting for it;
// the order amends the execution when it settles and signals the run
// only when that ended the strategy (StrategySignalSettled). And the run
// keeps one timer for its deadline, started again only when the deadline
// moves, instead of a timer per wait that stayed pending until it fired
// (waitOneTimer). New runs are given their shape in their input
// (StrategyInput.Shape): no marker.
const (
	strategyShapeChange  = "strategy-shape"
	strategyShapeVersion = 1
	strategyStartsOrders = 2
	// strategyShapeCurrent is the version new runs start at.
	strategyShapeCurrent = strategyStartsOrders
)

// strategyWorkflow is the state of one run of Strategy; its methods are
// the steps and the handlers of the run.
type strategyWorkflow struct {
	id string
	// shape is the run's version of strategyShapeChange; shaped: at
	// least strategyShapeVersion (version).
	shape  workflow.Version
	shaped bool
	st     strategies.State
	// shown is the state the search attributes and memo show.
	shown  strategies.State
	loaded bool
	// busy: one step (execution or change) at a time.
	busy bool
	// hinted: a price hint (or a COPY_TRADE's pending event) waits.
	hinted bool
	// woken: a change ran since the run last began to wait.
	woken bool
	// agentCheck: the agent's status is to be applied.
	agentCheck  bool
	marketCheck bool
	executions  int
	// child: executions place their orders as child workflows
	// (strategyChildOrdersVersion); decided at the run's first execution,
	// with childVersion, the version of strategyChildOrders taken then.
	child        *bool
	childVersion workflow.Version
	// changing counts the changes (updates) waiting for the step in
	// flight: a placement wait (strategyUntimedWait) gives way to them.
	changing int
	// reload: an order's settling ended the strategy or placed the BUY
	// an execution waits for (StrategySignalSettled); the state is to be
	// read again.
	reload bool
	// waiting: the last execution waits for an order of the strategy
	// being placed (strategies.Outcome.WaitsFor); the reload runs it
	// again.
	waiting bool
	// timer is the pending timer of the run's deadline timerAt, which
	// cancelTimer cancels (strategyStartsOrders: waitOneTimer).
	timer       workflow.Future
	timerAt     time.Time
	cancelTimer workflow.CancelFunc
}

// version is the version of a bundled change: its latest (max) in a run
// at strategyShapeVersion, else what GetVersion records or replays.
func (w *strategyWorkflow) version(ctx workflow.Context, change string, max workflow.Version) workflow.Version {
	if w.shaped {
		return max
	}
	return workflow.GetVersion(ctx, change, workflow.DefaultVersion, max)
}

// strategyActivities names the strategy activities for ExecuteActivity.
var strategyActivities *activities.Strategies

// publish keeps the search attributes and the memo in step with the state.
func (w *strategyWorkflow) publish(ctx workflow.Context) {
	if w.st.Status != w.shown.Status || w.st.TokenID != w.shown.TokenID {
		_ = workflow.UpsertTypedSearchAttributes(ctx, SAStrategyStatus.ValueSet(w.st.Status), SATokenID.ValueSet(w.st.TokenID))
	}
	if w.st.Summary != "" && w.st.Summary != w.shown.Summary {
		_ = workflow.UpsertMemo(ctx, map[string]any{MemoSummary: w.st.Summary})
	}
	w.shown = w.st
}

// setHandlers registers the query, the signals and the updates before the
// first activity, so a change sent right after the start is not refused
// as unknown; the updates wait for the state to be loaded.
func (w *strategyWorkflow) setHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, StrategyQueryState, func() (strategies.State, error) { return w.st, nil }); err != nil {
		return err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, StrategySignalPrice)
		for {
			ch.Receive(ctx, nil)
			w.hinted = true
		}
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, StrategySignalAgent)
		for {
			ch.Receive(ctx, nil)
			w.agentCheck = true
		}
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, StrategySignalSettled)
		for {
			ch.Receive(ctx, nil)
			w.reload = true
		}
	})
	for _, action := range []string{strategies.ActionPause, strategies.ActionResume, strategies.ActionCancel, strategies.ActionPatch, strategies.ActionExtend} {
		handler := func(ctx workflow.Context, ch strategies.Change) (strategies.State, error) {
			return w.change(ctx, action, ch)
		}
		validator := func(ch strategies.Change) error { return w.validate(action, ch) }
		if err := workflow.SetUpdateHandlerWithOptions(ctx, action, handler, workflow.UpdateHandlerOptions{Validator: validator}); err != nil {
			return err
		}
	}
	return nil
}

// change applies a change (an update) once no step runs.
func (w *strategyWorkflow) change(ctx workflow.Context, action string, ch strategies.Change) (strategies.State, error) {
	w.changing++
	err := workflow.Await(ctx, func() bool { return w.loaded && !w.busy })
	w.changing--
	if err != nil {
		return w.st, err
	}
	if err := strategies.AllowedFor(action, w.st.Status, w.st.PausedBy); err != nil {
		return w.st, temporalerr.To(err)
	}
	w.busy = true
	defer func() { w.busy = false }()
	ch.StrategyID, ch.Action = w.id, action
	var next strategies.State
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, strategyStepOptions), strategyActivities.ApplyStrategyChange, ch).Get(ctx, &next); err != nil {
		return w.st, err
	}
	w.st, w.woken = next, true
	// A copier's events that wait (its resume) run at once.
	w.hinted = w.hinted || next.Pending
	w.publish(ctx)
	return w.st, nil
}

// validate turns away, before it enters the history, a change with no
// proof, one made for a version this run has seen replaced, or one the
// status does not allow.
func (w *strategyWorkflow) validate(action string, ch strategies.Change) error {
	if ch.Proof == "" {
		return temporalerr.To(errs.E(errs.Forbidden, "the request was not made through an authenticated path").WithCode(errs.CodeUnvouchedRequest))
	}
	if !w.loaded {
		return nil // the handler checks once the state is known
	}
	if ch.Version < w.st.Version {
		// Made for a version this run has seen replaced: a change taken
		// from the history and sent again (versions only grow).
		// ApplyStrategyChange refuses the rest against the database.
		return temporalerr.To(strategies.Stale())
	}
	return temporalerr.To(strategies.AllowedFor(action, w.st.Status, w.st.PausedBy))
}

// load reads the strategy's state (LoadStrategy, which arms its
// conditions in this worker).
func (w *strategyWorkflow) load(ctx workflow.Context) error {
	w.busy = true
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, strategyStepOptions), strategyActivities.LoadStrategy, w.id).Get(ctx, &w.st); err != nil {
		return err
	}
	w.loaded, w.busy = true, false
	w.hinted = w.hinted || w.st.Pending
	w.publish(ctx)
	return nil
}

// continueAsNew hands the run over once no step and no handler runs,
// carrying an unhandled hint.
func (w *strategyWorkflow) continueAsNew(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return !w.busy && workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	return workflow.NewContinueAsNewError(ctx, Strategy, StrategyInput{StrategyID: w.id, Hinted: w.hinted, Shape: strategyShapeCurrent})
}

func (w *strategyWorkflow) marketDue(now time.Time) bool {
	return w.marketCheck && w.st.Status == strategies.StatusActive && w.st.MarketCheckAt != nil && !now.Before(*w.st.MarketCheckAt)
}

func (w *strategyWorkflow) intervalDue(now time.Time) bool {
	return strategies.Scheduled(w.st.Type) && w.st.NextEvaluationAt != nil && !now.Before(*w.st.NextEvaluationAt)
}

// deadline is when the run wakes without a hint: the expiry, the next
// interval of a RECURRING_BUY, the market check; zero for none.
func (w *strategyWorkflow) deadline() time.Time {
	var deadline time.Time
	st := w.st
	if st.ExpiresAt != nil {
		deadline = *st.ExpiresAt
	}
	if st.Status == strategies.StatusActive && strategies.Scheduled(st.Type) && st.NextEvaluationAt != nil &&
		(deadline.IsZero() || st.NextEvaluationAt.Before(deadline)) {
		deadline = *st.NextEvaluationAt
	}
	if w.marketCheck && st.Status == strategies.StatusActive && st.MarketCheckAt != nil &&
		(deadline.IsZero() || st.MarketCheckAt.Before(deadline)) {
		deadline = *st.MarketCheckAt
	}
	return deadline
}

// wait waits for something to do: a change, the agent's hint, a price
// hint while ACTIVE, the end, or the deadline; then for no step to run.
func (w *strategyWorkflow) wait(ctx workflow.Context) error {
	now := workflow.Now(ctx)
	deadline := w.deadline()
	w.woken = false
	ready := func() bool {
		return !w.busy && (w.woken || w.agentCheck || w.reload || (w.hinted && w.st.Status == strategies.StatusActive) || strategies.Final(w.st.Status))
	}
	if w.shape >= strategyStartsOrders {
		if err := w.waitOneTimer(ctx, now, deadline, ready); err != nil {
			return err
		}
		return workflow.Await(ctx, func() bool { return !w.busy })
	}
	var err error
	switch {
	case deadline.IsZero():
		err = workflow.Await(ctx, ready)
	case deadline.After(now):
		_, err = workflow.AwaitWithTimeout(ctx, deadline.Sub(now), ready)
	}
	if err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return !w.busy })
}

// waitOneTimer waits as wait does (strategyStartsOrders) with one timer
// for the deadline: started when the deadline moves (the old one
// cancelled), kept across waits while it stands, so an execution costs no
// timer. A deadline passed already waits for nothing.
func (w *strategyWorkflow) waitOneTimer(ctx workflow.Context, now, deadline time.Time, ready func() bool) error {
	if !deadline.Equal(w.timerAt) {
		w.stopTimer()
		if deadline.After(now) {
			tctx, cancel := workflow.WithCancel(ctx)
			w.timer, w.timerAt, w.cancelTimer = workflow.NewTimer(tctx, deadline.Sub(now)), deadline, cancel
		}
	}
	if !deadline.IsZero() && !deadline.After(now) {
		return nil
	}
	err := workflow.Await(ctx, func() bool { return ready() || w.timer != nil && w.timer.IsReady() })
	if w.timer != nil && w.timer.IsReady() {
		w.timer, w.timerAt, w.cancelTimer = nil, time.Time{}, nil
	}
	return err
}

// stopTimer cancels the pending timer of the deadline, if any.
func (w *strategyWorkflow) stopTimer() {
	if w.cancelTimer != nil && !w.timer.IsReady() {
		w.cancelTimer()
	}
	w.timer, w.timerAt, w.cancelTimer = nil, time.Time{}, nil
}

// step runs what is due now: the agent's status, the expiry, or an
// execution.
func (w *strategyWorkflow) step(ctx workflow.Context) error {
	step := workflow.WithActivityOptions(ctx, strategyStepOptions)
	now := workflow.Now(ctx)
	w.busy = true
	defer func() { w.busy = false }()
	switch {
	case w.agentCheck:
		w.agentCheck = false
		if w.version(ctx, strategyAgentChange, strategyAgentVersion) >= strategyAgentVersion {
			var next strategies.State
			if err := workflow.ExecuteActivity(step, strategyActivities.ReconcileStrategyAgent, w.id).Get(ctx, &next); err != nil {
				return err
			}
			w.st = next
		}
	case w.st.ExpiresAt != nil && !now.Before(*w.st.ExpiresAt):
		var next strategies.State
		if err := workflow.ExecuteActivity(step, strategyActivities.ExpireStrategy, w.id).Get(ctx, &next); err != nil {
			return err
		}
		w.st = next
		if !strategies.Final(w.st.Status) && w.st.ExpiresAt != nil && !w.st.ExpiresAt.After(workflow.Now(ctx)) {
			// The activity's clock is behind the timer's: look again
			// shortly rather than spin.
			_ = workflow.Sleep(ctx, 5*time.Second)
		}
	case w.reload:
		w.reload = false
		var next strategies.State
		if err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, strategyDecideOptions), strategyActivities.LoadStrategy, w.id).Get(ctx, &next); err != nil {
			return err
		}
		w.st = next
		// The execution waiting for the order runs again (while paused,
		// once resumed), as do a copier's events recorded meanwhile.
		w.hinted = w.hinted || w.waiting || w.st.Pending
		w.waiting = false
	case w.st.Status != strategies.StatusActive:
		w.hinted = false
	case w.hinted || w.intervalDue(now) || w.marketDue(now):
		w.hinted = false
		next, err := w.execute(ctx, w.st.Executions+1)
		if err != nil {
			return err
		}
		w.st = next
		w.executions++
		// A COPY_TRADE with more recorded events of its target runs
		// another execution at once (the state says so; no hint needed).
		w.hinted = w.hinted || w.st.Pending
		if now := workflow.Now(ctx); w.st.Status == strategies.StatusActive && (w.intervalDue(now) || w.marketDue(now)) {
			// Nothing was recorded (the database disagrees with this
			// run): look again after a pause rather than spin.
			_ = workflow.Sleep(ctx, time.Minute)
		}
	}
	w.busy = false
	w.publish(ctx)
	return nil
}

// execute runs execution seq: with its order as a child workflow from
// strategyChildOrdersVersion on, else with the ExecuteStrategy activity.
func (w *strategyWorkflow) execute(ctx workflow.Context, seq int) (strategies.State, error) {
	if w.shape >= strategyStartsOrders {
		return w.executeOpen(ctx, seq)
	}
	if w.child == nil {
		w.childVersion = w.version(ctx, strategyChildOrders, strategyUntimedWait)
		v := w.childVersion >= strategyChildOrdersVersion
		w.child = &v
	}
	if !*w.child {
		return strategyExecute(ctx, w.id, seq)
	}
	lctx := workflow.WithLocalActivityOptions(ctx, strategyDecideOptions)
	var d strategies.Decision
	err := workflow.ExecuteLocalActivity(lctx, strategyActivities.DecideStrategy, activities.StrategyExecution{ID: w.id, Seq: seq}).Get(ctx, &d)
	if err != nil {
		return w.failed(ctx, seq, err)
	}
	if d.Place == nil {
		return d.Outcome.State, nil
	}
	w.placeOrder(ctx, *d.Place)
	var out strategies.Outcome
	err = workflow.ExecuteLocalActivity(lctx, strategyActivities.RecordStrategyPlacement,
		activities.StrategyPlaced{ID: w.id, Seq: seq, Placement: *d.Place}).Get(ctx, &out)
	if err != nil {
		return w.failed(ctx, seq, err)
	}
	return out.State, nil
}

// executeOpen runs execution seq (strategyStartsOrders) as one local
// activity, PlaceStrategyExecution (see StrategyPlacer): decided,
// recorded with its outcome open, its order's workflow started; the run
// waits for nothing else. When the step gives up, the execution is
// recorded as failed (unless the decision was recorded already).
func (w *strategyWorkflow) executeOpen(ctx workflow.Context, seq int) (strategies.State, error) {
	var out strategies.Outcome
	err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, strategyDecideOptions), strategyPlacer.PlaceStrategyExecution,
		activities.StrategyExecution{ID: w.id, Seq: seq}).Get(ctx, &out)
	if err != nil {
		return w.failed(ctx, seq, err)
	}
	w.waiting = out.WaitsFor != ""
	return out.State, nil
}

// placeOrder starts the order's workflow as a child (id "order/<order
// id>", the order task queue, the labels the order desk gives it) that
// the strategy abandons when it ends or continues as new, and waits for
// the placement: the child's completion (an order final at once, as a
// copy's fill-and-kill is), its signal that the order rests on the book,
// or strategyPlacementWait (version 1; from strategyUntimedWait, a change
// or the agent's hint waiting: awaitPlacement). A workflow of the order that runs already (a
// retried decision after a worker died, or the housekeeping's resume) is
// not started again; the order is then recorded as it stands.
func (w *strategyWorkflow) placeOrder(ctx workflow.Context, pm strategies.Placement) {
	summary := strategyOrderSummary(pm, w.id)
	// The child's Mode comes with the placement (the recorded decision):
	// a history decided before it existed has none and replays the start
	// it recorded, so no version marker is needed for it.
	opts := workflow.ChildWorkflowOptions{
		WorkflowID:            WorkflowID(KindOrder, pm.OrderID),
		TaskQueue:             OrderTaskQueue,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(withMode(pm.Mode, SAWorkflowKind.ValueSet(string(KindOrder)), SAUserID.ValueSet(pm.UserID),
			SAAgentID.ValueSet(pm.AgentID), SATokenID.ValueSet(pm.TokenID), SAOrderStatus.ValueSet("PENDING"))...),
		Memo:          modeMemo(pm.Mode, map[string]any{MemoSummary: summary}),
		StaticSummary: summary,
	}
	child := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, opts), Order,
		OrderInput{OrderID: pm.OrderID, UserID: pm.UserID, AgentID: pm.AgentID, TokenID: pm.TokenID, ReportPlacement: true})
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Info("the order's workflow was not started here; recording the order as it stands", "order_id", pm.OrderID, "error", err)
		return
	}
	if w.childVersion >= strategyUntimedWait {
		w.awaitPlacement(ctx, child, pm.OrderID)
		return
	}
	tctx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	done := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(child, func(workflow.Future) { done = true })
	sel.AddReceive(workflow.GetSignalChannel(ctx, StrategySignalPlaced), func(c workflow.ReceiveChannel, _ bool) {
		var id string
		c.Receive(ctx, &id)
		done = done || id == pm.OrderID // an earlier order's late word is not this one's
	})
	sel.AddFuture(workflow.NewTimer(tctx, strategyPlacementWait), func(workflow.Future) { done = true })
	for !done {
		sel.Select(ctx)
	}
}

// awaitPlacement waits (strategyUntimedWait) for the child's completion
// or its signal that order orderID rests on the book — an earlier order's
// late signal is taken and passed over — or until a change or the
// agent's hint waits for the run.
func (w *strategyWorkflow) awaitPlacement(ctx workflow.Context, child workflow.ChildWorkflowFuture, orderID string) {
	placed := workflow.GetSignalChannel(ctx, StrategySignalPlaced)
	for {
		_ = workflow.Await(ctx, func() bool {
			return child.IsReady() || placed.Len() > 0 || w.changing > 0 || w.agentCheck
		})
		if child.IsReady() || w.changing > 0 || w.agentCheck || ctx.Err() != nil {
			return
		}
		var id string
		placed.Receive(ctx, &id)
		if id == orderID {
			return
		}
	}
}

// failed records execution seq as failed once its step gave up (it
// counts towards ERROR); a cancelled step is returned as is.
func (w *strategyWorkflow) failed(ctx workflow.Context, seq int, err error) (strategies.State, error) {
	if temporal.IsCanceledError(err) {
		return w.st, err
	}
	var st strategies.State
	reason := "the execution failed: " + errs.PublicMessage(temporalerr.From(err))
	err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, strategyStepOptions), strategyActivities.RecordStrategyFailure,
		activities.StrategyExecution{ID: w.id, Seq: seq, Reason: reason}).Get(ctx, &st)
	return st, err
}

// strategyExecute runs execution seq with the ExecuteStrategy activity
// (runs begun before strategyChildOrders); when its step gives up, the
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
