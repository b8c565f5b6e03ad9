package dashboard_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/venue/clob"
)

// fakePrices is a price history: a constant price sampled every minute
// over the asked span, or Err.
type fakePrices struct {
	mu    sync.Mutex
	Err   error
	asked []string
}

func (f *fakePrices) PriceHistory(_ context.Context, token string, from, to time.Time) ([]clob.PricePoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, token)
	if f.Err != nil {
		return nil, f.Err
	}
	var out []clob.PricePoint
	for t := from; !t.After(to); t = t.Add(time.Minute) {
		out = append(out, clob.PricePoint{Time: t, Price: decimal.RequireFromString("0.41")})
	}
	return out, nil
}

// agentFor links an agent to the user of email directly in the store.
func (e *env) agentFor(email, name string) (userID, agentID string) {
	e.t.Helper()
	ctx := context.Background()
	userID, err := e.agents.UserIDByEmail(ctx, email)
	require.NoError(e.t, err)
	_, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: userID, Name: name, Scopes: "read trade cancel redeem"}
	require.NoError(e.t, e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}))
	return userID, a.ID
}

func (e *env) createStrategy(userID, agentID, typ, config string) strategies.Strategy {
	e.t.Helper()
	s, err := e.strategies.Create(context.Background(), strategies.Actor{By: strategies.ByAgent, AgentID: agentID, UserID: userID},
		strategies.CreateRequest{Type: typ, Config: json.RawMessage(config), MaxBudget: strategies.D(decimal.NewFromInt(20))})
	require.NoError(e.t, err)
	return s
}

// strategyEvents are the agent's strategy events as the heartbeat reads
// them: type and who acted.
func (e *env) strategyEvents(agentID string) []string {
	e.t.Helper()
	var recs []models.AgentEvent
	require.NoError(e.t, e.store.DB().Where("agent_id = ?", agentID).Order("seq").Find(&recs).Error)
	var out []string
	for _, r := range recs {
		ev := events.FromRecord(r)
		out = append(out, string(ev.Type)+"/"+string(ev.By))
	}
	return out
}

const (
	alertConfig = `{"tokenId":"` + strategiestest.Token + `","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`
	bandConfig  = `{"tokenId":"` + strategiestest.Token + `","buyBelow":0.45,"sellAbove":0.6,"sizePerTrade":5}`
)

func TestStrategyPages(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("alice@example.com", "correct horse battery")
	uid, research := e.agentFor("alice@example.com", "research-bot")
	_, scalper := e.agentFor("alice@example.com", "scalper")
	alert := e.createStrategy(uid, research, strategies.TypePriceAlert, alertConfig)
	band := e.createStrategy(uid, scalper, strategies.TypeBuyLowSellHigh, bandConfig)
	// The band buys at once (ask 0.42 is below 0.45): one execution.
	_, err := e.engine.Execute(context.Background(), band.ID, 1)
	require.NoError(t, err)

	// Listed, newest first, with their agents; filtered by status, type
	// and agent.
	list := c.Get("/strategies")
	require.Equal(t, http.StatusOK, list.Status, list.Body)
	for _, want := range []string{alert.ID, band.ID, "research-bot", "scalper", "Price alert", "Buy low, sell high"} {
		assert.Contains(t, list.Body, want)
	}
	for _, tc := range []struct {
		query      string
		want, miss string
	}{
		{"type=PRICE_ALERT", alert.ID, band.ID},
		{"agent=" + scalper, band.ID, alert.ID},
		{"status=PAUSED", "No strategies match", alert.ID},
	} {
		r := c.Get("/strategies?" + tc.query)
		require.Equal(t, http.StatusOK, r.Status, tc.query)
		assert.Contains(t, r.Body, tc.want, tc.query)
		assert.NotContains(t, r.Body, tc.miss, tc.query)
	}
	// The overview lists the running ones.
	assert.Contains(t, c.Get("/").Body, "/strategies/"+band.ID)

	// The detail: settings, executions and the chart with the price line
	// and the buy on it.
	d := c.Get("/strategies/" + band.ID)
	require.Equal(t, http.StatusOK, d.Status, d.Body)
	for _, want := range []string{"buyBelow", "0.45", "scalper", `id="executions"`, `class="mark buy"`, `class="line"`, "BUY 5", "45¢"} {
		assert.Contains(t, html.UnescapeString(d.Body), want)
	}
	assert.NotContains(t, d.Body, "temporal-link", "only operators see the Web UI link")
	assert.Contains(t, e.prices.asked, strategiestest.Token)

	// Pause here: the user's pause, reported to the agent's heartbeat.
	r := c.Submit("/strategies/"+alert.ID, "/strategies/"+alert.ID+"/pause", nil)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, "/strategies/"+alert.ID+"?done=strategy-paused", r.Location)
	p := c.Follow(r)
	assert.Contains(t, p.Body, "Strategy paused")
	assert.Contains(t, p.Body, "Paused by user")
	assert.Contains(t, e.strategyEvents(research), string(events.StrategyPaused)+"/"+string(events.ByUser))
	assert.Contains(t, c.Get("/strategies?status=PAUSED").Body, alert.ID)

	// Pausing again is refused with the reason, on the page.
	again := c.Post("/strategies/"+alert.ID+"/pause", url.Values{"csrf_token": {dashboardtest.CSRF(t, p.Body)}})
	assert.Equal(t, http.StatusConflict, again.Status)
	assert.Contains(t, again.Body, `id="form-error"`)

	r = c.Submit("/strategies/"+alert.ID, "/strategies/"+alert.ID+"/resume", nil)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Contains(t, c.Follow(r).Body, "Strategy resumed")

	// Extend: from now, by one of the offered spans only.
	r = c.Submit("/strategies/"+alert.ID, "/strategies/"+alert.ID+"/extend", url.Values{"hours": {"168"}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	got, err := e.strategies.Get(context.Background(), strategies.Actor{By: strategies.ByUser, UserID: uid}, alert.ID)
	require.NoError(t, err)
	require.NotNil(t, got.ExpiresAt)
	assert.WithinDuration(t, time.Now().Add(168*time.Hour), *got.ExpiresAt, time.Minute)
	bad := c.Submit("/strategies/"+alert.ID, "/strategies/"+alert.ID+"/extend", url.Values{"hours": {"10000"}})
	assert.Equal(t, http.StatusBadRequest, bad.Status)

	// Cancel asks first, then ends it for good; the agent is told.
	conf := c.Get("/strategies/" + alert.ID + "/confirm/cancel")
	require.Equal(t, http.StatusOK, conf.Status)
	assert.Contains(t, conf.Body, "Cancel this price alert?")
	r = c.Submit("/strategies/"+alert.ID+"/confirm/cancel", "/strategies/"+alert.ID+"/cancel", nil)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	final := c.Follow(r)
	assert.Contains(t, final.Body, "Strategy cancelled")
	assert.NotContains(t, final.Body, `id="strategy-resume"`)
	assert.NotContains(t, final.Body, `id="extend-form"`)
	assert.Contains(t, e.strategyEvents(research), string(events.StrategyCancelled)+"/"+string(events.ByUser))
	// An ended strategy says so; it does not count down to an expiry
	// (it was extended by a week just before).
	assert.Contains(t, final.Body, `<div class="stat-label">Ended</div>`)
	assert.NotContains(t, final.Body, `id="strategy-expiry">in `)
	assert.NotContains(t, final.Body, "<div class=\"stat-label\">Expires</div>")
	row := c.Get("/strategies?status=CANCELLED").Body
	assert.Contains(t, row, alert.ID)
	assert.Contains(t, row, `<td data-label="Expires"><span class="muted">ended</span></td>`)

	// The user's activity shows each change, with who made it.
	act := c.Get("/audit")
	for _, want := range []string{"Strategy created", "Strategy paused", "Strategy resumed", "Strategy extended", "Strategy cancelled", alert.ID, "By user · Price alert"} {
		assert.Contains(t, act.Body, want)
	}

	// Without the CSRF token nothing changes.
	assert.Equal(t, http.StatusForbidden, c.Post("/strategies/"+band.ID+"/pause", url.Values{}).Status)
	got, err = e.strategies.Get(context.Background(), strategies.Actor{By: strategies.ByUser, UserID: uid}, band.ID)
	require.NoError(t, err)
	assert.Equal(t, strategies.StatusActive, got.Status)

	// Another user sees none of it and can change none of it.
	bob := e.signUp("bob@example.com", "correct horse battery")
	assert.NotContains(t, bob.Get("/strategies").Body, band.ID)
	assert.Equal(t, http.StatusNotFound, bob.Get("/strategies/"+band.ID).Status)
	r = bob.Submit("/strategies", "/strategies/"+band.ID+"/pause", nil)
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Equal(t, http.StatusNotFound, bob.Get("/strategies/"+band.ID+"/confirm/cancel").Status)

	// Without price history the chart still shows the executions, and
	// says why the line is missing.
	e.prices.Err = errNoHistory
	d = c.Get("/strategies/" + band.ID)
	require.Equal(t, http.StatusOK, d.Status)
	assert.Contains(t, d.Body, "The price history could not be read")
	assert.Contains(t, d.Body, `class="mark buy"`)
}

var errNoHistory = &fakeErr{}

type fakeErr struct{}

func (*fakeErr) Error() string { return "venue down" }

// TestOperatorsSeeTheTemporalLink: an operator account's strategy page
// links to the strategy's run (workflow id = strategy id) in the Web UI.
func TestOperatorsSeeTheTemporalLink(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp(operatorEmail, "correct horse battery")
	uid, agent := e.agentFor(operatorEmail, "ops-bot")
	s := e.createStrategy(uid, agent, strategies.TypePriceAlert, alertConfig)
	d := c.Get("/strategies/" + s.ID)
	require.Equal(t, http.StatusOK, d.Status)
	want := temporalUI + "/namespaces/default/workflows?query=" + url.QueryEscape(`WorkflowId="`+s.ID+`"`)
	assert.Contains(t, html.UnescapeString(d.Body), `href="`+want+`"`)
	assert.True(t, strings.HasPrefix(s.ID, "str_"))
}
