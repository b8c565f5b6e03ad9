package workflows

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
)

// OrderDeskRuns is the Temporal side of OrderDesk: the order workflow's
// placement, cancel and start. OrderDeskClient implements it; the tests of
// OrderDesk give it a stand-in for the workflow.
type OrderDeskRuns interface {
	// StartAndAwaitPlacement starts the order's workflow (or attaches to
	// the running one) and waits until the order was placed or failed.
	// It returns the status after placement.
	StartAndAwaitPlacement(ctx context.Context, orderID, userID, agentID, tokenID, mode string) (string, error)
	// Cancel asks the order's workflow to cancel the order and returns
	// the status before and after. An order without a running workflow
	// is NotFound with code errs.CodeOrderWorkflowNotFound.
	Cancel(ctx context.Context, orderID string) (previous, status string, err error)
	// Resume starts the workflow of a persisted order unless it runs or
	// ran already.
	Resume(ctx context.Context, orderID, userID, agentID, tokenID, mode string) error
}

// OrderDesk is how an order is placed and cancelled, for the API and for the
// services that place orders (position close, strategies): the order
// service checks and stores the order (orders.Service.Accept), then the
// order's workflow places it; a cancel goes to the workflow too. The
// order service is called and returns; it never calls a workflow, so the
// walk api/orders → workflows → Temporal → activities → models/orders →
// venue enters no package twice. It implements orders.Placer.
type OrderDesk struct {
	Orders *orders.Service
	Runs   OrderDeskRuns
	// PlaceTimeout bounds how long Place waits for the placement result
	// before answering with the order still PENDING (default 20s).
	PlaceTimeout time.Duration
	Logger       *slog.Logger
}

var _ orders.Placer = (*OrderDesk)(nil)

// cancelWait bounds how long Cancel waits for the order's workflow, well
// within the API's write timeout (60 s).
const cancelWait = 45 * time.Second

func (o *OrderDesk) log() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// Place accepts the order (orders.Service.Accept: checks, budget, stored
// PENDING with its idempotency key) and waits for its workflow to place
// it, for at most PlaceTimeout. When the result does not come in time the
// order is answered as it stands (PENDING, Pending set): it is durable and
// its workflow keeps going. A dry run, and a retry of an order placed
// already, answer without a workflow.
func (o *OrderDesk) Place(ctx context.Context, p orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	if o.Runs == nil && !r.DryRun {
		// Refused before anything is stored.
		return orders.PlaceResult{}, errs.E(errs.Internal, "order placement is not configured in this process")
	}
	if es, ok := o.Runs.(earlyStarter); ok && !r.DryRun && p.Mode != "" && o.Orders.Accepts != nil && es.StartsEarly() {
		return o.placeEarly(ctx, es, p, r)
	}
	acc, err := o.Orders.Accept(ctx, p, r)
	if err != nil || acc.Await == nil {
		return acc.Result, err
	}
	return o.await(ctx, *acc.Await, o.startAndAwait(*acc.Await))
}

// earlyStarter is an OrderDeskRuns that starts an order's workflow while
// the order is accepted (OrderDeskClient where the first workflow task
// runs in this process).
type earlyStarter interface {
	StartsEarly() bool
	StartEarly(ctx context.Context, orderID, userID, agentID, tokenID, mode string) EarlyStart
}

// placeEarly places an agent's order with its workflow started before
// the acceptance: the server's start (a round trip that persists the
// workflow, the order path's largest step on a cluster) runs while
// Accept checks, reserves and stores the order. The guarantees are those
// of the placement: the attempt the workflow runs waits for Accept's
// decision (orders.Accepts) and reads the committed order, so nothing is
// signed before it is persisted; a refused order's workflow answers
// orders.StatusNotStored and ends, with nothing posted. A key already
// used (a retry) is answered as before, with no workflow started for it.
func (o *OrderDesk) placeEarly(ctx context.Context, es earlyStarter, p orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	if used, err := o.Orders.KeyUsed(ctx, p, r); err != nil || used {
		if err != nil {
			return orders.PlaceResult{}, err
		}
		p.Mode = "" // the order exists: the usual path answers it
		return o.Place(ctx, p, r)
	}
	r.OrderID = models.NewID(models.PrefixOrder)
	o.Orders.Accepts.Open(r.OrderID)
	// Accept decides a stored order's gate itself, with the row it stored;
	// every other way out (a refusal, a panic) decides it not stored. The
	// first decision counts.
	defer o.Orders.Accepts.Decide(r.OrderID, false)
	start := es.StartEarly(ctx, r.OrderID, p.UserID, p.AgentID, r.TokenID, p.Mode)
	defer start.Stop()
	acc, err := o.Orders.Accept(ctx, p, r)
	switch {
	case err != nil || acc.Await == nil:
		return acc.Result, err
	case acc.Await.ID != r.OrderID:
		// Another request with the same key stored its order first: that
		// one is answered, placed by its own workflow.
		o.Orders.Accepts.Decide(r.OrderID, false)
		return o.await(ctx, *acc.Await, o.startAndAwait(*acc.Await))
	}
	return o.await(ctx, *acc.Await, start.Await)
}

// startAndAwait is the placement of a stored order whose workflow is
// started now (OrderDeskRuns.StartAndAwaitPlacement).
func (o *OrderDesk) startAndAwait(ref orders.Ref) func(context.Context) (string, *orders.Order, error) {
	return func(ctx context.Context) (string, *orders.Order, error) {
		status, err := o.Runs.StartAndAwaitPlacement(ctx, ref.ID, ref.UserID, ref.AgentID, ref.TokenID, ref.Mode)
		return status, nil, err
	}
}

// await waits, for at most PlaceTimeout, for the placement of the stored
// order ref (placement), and answers the order as it stands then: as the
// placement attempt wrote it when it says so, else read again.
func (o *OrderDesk) await(ctx context.Context, ref orders.Ref, placement func(context.Context) (string, *orders.Order, error)) (orders.PlaceResult, error) {
	timeout := o.PlaceTimeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	_, placed, err := placement(wctx)
	o.log().DebugContext(ctx, "order placement awaited", "order_id", ref.ID, "took", time.Since(t0), "err", err)
	if err == nil && placed != nil {
		return orders.PlaceResult{Order: *placed}, nil
	}
	if err != nil && (wctx.Err() == nil || ctx.Err() != nil) {
		// The workflow could not be started at all: the order stays
		// PENDING and housekeeping starts its workflow later.
		o.log().WarnContext(ctx, "order workflow did not answer", "order_id", ref.ID, "err", err)
	}
	return o.Orders.Placed(ctx, ref.ID, err == nil)
}

// Cancel cancels the agent's order through its workflow. Only PENDING,
// OPEN and PARTIALLY_FILLED orders can be cancelled; anything else is a
// Conflict with code order_not_cancellable. A PENDING order is cancelled
// without waiting for its placement (the workflow's cancel-pending step);
// one whose workflow does not exist (the API died between storing it and
// starting the workflow) is cancelled directly, under the same guards.
// The answer comes within cancelWait: a cancel still running then is a
// Transient error (cancel_in_progress).
func (o *OrderDesk) Cancel(ctx context.Context, p orders.Principal, id string) (orders.Order, error) {
	target, err := o.Orders.CancelTarget(ctx, p, id)
	if err != nil {
		return orders.Order{}, err
	}
	if o.Runs == nil {
		return orders.Order{}, errs.E(errs.Internal, "order cancellation is not configured in this process")
	}
	cctx, stop := context.WithTimeout(ctx, cancelWait)
	defer stop()
	prev, _, err := o.Runs.Cancel(cctx, target.ID)
	if errs.CodeOf(err) == errs.CodeOrderWorkflowNotFound {
		prev, err = o.Orders.CancelDirect(cctx, target)
	}
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return orders.Order{}, errs.E(errs.Transient, "the cancel has not completed yet").WithCode(errs.CodeCancelInProgress).WithCause(err).
				WithHint("GET /orders/{id} shows whether the order was cancelled; send DELETE again if it is still open")
		}
		return orders.Order{}, err
	}
	return o.Orders.Cancelled(ctx, p, target.ID, prev)
}

// ResumeStale starts the workflows of orders still PENDING after
// olderThan whose workflow may never have started (the API process died
// between storing the order and starting its workflow). Orders whose
// workflow exists are left alone. One order that cannot be resumed does
// not hold up the others: it returns how many it handed to the workflow
// (resumed, or found running already) and the errors of the rest, joined,
// each naming its order.
func (o *OrderDesk) ResumeStale(ctx context.Context, now time.Time, olderThan time.Duration) (int, error) {
	if o.Runs == nil {
		return 0, nil
	}
	refs, err := o.Orders.StalePending(ctx, now.Add(-olderThan))
	if err != nil {
		return 0, err
	}
	resumed := 0
	var failed []error
	for _, r := range refs {
		if err := ctx.Err(); err != nil {
			failed = append(failed, err) // shutting down: the next sweep goes on
			break
		}
		if err := o.Runs.Resume(ctx, r.ID, r.UserID, r.AgentID, r.TokenID, r.Mode); err != nil {
			failed = append(failed, fmt.Errorf("order %s: %w", r.ID, err))
			continue
		}
		resumed++
	}
	return resumed, errors.Join(failed...)
}
