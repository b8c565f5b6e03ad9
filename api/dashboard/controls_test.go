package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/users"
)

// TestLinkPageApprovalSetsABudget: the review offers the new agent's
// spending limit, prefilled with the service's default (25 USDC) and
// said plainly, with an explicit "No limit" box. Approving as offered
// gives the agent the default fixed limit; an edited amount is applied;
// an emptied field without the box is refused (never silently
// unlimited); the box gives no limit, recorded in the audit log.
func TestLinkPageApprovalSetsABudget(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("dana@example.com", "correct horse battery")
	approve := func(name string, fields url.Values) (*models.Agent, int, string) {
		t.Helper()
		a := e.requestLink(name, "203.0.113.7")
		page, decide := review(t, c, a.UserCode)
		assert.Contains(t, page.Body, `name="fixed_limit" type="text" inputmode="decimal" value="25"`)
		assert.Contains(t, page.Body, "prefilled with the")
		assert.Contains(t, page.Body, "No limit: the agent may spend the whole wallet balance")
		decide.Set("action", "approve")
		for k, v := range fields {
			decide[k] = v
		}
		r := c.Post("/link", decide)
		if r.Status != http.StatusSeeOther {
			return nil, r.Status, r.Body
		}
		id := strings.TrimPrefix(strings.SplitN(r.Location, "?", 2)[0], "/agents/")
		ag, err := e.store.AgentByID(context.Background(), id)
		require.NoError(t, err)
		return ag, r.Status, ""
	}
	limit := func(a *models.Agent) int64 {
		t.Helper()
		require.NotNil(t, a.BudgetLimitMicro, "the agent has no fixed limit")
		return *a.BudgetLimitMicro
	}

	a, _, _ := approve("as-offered", url.Values{"fixed_limit": {"25"}})
	assert.Equal(t, int64(25_000_000), limit(a))
	a, _, _ = approve("edited", url.Values{"fixed_limit": {"12.5"}})
	assert.Equal(t, int64(12_500_000), limit(a))
	a, _, _ = approve("old-form", nil) // a page rendered before the field: the default
	assert.Equal(t, int64(25_000_000), limit(a))
	_, status, body := approve("emptied", url.Values{"fixed_limit": {""}})
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, body, "Enter a spending limit, or tick No limit")
	a, _, _ = approve("unlimited", url.Values{"fixed_limit": {"25"}, "no_limit": {"yes"}})
	assert.Nil(t, a.BudgetLimitMicro, "no limit, chosen")

	page, err := (&audit.Service{Store: e.store}).List(context.Background(), audit.Filter{AgentID: a.ID, Action: audit.ActionDeviceApprove})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	assert.Contains(t, string(page.Entries[0].Detail), `"no_limit":true`)

	// The mode: paper unless Live is chosen, audited; anything else is
	// refused.
	assert.Equal(t, models.ModePaper, a.Mode, "the default mode")
	assert.Contains(t, string(page.Entries[0].Detail), `"mode":"paper"`)
	a, _, _ = approve("for-real", url.Values{"fixed_limit": {"25"}, "mode": {"live"}})
	assert.Equal(t, models.ModeLive, a.Mode)
	a, _, _ = approve("practice", url.Values{"fixed_limit": {"25"}, "mode": {"paper"}})
	assert.Equal(t, models.ModePaper, a.Mode)
	_, status, body = approve("odd-mode", url.Values{"fixed_limit": {"25"}, "mode": {"real"}})
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, body, "paper or live")
}

// TestStopEverythingWantsAFreshSecondFactor: the stop-everything control,
// like revoke, asks for a fresh second factor once 2FA is on, needs the
// form's CSRF token, and then pauses every agent and every strategy of
// the user (a user's pause: it stays paused when the agent resumes) and
// reports what it did; it is audited (user.stop). Another user's agents
// are untouched. (Orders: the browser test, against the sandbox.)
func TestStopEverythingWantsAFreshSecondFactor(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("erin@example.com", "correct horse battery")
	other := e.signUp("frank@example.com", "correct horse battery")
	ctx := context.Background()
	agentOf := func(email, name string) *models.Agent {
		t.Helper()
		u, err := e.store.UserByEmail(ctx, email)
		require.NoError(t, err)
		a := &models.Agent{UserID: u.ID, Name: name, Scopes: "read trade cancel redeem"}
		require.NoError(t, e.store.CreateAgent(ctx, a))
		return a
	}
	a1, a2, theirs := agentOf("erin@example.com", "one"), agentOf("erin@example.com", "two"), agentOf("frank@example.com", "theirs")
	st, err := e.strategies.Create(ctx, strategies.Actor{By: strategies.ByAgent, AgentID: a1.ID, UserID: a1.UserID}, strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	require.NoError(t, err)

	secret, _ := enrolTOTP(t, e, c)
	e.clock.Add(sessions.DefaultFreshFor + time.Minute)
	assert.Contains(t, c.Get("/").Body, `href="/stop" id="stop-everything"`)
	r := c.Get("/stop")
	require.Equal(t, "/reauth?next=%2Fstop", r.Location)
	r = c.Post("/stop", url.Values{"csrf_token": {dashboardtest.CSRF(t, c.Get("/agents").Body)}})
	require.Equal(t, "/reauth?next=%2Fstop", r.Location, "the form too wants the fresh factor")
	reauth := c.Get(r.Location)
	code, _ := totp.GenerateCode(secret, e.clock.Now())
	r = c.Post("/reauth", url.Values{"csrf_token": {dashboardtest.CSRF(t, reauth.Body)}, "code": {code}, "next": {"/stop"}})
	require.Equal(t, "/stop", r.Location)
	confirm := c.Get("/stop")
	require.Equal(t, http.StatusOK, confirm.Status)
	assert.Contains(t, confirm.Body, "Every agent is paused")
	assert.Equal(t, http.StatusForbidden, c.Post("/stop", nil).Status, "no CSRF token")

	r = c.Submit("/stop", "/stop", nil)
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	assert.Contains(t, r.Body, "2 agents paused, 1 strategy paused, 0 open orders cancelled")
	for _, a := range []*models.Agent{a1, a2} {
		got, err := e.store.AgentByID(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, models.AgentPaused, got.Status)
	}
	got, err := e.store.AgentByID(ctx, theirs.ID)
	require.NoError(t, err)
	assert.Equal(t, models.AgentActive, got.Status, "another user's agent")
	s, err := e.store.StrategyByID(ctx, st.ID)
	require.NoError(t, err)
	assert.Equal(t, strategies.StatusPaused, s.Status)
	assert.Equal(t, strategies.ByUser, s.PausedBy)
	page, err := (&audit.Service{Store: e.store}).List(ctx, audit.Filter{UserID: a1.UserID, Action: audit.ActionUserStop})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	assert.Contains(t, string(page.Entries[0].Detail), `"agentsPaused":2`)
	assert.NotContains(t, other.Get("/audit").Body, "user.stop")
}
