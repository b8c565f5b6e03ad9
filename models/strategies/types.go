// Package strategies is the strategy bounded context: server-side
// strategies (PRICE_ALERT, RECURRING_BUY, BUY_LOW_SELL_HIGH, COPY_TRADE)
// that trade for an agent while it is offline, each run by one Temporal
// workflow (workflows.Strategy, workflow id = strategy id). Each type is
// one file implementing Type, listed in the registry (registry.go).
//
// The strategy row is the source of truth. The API (Service) validates and
// creates it, then hands every later change to the strategy's workflow,
// which is the row's one writer: it applies changes and executions through
// the Engine's steps (its activities), so a transition and the execution it
// races with are serialised by the workflow, never by the database alone.
// Nothing arriving through Temporal is trusted: the workflow's input is the
// strategy id; a change carries a proof (models/intent) made by the
// authenticated path; every step loads owner, config and status from the
// database.
package strategies

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"
)

// Statuses (the spec's "Strategy statuses").
const (
	StatusActive    = "ACTIVE"
	StatusPaused    = "PAUSED"
	StatusError     = "ERROR"
	StatusCompleted = "COMPLETED"
	StatusCancelled = "CANCELLED"
)

// NonFinal are the statuses that count against MaxNonFinal.
var NonFinal = []string{StatusActive, StatusPaused, StatusError}

// Final reports whether a status can never change again.
func Final(status string) bool { return status == StatusCompleted || status == StatusCancelled }

// Who acted: the agent over the API, or the user (dashboard, admin
// command). PausedBy and the events name it; the heartbeat reports only the
// user's pauses and cancels.
const (
	ByAgent  = "agent"
	ByUser   = "user"
	BySystem = "system" // expiry, completion, errors
)

// Ended reasons.
const (
	EndBudget    = "budget_exhausted"
	EndTotal     = "max_total_amount_reached"
	EndFired     = "trigger_fired"
	EndCancelled = "cancelled"
	EndExpired   = "expired"
	// EndMarketClosed: the market of a strategy's tokenId closed or
	// resolved (or a marketQuery names no market that trades any more);
	// the strategy is CANCELLED by the system.
	EndMarketClosed = "market_closed"
)

// Limits (spec "Limits").
const (
	// MaxNonFinal is the most strategies an agent may hold in ACTIVE,
	// PAUSED or ERROR; COMPLETED and CANCELLED ones do not count.
	MaxNonFinal = 10
	// MaxConsecutiveErrors failed executions in a row put a strategy in
	// ERROR.
	MaxConsecutiveErrors = 3
	// DefaultExpiry is how long a strategy created through the API lives
	// unless extended.
	DefaultExpiry = 24 * time.Hour
	// MaxExpiry is the furthest an expiry may be set: 30 days from the
	// moment of the extension. Extending again later moves it further.
	MaxExpiry = 30 * 24 * time.Hour
	// MinInterval and MaxInterval bound RECURRING_BUY's interval.
	MinInterval = time.Minute
	MaxInterval = 30 * 24 * time.Hour
	// DetailExecutions is how many executions a strategy's detail shows.
	DetailExecutions = 20
)

// Execution kinds.
const (
	KindAction = "action"
	KindSkip   = "skip"
	KindError  = "error"
)

// Strategy is the service's view of a strategy (never the store record).
type Strategy struct {
	ID      string
	AgentID string
	UserID  string
	Type    string
	Status  string
	// Mode is its agent's mode (models.ModePaper or ModeLive).
	Mode string
	// Config is the configuration as stored (normalised JSON).
	Config            json.RawMessage
	MaxBudget         decimal.Decimal
	BudgetUsed        decimal.Decimal
	CreatedBy         string
	PausedBy          string
	EndedReason       string
	LastError         string
	ConsecutiveErrors int
	TokenID           string
	OpenSize          decimal.Decimal
	ExecutionCount    int
	CreatedAt         time.Time
	UpdatedAt         time.Time
	ExpiresAt         *time.Time
	LastEvaluatedAt   *time.Time
	NextEvaluationAt  *time.Time
	// Market is the market of TokenID (nil for COPY_TRADE, or when the
	// venue has not named it yet).
	Market *Market
	// Executions are the most recent first (detail only).
	Executions []Execution
}

// Market is what a strategy or an execution trades, as the venue names
// it: the market's question, the outcome of the token, the market's slug
// and its announced end.
type Market struct {
	Question string
	Outcome  string
	Slug     string
	EndDate  *time.Time
}

// Execution is one entry of a strategy's execution log: an action (an
// order placed), a skip or an error.
type Execution struct {
	ID          string
	Seq         int
	Time        time.Time
	Kind        string
	Action      string
	Reason      string
	OrderID     string
	OrderStatus string
	TokenID     string
	Side        string
	Price       decimal.Decimal
	Size        decimal.Decimal
	Amount      decimal.Decimal
	// FilledSize and AvgFillPrice are what the order filled (a
	// fill-and-kill market order may fill part of Size).
	FilledSize   decimal.Decimal
	AvgFillPrice decimal.Decimal
	// Market is the market the execution acted on.
	Market *Market
}
