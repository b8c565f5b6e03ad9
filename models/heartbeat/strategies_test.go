package heartbeat

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/events"
)

// TestStrategyCancelsReported: a cancel the agent made itself is not news
// to it; the user's, and the service's own (an expiry, a market that
// closed under the strategy), are reported with their reason.
func TestStrategyCancelsReported(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	ev := func(id string, by events.Actor, reason string) events.Event {
		e := events.Event{Type: events.StrategyCancelled, StrategyID: id, StrategyType: "PRICE_ALERT", By: by, Summary: id, Time: at}
		if reason != "" {
			e.Details = map[string]any{"reason": reason}
		}
		return e
	}
	acts := strategyActions([]events.Event{
		ev("str_agent", events.ByAgent, ""), ev("str_user", events.ByUser, ""),
		ev("str_expired", events.BySystem, "expired"), ev("str_closed", events.BySystem, "market_closed"),
		{Type: events.StrategyPaused, StrategyID: "str_paused_by_agent", By: events.ByAgent, Time: at},
	})
	require.Len(t, acts, 1)
	a := acts[0]
	assert.Equal(t, ActionStrategyCancelled, a.Type)
	assert.Equal(t, []string{"str_closed", "str_expired", "str_user"}, a.Details["strategies"])
	var reasons []any
	for _, e := range a.Details["events"].([]map[string]any) {
		if d, ok := e["details"].(map[string]any); ok {
			reasons = append(reasons, d["reason"])
		}
	}
	assert.ElementsMatch(t, []any{"expired", "market_closed"}, reasons)
}
