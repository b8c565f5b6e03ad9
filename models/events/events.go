// Package events is each agent's durable event log: what happened to the
// agent's orders and strategies while it was not looking. GET /heartbeat
// reports every event exactly once per API key, on the first heartbeat
// after it was appended (a sleeping key's heartbeats leave them for the
// first one inside its active hours), and housekeeping deletes reported
// events after a retention period.
//
// # Appending
//
// Append an event on the transaction-bound *store.Store of the state
// change that causes it, so the event exists if and only if the change
// was committed:
//
//	err := st.Tx(ctx, func(tx *store.Store) error {
//		paused := "PAUSED"
//		if err := tx.UpdateStrategy(ctx, s.ID, []string{"ACTIVE"}, store.StrategyUpdate{Status: &paused}); err != nil {
//			return err
//		}
//		_, err := events.Append(ctx, tx, events.Event{
//			AgentID: s.AgentID, UserID: s.UserID, Type: events.StrategyPaused,
//			StrategyID: s.ID, StrategyType: s.Type, By: events.ByUser,
//			Summary: "paused in the dashboard",
//		})
//		return err
//	})
//
// Appending outside a transaction works too (Append opens its own), but
// then a crash between the change and the append loses the event.
//
// # Types
//
//   - OrderFill: a fill recorded against one of the agent's orders
//     (OrderID, FillID). Appended by store.AddFill itself, the one place
//     every fill path goes through; Append refuses it.
//   - StrategyExecuted: a strategy placed a trade (OrderID when it has
//     one; Details such as side, size, price, tokenId).
//   - StrategyError: a strategy was auto-paused after consecutive errors,
//     or a COPY_TRADE stopped because its target is the user's own wallet
//     (Details: lastError, failures).
//   - StrategyCompleted: a strategy finished, its budget exhausted or its
//     trigger fired (Details: reason, budgetUsed).
//   - StrategyPaused, StrategyCancelled: By says who did it. The heartbeat
//     raises STRATEGY_PAUSED for ByUser only, and STRATEGY_CANCELLED for
//     ByUser and BySystem (the 24-hour expiry, Details reason "expired";
//     a market that closed under the strategy, "market_closed"): never
//     for ByAgent, since the agent knows what it did itself.
//
// Every strategy event needs StrategyID, StrategyType (PRICE_ALERT,
// RECURRING_BUY, BUY_LOW_SELL_HIGH, COPY_TRADE) and a one-line Summary an
// agent can show its user. Details is free-form JSON (a JSON object,
// camelCase keys) copied into the heartbeat action's details; never put
// secrets or internal error text in it.
package events

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// Type is an event type.
type Type string

// The event types; see the package comment.
const (
	OrderFill         Type = models.EventOrderFill
	StrategyExecuted  Type = models.EventStrategyExecuted
	StrategyError     Type = models.EventStrategyError
	StrategyCompleted Type = models.EventStrategyCompleted
	StrategyPaused    Type = models.EventStrategyPaused
	StrategyCancelled Type = models.EventStrategyCancelled
)

// Actor is who caused an event.
type Actor string

// The actors.
const (
	ByAgent  Actor = models.ActorAgent
	ByUser   Actor = models.ActorUser
	BySystem Actor = models.ActorSystem
)

// Event is one entry of an agent's log.
type Event struct {
	// Seq numbers the agent's events 1, 2, 3… in commit order; set by
	// Append.
	Seq     int64
	AgentID string
	UserID  string
	Type    Type
	// Time is when it happened; zero means now.
	Time time.Time

	// OrderID and FillID name the order (and for OrderFill the fill).
	OrderID string
	FillID  string

	StrategyID   string
	StrategyType string
	// By is who caused a strategy event (required for StrategyPaused and
	// StrategyCancelled).
	By      Actor
	Summary string
	// Details is extra data for the heartbeat action (a JSON object).
	Details map[string]any
}

// Append validates e, appends it to its agent's log on tx and returns it
// with Seq and Time set. See the package comment for when and how.
func Append(ctx context.Context, tx *store.Store, e Event) (Event, error) {
	if err := validate(e); err != nil {
		return Event{}, err
	}
	rec := models.AgentEvent{
		AgentID: e.AgentID, UserID: e.UserID, Type: string(e.Type), Time: e.Time,
		OrderID: e.OrderID, FillID: e.FillID, StrategyID: e.StrategyID, StrategyType: e.StrategyType,
		Actor: string(e.By), Summary: e.Summary,
	}
	if len(e.Details) > 0 {
		b, err := json.Marshal(e.Details)
		if err != nil {
			return Event{}, errs.Wrap(errs.Invalid, err, "event details are not JSON")
		}
		rec.Details = string(b)
	}
	if err := tx.AppendEvent(ctx, &rec); err != nil {
		return Event{}, err
	}
	e.Seq, e.Time = rec.Seq, rec.Time
	return e, nil
}

// strategyTypes tells the strategy types (the registry of
// models/strategies, which imports this package, sets it when it loads).
var strategyTypes atomic.Pointer[func(string) bool]

// SetStrategyTypes makes known the test of a strategy type events may
// carry: models/strategies sets its registry, so the list of types lives
// in one place.
func SetStrategyTypes(known func(string) bool) { strategyTypes.Store(&known) }

func validate(e Event) error {
	if e.AgentID == "" {
		return errs.E(errs.Invalid, "an event needs an agent")
	}
	switch e.Type {
	case OrderFill:
		return errs.E(errs.Invalid, "fill events are appended by the store with the fill")
	case StrategyExecuted, StrategyError, StrategyCompleted, StrategyPaused, StrategyCancelled:
	default:
		return errs.Ef(errs.Invalid, "unknown event type %q", e.Type)
	}
	if e.StrategyID == "" || e.Summary == "" {
		return errs.E(errs.Invalid, "a strategy event needs a strategy id and a summary")
	}
	if known := strategyTypes.Load(); e.StrategyType == "" || known != nil && !(*known)(e.StrategyType) {
		return errs.Ef(errs.Invalid, "unknown strategy type %q", e.StrategyType)
	}
	switch e.By {
	case ByAgent, ByUser, BySystem:
	case "":
		if e.Type == StrategyPaused || e.Type == StrategyCancelled {
			return errs.E(errs.Invalid, "a pause or cancel event must say who did it")
		}
	default:
		return errs.Ef(errs.Invalid, "unknown actor %q", e.By)
	}
	return nil
}

// FromRecord converts a stored event. Details that do not decode are
// dropped (they were written by Append, so that means a manual edit).
func FromRecord(r models.AgentEvent) Event {
	e := Event{
		Seq: r.Seq, AgentID: r.AgentID, UserID: r.UserID, Type: Type(r.Type), Time: r.Time,
		OrderID: r.OrderID, FillID: r.FillID, StrategyID: r.StrategyID, StrategyType: r.StrategyType,
		By: Actor(r.Actor), Summary: r.Summary,
	}
	if r.Details != "" {
		_ = json.Unmarshal([]byte(r.Details), &e.Details)
	}
	return e
}
