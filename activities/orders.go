package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/micro"
)

// OrderSteps are the lifecycle steps of an order; models/orders.Service
// implements them. Every step is idempotent (see the service's docs): an
// activity may run more than once.
type OrderSteps interface {
	Submit(ctx context.Context, orderID string) (orders.Order, error)
	Sync(ctx context.Context, orderID string) (orders.Order, error)
	CancelAtVenue(ctx context.Context, orderID string) (previous string, o orders.Order, err error)
	CancelPending(ctx context.Context, orderID string) (previous string, o orders.Order, err error)
	Abandon(ctx context.Context, orderID string) (orders.Order, error)
}

// OrderState is what the order workflow learns from an activity: the
// order's status and how much of it filled. It carries ids and states
// only, never wallet data.
type OrderState struct {
	Status string `json:"status"`
	// FilledMicro is the filled size in micro-shares.
	FilledMicro    int64  `json:"filled_micro"`
	PreviousStatus string `json:"previous_status,omitempty"`
	// StrategyID names the strategy that placed the order, which the
	// workflow tells of the order's changes.
	StrategyID string `json:"strategy_id,omitempty"`
	// StrategyEnded: the step amended the execution of the strategy that
	// placed the order (StrategySettler) and the strategy is COMPLETED or
	// ERROR, which its workflow must be told. A retried step answers it
	// again, so the telling is not lost with a worker that died after
	// the amendment.
	StrategyEnded bool `json:"strategy_ended,omitempty"`
	// StrategyWaits: the strategy's execution waits for this order's
	// placement (strategies.Settled.Wake), which its workflow must be
	// told; answered again by a retried step, as StrategyEnded.
	StrategyWaits bool `json:"strategy_waits,omitempty"`
}

// StrategySettler amends the strategy side of an order that changed
// (*strategies.Engine): the execution that placed it, recorded at its
// decision with its outcome open, gets the order's outcome, and the
// strategy's totals and stored conditions follow its orders.
type StrategySettler interface {
	Settle(ctx context.Context, orderID string) (strategies.Settled, error)
}

func stateOf(o orders.Order) OrderState {
	return OrderState{Status: o.Status, FilledMicro: micro.Truncate(o.FilledSize), StrategyID: o.StrategyID}
}

// Orders holds the order activities. Workflows reference its methods
// through a nil *Orders.
//
// Every step takes the order id only and loads the order — its user,
// agent, wallet and terms — from the database, where the API stored it
// after authenticating the agent: a forged workflow can name an order but
// never act for anyone else, nor change what the order is. Cancelling is
// the one step a request starts, so it needs that request's proof.
type Orders struct {
	Steps   OrderSteps
	Intents *intent.Keys
	// Settler, when set, amends the strategy side of every order of a
	// strategy after each step (settle); a process that places no
	// strategy orders may leave it nil.
	Settler StrategySettler
}

// settle amends the strategy side of the order st describes after a step
// (StrategySettler) and says whether the strategy ended. A failure fails
// the step, which is idempotent: its retry finds the order as the step
// left it and amends again.
func (a *Orders) settle(ctx context.Context, orderID string, st *OrderState) error {
	if st.StrategyID == "" || a.Settler == nil {
		return nil
	}
	s, err := a.Settler.Settle(ctx, orderID)
	if err != nil {
		return temporalerr.To(err)
	}
	st.StrategyEnded, st.StrategyWaits = s.Ended(), s.Wake
	return nil
}

// OrderCancel is the input of the cancel steps: the order and the proof
// that its agent asked to cancel it (intent.OrderCancel, made by the API
// after checking that the order is the agent's).
type OrderCancel struct {
	OrderID string `json:"order_id"`
	Proof   string `json:"proof,omitempty"`
}

func (a *Orders) verifyCancel(in OrderCancel) error {
	return a.Intents.Verify(in.Proof, intent.OrderCancel, in.OrderID)
}

// SubmitOrder signs (once) and posts a PENDING order, reconciling with
// the venue first.
func (a *Orders) SubmitOrder(ctx context.Context, orderID string) (OrderState, error) {
	o, err := a.Steps.Submit(ctx, orderID)
	if err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("order submitted", "order_id", orderID, "status", o.Status)
	st := stateOf(o)
	return st, a.settle(ctx, orderID, &st)
}

// SyncOrder brings the order up to date with the venue.
func (a *Orders) SyncOrder(ctx context.Context, orderID string) (OrderState, error) {
	o, err := a.Steps.Sync(ctx, orderID)
	if err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	st := stateOf(o)
	return st, a.settle(ctx, orderID, &st)
}

// CancelOrder cancels the order on the venue.
func (a *Orders) CancelOrder(ctx context.Context, in OrderCancel) (OrderState, error) {
	if err := a.verifyCancel(in); err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	orderID := in.OrderID
	prev, o, err := a.Steps.CancelAtVenue(ctx, orderID)
	if err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	st := stateOf(o)
	st.PreviousStatus = prev
	activity.GetLogger(ctx).Info("order cancelled", "order_id", orderID, "previous_status", prev, "status", o.Status)
	return st, a.settle(ctx, orderID, &st)
}

// CancelPendingOrder cancels an order that is not placed yet: at once when
// no post of it is in flight, else after the post's outcome, on the venue.
func (a *Orders) CancelPendingOrder(ctx context.Context, in OrderCancel) (OrderState, error) {
	if err := a.verifyCancel(in); err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	orderID := in.OrderID
	prev, o, err := a.Steps.CancelPending(ctx, orderID)
	if err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	st := stateOf(o)
	st.PreviousStatus = prev
	activity.GetLogger(ctx).Info("pending order cancelled", "order_id", orderID, "status", o.Status)
	return st, a.settle(ctx, orderID, &st)
}

// AbandonOrder ends an order whose placement could not complete in time.
func (a *Orders) AbandonOrder(ctx context.Context, orderID string) (OrderState, error) {
	o, err := a.Steps.Abandon(ctx, orderID)
	if err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Warn("order placement abandoned", "order_id", orderID, "status", o.Status)
	st := stateOf(o)
	return st, a.settle(ctx, orderID, &st)
}
