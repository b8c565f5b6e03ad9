// Package heartbeat builds GET /heartbeat: one call that tells an agent
// everything it needs to act on — its portfolio, order activity since its
// last heartbeat, its budget, the actions that need it, and when to call
// again. docs/agent-api-heartbeat.md documents the response, every action
// type and its details.
//
// Fills and strategy events come from the agent's event log (models/events)
// and are reported exactly once per API key: each heartbeat claims the
// events after the key's cursor (store.ClaimHeartbeat). A heartbeat
// outside the key's active hours answers SLEEPING, counts, and leaves the
// events for the first heartbeat inside them.
package heartbeat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// Statuses of a heartbeat.
const (
	StatusOK           = "OK"
	StatusActionNeeded = "ACTION_NEEDED"
	StatusSleeping     = "SLEEPING"
)

// Action types, in the spec's order (the order actions of one priority
// are listed in).
const (
	ActionRedeem            = "REDEEM"
	ActionOrderFilled       = "ORDER_FILLED"
	ActionBudgetLow         = "BUDGET_LOW"
	ActionPositionExpiring  = "POSITION_EXPIRING"
	ActionSeekTrades        = "SEEK_TRADES"
	ActionStrategyExecuted  = "STRATEGY_EXECUTED"
	ActionStrategyError     = "STRATEGY_ERROR"
	ActionStrategyCompleted = "STRATEGY_COMPLETED"
	ActionStrategyPaused    = "STRATEGY_PAUSED"
	ActionStrategyCancelled = "STRATEGY_CANCELLED"
)

// Priorities.
const (
	PriorityHigh   = "high"
	PriorityMedium = "medium"
	PriorityLow    = "low"
)

var priorityRank = map[string]int{PriorityHigh: 0, PriorityMedium: 1, PriorityLow: 2}

// Thresholds from the spec's limits.
var (
	// BudgetLowFloor: BUDGET_LOW below 5 USDC available…
	BudgetLowFloor = decimal.NewFromInt(5)
	// BudgetLowShare …or below 10% of the binding limit.
	BudgetLowShare = decimal.RequireFromString("0.10")
)

// ExpiringWithin is the POSITION_EXPIRING window.
const ExpiringWithin = 30 * time.Minute

// MaxEventsPerBeat bounds the events one heartbeat reports; the rest wait
// for the next one (the agent is told to come back at once, see
// Schedule.More).
const MaxEventsPerBeat = 200

// maxRecentFills bounds orderActivity.recentFills.
const maxRecentFills = 20

// Key is the calling API key with its agent's heartbeat settings.
type Key struct {
	KeyID, AgentID, UserID string
	// IntervalMs is the key's interval (models.DefaultHeartbeatIntervalMs
	// when zero).
	IntervalMs int64
	// Hours is nil when the key is always active.
	Hours *Hours
	// HoursText is the stored window as the response shows it.
	HoursText *HoursText
}

// HoursText is a window as configured.
type HoursText struct{ Start, End, Timezone string }

// BudgetSource gives an agent's budget; *budget.Service implements it.
type BudgetSource interface {
	Snapshot(ctx context.Context, agentID string) (budget.Budget, error)
}

// PositionLister lists an agent's positions valued now, moving positions
// of resolved markets to redeemable first; *positions.Service implements it.
type PositionLister interface {
	List(ctx context.Context, agentID, status string, fresh bool) (positions.List, error)
}

// MarketCloses tells when a market (condition id) closes; zero when
// unknown. EndDates implements it over the venue.
type MarketCloses interface {
	ClosesAt(ctx context.Context, conditionID string) (time.Time, error)
}

// Counts are the counts a heartbeat reads: *store.Store, or a cache of
// it (models/readcache).
type Counts interface {
	CountOrders(ctx context.Context, f store.OrderFilter) (int64, error)
	CountStrategies(ctx context.Context, agentID string, statuses ...string) (int64, error)
}

// Service builds heartbeats. Store, Budget and Positions are required;
// Markets may be nil (then no POSITION_EXPIRING).
type Service struct {
	Store     *store.Store
	Budget    BudgetSource
	Positions PositionLister
	Markets   MarketCloses
	// Counts, when set, serves the live-order and active-strategy counts
	// (else Store).
	Counts Counts
	// SkillVersion is the current agent skill's version (api/skill).
	SkillVersion int
	Now          func() time.Time
}

// Report is one heartbeat. Portfolio, Orders, Budget and Actions are nil
// when SLEEPING.
type Report struct {
	Status    string
	Timestamp time.Time
	Message   string
	Portfolio *Portfolio
	Orders    *OrderActivity
	Budget    *Budget
	Actions   []Action
	Schedule  Schedule
}

// Portfolio sums the agent's open and redeemable positions.
type Portfolio struct {
	OpenPositions   int
	TotalValue      decimal.Decimal
	UnrealizedPnl   decimal.Decimal
	RedeemableCount int
	RedeemableValue decimal.Decimal
}

// OrderActivity is the agent's order activity.
type OrderActivity struct {
	// OpenOrders counts live orders: PENDING, OPEN and PARTIALLY_FILLED.
	OpenOrders int64
	// FilledSinceLastHeartbeat counts the orders with fills reported by
	// this heartbeat (each order once, however many fills).
	FilledSinceLastHeartbeat int
	// RecentFills are those orders, newest fill first, at most 20.
	RecentFills []Fill
}

// Fill is an order with fills reported by a heartbeat (the ORDER_FILLED
// fills entry, as the spec names its members; amounts are JSON numbers).
type Fill struct {
	ID             string      `json:"id"`
	Side           string      `json:"side"`
	Size           json.Number `json:"size"`
	FilledSize     json.Number `json:"filledSize"`
	AvgFillPrice   json.Number `json:"avgFillPrice"`
	RealizedPnl    json.Number `json:"realizedPnl"`
	MarketQuestion string      `json:"marketQuestion"`
	Outcome        string      `json:"outcome"`
	FilledAt       time.Time   `json:"filledAt"`

	realized decimal.Decimal
}

// Num renders a decimal as an exact JSON number.
func Num(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// Budget is the agent's budget.
type Budget struct {
	Available     decimal.Decimal
	LimitedBy     string
	WalletBalance decimal.Decimal
}

// Action is one entry of actions. Details are ready for JSON, amounts as
// exact JSON numbers.
type Action struct {
	Type     string
	Priority string
	Summary  string
	Details  map[string]any
}

// Schedule is the heartbeat object.
type Schedule struct {
	NextCheckAt        time.Time
	IntervalMs         int64
	ActiveHours        *HoursText
	HeartbeatCount     int64
	LatestSkillVersion int
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Beat records a heartbeat of key and builds its report. skillVersion is
// the caller's skill version, when it sent one.
func (s *Service) Beat(ctx context.Context, key Key, skillVersion *int) (Report, error) {
	now := s.now()
	interval := key.IntervalMs
	if interval <= 0 {
		interval = models.DefaultHeartbeatIntervalMs
	}
	awake := key.Hours.Active(now)
	sched := func(beats int64) Schedule {
		return Schedule{
			NextCheckAt: NextCheck(now, time.Duration(interval)*time.Millisecond, key.Hours),
			IntervalMs:  interval, ActiveHours: key.HoursText,
			HeartbeatCount: beats, LatestSkillVersion: s.SkillVersion,
		}
	}
	if !awake {
		claim, err := s.Store.ClaimHeartbeat(ctx, key.KeyID, key.AgentID, false, skillVersion, MaxEventsPerBeat)
		if err != nil {
			return Report{}, err
		}
		sc := sched(claim.Beats)
		return Report{
			Status: StatusSleeping, Timestamp: now, Schedule: sc,
			Message: fmt.Sprintf("Outside active hours (%s–%s %s); the next window opens at %s. Events are kept for then.",
				key.HoursText.Start, key.HoursText.End, key.HoursText.Timezone, sc.NextCheckAt.Format(time.RFC3339)),
		}, nil
	}

	// Everything that can fail for reasons outside the database (chain,
	// venue) is read before the events are claimed, so a failed heartbeat
	// does not use them up.
	list, err := s.Positions.List(ctx, key.AgentID, positions.FilterAll, false)
	if err != nil {
		return Report{}, err
	}
	b, err := s.Budget.Snapshot(ctx, key.AgentID)
	if err != nil {
		return Report{}, err
	}
	counts := s.Counts
	if counts == nil {
		counts = s.Store
	}
	open, err := counts.CountOrders(ctx, store.OrderFilter{AgentID: key.AgentID,
		Statuses: []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}})
	if err != nil {
		return Report{}, err
	}
	pf, redeem, expiring, err := s.portfolio(ctx, list, now)
	if err != nil {
		return Report{}, err
	}
	seek := false
	low, limit := budgetLow(b)
	if !low && b.Available.GreaterThanOrEqual(BudgetLowFloor) && open == 0 && pf.OpenPositions == 0 {
		active, err := counts.CountStrategies(ctx, key.AgentID, "ACTIVE")
		if err != nil {
			return Report{}, err
		}
		seek = active == 0
	}

	claim, err := s.Store.ClaimHeartbeat(ctx, key.KeyID, key.AgentID, true, skillVersion, MaxEventsPerBeat)
	if err != nil {
		return Report{}, err
	}
	evs := make([]events.Event, 0, len(claim.Events))
	for _, rec := range claim.Events {
		evs = append(evs, events.FromRecord(rec))
	}
	fills, err := s.filledOrders(ctx, key.AgentID, evs)
	if err != nil {
		// Hand the events back for the next heartbeat (unless another
		// one of the key claimed past them meanwhile).
		if rerr := s.Store.ReleaseHeartbeatClaim(context.WithoutCancel(ctx), key.KeyID, claim); rerr != nil {
			return Report{}, errors.Join(err, rerr)
		}
		return Report{}, err
	}
	r := Report{Timestamp: now, Schedule: sched(claim.Beats)}
	if claim.More {
		// More events wait than one heartbeat reports: come straight back.
		r.Schedule.NextCheckAt = now
	}
	r.Portfolio = &pf
	r.Budget = &Budget{Available: b.Available, LimitedBy: b.LimitedBy, WalletBalance: b.Wallet}
	r.Orders = &OrderActivity{OpenOrders: open, FilledSinceLastHeartbeat: len(fills), RecentFills: fills[:min(len(fills), maxRecentFills)]}

	var acts []Action
	if a, ok := redeemAction(redeem); ok {
		acts = append(acts, a)
	}
	if a, ok := filledAction(fills); ok {
		acts = append(acts, a)
	}
	if low {
		acts = append(acts, budgetLowAction(b, limit))
	}
	if a, ok := expiringAction(expiring, now); ok {
		acts = append(acts, a)
	}
	if seek {
		acts = append(acts, seekAction(b))
	}
	acts = append(acts, strategyActions(evs)...)
	sort.SliceStable(acts, func(i, j int) bool { return priorityRank[acts[i].Priority] < priorityRank[acts[j].Priority] })
	r.Status, r.Actions = StatusOK, acts
	if len(acts) > 0 {
		r.Status = StatusActionNeeded
	}
	return r, nil
}

// expiringPosition is an open position whose market closes soon.
type expiringPosition struct {
	item   positions.Item
	closes time.Time
}

// portfolio sums positions and picks out the redeemable and expiring ones.
func (s *Service) portfolio(ctx context.Context, list positions.List, now time.Time) (Portfolio, []positions.Item, []expiringPosition, error) {
	var pf Portfolio
	var redeem []positions.Item
	var expiring []expiringPosition
	for _, p := range list.Positions {
		switch {
		case p.Status == models.PositionOpen && p.Size.IsPositive():
			pf.OpenPositions++
			pf.TotalValue = pf.TotalValue.Add(p.CurrentValue)
			pf.UnrealizedPnl = pf.UnrealizedPnl.Add(p.Unrealized)
			if s.Markets == nil || p.ConditionID == "" {
				continue
			}
			closes, err := s.Markets.ClosesAt(ctx, p.ConditionID)
			if err != nil {
				return Portfolio{}, nil, nil, err
			}
			if !closes.IsZero() && !closes.After(now.Add(ExpiringWithin)) {
				expiring = append(expiring, expiringPosition{item: p, closes: closes})
			}
		case p.Status == models.PositionRedeemable && p.Size.IsPositive():
			pf.RedeemableCount++
			pf.RedeemableValue = pf.RedeemableValue.Add(p.CurrentValue)
			redeem = append(redeem, p)
		}
	}
	return pf, redeem, expiring, nil
}

// filledOrders turns the claimed fill events into one entry per order,
// newest fill first, with the order's current fill state and the P&L its
// fills realized (the position fold's, so it matches /positions).
func (s *Service) filledOrders(ctx context.Context, agentID string, evs []events.Event) ([]Fill, error) {
	var ids []string
	last := map[string]time.Time{}
	for _, e := range evs {
		if e.Type != events.OrderFill {
			continue
		}
		if _, ok := last[e.OrderID]; !ok {
			ids = append(ids, e.OrderID)
		}
		if e.Time.After(last[e.OrderID]) {
			last[e.OrderID] = e.Time
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	orders, err := s.Store.OrdersByIDs(ctx, agentID, ids)
	if err != nil {
		return nil, err
	}
	realized := map[string]int64{} // by fill id, per token folded once
	folded := map[string]bool{}
	for _, o := range orders {
		if folded[o.TokenID] {
			continue
		}
		folded[o.TokenID] = true
		tf, err := s.Store.TokenFills(ctx, agentID, o.TokenID)
		if err != nil {
			return nil, err
		}
		per := positions.FillRealized(tf)
		for _, f := range tf {
			realized[f.OrderID] += per[f.ID]
		}
	}
	out := make([]Fill, 0, len(orders))
	for _, o := range orders {
		at := last[o.ID]
		if o.FilledAt != nil && o.FilledAt.After(at) {
			at = *o.FilledAt
		}
		out = append(out, Fill{
			ID: o.ID, Side: o.Side, Size: Num(micro.Decimal(o.SizeMicro)), FilledSize: Num(micro.Decimal(o.FilledSizeMicro)),
			AvgFillPrice: Num(micro.Decimal(o.AvgFillPriceMicro)), RealizedPnl: Num(micro.Decimal(realized[o.ID])),
			realized:       micro.Decimal(realized[o.ID]),
			MarketQuestion: o.MarketQuestion, Outcome: o.Outcome, FilledAt: at.UTC(),
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].FilledAt.Equal(out[j].FilledAt) {
			return out[i].FilledAt.After(out[j].FilledAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func redeemAction(items []positions.Item) (Action, bool) {
	if len(items) == 0 {
		return Action{}, false
	}
	var value decimal.Decimal
	ps := make([]map[string]any, 0, len(items))
	for _, p := range items {
		value = value.Add(p.CurrentValue)
		ps = append(ps, map[string]any{"conditionId": p.ConditionID, "title": p.Question, "outcome": p.Outcome, "size": Num(p.Size)})
	}
	return Action{
		Type: ActionRedeem, Priority: PriorityHigh,
		Summary: fmt.Sprintf("%d resolved position(s) worth about %s USDC can be redeemed", len(items), value.StringFixed(2)),
		Details: map[string]any{"count": len(items), "estimatedValue": Num(value.Round(6)), "positions": ps, "action": "POST /api/agent/v1/settlements/redeem"},
	}, true
}

func filledAction(fills []Fill) (Action, bool) {
	if len(fills) == 0 {
		return Action{}, false
	}
	var pnl decimal.Decimal
	for _, f := range fills {
		pnl = pnl.Add(f.realized)
	}
	return Action{
		Type: ActionOrderFilled, Priority: PriorityMedium,
		Summary: fmt.Sprintf("%d order(s) filled since the last heartbeat; realized P&L %s USDC", len(fills), pnl.StringFixed(2)),
		Details: map[string]any{"count": len(fills), "totalPnl": Num(pnl), "fills": fills},
	}, true
}

// budgetLow applies the BUDGET_LOW rule: available below 5 USDC, or below
// 10% of the binding limit (the one named by limitedBy: the fixed limit,
// the percent share of the wallet, the max position value, or the wallet
// balance itself). It returns that limit.
func budgetLow(b budget.Budget) (bool, decimal.Decimal) {
	limit := b.Wallet
	switch b.LimitedBy {
	case budget.LimitedByFixed:
		if b.Config.FixedLimit != nil {
			limit = *b.Config.FixedLimit
		}
	case budget.LimitedByPercent:
		if b.Config.BudgetPercent != nil {
			limit = b.Wallet.Mul(*b.Config.BudgetPercent).Div(decimal.NewFromInt(100))
		}
	case budget.LimitedByPosition:
		if b.Config.MaxPositionValue != nil {
			limit = *b.Config.MaxPositionValue
		}
	}
	return b.Available.LessThan(BudgetLowFloor) || b.Available.LessThan(limit.Mul(BudgetLowShare)), limit
}

func budgetLowAction(b budget.Budget, limit decimal.Decimal) Action {
	return Action{
		Type: ActionBudgetLow, Priority: PriorityMedium,
		Summary: fmt.Sprintf("only %s USDC of budget left (limited by %s)", b.Available.StringFixed(2), b.LimitedBy),
		Details: map[string]any{
			"available": Num(b.Available), "limitedBy": b.LimitedBy, "limit": Num(limit.Round(6)), "walletBalance": Num(b.Wallet),
			"used": Num(b.Config.Used), "thresholdUsd": Num(BudgetLowFloor), "thresholdPercent": Num(BudgetLowShare.Mul(decimal.NewFromInt(100))),
			"action": "Ask the user to raise the agent's budget or fund the wallet; GET /api/agent/v1/budget shows the limits.",
		},
	}
}

func expiringAction(exp []expiringPosition, now time.Time) (Action, bool) {
	if len(exp) == 0 {
		return Action{}, false
	}
	sort.SliceStable(exp, func(i, j int) bool { return exp[i].closes.Before(exp[j].closes) })
	ps := make([]map[string]any, 0, len(exp))
	for _, e := range exp {
		mins := int(e.closes.Sub(now).Minutes())
		ps = append(ps, map[string]any{
			"positionId": e.item.ID, "tokenId": e.item.TokenID, "conditionId": e.item.ConditionID,
			"title": e.item.Question, "outcome": e.item.Outcome, "size": Num(e.item.Size),
			"currentPrice": Num(e.item.CurrentPrice), "currentValue": Num(e.item.CurrentValue),
			"closesAt": e.closes.UTC().Format(time.RFC3339), "minutesLeft": max(mins, 0),
		})
	}
	return Action{
		Type: ActionPositionExpiring, Priority: PriorityLow,
		Summary: fmt.Sprintf("%d open position(s) in markets closing within 30 minutes (first at %s)", len(exp), exp[0].closes.UTC().Format(time.RFC3339)),
		Details: map[string]any{"count": len(exp), "positions": ps,
			"action": "Hold to resolution, or close with POST /api/agent/v1/positions/{id}/close"},
	}, true
}

func seekAction(b budget.Budget) Action {
	return Action{
		Type: ActionSeekTrades, Priority: PriorityLow,
		Summary: fmt.Sprintf("%s USDC of budget is free and nothing is working: look for opportunities", b.Available.StringFixed(2)),
		Details: map[string]any{"available": Num(b.Available), "limitedBy": b.LimitedBy,
			"action": "GET /api/agent/v1/markets/search, then POST /api/agent/v1/orders or POST /api/agent/v1/strategies"},
	}
}

// strategyRule is how one strategy event type becomes an action.
var strategyRules = []struct {
	event    events.Type
	action   string
	priority string
	// notAgent leaves out what the agent itself did (it knows).
	notAgent bool
	verb     string
	next     string
}{
	{events.StrategyExecuted, ActionStrategyExecuted, PriorityMedium, false, "placed trades", "GET /api/agent/v1/strategies/{id} shows the executions"},
	{events.StrategyError, ActionStrategyError, PriorityHigh, false, "stopped in ERROR (consecutive errors, or a COPY_TRADE whose target is the user's own wallet)",
		"Each entry's lastError says why: fix the cause, then POST /api/agent/v1/strategies/{id}/resume (a COPY_TRADE copying the user's own wallet can only be cancelled)"},
	{events.StrategyCompleted, ActionStrategyCompleted, PriorityLow, false, "completed", "Create a new strategy if the goal is not met: POST /api/agent/v1/strategies"},
	{events.StrategyPaused, ActionStrategyPaused, PriorityHigh, true, "were paused by the user", "POST /api/agent/v1/strategies/{id}/resume restarts one, if the user agrees"},
	{events.StrategyCancelled, ActionStrategyCancelled, PriorityHigh, true,
		"were cancelled by the user, or ended by the service (details.reason: expired, market_closed)",
		"Cancelled strategies cannot resume; create a new one with POST /api/agent/v1/strategies if the user wants"},
}

// strategyActions groups the claimed strategy events, one action per type
// listing each event. Pauses and cancels by the agent itself are left
// out: the agent knows what it did. The service's own cancels (an expiry,
// a market that closed under a strategy) are reported: nobody told the
// agent.
func strategyActions(evs []events.Event) []Action {
	var out []Action
	for _, rule := range strategyRules {
		var entries []map[string]any
		ids := map[string]bool{}
		for _, e := range evs {
			if e.Type != rule.event || rule.notAgent && e.By == events.ByAgent {
				continue
			}
			ids[e.StrategyID] = true
			entry := map[string]any{"strategyId": e.StrategyID, "type": e.StrategyType, "summary": e.Summary,
				"at": e.Time.UTC().Format(time.RFC3339)}
			if e.By != "" {
				entry["by"] = string(e.By)
			}
			if e.OrderID != "" {
				entry["orderId"] = e.OrderID
			}
			if len(e.Details) > 0 {
				entry["details"] = e.Details
			}
			entries = append(entries, entry)
		}
		if len(entries) == 0 {
			continue
		}
		out = append(out, Action{
			Type: rule.action, Priority: rule.priority,
			Summary: fmt.Sprintf("%d strategy event(s): %d strateg%s %s", len(entries), len(ids), plural(len(ids)), rule.verb),
			Details: map[string]any{"count": len(entries), "strategies": sortedKeys(ids), "events": entries, "action": rule.next},
		})
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
