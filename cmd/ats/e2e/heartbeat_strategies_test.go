package e2e

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/strategies"
)

// TestHeartbeatReportsRealStrategyEvents drives each strategy event the
// heartbeat reports with real strategies (API, worker, Temporal, sandbox):
// a price alert that fires reports STRATEGY_EXECUTED and
// STRATEGY_COMPLETED once; the agent's own pause and cancel are not
// reported, the user's are; three refused executions report
// STRATEGY_ERROR.
func TestHeartbeatReportsRealStrategyEvents(t *testing.T) {
	e, a, m := newTradingTest(t, tradingOpts{}, "Will strategies beat")
	e.withStrategyFeed(t)
	ctx := context.Background()
	yes := m.TokenIDs[0]
	e.heartbeat(t, a.key, "") // start the key's cursor

	type evs struct {
		Count  int `json:"count"`
		Events []struct {
			StrategyID string `json:"strategyId"`
			By         string `json:"by"`
		} `json:"events"`
	}
	reported := func(d hbData, typ string) evs {
		t.Helper()
		var v evs
		d.action(t, typ, &v)
		return v
	}

	// A price alert fires: executed and completed, each once.
	alert := e.createStrategy(t, a, map[string]any{"type": "PRICE_ALERT", "maxBudget": 20, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 10}})
	e.setPrice(t, yes, "0.3")
	e.awaitStrategy(t, a, alert.ID, "completed", func(s apiStrategy) bool { return s.Status == "COMPLETED" })
	d := e.heartbeat(t, a.key, "")
	for _, typ := range []string{"STRATEGY_EXECUTED", "STRATEGY_COMPLETED"} {
		v := reported(d, typ)
		require.Equal(t, 1, v.Count, typ)
		assert.Equal(t, alert.ID, v.Events[0].StrategyID, typ)
	}
	d = e.heartbeat(t, a.key, "")
	assert.NotContains(t, d.types(), "STRATEGY_EXECUTED", "reported once")
	assert.NotContains(t, d.types(), "STRATEGY_COMPLETED", "reported once")

	// The agent's own pause, resume and cancel are not news to it.
	e.setPrice(t, yes, "0.5")
	own := e.createStrategy(t, a, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
	for _, step := range []struct{ method, path string }{
		{"POST", "/strategies/" + own.ID + "/pause"}, {"POST", "/strategies/" + own.ID + "/resume"}, {"DELETE", "/strategies/" + own.ID},
	} {
		status, b := e.call(t, a.key, step.method, step.path, nil)
		require.Equal(t, 200, status, "%s %s: %s", step.method, step.path, b)
	}
	d = e.heartbeat(t, a.key, "")
	assert.NotContains(t, d.types(), "STRATEGY_PAUSED")
	assert.NotContains(t, d.types(), "STRATEGY_CANCELLED")

	// The user's pause and cancel (the dashboard's and the admin command's
	// service) are.
	user := strategies.Actor{By: strategies.ByUser, UserID: a.userID}
	theirs := e.createStrategy(t, a, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
	_, err := e.svc.StrategyDesk.Pause(ctx, user, theirs.ID)
	require.NoError(t, err)
	d = e.heartbeat(t, a.key, "")
	v := reported(d, "STRATEGY_PAUSED")
	require.Equal(t, 1, v.Count)
	assert.Equal(t, theirs.ID, v.Events[0].StrategyID)
	assert.Equal(t, "user", v.Events[0].By)
	_, err = e.svc.StrategyDesk.Cancel(ctx, user, theirs.ID)
	require.NoError(t, err)
	d = e.heartbeat(t, a.key, "")
	v = reported(d, "STRATEGY_CANCELLED")
	require.Equal(t, 1, v.Count)
	assert.Equal(t, theirs.ID, v.Events[0].StrategyID)
	assert.NotContains(t, d.types(), "STRATEGY_PAUSED", "reported once")

	// Three refused executions (a sell of 50 shares when the agent holds
	// 10 is refused before anything is posted) end in ERROR: reported once.
	broke := e.createStrategy(t, a, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "SELL", "triggerCondition": "PRICE_GTE", "triggerPrice": 0.6, "size": 50}})
	for i, p := range []string{"0.62", "0.5", "0.64", "0.5", "0.66"} {
		e.setPrice(t, yes, p)
		if i%2 == 0 {
			want := i/2 + 1
			e.awaitStrategy(t, a, broke.ID, "failed", func(s apiStrategy) bool { return len(s.Executions) >= want || s.Status == "ERROR" })
		}
	}
	failed := e.awaitStrategy(t, a, broke.ID, "in ERROR", func(s apiStrategy) bool { return s.Status == "ERROR" })
	require.Len(t, failed.Executions, 3)
	for _, x := range failed.Executions {
		assert.Equal(t, "error", x.Kind, "%+v", x)
	}
	d = e.heartbeat(t, a.key, "")
	v = reported(d, "STRATEGY_ERROR")
	require.Equal(t, 1, v.Count)
	assert.Equal(t, broke.ID, v.Events[0].StrategyID)
	d = e.heartbeat(t, a.key, "")
	assert.NotContains(t, d.types(), "STRATEGY_ERROR", "reported once")
}
