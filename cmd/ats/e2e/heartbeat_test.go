package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/skill"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/events"
)

// hbAction is an entry of data.actions.
type hbAction struct {
	Type     string          `json:"type"`
	Priority string          `json:"priority"`
	Summary  string          `json:"summary"`
	Details  json.RawMessage `json:"details"`
}

// hbFill is an ORDER_FILLED fill and a recentFills entry.
type hbFill struct {
	ID           string      `json:"id"`
	Side         string      `json:"side"`
	Size         json.Number `json:"size"`
	FilledSize   json.Number `json:"filledSize"`
	AvgFillPrice json.Number `json:"avgFillPrice"`
	RealizedPnl  json.Number `json:"realizedPnl"`
	Outcome      string      `json:"outcome"`
	FilledAt     string      `json:"filledAt"`
}

// hbData is data of GET /heartbeat.
type hbData struct {
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
	Message   string `json:"message"`
	Portfolio struct {
		OpenPositions   int         `json:"openPositions"`
		TotalValue      json.Number `json:"totalValue"`
		RedeemableCount int         `json:"redeemableCount"`
		RedeemableValue json.Number `json:"redeemableValue"`
	} `json:"portfolio"`
	OrderActivity struct {
		OpenOrders               int      `json:"openOrders"`
		FilledSinceLastHeartbeat int      `json:"filledSinceLastHeartbeat"`
		RecentFills              []hbFill `json:"recentFills"`
	} `json:"orderActivity"`
	Budget struct {
		Available json.Number `json:"available"`
		LimitedBy string      `json:"limitedBy"`
	} `json:"budget"`
	Actions   []hbAction `json:"actions"`
	Heartbeat struct {
		NextCheckAt string `json:"next_check_at"`
		IntervalMs  int64  `json:"interval_ms"`
		ActiveHours *struct {
			Start, End, Timezone string
		} `json:"active_hours"`
		Count int64 `json:"heartbeat_count"`
		Skill int   `json:"latest_skill_version"`
	} `json:"heartbeat"`

	members []string
}

func (d hbData) types() []string {
	out := make([]string, 0, len(d.Actions))
	for _, a := range d.Actions {
		out = append(out, a.Type)
	}
	return out
}

func (d hbData) action(t *testing.T, typ string, into any) hbAction {
	t.Helper()
	for _, a := range d.Actions {
		if a.Type == typ {
			require.NoError(t, json.Unmarshal(a.Details, into), "%s details %s", typ, a.Details)
			return a
		}
	}
	t.Fatalf("no %s action in %v", typ, d.types())
	return hbAction{}
}

func (e *tradingEnv) heartbeat(t *testing.T, key, query string) hbData {
	t.Helper()
	status, body := e.call(t, key, "GET", "/heartbeat"+query, nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	var d hbData
	require.NoError(t, json.Unmarshal(body["data"], &d), "%s", body["data"])
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body["data"], &m))
	for k := range m {
		d.members = append(d.members, k)
	}
	sort.Strings(d.members)
	return d
}

// newMarketEnding lists a fresh market at 0.5 that closes at end.
func (e *tradingEnv) newMarketEnding(t *testing.T, question string, end time.Time) sandboxMarket {
	t.Helper()
	body := fmt.Sprintf(`{"question":%q,"slug":%q,"outcomes":["Yes","No"],"price":0.5,"endDate":%q,"negRisk":false,"tags":["test"],"volume":1000}`,
		question, strings.ToLower(strings.ReplaceAll(question, " ", "-")), end.UTC().Format(time.RFC3339))
	var m sandboxMarket
	e.control(t, "/control/markets", body, &m)
	require.Len(t, m.TokenIDs, 2)
	return m
}

// TestHeartbeatAgainstTheSandbox drives every heartbeat status and action
// type with real data: fills through the real order path (API, Temporal,
// sandbox venue and chain), a market resolved on chain, a market closing
// in minutes, a budget limit, and strategy events appended through the
// events API, and a sleeping window across midnight in Asia/Tokyo. Every
// answer is validated against the OpenAPI document.
func TestHeartbeatAgainstTheSandbox(t *testing.T) {
	e, a, m := newTradingTest(t, tradingOpts{}, "Will the heartbeat tell all")
	ctx := context.Background()
	e.svc.Positions.ResolutionTTL = time.Millisecond // see a resolution at once
	yes := m.TokenIDs[0]
	allMembers := []string{"budget", "heartbeat", "mode", "orderActivity", "portfolio", "status", "timestamp"}

	// A fresh agent with budget and nothing working is told to look for trades.
	d := e.heartbeat(t, a.key, "?skill_version=1")
	assert.Equal(t, "ACTION_NEEDED", d.Status)
	assert.Equal(t, sortedWith(append(slices.Clone(allMembers), "actions")), d.members)
	assert.Equal(t, []string{"SEEK_TRADES"}, d.types())
	var seek struct {
		Available json.Number `json:"available"`
	}
	d.action(t, "SEEK_TRADES", &seek)
	assert.Equal(t, "1000", seek.Available.String())
	assert.EqualValues(t, 1, d.Heartbeat.Count)
	assert.Equal(t, skill.Version, d.Heartbeat.Skill)
	assert.EqualValues(t, models.DefaultHeartbeatIntervalMs, d.Heartbeat.IntervalMs)
	assert.Nil(t, d.Heartbeat.ActiveHours)
	ts, next := mustTime(t, d.Timestamp), mustTime(t, d.Heartbeat.NextCheckAt)
	assert.Equal(t, time.Minute, next.Sub(ts), "next_check_at is the interval after now")

	// A market buy fills through the real order path: ORDER_FILLED, once.
	status, body := e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
	buy := dataOrder(t, body)
	require.True(t, status == http.StatusOK && buy.Status == models.OrderFilled, "buy: %d %s", status, body)
	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, []string{"ORDER_FILLED"}, d.types(), "a position is open: no SEEK_TRADES")
	var filled struct {
		Count    int         `json:"count"`
		TotalPnl json.Number `json:"totalPnl"`
		Fills    []hbFill    `json:"fills"`
	}
	d.action(t, "ORDER_FILLED", &filled)
	require.Equal(t, 1, filled.Count)
	require.Len(t, filled.Fills, 1)
	f := filled.Fills[0]
	assert.Equal(t, buy.ID, f.ID)
	assert.Equal(t, "BUY", f.Side)
	assert.Equal(t, "10", f.Size.String())
	assert.Equal(t, buy.FilledSize.String(), f.FilledSize.String())
	assert.Equal(t, buy.AvgFillPrice.String(), f.AvgFillPrice.String())
	assert.Equal(t, "Yes", f.Outcome)
	assert.Equal(t, 1, d.OrderActivity.FilledSinceLastHeartbeat)
	assert.Equal(t, []hbFill{f}, d.OrderActivity.RecentFills)
	assert.Equal(t, 1, d.Portfolio.OpenPositions)
	assert.Equal(t, 0, d.OrderActivity.OpenOrders)

	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, "OK", d.Status, "the fill was reported once: %v", d.types())
	assert.Equal(t, allMembers, d.members)
	assert.Equal(t, 0, d.OrderActivity.FilledSinceLastHeartbeat)
	assert.Empty(t, d.OrderActivity.RecentFills)
	assert.EqualValues(t, 3, d.Heartbeat.Count)

	// A sell realizes P&L at the average entry.
	status, body = e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "SELL", "price": 0.3, "size": 5, "type": "MARKET"})
	sell := dataOrder(t, body)
	require.True(t, status == http.StatusOK && sell.Status == models.OrderFilled, "sell: %d %s", status, body)
	d = e.heartbeat(t, a.key, "")
	d.action(t, "ORDER_FILLED", &filled)
	require.Len(t, filled.Fills, 1)
	entry, _ := decimal.NewFromString(buy.AvgFillPrice.String())
	exit, _ := decimal.NewFromString(sell.AvgFillPrice.String())
	size, _ := decimal.NewFromString(sell.FilledSize.String())
	want := exit.Sub(entry).Mul(size)
	got, _ := decimal.NewFromString(filled.Fills[0].RealizedPnl.String())
	assert.True(t, want.Sub(got).Abs().LessThanOrEqual(decimal.New(1, -6)), "realized %s, want %s", got, want)
	assert.Equal(t, filled.Fills[0].RealizedPnl.String(), filled.TotalPnl.String())

	// A position in a market closing within 30 minutes.
	closing := e.newMarketEnding(t, "Will this close soon", time.Now().Add(10*time.Minute))
	status, body = e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": closing.TokenIDs[0], "side": "BUY", "price": 0.7, "size": 5, "type": "MARKET"})
	require.Equal(t, http.StatusOK, status, "%s", body)
	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, []string{"ORDER_FILLED", "POSITION_EXPIRING"}, d.types())
	var exp struct {
		Count     int `json:"count"`
		Positions []struct {
			ConditionID string `json:"conditionId"`
			ClosesAt    string `json:"closesAt"`
			MinutesLeft int    `json:"minutesLeft"`
		} `json:"positions"`
	}
	d.action(t, "POSITION_EXPIRING", &exp)
	require.Len(t, exp.Positions, 1)
	assert.Equal(t, closing.ConditionID, exp.Positions[0].ConditionID)
	assert.LessOrEqual(t, exp.Positions[0].MinutesLeft, 10)

	// The first market resolves on chain: REDEEM comes first.
	_, err := e.sb.Venue().Resolve(ctx, m.ConditionID, "Yes")
	require.NoError(t, err)
	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, []string{"REDEEM", "POSITION_EXPIRING"}, d.types())
	var redeem struct {
		Count          int         `json:"count"`
		EstimatedValue json.Number `json:"estimatedValue"`
		Action         string      `json:"action"`
		Positions      []struct {
			ConditionID, Title, Outcome string
			Size                        json.Number
		} `json:"positions"`
	}
	d.action(t, "REDEEM", &redeem)
	assert.Equal(t, 1, redeem.Count)
	assert.Equal(t, "5", redeem.EstimatedValue.String(), "5 winning shares pay 1 each")
	require.Len(t, redeem.Positions, 1)
	assert.Equal(t, m.ConditionID, redeem.Positions[0].ConditionID)
	assert.Equal(t, "Will the heartbeat tell all", redeem.Positions[0].Title)
	assert.Equal(t, "Yes", redeem.Positions[0].Outcome)
	assert.Equal(t, "5", redeem.Positions[0].Size.String())
	assert.Contains(t, redeem.Action, "/settlements/redeem")
	assert.Equal(t, 1, d.Portfolio.RedeemableCount)
	assert.Equal(t, "5", d.Portfolio.RedeemableValue.String())
	assert.Equal(t, 1, d.Portfolio.OpenPositions, "the closing market's position")

	// Strategy events through the events API; the agent's own pause and
	// cancel are not actions, the system's expiry is (the agent is told).
	appendEvent := func(typ events.Type, by events.Actor, summary string) {
		t.Helper()
		_, err := events.Append(ctx, e.store, events.Event{AgentID: a.agentID, UserID: a.userID, Type: typ,
			StrategyID: "str_" + strings.ToLower(string(typ)), StrategyType: models.StrategyRecurringBuy, By: by,
			Summary: summary, Details: map[string]any{"amount": 5}})
		require.NoError(t, err)
	}
	appendEvent(events.StrategyExecuted, "", "bought 5 USDC of Yes")
	appendEvent(events.StrategyError, "", "auto-paused after 3 consecutive errors: market closed")
	appendEvent(events.StrategyCompleted, "", "budget exhausted")
	appendEvent(events.StrategyPaused, events.ByUser, "paused in the dashboard")
	appendEvent(events.StrategyPaused, events.ByAgent, "paused by the agent")
	appendEvent(events.StrategyCancelled, events.ByUser, "cancelled in the dashboard")
	appendEvent(events.StrategyCancelled, events.BySystem, "expired after 24 hours")
	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, []string{"REDEEM", "STRATEGY_ERROR", "STRATEGY_PAUSED", "STRATEGY_CANCELLED",
		"STRATEGY_EXECUTED", "POSITION_EXPIRING", "STRATEGY_COMPLETED"}, d.types(), "sorted by priority, stable")
	for _, act := range d.Actions {
		var det struct {
			Count  int `json:"count"`
			Events []struct {
				StrategyID string `json:"strategyId"`
				By         string `json:"by"`
				Summary    string `json:"summary"`
			} `json:"events"`
		}
		if !strings.HasPrefix(act.Type, "STRATEGY_") {
			continue
		}
		require.NoError(t, json.Unmarshal(act.Details, &det))
		if act.Type == "STRATEGY_CANCELLED" {
			require.Equal(t, 2, det.Count, "the user's cancel and the expiry: %s", act.Details)
			assert.Equal(t, "user", det.Events[0].By)
			assert.Equal(t, "system", det.Events[1].By)
			continue
		}
		require.Equal(t, 1, det.Count, "%s: %s", act.Type, act.Details)
		assert.Equal(t, "str_"+strings.ToLower(act.Type), det.Events[0].StrategyID)
		if act.Type == "STRATEGY_PAUSED" {
			assert.Equal(t, "user", det.Events[0].By)
		}
	}
	priorities := map[string]string{}
	for _, act := range d.Actions {
		priorities[act.Type] = act.Priority
	}
	assert.Equal(t, map[string]string{"REDEEM": "high", "STRATEGY_ERROR": "high", "STRATEGY_PAUSED": "high",
		"STRATEGY_CANCELLED": "high", "STRATEGY_EXECUTED": "medium", "POSITION_EXPIRING": "low", "STRATEGY_COMPLETED": "low"}, priorities)

	// A fixed limit nearly used up: BUDGET_LOW.
	u, err := e.store.UserByID(ctx, a.userID)
	require.NoError(t, err)
	limit := int64(12 * models.MicroPerUnit)
	_, err = e.svc.Agents.SetBudget(ctx, u.ID, a.agentID, "test", agents.Budget{FixedLimitMicro: &limit})
	require.NoError(t, err)
	d = e.heartbeat(t, a.key, "")
	var low struct {
		Available json.Number `json:"available"`
		Limit     json.Number `json:"limit"`
		LimitedBy string      `json:"limitedBy"`
	}
	d.action(t, "BUDGET_LOW", &low)
	assert.Equal(t, "fixed_limit", low.LimitedBy)
	assert.Equal(t, "12", low.Limit.String())
	assert.Equal(t, "fixed_limit", d.Budget.LimitedBy)
	assert.Equal(t, d.Budget.Available.String(), low.Available.String())

	// Active hours 22:00–06:00 in Tokyo (across midnight): at 12:00 JST the
	// key sleeps, and what happens meanwhile waits for 00:30 JST.
	_, err = e.svc.Agents.SetHeartbeat(ctx, u.ID, a.agentID, "test", agents.Heartbeat{IntervalMs: 30_000,
		ActiveHours: &agents.ActiveHours{Start: "22:00", End: "06:00", Timezone: "Asia/Tokyo"}})
	require.NoError(t, err)
	noon := time.Date(2026, 6, 10, 3, 0, 0, 0, time.UTC) // 12:00 JST
	e.svc.Heartbeat.Now = func() time.Time { return noon }
	t.Cleanup(func() { e.svc.Heartbeat.Now = nil })
	appendEvent(events.StrategyExecuted, "", "bought while the agent slept")
	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, "SLEEPING", d.Status)
	assert.Equal(t, []string{"heartbeat", "message", "mode", "status", "timestamp"}, d.members)
	assert.NotEmpty(t, d.Message)
	assert.Equal(t, "2026-06-10T13:00:00Z", d.Heartbeat.NextCheckAt, "22:00 JST")
	require.NotNil(t, d.Heartbeat.ActiveHours)
	assert.Equal(t, "Asia/Tokyo", d.Heartbeat.ActiveHours.Timezone)
	assert.EqualValues(t, 30_000, d.Heartbeat.IntervalMs)
	d = e.heartbeat(t, a.key, "")
	assert.Equal(t, "SLEEPING", d.Status, "still asleep; nothing consumed")

	e.svc.Heartbeat.Now = func() time.Time { return time.Date(2026, 6, 10, 15, 30, 0, 0, time.UTC) } // 00:30 JST
	d = e.heartbeat(t, a.key, "")
	var ex struct {
		Events []struct {
			Summary string `json:"summary"`
		} `json:"events"`
	}
	d.action(t, "STRATEGY_EXECUTED", &ex)
	require.Len(t, ex.Events, 1)
	assert.Equal(t, "bought while the agent slept", ex.Events[0].Summary)
	assert.Equal(t, "2026-06-10T15:30:30Z", d.Heartbeat.NextCheckAt)
	d = e.heartbeat(t, a.key, "")
	assert.NotContains(t, d.types(), "STRATEGY_EXECUTED", "reported once")

	// A malformed skill_version is refused.
	status, _, raw := e.send(t, a.key, "GET", "/heartbeat?skill_version=two", "")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_query", errorCode(raw))

	// The dashboard's "last heartbeat" sees the calls.
	last, err := e.store.LastHeartbeats(ctx, []string{a.agentID})
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), last[a.agentID], time.Minute)
}

func sortedWith(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}
