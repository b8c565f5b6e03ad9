// Package orders is the order bounded context: validating an agent's order
// against the market, its wallet and its budget, persisting it before it is
// signed, and the steps of its lifecycle (submit, sync, cancel) that the
// order workflow (workflows.Order) runs as activities. Every order — an
// agent's, a position close, a strategy's — is placed through the one
// Placer, workflows.OrderDesk: Service.Accept checks and stores it, then its
// workflow places it. The service never calls a workflow, so the order
// walk enters it once on each side of Temporal.
package orders

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
)

// Request types an agent may ask for (the API's "type").
const (
	TypeLimit  = "LIMIT"
	TypeMarket = "MARKET"
	TypeFOK    = "FOK"
	TypeFAK    = "FAK"
)

// Sides.
const (
	SideBuy  = "BUY"
	SideSell = "SELL"
)

// Principal is who places or manages an order: the agent and the user it
// acts for, and the client address for the audit log.
type Principal struct {
	AgentID    string
	UserID     string
	ClientAddr string
	// ByUser marks the user acting on the agent's order or position from
	// the dashboard or an admin command (a cancel, a close): the agent's
	// status does not bind the user who sets it, so such an order is
	// placed whatever the agent's status. Only those authenticated paths
	// set it; the agent API and strategies never do.
	ByUser bool
	// Mode is the agent's mode as its authentication found it
	// (models.ModePaper or models.ModeLive), set by the agent API: it only
	// labels a workflow started before the order is accepted (an early
	// start, see Accepts); what the order is, Accept reads from the
	// database. Empty, no early start.
	Mode string
}

// PlaceRequest is an order as the agent (or a close, or a strategy) asks
// for it.
type PlaceRequest struct {
	TokenID string
	Side    string // BUY | SELL
	Type    string // LIMIT (default) | MARKET | FOK | FAK
	// Price is the limit price (LIMIT, FOK, FAK) or, for MARKET, the worst
	// price accepted (most paid on a BUY, least received on a SELL).
	Price decimal.Decimal
	// Size is the number of shares.
	Size   decimal.Decimal
	DryRun bool
	// IdempotencyKey, when set, is stored on the order, where it binds
	// the agent's key for store.IdempotencyRetention: a retry within it
	// answers that order instead of placing another.
	IdempotencyKey string
	// StrategyID is set for orders a strategy places.
	StrategyID string
	// OrderID, when set, is the id the order is stored under: the order
	// desk picks it when it starts the order's workflow before Accept
	// (Accepts). Never taken from a client.
	OrderID string
	// OwnSharesOnly, on a strategy's SELL, caps it at the shares the
	// strategy's own orders bought (BUY_LOW_SELL_HIGH sells only those),
	// besides the agent's own position. A strategy that sells the agent's
	// shares (a PRICE_ALERT SELL) leaves it unset.
	OwnSharesOnly bool
}

// Order is the service's view of an order (never the store record).
type Order struct {
	ID          string
	PolyOrderID string
	Status      string
	// Mode is models.ModePaper or models.ModeLive (the placing agent's).
	Mode           string
	Side           string
	Type           string // the request type (LIMIT, MARKET, FOK, FAK)
	TokenID        string
	ConditionID    string
	Price          decimal.Decimal
	Size           decimal.Decimal
	FilledSize     decimal.Decimal
	AvgFillPrice   decimal.Decimal
	MarketQuestion string
	Outcome        string
	// FailureReason says why a FAILED order failed (client-safe text).
	FailureReason string
	// PreviousStatus is set only in a cancel's result.
	PreviousStatus string
	// StrategyID names the strategy that placed the order ("" for the
	// agent's own orders).
	StrategyID string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FilledAt   *time.Time
	// exact: the view is the row as the placement attempt that returned
	// it wrote it (Attempt.Order), so it needs no reading back.
	exact bool
}

// Terminal reports whether the order can no longer change.
func (o Order) Terminal() bool { return TerminalStatus(o.Status) }

// Preview is what a dry run would place and what it checked.
type Preview struct {
	TokenID        string
	Side           string
	Type           string
	Price          decimal.Decimal
	Size           decimal.Decimal
	MarketQuestion string
	Outcome        string
	// Cost is the most collateral a BUY can spend (size × price);
	// Proceeds the least a SELL receives. Zero on the other side.
	Cost     decimal.Decimal
	Proceeds decimal.Decimal
	// BudgetAvailable is the agent's budget before this order.
	BudgetAvailable decimal.Decimal
	TickSize        string
	MinSize         decimal.Decimal
	NegRisk         bool
}

// PlaceResult is the outcome of Place: the order, or for a dry run the
// preview (Order is then zero).
type PlaceResult struct {
	Order   Order
	Preview *Preview
	// Pending is true when the placement result did not arrive in time:
	// the order is durable and will be placed; poll GET /orders/{id}.
	Pending bool
}

// Placer places orders: Accept, then the order's workflow;
// workflows.OrderDesk implements it. Positions (close) and strategies depend
// on this interface: the domain never drives a workflow itself.
type Placer interface {
	Place(ctx context.Context, p Principal, r PlaceRequest) (PlaceResult, error)
}

// TerminalStatus reports whether an order status is final.
func TerminalStatus(s string) bool {
	switch s {
	case "FILLED", "CANCELLED", "FAILED":
		return true
	}
	return false
}
