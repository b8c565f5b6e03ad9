package strategies

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/orders"
)

// Acceptor checks and stores an order PENDING under its idempotency key:
// the agent's and user's brakes under the user's lock, the budget, the
// funds or own shares (orders.Service.Accept, which *orders.Service
// implements). It starts nothing: the strategy's workflow places the
// accepted order as a child Order workflow.
type Acceptor interface {
	Accept(ctx context.Context, p orders.Principal, r orders.PlaceRequest) (orders.Accepted, error)
}

// Placement is an order an execution decided on and stored (PENDING, with
// the execution's idempotency key, before anything is signed), for the
// strategy's workflow to place as a child Order workflow (workflow id
// "order/<OrderID>"); Placed then records the execution. It carries what
// the record needs of the decision, no amounts the record does not read
// again from the order itself.
type Placement struct {
	OrderID string `json:"order_id"`
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
	TokenID string `json:"token_id"`
	// Mode is the strategy's (its agent's) mode: the order workflow's
	// Mode search attribute. Empty in placements decided before it.
	Mode string `json:"mode,omitempty"`
	// Kind, Reason and Complete are the decision's (plan).
	Kind     string `json:"kind"`
	Reason   string `json:"reason"`
	Complete string `json:"complete,omitempty"`
	// CopiedAt is when a COPY_TRADE's copied trade was recorded (the copy
	// latency runs from there to the placement).
	CopiedAt *time.Time `json:"copied_at,omitempty"`
}

// Decision is what Decide did: either the execution is settled (Place is
// nil: recorded, or nothing was due; Outcome says which) or an order is
// stored and waits for the workflow to place it.
type Decision struct {
	Outcome Outcome    `json:"outcome"`
	Place   *Placement `json:"place,omitempty"`
}

// deferral, passed down an execution, makes its placement stop at
// Accept: the order is handed to the workflow (ref) instead of placed by
// the order desk, which would start the order's workflow and wait for it
// from inside an activity.
type deferral struct {
	place *Placement
	// open: the execution is recorded now, open, with its order
	// (DecideOpen), instead of by Placed once the order is placed.
	open bool
}

// hold hands the accepted order o (PENDING) to the workflow, with the plan
// that will record it.
func (d *deferral) hold(st *models.Strategy, o *orders.Ref, pl Plan, copiedAt *time.Time) Outcome {
	d.place = &Placement{OrderID: o.ID, UserID: o.UserID, AgentID: o.AgentID, TokenID: o.TokenID, Mode: st.Mode,
		Kind: pl.Kind, Reason: pl.Reason, Complete: pl.Complete, CopiedAt: copiedAt}
	return Outcome{State: stateOf(st)}
}

// holdStored hands an order an earlier attempt of the execution stored to
// the workflow when it is still PENDING (its workflow may never have
// started; handOver); it reports false for an order past that, which is
// recorded as it stands.
func (e *Engine) holdStored(ctx context.Context, d *deferral, st *models.Strategy, c Config, seq int, o *models.Order, pl Plan) (Outcome, bool, error) {
	if d == nil || o.Status != models.OrderPending {
		return Outcome{}, false, nil
	}
	out, err := e.handOver(ctx, d, st, c, seq, &orders.Ref{ID: o.ID, UserID: o.UserID, AgentID: o.AgentID, TokenID: o.TokenID, Mode: o.Mode}, pl, nil)
	return out, true, err
}

// placeOrder places req for st. Without a deferral (the ExecuteStrategy
// activity of runs begun before the child-order change) through the
// order desk, which waits for the order's workflow, and returns the order
// as placed. With one it only accepts the order and returns its
// reference (nil order): the workflow places it.
func (e *Engine) placeOrder(ctx context.Context, st *models.Strategy, req orders.PlaceRequest, d *deferral) (*models.Order, *orders.Ref, error) {
	p := orders.Principal{AgentID: st.AgentID, UserID: st.UserID, ClientAddr: "strategy " + st.ID}
	if d == nil {
		if e.Orders == nil {
			return nil, nil, errs.E(errs.Internal, "order placement is not configured in this process")
		}
		res, err := e.Orders.Place(ctx, p, req)
		if err != nil {
			return nil, nil, err
		}
		o, err := e.Store.OrderByID(ctx, res.Order.ID)
		return o, nil, err
	}
	if e.Desk == nil {
		return nil, nil, errs.E(errs.Internal, "order acceptance is not configured in this process")
	}
	acc, err := e.Desk.Accept(ctx, p, req)
	if err != nil {
		return nil, nil, err
	}
	if acc.Await == nil {
		// Placed already under the key (answered as it stands).
		o, err := e.Store.OrderByID(ctx, acc.Result.Order.ID)
		return o, nil, err
	}
	return nil, acc.Await, nil
}

// Decide runs execution seq of strategy id as Execute does, up to its
// order: the order is checked and stored PENDING with the execution's
// idempotency key (Acceptor) and returned for the workflow to place as a
// child Order workflow; an execution with no order (a skip, an error,
// nothing due) is recorded here as by Execute. Idempotent: a retry finds
// the order stored under the key and returns it again while it is PENDING.
func (e *Engine) Decide(ctx context.Context, id string, seq int) (Decision, error) {
	var d deferral
	out, err := e.execute(ctx, id, seq, &d)
	if err != nil || d.place == nil {
		return Decision{Outcome: out}, err
	}
	return Decision{Outcome: out, Place: d.place}, nil
}

// Placed records execution seq once the workflow placed its order (or
// gave up waiting for the placement: the order is recorded as it stands,
// as Execute does when the placement's answer is late). Idempotent: an
// execution recorded already is answered as recorded.
func (e *Engine) Placed(ctx context.Context, id string, seq int, pm Placement) (Outcome, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if st.Executions >= seq {
		return e.recorded(ctx, st, seq)
	}
	cfg, err := Load(st.Config)
	if err != nil {
		return Outcome{}, err
	}
	o, err := e.Store.OrderByID(ctx, pm.OrderID)
	if err != nil {
		return Outcome{}, err
	}
	if o.StrategyID == nil || *o.StrategyID != id {
		return Outcome{}, errs.Ef(errs.Internal, "order %s is not strategy %s's", pm.OrderID, id)
	}
	if pm.CopiedAt != nil && o.Status != models.OrderPending {
		metrics.CopyLatency(e.now().Sub(*pm.CopiedAt))
	}
	out, err := e.record(ctx, st, cfg, seq, Plan{Kind: pm.Kind, Reason: pm.Reason, Complete: pm.Complete}, o, nil)
	if err != nil {
		return out, err
	}
	if st.Type == TypeCopyTrade && out.State.Status == StatusActive {
		if out.State.Pending, err = e.Store.CopyTradesPending(ctx, id, seq); err != nil {
			return Outcome{}, err
		}
	}
	return out, nil
}

// recorded answers execution seq, recorded already, as recorded.
func (e *Engine) recorded(ctx context.Context, st *models.Strategy, seq int) (Outcome, error) {
	rec, err := e.Store.StrategyExecutionBySeq(ctx, st.ID, seq)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return Outcome{}, err
	}
	out := Outcome{State: stateOf(st), Executed: true}
	if rec != nil {
		out.Kind = rec.Kind
		if rec.OrderID != nil {
			out.OrderID = *rec.OrderID
		}
	}
	return out, nil
}
