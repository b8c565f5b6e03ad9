package workflows

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/orders"
)

// Update and query names of the order workflow.
const (
	// OrderUpdatePlacement waits until the order was placed (or failed)
	// and returns its state; the API sends it with update-with-start.
	OrderUpdatePlacement = "placement"
	// OrderUpdateCancel cancels the order and returns the state before
	// and after. Its argument is an OrderCancelRequest.
	OrderUpdateCancel = "cancel"
	// OrderQueryState returns the current state.
	OrderQueryState = "state"
	// OrderSignalEvent tells a placed order's workflow that the venue or
	// the chain reported a change of the order (an orders.EventHint). It
	// is a hint: the workflow asks the venue (SyncOrder) before it
	// records anything.
	OrderSignalEvent = "venue-event"
)

// orderSignalsChange versions how a placed order is followed
// (GetVersion): version 1 waits for event hints (OrderSignalEvent) from
// the worker's listener (models/orders.Listener) instead of polling the
// venue, so a resting order costs nothing while nothing happens to it.
// Runs that began before it keep polling until they end or continue as
// new.
const (
	orderSignalsChange  = "event-signals"
	orderSignalsVersion = 1
	// orderSyncsPerRun bounds a signal-driven run's history: after this
	// many venue reads it continues as new.
	orderSyncsPerRun = 200
)

// OrderInput starts an order workflow (id "order/<order id>"). Placed and
// Status carry the state across continue-as-new. UserID, AgentID and
// TokenID only label the run (search attributes, summary): every activity
// takes the order id and loads the order — whose it is and what it is —
// from the database, so a forged start names an order but acts for no one.
type OrderInput struct {
	OrderID string `json:"order_id"`
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
	TokenID string `json:"token_id"`
	Placed  bool   `json:"placed,omitempty"`
	Status  string `json:"status,omitempty"`
	// ReportPlacement: the order's workflow is the child of the strategy
	// whose execution placed it, which waits for the placement; the order
	// signals it (StrategySignalPlaced) when the order is placed and
	// rests, while an order final at once answers by completing.
	ReportPlacement bool `json:"report_placement,omitempty"`
	// Shape is the version of orderShapeChange the run is at, given by
	// the starter (this code: orderShapeCurrent) instead of asked with
	// GetVersion: the run records no version marker and no
	// TemporalChangeVersion upsert (two history events of an order that
	// is final at its placement, such as a copy, of about nine). The input
	// is in the history, so a replay takes the same branch. A run whose
	// starter gave none (begun before, or started by an older process,
	// whose strategy runs wait for their orders' placement and hints)
	// asks GetVersion as before, up to orderLocalSyncVersion.
	Shape int `json:"shape,omitempty"`
}

// OrderCancelRequest is the argument of the cancel update: the proof that
// the order's agent asked to cancel it (models/intent, kind
// intent.OrderCancel), made by the API after it checked the order is the
// agent's. The cancel activities refuse a cancel without it, so reaching
// Temporal is not enough to cancel someone's order. (Updates recorded
// before the proof existed carry none; replaying them schedules the same
// activities, whose input is not replayed.)
type OrderCancelRequest struct {
	Proof string `json:"proof,omitempty"`
}

// Polling of a resting order: quick at first (most fills of a marketable
// limit come at once), then backing off to a ceiling. Continue-as-new
// keeps the history of a long-resting order bounded.
const (
	orderPollFirst     = 2 * time.Second
	orderPollMax       = 30 * time.Second
	orderPollsPerRun   = 500
	orderPlacementSpan = 15 * time.Minute
)

// submitOptions: each attempt reconciles with the venue before posting,
// so retrying is safe; a placement that cannot complete in
// orderPlacementSpan is abandoned (adopted if the venue has it, else
// FAILED).
var submitOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    20 * time.Second,
	ScheduleToCloseTimeout: orderPlacementSpan,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 15 * time.Second,
	},
}

// syncOptions: a sync that fails is simply tried at the next poll.
var syncOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 20 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second, MaximumAttempts: 3,
	},
}

// syncLocalOptions are syncOptions for the local activity
// (orderLocalSyncVersion).
var syncLocalOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: syncOptions.StartToCloseTimeout,
	RetryPolicy:         syncOptions.RetryPolicy,
}

// cancelOptions: an agent waits on the cancel.
var cancelOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    20 * time.Second,
	ScheduleToCloseTimeout: 2 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second,
	},
}

// cancelOptionsV1 and cancelPendingOptions (workflow version
// orderCancelPendingVersion): a cancel answers well within the API's
// timeout, also when the venue keeps the order open (the error says so
// and the order stays followed). A pending cancel may wait for a post in
// flight first (its claim lasts about 20 s).
var (
	cancelOptionsV1 = workflow.ActivityOptions{
		StartToCloseTimeout:    20 * time.Second,
		ScheduleToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 5 * time.Second,
		},
	}
	cancelPendingOptions = workflow.ActivityOptions{
		StartToCloseTimeout:    32 * time.Second,
		ScheduleToCloseTimeout: 40 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 5 * time.Second,
		},
	}
)

// orderCancelPendingChange versions the cancel of an order not placed yet
// (GetVersion): version 1 cancels it at once (stopping the placement)
// instead of waiting for the placement, never lets a late answer undo a
// final status, and bounds the venue cancel.
const (
	orderCancelPendingChange  = "cancel-pending"
	orderCancelPendingVersion = 1
)

// orderStrategyHintChange versions the hint an order placed by a strategy
// gives the strategy's workflow when it changes (GetVersion): version 1
// signals it (StrategySignalPrice), so a fill that arrives after the
// execution that placed the order was recorded still re-arms the
// strategy (a BUY's shares arm its sell). Runs recorded before it send no
// hint. Version 2 hints only of changes after the placement: the
// execution that placed the order waits for the placement's answer and
// then records the order as the database holds it, so a hint of the
// placement itself only ran a second check that found nothing (for a
// copy of a busy target, one more signal, two workflow tasks and an
// activity per copy, a third of the Temporal work of a copy).
const (
	orderStrategyHintChange    = "strategy-hint"
	orderStrategyHintVersion   = 1
	orderStrategyHintPlacedVer = 2
)

// orderLocalSubmitChange versions how the order is placed (GetVersion):
// version 1 runs SubmitOrder as a local activity, in the workflow task
// that starts the run, so a placement costs one workflow task instead of
// a workflow task, an activity task and a second workflow task (see
// docs/benchmarks.md, "Order path"). Submit is as safe to run twice as a
// local activity as it is as an activity: the signed order is stored
// before its first post, and an attempt that finds a stored one
// reconciles with the venue before it posts again. Runs that began
// before it place with the activity.
const (
	orderLocalSubmitChange  = "local-submit"
	orderLocalSubmitVersion = 1
)

// submitLocalOptions are submitOptions for the local activity: the same
// attempt bound; submitOptions' backoff is kept by submitLocal. A worker
// that dies mid-attempt leaves its workflow task to time out; the next
// worker replays and runs the attempt again, which reconciles first.
var submitLocalOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: submitOptions.StartToCloseTimeout,
	// One attempt per local activity: the workflow backs off between
	// attempts itself (submitLocal).
	RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
}

// abandonOptions: the last word on a placement must eventually be said.
var abandonOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 20 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 5 * time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute,
	},
}

// Order runs one order's life: it places the order (SubmitOrder, retried
// safely), then follows it on the venue until it is terminal (FILLED,
// CANCELLED, FAILED), recording fills as they come. The placement update
// answers when the order is placed (or ended); the cancel update cancels
// it, a PENDING one without waiting for the placement: the placement is
// stopped and the order cancelled before it is posted, or, when a post is
// in flight, on the venue after it. The OrderStatus search attribute
// follows the status.
func Order(ctx workflow.Context, in OrderInput) (activities.OrderState, error) {
	w := newOrderWorkflow(ctx, in)
	if err := w.setHandlers(ctx); err != nil {
		return w.state, err
	}
	if err := w.place(ctx); err != nil {
		return w.state, err
	}
	w.reportPlacement(ctx)
	return w.follow(ctx)
}

// orderReportPlacementChange versions the placement signal to the
// strategy that started the order as its child (OrderInput.ReportPlacement,
// which no run before it carries): version 1 sends it.
const (
	orderReportPlacementChange  = "report-placement"
	orderReportPlacementVersion = 1
)

// reportPlacement tells the parent strategy that its order was placed and
// rests (a final order's completion tells it instead, for fewer events).
// The signal is awaited with the strategy hints before the run ends.
func (w *orderWorkflow) reportPlacement(ctx workflow.Context) {
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if !w.in.ReportPlacement || parent == nil || w.terminal() {
		return
	}
	if w.version(ctx, orderReportPlacementChange, orderReportPlacementVersion) < orderReportPlacementVersion {
		return
	}
	w.hints = append(w.hints, workflow.SignalExternalWorkflow(ctx, parent.ID, "", StrategySignalPlaced, w.in.OrderID))
}

// orderShapeChange bundles the order workflow's earlier changes
// (GetVersion): a run begun at version 1 takes the latest version of each
// of them — cancel-pending 1, local-submit 1, event-signals 1,
// strategy-hint 2, report-placement 1 — without asking for it. Each
// GetVersion the SDK records writes a marker and an upsert of the
// TemporalChangeVersion search attribute (a visibility write in the
// server), and a placed order asked for four or five of them: ten
// history events of an order's ~28 (docs/benchmarks.md, "Strategy engine
// fan-out"). One bundle marker costs two. Runs begun before it ask for
// each change as before (their histories hold the markers).
//
// Version 2 (orderLocalSyncVersion) also reads the venue at an event hint
// with SyncOrder as a local activity, in the workflow task the hint
// starts, as SubmitOrder places: a hint then costs the signal, one
// workflow task and a marker instead of a workflow task, an activity
// task's three events and a second workflow task. SyncOrder only reads
// the venue and records what it says, so running it again (a worker
// killed mid-attempt) is as safe as the activity's retry.
//
// Version 3 (orderSettleVersion): an order of a strategy execution
// recorded at its decision (strategy-shape 2) tells its strategy only
// what the strategy's workflow must know: its activities amend the
// execution (strategies.Engine.Settle, which also keeps the strategy's
// totals and stored conditions up to date), and the workflow signals the
// strategy (StrategySignalSettled) only when the amendment left it
// COMPLETED or ERROR. No "price" hint per change, no placement report.
const (
	orderShapeChange      = "order-shape"
	orderShapeVersion     = 1
	orderLocalSyncVersion = 2
	orderSettleVersion    = 3
	// orderShapeCurrent is the version new runs start at (OrderInput.Shape).
	orderShapeCurrent = orderSettleVersion
)

// orderWorkflow is the state of one run of Order; its methods are the
// steps and the handlers of the run.
type orderWorkflow struct {
	in OrderInput
	// shape is the run's version of orderShapeChange: from
	// orderShapeVersion on, version answers for every bundled change.
	shape workflow.Version
	// v1: the run is at orderCancelPendingVersion.
	v1 bool
	// local: SubmitOrder runs as a local activity
	// (orderLocalSubmitVersion); decided once, before the first attempt.
	local  *bool
	state  activities.OrderState
	placed bool
	// cancelling: a cancel update is running its activity.
	cancelling bool
	// stopPlacement cancels the running SubmitOrder (v1): a pending
	// cancel stops further attempts before it cancels the order.
	stopPlacement workflow.CancelFunc
	// hints are the signals sent to the order's strategy, awaited before
	// the run ends.
	hints []workflow.Future
}

// orderActivities names the order activities for ExecuteActivity.
var orderActivities *activities.Orders

func newOrderWorkflow(ctx workflow.Context, in OrderInput) *orderWorkflow {
	w := &orderWorkflow{
		in:     in,
		shape:  workflow.Version(in.Shape),
		state:  activities.OrderState{Status: in.Status},
		placed: in.Placed,
	}
	if in.Shape < orderSettleVersion {
		// Begun before, or started by a process older than this code (a
		// strategy run at an older shape, which waits for its child's
		// placement and takes its hints): the shapes before the settling.
		w.shape = workflow.GetVersion(ctx, orderShapeChange, workflow.DefaultVersion, orderLocalSyncVersion)
	}
	w.v1 = w.version(ctx, orderCancelPendingChange, orderCancelPendingVersion) >= orderCancelPendingVersion
	if w.state.Status == "" {
		w.state.Status = "PENDING"
	}
	return w
}

// version is the version of a bundled change: its latest (max) in a run
// at orderShapeVersion, else what GetVersion records or replays.
func (w *orderWorkflow) version(ctx workflow.Context, change string, max workflow.Version) workflow.Version {
	if w.shape >= orderShapeVersion {
		return max
	}
	return workflow.GetVersion(ctx, change, workflow.DefaultVersion, max)
}

// terminal: the order is final, or was never stored (an early start
// whose acceptance refused it: orders.StatusNotStored), so the run ends.
// No history recorded before early starts holds that answer.
func (w *orderWorkflow) terminal() bool {
	return orders.TerminalStatus(w.state.Status) || w.state.Status == orders.StatusNotStored
}

// setState takes what an activity learnt and keeps the OrderStatus search
// attribute in step with it.
func (w *orderWorkflow) setState(ctx workflow.Context, st activities.OrderState) {
	if st.Status == "" || st.Status == w.state.Status && st.FilledMicro == w.state.FilledMicro {
		return
	}
	if w.v1 && w.terminal() {
		// A late answer (a placement finishing after the cancel that
		// ended the order) never undoes a final status.
		return
	}
	prev := w.state.Status
	w.state.Status, w.state.FilledMicro = st.Status, st.FilledMicro
	if prev != st.Status {
		if err := workflow.UpsertTypedSearchAttributes(ctx, SAOrderStatus.ValueSet(st.Status)); err != nil {
			workflow.GetLogger(ctx).Warn("cannot upsert the order status", "error", err)
		}
	}
	if w.shape >= orderSettleVersion {
		w.tellStrategy(ctx, st)
		return
	}
	w.hintStrategy(ctx, st.StrategyID)
}

// tellStrategy (orderSettleVersion) signals the order's strategy when the
// activity's amendment of its execution left it COMPLETED or ERROR
// (activities.OrderState.StrategyEnded), or when an execution of the
// strategy waits for this order's placement (StrategyWaits): its workflow
// reloads the state and ends, parks or runs that execution again. Everything else the strategy needs of its order —
// the execution's outcome, its totals, the conditions a fill arms — the
// amendment stored, and the workers re-arm from the store's
// announcement, so the order's changes cost the strategy's history
// nothing.
func (w *orderWorkflow) tellStrategy(ctx workflow.Context, st activities.OrderState) {
	if st.StrategyID == "" || !st.StrategyEnded && !st.StrategyWaits {
		return
	}
	w.hints = append(w.hints, workflow.SignalExternalWorkflow(ctx, WorkflowID(KindStrategy, st.StrategyID), "", StrategySignalSettled, nil))
}

// hintStrategy tells the strategy that placed the order (none for an
// agent's own order) that the order changed. A strategy derives what it
// holds and spent from its orders at every execution; the hint runs one,
// which re-arms its conditions (the sell a BUY's fill allows) or acts at
// once if a condition is met. It is a hint only: the execution re-reads
// the database and the price, so a hint about nothing costs one check.
func (w *orderWorkflow) hintStrategy(ctx workflow.Context, strategyID string) {
	if strategyID == "" {
		return
	}
	v := w.version(ctx, orderStrategyHintChange, orderStrategyHintPlacedVer)
	if v < orderStrategyHintVersion || v >= orderStrategyHintPlacedVer && !w.placed {
		return
	}
	w.hints = append(w.hints, workflow.SignalExternalWorkflow(ctx, WorkflowID(KindStrategy, strategyID), "", StrategySignalPrice, nil))
}

func (w *orderWorkflow) setHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, OrderQueryState, w.query); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandler(ctx, OrderUpdatePlacement, w.awaitPlacement); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, OrderUpdateCancel, w.cancel,
		workflow.UpdateHandlerOptions{Validator: w.validateCancel})
}

func (w *orderWorkflow) query() (activities.OrderState, error) { return w.state, nil }

func (w *orderWorkflow) awaitPlacement(ctx workflow.Context) (activities.OrderState, error) {
	if err := workflow.Await(ctx, func() bool { return w.placed }); err != nil {
		return w.state, err
	}
	return w.state, nil
}

func (w *orderWorkflow) validateCancel(_ workflow.Context, req OrderCancelRequest) error {
	if (w.placed || w.v1) && w.terminal() {
		return temporalerr.To(orders.NotCancellable(w.state.Status))
	}
	// Only the activity can verify the proof; a cancel without any is
	// turned away before it enters history. (Validators do not run on
	// replay, so older histories are unaffected.)
	if req.Proof == "" {
		return temporalerr.To(errs.E(errs.Forbidden, "a cancel needs the proof of the agent's request").WithCode(errs.CodeUnvouchedRequest))
	}
	return nil
}

// cancel is the cancel update. From version 1 on an order not placed yet
// is cancelled at once (cancelPending); before, every cancel waited for
// the placement.
func (w *orderWorkflow) cancel(ctx workflow.Context, req OrderCancelRequest) (activities.OrderState, error) {
	opts := cancelOptions
	if w.v1 {
		opts = cancelOptionsV1
		if err := workflow.Await(ctx, func() bool { return !w.cancelling }); err != nil {
			return w.state, err
		}
		if w.terminal() {
			return w.state, temporalerr.To(orders.NotCancellable(w.state.Status))
		}
		if !w.placed {
			return w.cancelPending(ctx, req)
		}
	}
	if err := workflow.Await(ctx, func() bool { return w.placed && !w.cancelling }); err != nil {
		return w.state, err
	}
	if w.terminal() {
		return w.state, temporalerr.To(orders.NotCancellable(w.state.Status))
	}
	return w.runCancel(ctx, opts, orderActivities.CancelOrder, req)
}

func (w *orderWorkflow) cancelPending(ctx workflow.Context, req OrderCancelRequest) (activities.OrderState, error) {
	// Set before the placement stops, so the stopped placement waits for
	// this cancel's outcome.
	w.cancelling = true
	if w.stopPlacement != nil {
		// No further attempts; one posting right now is waited for by
		// CancelPendingOrder.
		w.stopPlacement()
	}
	return w.runCancel(ctx, cancelPendingOptions, orderActivities.CancelPendingOrder, req)
}

// runCancel runs one cancel activity, holding off other cancels (and
// continue-as-new) meanwhile; the answer carries the status before the
// cancel and the workflow's status after it.
func (w *orderWorkflow) runCancel(ctx workflow.Context, opts workflow.ActivityOptions, activity any, req OrderCancelRequest) (activities.OrderState, error) {
	w.cancelling = true
	defer func() { w.cancelling = false }()
	var st activities.OrderState
	in := activities.OrderCancel{OrderID: w.in.OrderID, Proof: req.Proof}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), activity, in).Get(ctx, &st); err != nil {
		return w.state, err
	}
	w.setState(ctx, st)
	st.Status = w.state.Status
	return st, nil
}

// place runs SubmitOrder until the order is placed or ended, within
// orderPlacementSpan. From version 1 on a pending cancel may stop the
// placement: the cancel's outcome decides. Ended, the order is not
// placed; else (the cancel failed) placement goes on within the same
// span, and since every attempt reconciles first, a post that landed
// meanwhile is adopted, not repeated.
func (w *orderWorkflow) place(ctx workflow.Context) error {
	placeBy := workflow.Now(ctx).Add(orderPlacementSpan)
	for !w.placed {
		left := placeBy.Sub(workflow.Now(ctx))
		var st activities.OrderState
		var err error
		if left > 0 {
			var stopped bool
			if st, stopped, err = w.submit(ctx, left); stopped {
				if err := workflow.Await(ctx, func() bool { return !w.cancelling }); err != nil {
					return err
				}
				w.placed = w.terminal()
				continue
			}
		}
		if left <= 0 || err != nil {
			// Out of time or a fault that retrying will not fix: the
			// abandon step reconciles with the venue and ends the order
			// either way, so it never stays PENDING.
			workflow.GetLogger(ctx).Warn("placement did not complete; abandoning", "order_id", w.in.OrderID, "error", err)
			if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, abandonOptions), orderActivities.AbandonOrder, w.in.OrderID).Get(ctx, &st); err != nil {
				return err
			}
		}
		w.setState(ctx, st)
		w.placed = true
	}
	return nil
}

// submit runs SubmitOrder within left; stopped says a pending cancel
// stopped it (version 1). The activity retries on the server
// (submitOptions); the local activity of orderLocalSubmitVersion retries
// here (submitLocal).
func (w *orderWorkflow) submit(ctx workflow.Context, left time.Duration) (st activities.OrderState, stopped bool, err error) {
	if w.local == nil {
		local := w.version(ctx, orderLocalSubmitChange, orderLocalSubmitVersion) >= orderLocalSubmitVersion
		w.local = &local
	}
	sctx, stop := workflow.WithCancel(ctx)
	if w.v1 {
		w.stopPlacement = stop
	}
	defer func() {
		w.stopPlacement = nil
		stop()
	}()
	if *w.local {
		return w.submitLocal(sctx, left)
	}
	opts := submitOptions
	opts.ScheduleToCloseTimeout = left
	err = workflow.ExecuteActivity(workflow.WithActivityOptions(sctx, opts), orderActivities.SubmitOrder, w.in.OrderID).Get(sctx, &st)
	return st, w.v1 && temporal.IsCanceledError(err), err
}

// submitLocal runs SubmitOrder as a local activity, one attempt at a
// time, and waits out the backoff between attempts in a timer: while an
// attempt runs, the workflow task stays open and a cancel waits for it,
// but between attempts the task is closed, so a cancel during the backoff
// is handled at once, as with the activity. A stopped attempt's future
// resolves when the attempt returns (possibly with a post that went
// through): either way the pending cancel, which waits for a post in
// flight, decides the outcome. sctx is cancelled to stop the placement.
func (w *orderWorkflow) submitLocal(sctx workflow.Context, left time.Duration) (st activities.OrderState, stopped bool, err error) {
	by := workflow.Now(sctx).Add(left)
	retry := submitOptions.RetryPolicy
	delay := retry.InitialInterval
	for {
		if w.cancelling {
			// A pending cancel came first (in the same workflow task,
			// say): its outcome decides, before anything is posted.
			return st, true, nil
		}
		opts := submitLocalOptions
		opts.ScheduleToCloseTimeout = by.Sub(workflow.Now(sctx))
		err = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(sctx, opts), orderActivities.SubmitOrder, w.in.OrderID).Get(sctx, &st)
		if sctx.Err() != nil {
			return st, w.v1, err
		}
		if err == nil || !retryable(err) {
			return st, false, err
		}
		wait := delay
		var ae *temporal.ApplicationError
		if errors.As(err, &ae) && ae.NextRetryDelay() > 0 {
			wait = ae.NextRetryDelay() // the venue said when (rate limited)
		}
		wait = min(wait, by.Sub(workflow.Now(sctx)))
		if wait <= 0 {
			return st, false, err
		}
		if serr := workflow.Sleep(sctx, wait); serr != nil {
			return st, w.v1 && sctx.Err() != nil, serr
		}
		delay = min(time.Duration(float64(delay)*retry.BackoffCoefficient), retry.MaximumInterval)
	}
}

// retryable reports whether another attempt may succeed where err failed:
// everything but the errors the activities mark non-retryable
// (temporalerr.To: the order or the venue refused it).
func retryable(err error) bool {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return !ae.NonRetryable()
	}
	return true
}

// follow follows the placed order until it is terminal: from
// orderSignalsVersion on by waiting for event hints, before by polling.
func (w *orderWorkflow) follow(ctx workflow.Context) (activities.OrderState, error) {
	if w.terminal() {
		return w.finish(ctx)
	}
	if w.version(ctx, orderSignalsChange, orderSignalsVersion) == workflow.DefaultVersion {
		return w.poll(ctx)
	}
	return w.listen(ctx)
}

// listen waits for event hints and reads the venue (SyncOrder) when one
// may tell something new: a repeated or stale hint — or a forged one that
// claims nothing beyond what is known — costs no activity, and whatever a
// hint claims, only the venue's answer is recorded. An idle order runs no
// timer and no activity. A hint whose sync fails is not retried here: the
// listener's reconciliation sweep sends another. After orderSyncsPerRun
// syncs (or when Temporal suggests it) the run continues as new, but only
// with no hint waiting, so none is lost.
func (w *orderWorkflow) listen(ctx workflow.Context) (activities.OrderState, error) {
	ch := workflow.GetSignalChannel(ctx, OrderSignalEvent)
	for syncs := 0; !w.terminal(); {
		if (syncs >= orderSyncsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) && !w.cancelling && ch.Len() == 0 {
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return w.state, err
			}
			if ch.Len() == 0 && !w.terminal() {
				return w.state, w.continueAsNew(ctx)
			}
			continue
		}
		if err := workflow.Await(ctx, func() bool { return w.terminal() || ch.Len() > 0 }); err != nil {
			return w.state, err
		}
		worth := false
		for {
			var h orders.EventHint
			if !ch.ReceiveAsync(&h) {
				break
			}
			worth = worth || h.Worth(w.state.Status, w.state.FilledMicro)
		}
		if worth && !w.terminal() {
			w.sync(ctx)
			syncs++
		}
	}
	return w.finish(ctx)
}

// finish ends the run once every handler finished and every hint to the
// order's strategy was delivered (or refused: a strategy that ended needs
// none).
func (w *orderWorkflow) finish(ctx workflow.Context) (activities.OrderState, error) {
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return w.state, err
	}
	w.awaitHints(ctx)
	return w.state, nil
}

func (w *orderWorkflow) awaitHints(ctx workflow.Context) {
	for _, f := range w.hints {
		if err := f.Get(ctx, nil); err != nil {
			workflow.GetLogger(ctx).Info("the order's strategy was not told of its change", "order_id", w.in.OrderID, "error", err)
		}
	}
	w.hints = nil
}

// poll polls the placed order until it is terminal, continuing as new
// after orderPollsPerRun polls (before orderSignalsVersion).
func (w *orderWorkflow) poll(ctx workflow.Context) (activities.OrderState, error) {
	interval := orderPollFirst
	for polls := 0; !w.terminal(); polls++ {
		if polls >= orderPollsPerRun && !w.cancelling {
			return w.state, w.continueAsNew(ctx)
		}
		if _, err := workflow.AwaitWithTimeout(ctx, interval, w.terminal); err != nil {
			return w.state, err
		}
		if w.terminal() {
			break
		}
		if w.sync(ctx) {
			interval = orderPollFirst
			continue
		}
		interval = min(interval*2, orderPollMax)
	}
	return w.finish(ctx)
}

// sync runs SyncOrder and says whether the order changed; a sync that
// fails is tried again at the next poll.
func (w *orderWorkflow) sync(ctx workflow.Context) bool {
	var st activities.OrderState
	var f workflow.Future
	if w.shape >= orderLocalSyncVersion {
		f = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, syncLocalOptions), orderActivities.SyncOrder, w.in.OrderID)
	} else {
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, syncOptions), orderActivities.SyncOrder, w.in.OrderID)
	}
	if err := f.Get(ctx, &st); err != nil {
		workflow.GetLogger(ctx).Warn("order sync failed; trying again at the next poll", "order_id", w.in.OrderID, "error", err)
		return false
	}
	before := w.state
	w.setState(ctx, st)
	return before != w.state
}

// continueAsNew hands the placed order's state to a fresh run once every
// handler finished, so a long-resting order's history stays bounded.
func (w *orderWorkflow) continueAsNew(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	w.awaitHints(ctx)
	next := w.in
	next.Placed, next.Status, next.ReportPlacement = true, w.state.Status, false
	if w.shape >= orderSettleVersion {
		next.Shape = int(w.shape) // the next run keeps this one's shape, without a marker
	}
	return workflow.NewContinueAsNewError(ctx, Order, next)
}

// OrderDeskClient drives order workflows over a Temporal client; it
// implements OrderDeskRuns for OrderDesk. Its caller has checked that the order is
// the requesting agent's (orders.Service.CancelTarget), so it attaches the
// proof of a cancel, made with Intents.
type OrderDeskClient struct {
	Client  client.Client
	Intents *intent.Keys
	// Eager starts an order's workflow eagerly (EnableEagerStart): when a
	// worker runs on Client in this process (`ats dev`), the server hands
	// the first workflow task back with the start instead of through its
	// task queue, and the placement update follows. Without such a worker
	// the start is an ordinary one, so Eager is only worth setting where
	// one runs: update-with-start is one round trip, and has no eager mode.
	Eager bool
	// Attempts, with Eager, is the order service's record of placement
	// attempts in this process: the placement's answer is taken from the
	// attempt that posted the order, not from the workflow task after it
	// and the update after that. The update remains the answer when no
	// attempt here ends the placement within attemptWait (the workflow
	// task ran elsewhere, or the attempt will be retried).
	Attempts *orders.Attempts
}

// attemptWait bounds how long an eager placement waits for an attempt in
// this process before it asks the workflow (the placement update).
const attemptWait = 2 * time.Second

func (c OrderDeskClient) startOptions(orderID, userID, agentID, tokenID, mode string) (client.StartWorkflowOptions, error) {
	opts, err := StartOptions(StartSpec{
		Kind: KindOrder, BusinessID: orderID, Summary: "order " + orderID + " of agent " + agentID, Mode: mode,
		SearchAttributes: []temporal.SearchAttributeUpdate{
			SAUserID.ValueSet(userID), SAAgentID.ValueSet(agentID), SATokenID.ValueSet(tokenID), SAOrderStatus.ValueSet("PENDING"),
		},
	})
	if err != nil {
		return opts, err
	}
	opts.TaskQueue = OrderTaskQueue
	// Update-with-start attaches to the running workflow of the order (a
	// retried API call) and never starts a second one for the same order.
	opts.WorkflowExecutionErrorWhenAlreadyStarted = false
	opts.WorkflowIDConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
	opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
	return opts, nil
}

// StartAndAwaitPlacement starts the order's workflow with the placement
// update (update-with-start) and waits for the placement result.
func (c OrderDeskClient) StartAndAwaitPlacement(ctx context.Context, orderID, userID, agentID, tokenID, mode string) (string, error) {
	opts, err := c.startOptions(orderID, userID, agentID, tokenID, mode)
	if err != nil {
		return "", err
	}
	in := OrderInput{OrderID: orderID, UserID: userID, AgentID: agentID, TokenID: tokenID, Shape: orderShapeCurrent}
	if c.Eager {
		opts.EnableEagerStart = true
		var attempt <-chan orders.Attempt
		if c.Attempts != nil {
			next, stop := c.Attempts.Watch(orderID)
			defer stop()
			attempt = next
		}
		if _, err := c.Client.ExecuteWorkflow(ctx, opts, Order, in); err != nil {
			return "", temporalerr.From(err)
		}
		status, _, err := c.awaitPlacement(ctx, opts.ID, attempt)
		return status, err
	}
	h, err := c.Client.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: c.Client.NewWithStartWorkflowOperation(opts, Order, in),
		UpdateOptions:          c.placementUpdate(opts.ID),
	})
	return c.placementAnswer(ctx, opts.ID, h, err)
}

// StartsEarly reports whether StartEarly applies: the order's first
// workflow task runs in this process (Eager), where the placement attempt
// can wait for the acceptance (Accepts).
func (c OrderDeskClient) StartsEarly() bool { return c.Eager && c.Attempts != nil }

// earlyStartTimeout bounds an early start, which runs detached from the
// request: once asked, the start is seen through whatever the caller does,
// so the workflow either exists or not, and the placement attempt it runs
// learns the acceptance's decision from Accepts.
const earlyStartTimeout = 30 * time.Second

// StartEarly starts the workflow of order orderID, eagerly, before its
// acceptance has decided (see orders.Accepts, which the caller opened for
// orderID): the server's start overlaps the acceptance. The placement
// attempt it runs in this process waits for the decision. Await, once the
// order is stored, waits for the placement as StartAndAwaitPlacement
// does; Stop (always call it) forgets the placement's answer.
func (c OrderDeskClient) StartEarly(ctx context.Context, orderID, userID, agentID, tokenID, mode string) EarlyStart {
	e := &earlyStart{c: c, started: make(chan error, 1)}
	opts, err := c.startOptions(orderID, userID, agentID, tokenID, mode)
	if err != nil {
		e.started <- err
		return e
	}
	opts.EnableEagerStart = true
	e.id = opts.ID
	e.attempt, e.stop = c.Attempts.Watch(orderID)
	in := OrderInput{OrderID: orderID, UserID: userID, AgentID: agentID, TokenID: tokenID, Shape: orderShapeCurrent}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), earlyStartTimeout)
	go func() {
		defer cancel()
		_, err := c.Client.ExecuteWorkflow(sctx, opts, Order, in)
		e.started <- temporalerr.From(err)
	}()
	return e
}

// EarlyStart is an order's workflow being started before its acceptance
// decided (OrderDeskClient.StartEarly).
type EarlyStart interface {
	// Await waits for the start, then for the placement; it returns the
	// status after the placement, and the order when the attempt that
	// placed it here knew it exactly (orders.Attempt.Order).
	Await(ctx context.Context) (string, *orders.Order, error)
	// Stop forgets the placement's answer.
	Stop()
}

type earlyStart struct {
	c       OrderDeskClient
	id      string
	started chan error
	attempt <-chan orders.Attempt
	stop    func()
}

func (e *earlyStart) Await(ctx context.Context) (string, *orders.Order, error) {
	select {
	case err := <-e.started:
		if err != nil {
			return "", nil, err
		}
	case <-ctx.Done():
		return "", nil, temporalerr.From(ctx.Err())
	}
	return e.c.awaitPlacement(ctx, e.id, e.attempt)
}

func (e *earlyStart) Stop() {
	if e.stop != nil {
		e.stop()
	}
}

// awaitPlacement waits, after an eager start of workflow id, for the
// placement attempt in this process (attempt), or after attemptWait for
// the placement update. The order comes with the status when the attempt
// knew it exactly.
func (c OrderDeskClient) awaitPlacement(ctx context.Context, id string, attempt <-chan orders.Attempt) (string, *orders.Order, error) {
	wait := time.NewTimer(attemptWait)
	defer wait.Stop()
	select {
	case at := <-attempt:
		if at.Err == nil {
			return at.Status, at.Order, nil
		}
		// Retried by the workflow: its answer is the placement's.
	case <-wait.C:
	case <-ctx.Done():
		return "", nil, temporalerr.From(ctx.Err())
	}
	h, err := c.Client.UpdateWorkflow(ctx, c.placementUpdate(id))
	status, err := c.placementAnswer(ctx, id, h, err)
	return status, nil, err
}

func (c OrderDeskClient) placementUpdate(id string) client.UpdateWorkflowOptions {
	return client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: OrderUpdatePlacement, WaitForStage: client.WorkflowUpdateStageCompleted}
}

// placementAnswer reads the placement update's answer (h, or the error of
// sending it), asking again when the server dropped it.
func (c OrderDeskClient) placementAnswer(ctx context.Context, id string, h client.WorkflowUpdateHandle, err error) (string, error) {
	var st activities.OrderState
	for {
		if err == nil {
			err = h.Get(ctx, &st)
		}
		var notReady *serviceerror.WorkflowNotReady
		if !errors.As(err, &notReady) {
			break
		}
		// The workflow task that took the update failed — its worker
		// died during the placement's local activity — and the server
		// dropped the update with it. The workflow goes on (its next
		// attempt reconciles first), so ask it again.
		select {
		case <-ctx.Done():
			return "", temporalerr.From(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		h, err = c.Client.UpdateWorkflow(ctx, c.placementUpdate(id))
	}
	if err != nil {
		return "", temporalerr.From(err)
	}
	return st.Status, nil
}

// Resume starts the workflow of a persisted order whose workflow may never
// have started; it is a no-op when it runs or ran already.
func (c OrderDeskClient) Resume(ctx context.Context, orderID, userID, agentID, tokenID, mode string) error {
	opts, err := c.startOptions(orderID, userID, agentID, tokenID, mode)
	if err != nil {
		return err
	}
	_, err = c.Client.ExecuteWorkflow(ctx, opts, Order, OrderInput{OrderID: orderID, UserID: userID, AgentID: agentID, TokenID: tokenID, Shape: orderShapeCurrent})
	if err != nil && errs.Is(temporalerr.From(err), errs.Conflict) {
		return nil
	}
	return temporalerr.From(err)
}

// SignalOrder tells the order's workflow of a venue event; it implements
// orders.Signaler. An order whose workflow has ended needs no hint.
func (c OrderDeskClient) SignalOrder(ctx context.Context, orderID string, h orders.EventHint) error {
	err := c.Client.SignalWorkflow(ctx, WorkflowID(KindOrder, orderID), "", OrderSignalEvent, h)
	if nf := (*serviceerror.NotFound)(nil); errors.As(err, &nf) {
		return nil
	}
	return temporalerr.From(err)
}

// Cancel sends the cancel update and returns the statuses before and
// after. An order without a running workflow (never started, or ended) is
// NotFound with code errs.CodeOrderWorkflowNotFound, for the caller to cancel it
// directly.
func (c OrderDeskClient) Cancel(ctx context.Context, orderID string) (string, string, error) {
	if c.Intents == nil {
		return "", "", errs.E(errs.Internal, "the order client has no intent keys")
	}
	h, err := c.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: WorkflowID(KindOrder, orderID), UpdateName: OrderUpdateCancel, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{OrderCancelRequest{Proof: c.Intents.Sign(intent.OrderCancel, orderID)}},
	})
	if nf := (*serviceerror.NotFound)(nil); errors.As(err, &nf) {
		return "", "", errs.E(errs.NotFound, "the order has no running workflow").WithCode(errs.CodeOrderWorkflowNotFound).WithCause(err)
	}
	if err != nil {
		return "", "", temporalerr.From(err)
	}
	var st activities.OrderState
	if err := h.Get(ctx, &st); err != nil {
		return "", "", temporalerr.From(err)
	}
	return st.PreviousStatus, st.Status, nil
}
