package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
)

// Housekeeper is the storage side of periodic housekeeping. The store
// (models/store) implements it. Both methods delete or expire rows whose
// deadline is before now and report how many rows they changed; they must
// be idempotent, because activities run at least once.
type Housekeeper interface {
	// PurgeExpiredIdempotency deletes idempotency records that expired
	// before now and frees the idempotency keys of orders placed 24 h or
	// more before now (store.IdempotencyRetention).
	PurgeExpiredIdempotency(ctx context.Context, now time.Time) (int64, error)
	// ExpireDeviceLinks marks device-link requests that are still pending
	// past their deadline as expired.
	ExpireDeviceLinks(ctx context.Context, now time.Time) (int64, error)
	// PurgeEvents deletes agent events every heartbeat key of their agent
	// was told of, once older than their retention, and any event older
	// than the longer retention of unreported ones (store.PurgeEvents).
	PurgeEvents(ctx context.Context, now time.Time) (int64, error)
}

// Housekeeping holds the housekeeping activities. Workflows reference its
// methods through a nil *Housekeeping (only the method names matter); the
// worker registers one built with the real store.
type Housekeeping struct {
	Store Housekeeper
}

// PurgeExpiredIdempotency is the activity wrapping
// Housekeeper.PurgeExpiredIdempotency. now comes from the workflow
// (workflow.Now) so a retried or replayed run purges against the same
// instant instead of the worker's clock.
func (h *Housekeeping) PurgeExpiredIdempotency(ctx context.Context, now time.Time) (int64, error) {
	now = notAfterNow(now)
	n, err := h.Store.PurgeExpiredIdempotency(ctx, now)
	if err != nil {
		return 0, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("purged expired idempotency records", "count", n, "now", now)
	return n, nil
}

// ExpireDeviceLinks is the activity wrapping Housekeeper.ExpireDeviceLinks;
// see PurgeExpiredIdempotency for why now is an argument.
func (h *Housekeeping) ExpireDeviceLinks(ctx context.Context, now time.Time) (int64, error) {
	now = notAfterNow(now)
	n, err := h.Store.ExpireDeviceLinks(ctx, now)
	if err != nil {
		return 0, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("expired device links", "count", n, "now", now)
	return n, nil
}

// PurgeEvents is the activity wrapping Housekeeper.PurgeEvents; see
// PurgeExpiredIdempotency for why now is an argument.
func (h *Housekeeping) PurgeEvents(ctx context.Context, now time.Time) (int64, error) {
	now = notAfterNow(now)
	n, err := h.Store.PurgeEvents(ctx, now)
	if err != nil {
		return 0, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("purged agent events", "count", n, "now", now)
	return n, nil
}

// notAfterNow caps the workflow's instant at the worker's clock: the
// argument arrives through Temporal, and a forged far-future "now" would
// otherwise purge live idempotency records and expire live links.
func notAfterNow(now time.Time) time.Time {
	if wall := time.Now(); now.After(wall) {
		return wall
	}
	return now
}

// Deps are the dependencies of all activities. Each later feature adds its
// dependency here and its registration to Register.
type Deps struct {
	// Housekeeper backs the housekeeping activities (the store).
	Housekeeper Housekeeper
	// DeviceLinks backs the device-link activities (models/agents.Recorder
	// over the store). Optional until every caller wires it: when nil the
	// activities are not registered and a device-link workflow's
	// activities fail to schedule (visible in the UI, retried once fixed).
	DeviceLinks DeviceLinkRecorder
	// Orders backs the order activities (models/orders.Service); when nil
	// they are not registered (a process without venue access).
	Orders OrderSteps
	// Settlements backs the approve and redeem activities
	// (*settlements.Service); when nil they are not registered.
	Settlements SettlementSteps
	// Strategies backs the strategy activities (*strategies.Engine);
	// nil in processes that run no strategies.
	Strategies StrategyEngine
	// AgentControl backs the agent-control activities (models/agents.Service);
	// RevokedOrders cancels a revoked agent's orders (models/orders.Service,
	// nil without a venue).
	AgentControl  AgentControlSteps
	RevokedOrders RevokedOrders
	// Intents verifies the proofs of the requests that act for a user
	// (cancels, approvals, redemptions); without it those are refused.
	Intents *intent.Keys
	// Webhooks backs the notification webhook deliveries
	// (*notify.Service); nil in processes that deliver none.
	Webhooks WebhookSender
}

// Registry is the part of a Temporal worker (or test environment) that
// activities are registered on; go.temporal.io/sdk/worker.Worker and
// testsuite.TestWorkflowEnvironment both satisfy it.
type Registry interface {
	RegisterActivity(a any)
}

// Register registers every activity of the service on r. It is the one
// place activities are registered: the worker and the tests call it, so a
// workflow can never reference an activity the worker lacks. A missing
// dependency is an error rather than a nil-pointer panic inside an
// activity at 3 a.m.
func Register(r Registry, deps Deps) error {
	if deps.Housekeeper == nil {
		return errs.E(errs.Internal, "activities: Deps.Housekeeper is required")
	}
	r.RegisterActivity(&Housekeeping{Store: deps.Housekeeper})
	if deps.DeviceLinks != nil {
		r.RegisterActivity(&DeviceLinks{Recorder: deps.DeviceLinks})
	}
	if deps.Settlements != nil {
		r.RegisterActivity(&Settlements{Steps: deps.Settlements, Intents: deps.Intents})
	}
	if deps.Orders != nil {
		r.RegisterActivity(deps.orders())
	}
	if deps.Strategies != nil {
		r.RegisterActivity(&Strategies{Engine: deps.Strategies, Intents: deps.Intents})
	}
	if deps.AgentControl != nil {
		r.RegisterActivity(&AgentControls{Steps: deps.AgentControl, Orders: deps.RevokedOrders})
	}
	if deps.Webhooks != nil {
		r.RegisterActivity(&Webhooks{Sender: deps.Webhooks})
	}
	return nil
}

// RegisterOrders registers the order workflow's activities on r: a worker
// of the order task queue runs nothing else.
func RegisterOrders(r Registry, deps Deps) error {
	if deps.Orders == nil {
		return errs.E(errs.Internal, "activities: Deps.Orders is required")
	}
	r.RegisterActivity(deps.orders())
	return nil
}

// orders is the order activities of deps: wherever an order's steps run,
// they amend the strategy side of a strategy's order (Orders.Settler),
// so every process that runs them needs deps.Strategies.
func (deps Deps) orders() *Orders {
	a := &Orders{Steps: deps.Orders, Intents: deps.Intents}
	if deps.Strategies != nil {
		a.Settler = deps.Strategies
	}
	return a
}
