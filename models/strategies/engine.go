package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// Quoter reads a token's top of book and its whole book;
// *markets.Service implements it (from the process's price feed for
// tokens it holds, else from the venue).
type Quoter interface {
	Quotes(ctx context.Context, tokens []string) ([]markets.Quote, error)
	// Book is the token's book, best level first: a market buy sized in
	// USDC walks it to find what its amount buys within its bound.
	Book(ctx context.Context, token string) (*clob.OrderBook, error)
}

// MarketReader reads the market a token trades in from the venue (its
// name, and whether it still trades); *markets.Service implements it.
type MarketReader interface {
	TokenMarket(ctx context.Context, tokenID string) (*markets.TokenMarket, error)
}

// Resolver finds the token a marketQuery names now (MarketResolver).
type Resolver interface {
	Resolve(ctx context.Context, query, outcome string) (string, error)
}

// Arming registers a strategy's price conditions with the process's price
// feed (*Triggers); Arm with no conditions disarms.
type Arming interface {
	Arm(strategyID string, conds []Cond)
}

// Engine runs the steps of a strategy's workflow (its activities). Every
// step takes the strategy id and loads owner, config and status from the
// database; every step is idempotent.
type Engine struct {
	Store *store.Store
	// Orders places an order and waits for its workflow: only the
	// ExecuteStrategy activity of strategy runs begun before their
	// workflow placed orders as child workflows uses it (Execute).
	Orders orders.Placer
	// Desk checks and stores the order of an execution (Decide), which
	// the strategy's workflow then places as a child Order workflow.
	Desk     Acceptor
	Quotes   Quoter
	Resolver Resolver
	// Markets reads the market of a strategy's token: its name for the
	// answers, and whether it still trades (nil: neither is looked at).
	Markets  MarketReader
	Triggers Arming // nil: no price feed in this process
	// Copies watches the wallets COPY_TRADE strategies copy (*CopyHub);
	// nil in a process without a chain watcher.
	Copies Following
	// Network derives the proxy and Safe of a user's EOA, which a copy
	// never copies either (nil: only the stored addresses).
	Network *network.Network
	Logger  *slog.Logger
	Now     func() time.Time
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Engine) log() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}

// State is what the workflow knows of its strategy: ids, status and
// timing. It carries no config amounts and no secrets.
type State struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	AgentID string `json:"agent_id"`
	UserID  string `json:"user_id"`
	TokenID string `json:"token_id,omitempty"`
	// Mode is the agent's mode (models.ModePaper or ModeLive).
	Mode              string     `json:"mode,omitempty"`
	PausedBy          string     `json:"paused_by,omitempty"`
	EndedReason       string     `json:"ended_reason,omitempty"`
	LastError         string     `json:"last_error,omitempty"`
	ConsecutiveErrors int        `json:"consecutive_errors"`
	Executions        int        `json:"executions"`
	ExpiresAt         *time.Time `json:"expires_at,omitempty"`
	// NextEvaluationAt is when RECURRING_BUY's next buy is due.
	NextEvaluationAt *time.Time `json:"next_evaluation_at,omitempty"`
	// Armed is true while price conditions wait for the feed.
	Armed   bool   `json:"armed,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Pending is true while a COPY_TRADE has recorded events of its target
	// that no execution handled yet: the workflow runs another execution.
	Pending bool `json:"pending,omitempty"`
	// Version is the strategy's version (models.Strategy.Version): a
	// change made for an earlier one is stale.
	Version int64 `json:"version,omitempty"`
	// MarketCheckAt is when a PRICE_ALERT or BUY_LOW_SELL_HIGH next looks
	// at its market (its end date): the workflow runs an execution then,
	// which moves a marketQuery to the market it names now or ends a
	// tokenId strategy whose market no longer trades.
	MarketCheckAt *time.Time `json:"market_check_at,omitempty"`
}

func stateOf(st *models.Strategy) State {
	out := State{
		ID: st.ID, Type: st.Type, Status: st.Status, AgentID: st.AgentID, UserID: st.UserID, TokenID: st.TokenID, Mode: st.Mode,
		PausedBy: st.PausedBy, EndedReason: st.EndedReason, LastError: st.LastError,
		ConsecutiveErrors: st.ConsecutiveFailures, Executions: st.Executions,
		ExpiresAt: st.ExpiresAt, NextEvaluationAt: st.NextEvaluationAt, Armed: st.Triggers != "",
		Summary: Summary(st), Version: st.Version,
	}
	if typeOf(st.Type).Traits().Market == MarketOne {
		// A MarketEach type (RECURRING_BUY) looks at its market every
		// execution anyway; a MarketNone one has none.
		out.MarketCheckAt = st.MarketCheckAt
	}
	return out
}

// Summary is a one-line description of a strategy for operators (the
// workflow's memo): type, market, the config's key terms and the budget.
func Summary(st *models.Strategy) string {
	c, err := Load(st.Config)
	if err != nil {
		return st.Type
	}
	market := "token " + c.TokenID
	if c.MarketQuery != "" {
		market = fmt.Sprintf("%q", c.MarketQuery)
	}
	if st.MarketQuestion != "" {
		market += fmt.Sprintf(" (%s: %s)", st.MarketQuestion, st.MarketOutcome)
	}
	t := typeOf(st.Type)
	terms := t.Summary(c)
	if t.Traits().Market == MarketNone {
		market = "the target's markets"
	}
	return fmt.Sprintf("%s %s on %s: %s; budget $%s; agent %s", st.Type, st.ID, market, terms,
		micro.Decimal(st.MaxBudgetMicro).String(), st.AgentID)
}

// Load returns the strategy's state (the workflow's first step and the
// step after a continue-as-new). It re-arms the strategy's conditions in
// this process, so a strategy survives the worker that held them.
func (e *Engine) Load(ctx context.Context, id string) (State, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return State{}, err
	}
	// A strategy taken over (or started) while its agent is paused or
	// revoked follows the agent's status at once (agent.go).
	if st, err = e.obeyAgent(ctx, st); err != nil {
		return State{}, err
	}
	e.arm(st)
	out := stateOf(st)
	if _, ok := followerOf(st.Type); ok && st.Status == StatusActive {
		if out.Pending, err = e.Store.CopyTradesPending(ctx, id, st.Executions); err != nil {
			return State{}, err
		}
	}
	return out, nil
}

// arm registers st's conditions in this process (none unless ACTIVE).
func (e *Engine) arm(st *models.Strategy) {
	if _, ok := followerOf(st.Type); ok && e.Copies != nil {
		// Paused copiers keep the target watched, so a resume does not
		// replay what the target did meanwhile (only ACTIVE ones record).
		e.Copies.Follow(st.ID, copyTarget(st), !Final(st.Status))
	}
	if e.Triggers == nil {
		return
	}
	var conds []Cond
	if st.Status == StatusActive && st.Triggers != "" {
		_ = json.Unmarshal([]byte(st.Triggers), &conds)
	}
	e.Triggers.Arm(st.ID, conds)
}

// conditionsFor computes the price conditions st waits for while ACTIVE
// with a token: its type's (Type.Conditions). buying is what the
// strategy's live BUYs may still fill (micro-shares): they take room as if
// filled.
func conditionsFor(st *models.Strategy, c Config, buying int64) []Cond {
	if st.Status != StatusActive || st.TokenID == "" {
		return nil
	}
	return typeOf(st.Type).Conditions(snapshotOf(st, c, buying))
}

// snapshotOf is what the type's pure functions see of st.
func snapshotOf(st *models.Strategy, c Config, buying int64) Snapshot {
	return Snapshot{Config: c, TokenID: st.TokenID, MaxBudgetMicro: st.MaxBudgetMicro, BudgetUsedMicro: st.BudgetUsedMicro,
		OpenSizeMicro: st.OpenSizeMicro, BuyingMicro: buying, Executions: st.Executions}
}

// sellable is what st can sell of its open size (Snapshot.Sellable).
func sellable(st *models.Strategy) decimal.Decimal {
	return Snapshot{OpenSizeMicro: st.OpenSizeMicro}.Sellable()
}

func encodeConds(conds []Cond) string {
	if len(conds) == 0 {
		return ""
	}
	b, _ := json.Marshal(conds)
	return string(b)
}

// commit applies u to strategy id (when its status is one of from), runs
// the events and extra writes (also) in the same transaction, and re-arms
// the strategy's conditions in this process after the commit.
func (e *Engine) commit(ctx context.Context, id string, from []string, u store.StrategyUpdate, rec *models.StrategyExecution, evs []events.Event,
	also ...func(tx *store.Store) error) (*models.Strategy, error) {
	err := e.Store.Tx(ctx, func(tx *store.Store) error {
		if rec != nil {
			if err := tx.AddStrategyExecution(ctx, rec); err != nil {
				return err
			}
		}
		if err := tx.UpdateStrategy(ctx, id, from, u); err != nil {
			return err
		}
		for _, ev := range evs {
			if _, err := events.Append(ctx, tx, ev); err != nil {
				return err
			}
		}
		for _, fn := range also {
			if err := fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return nil, err
	}
	e.arm(st)
	return st, nil
}

func ptr[T any](v T) *T { return &v }

// Change is a change of a strategy asked for by its agent or user: the
// authenticated path validated it (Service) and vouched for it; the
// workflow hands it to Apply.
type Change struct {
	StrategyID string `json:"strategy_id"`
	Action     string `json:"action"` // ActionPause, ActionResume, ActionCancel, ActionPatch, ActionExtend
	By         string `json:"by"`     // ByAgent or ByUser
	// Version is the strategy's version the change was made for: Apply
	// refuses it once the strategy has moved on, so a change taken from
	// the workflow's history and sent again changes nothing.
	Version int64 `json:"version"`
	// ClientAddr is where the request came from, for the audit entry.
	ClientAddr string `json:"client_addr,omitempty"`
	// Patch: the whole new config (normalised JSON), the new budget and
	// the token the config resolves to now; Extend: the new expiry.
	Config         string     `json:"config,omitempty"`
	MaxBudgetMicro int64      `json:"max_budget_micro,omitempty"`
	TokenID        string     `json:"token_id,omitempty"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	Proof          string     `json:"proof,omitempty"`
}

// Actions of a Change.
const (
	ActionPause  = "pause"
	ActionResume = "resume"
	ActionCancel = "cancel"
	ActionPatch  = "patch"
	ActionExtend = "extend"
)

// ProofFields are the fields a change's proof covers (models/intent,
// kind by action): the strategy, who asked, the version it was made for,
// where from, and the change itself.
func (c Change) ProofFields() []string {
	return []string{c.StrategyID, c.By, strconv.FormatInt(c.Version, 10), c.ClientAddr, c.Payload()}
}

// Payload is the part of a change its proof covers beyond the strategy
// id, the action, who asked, the version and the client address.
func (c Change) Payload() string {
	switch c.Action {
	case ActionPatch:
		return fmt.Sprintf("%s|%d|%s", c.Config, c.MaxBudgetMicro, c.TokenID)
	case ActionExtend:
		if c.ExpiresAt != nil {
			return c.ExpiresAt.UTC().Format(time.RFC3339Nano)
		}
	}
	return ""
}

// Allowed reports whether action may be applied in status: the spec's
// lifecycle table. A final strategy allows nothing (CodeStrategyFinal).
func Allowed(action, status string) error {
	if Final(status) {
		return errs.Ef(errs.Conflict, "the strategy is %s, which is final", status).WithCode(errs.CodeStrategyFinal).
			WithHint("create a new strategy")
	}
	ok := true
	switch action {
	case ActionPause:
		ok = status == StatusActive
	case ActionResume:
		ok = status == StatusPaused || status == StatusError
	case ActionCancel, ActionPatch, ActionExtend:
	default:
		return errs.Ef(errs.Invalid, "unknown strategy action %q", action)
	}
	if !ok {
		return errs.Ef(errs.Conflict, "the strategy is %s: %s is not possible", status, action).WithCode(errs.CodeStrategyState)
	}
	return nil
}

// Apply applies a vouched change (the caller verified its proof) made for
// the strategy's current version, and audits it in the same transaction:
// a change made for an earlier version (replayed from the workflow's
// history, or overtaken by another change) is refused and changes nothing.
func (e *Engine) Apply(ctx context.Context, ch Change) (State, error) {
	st, err := e.Store.StrategyByID(ctx, ch.StrategyID)
	if err != nil {
		return State{}, err
	}
	if ch.Version != st.Version {
		e.log().WarnContext(ctx, "strategy change refused: made for another version", "strategy_id", st.ID, "action", ch.Action,
			"version", ch.Version, "current", st.Version)
		return stateOf(st), Stale()
	}
	if err := AllowedFor(ch.Action, st.Status, st.PausedBy); err != nil {
		return stateOf(st), err
	}
	if ch.Action == ActionResume {
		if err := e.agentActive(ctx, st); err != nil {
			return stateOf(st), err
		}
	}
	now := e.now()
	var u store.StrategyUpdate
	var evs []events.Event
	ev := func(typ events.Type, summary string) events.Event {
		return events.Event{AgentID: st.AgentID, UserID: st.UserID, Type: typ, StrategyID: st.ID, StrategyType: st.Type,
			By: events.Actor(ch.By), Summary: summary}
	}
	next := *st
	switch ch.Action {
	case ActionPause:
		next.Status = StatusPaused
		u = store.StrategyUpdate{Status: ptr(StatusPaused), PausedBy: ptr(ch.By), Triggers: ptr(""), NextEvaluationAt: &time.Time{}}
		evs = append(evs, ev(events.StrategyPaused, "strategy "+st.ID+" paused by the "+ch.By))
	case ActionResume:
		next.Status, next.ConsecutiveFailures = StatusActive, 0
		u = store.StrategyUpdate{Status: ptr(StatusActive), PausedBy: ptr(""), ConsecutiveFailures: ptr(0), LastError: ptr("")}
		if typeOf(st.Type).Traits().Interval {
			due, err := e.resumeAt(ctx, st, now)
			if err != nil {
				return State{}, err
			}
			u.NextEvaluationAt = ptr(due)
		}
		if st.MarketEndDate != nil && !now.Before(*st.MarketEndDate) {
			// Its market may have closed while it was paused: look at
			// once.
			u.MarketCheckAt = ptr(now)
		}
	case ActionCancel:
		next.Status = StatusCancelled
		u = store.StrategyUpdate{Status: ptr(StatusCancelled), EndedReason: ptr(EndCancelled), PausedBy: ptr(""),
			Triggers: ptr(""), NextEvaluationAt: &time.Time{}}
		evs = append(evs, ev(events.StrategyCancelled, "strategy "+st.ID+" cancelled by the "+ch.By))
	case ActionPatch:
		if ch.MaxBudgetMicro <= st.BudgetUsedMicro {
			return stateOf(st), errs.E(errs.Invalid, "maxBudget must be above what the strategy has spent").WithCode(errs.CodeInvalidMaxBudget)
		}
		if ch.TokenID != st.TokenID {
			if err := e.checkTokenChange(ctx, st); err != nil {
				return stateOf(st), err
			}
		}
		next.Config, next.MaxBudgetMicro, next.TokenID = ch.Config, ch.MaxBudgetMicro, ch.TokenID
		u = store.StrategyUpdate{Config: ptr(ch.Config), MaxBudgetMicro: ptr(ch.MaxBudgetMicro), TokenID: ptr(ch.TokenID)}
		if ch.TokenID != st.TokenID && ch.TokenID != "" && e.Markets != nil {
			m, err := e.Markets.TokenMarket(ctx, ch.TokenID)
			if err != nil {
				return stateOf(st), err
			}
			follow(&next, m, now)
			setMarket(&u, &next)
		}
	case ActionExtend:
		if ch.ExpiresAt == nil {
			return stateOf(st), errs.E(errs.Invalid, "expiresAt is required").WithCode(errs.CodeInvalidExpiry)
		}
		u = store.StrategyUpdate{ExpiresAt: ch.ExpiresAt}
	}
	if next.Status == StatusActive {
		cfg, err := Load(next.Config)
		if err != nil {
			return State{}, err
		}
		buying, err := e.refresh(ctx, &next)
		if err != nil {
			return State{}, err
		}
		conds, err := e.conditions(ctx, e.Store, &next, cfg, buying)
		if err != nil {
			return State{}, err
		}
		u.Triggers = ptr(encodeConds(conds))
	}
	u.IfVersion = &st.Version
	out, err := e.commit(ctx, st.ID, []string{st.Status}, u, nil, evs, func(tx *store.Store) error {
		return audit.Append(ctx, tx, audit.Entry{UserID: st.UserID, AgentID: st.AgentID, Action: audit.ActionStrategy + ch.Action,
			Target: st.ID, Result: audit.Success, ClientAddr: ch.ClientAddr,
			Detail: map[string]any{"by": ch.By, "type": st.Type, "strategy": st.ID, "version": st.Version}})
	})
	if err != nil {
		return State{}, err
	}
	res := stateOf(out)
	if _, ok := followerOf(out.Type); ok && out.Status == StatusActive {
		// A copier resumed (or changed while ACTIVE) runs the events of
		// its target that wait: recorded before it was paused, or a sell
		// that waited for its BUY while it was paused.
		if res.Pending, err = e.Store.CopyTradesPending(ctx, out.ID, out.Executions); err != nil {
			return State{}, err
		}
	}
	return res, nil
}

// Stale is the refusal of a change made for a version of the strategy it
// no longer has.
func Stale() error {
	return errs.E(errs.Conflict, "the strategy changed since this request was made").WithCode(errs.CodeStrategyState).
		WithHint("reload the strategy and decide again")
}

// checkTokenChange refuses to move st to another token while it holds
// shares of its token or has live orders of it. A BUY_LOW_SELL_HIGH sells
// (and a PRICE_ALERT trades) only the token it names, and its open size
// is what it bought less what it sold: after the move it would offer the
// old token's shares as the new one's and never sell them. RECURRING_BUY
// (a marketQuery of it names a new window's token each time) and
// COPY_TRADE (no token of its own) never sell by their token.
func (e *Engine) checkTokenChange(ctx context.Context, st *models.Strategy) error {
	if st.TokenID == "" || typeOf(st.Type).Traits().Market != MarketOne {
		return nil
	}
	os, err := e.Store.StrategyTokenOrders(ctx, st.ID, st.TokenID)
	if err != nil {
		return err
	}
	t := tallyOf(os)
	live := t.live
	// Dust below the venue's 0.01 share can never be sold: not a holding.
	shares := micro.Decimal(max(0, t.net)).RoundFloor(2)
	if shares.Sign() == 0 && live == 0 {
		return nil
	}
	var what string
	switch {
	case shares.Sign() > 0 && live > 0:
		what = fmt.Sprintf("holds %s shares of token %s and has %d live orders of it", shares.String(), st.TokenID, live)
	case shares.Sign() > 0:
		what = fmt.Sprintf("holds %s shares of token %s", shares.String(), st.TokenID)
	default:
		what = fmt.Sprintf("has %d live orders of token %s", live, st.TokenID)
	}
	return errs.E(errs.Conflict, "the strategy "+what+"; changing its market would leave them behind").
		WithCode(errs.CodeStrategyTokenInUse).
		WithHint("sell the shares and cancel the orders first (or let the strategy sell them), or create a new strategy for the other market")
}

// Expire cancels a strategy whose expiry has passed (by now, capped at the
// engine's own clock so a forged instant cannot expire it early).
func (e *Engine) Expire(ctx context.Context, id string) (State, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return State{}, err
	}
	if Final(st.Status) || st.ExpiresAt == nil || st.ExpiresAt.After(e.now()) {
		return stateOf(st), nil
	}
	out, err := e.commit(ctx, id, []string{st.Status}, store.StrategyUpdate{Status: ptr(StatusCancelled), EndedReason: ptr(EndExpired),
		PausedBy: ptr(""), Triggers: ptr(""), NextEvaluationAt: &time.Time{}}, nil, []events.Event{{
		AgentID: st.AgentID, UserID: st.UserID, Type: events.StrategyCancelled, StrategyID: st.ID, StrategyType: st.Type,
		By: events.BySystem, Summary: "strategy " + st.ID + " expired", Details: map[string]any{"reason": EndExpired},
	}})
	if err != nil {
		return State{}, err
	}
	return stateOf(out), nil
}
