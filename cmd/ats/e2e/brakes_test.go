package e2e

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/workflows"
)

// userStrategy reads a strategy as its user sees it (the agent's key may
// be refused).
func (e *tradingEnv) userStrategy(t testing.TB, tr trader, id string) strategies.Strategy {
	t.Helper()
	s, err := e.svc.Strategies.Get(context.Background(), strategies.Actor{By: strategies.ByUser, UserID: tr.userID}, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// awaitUserStrategy polls the strategy (as the user) until ok holds.
func (e *tradingEnv) awaitUserStrategy(t testing.TB, tr trader, id, what string, ok func(strategies.Strategy) bool) strategies.Strategy {
	t.Helper()
	return awaitStrategyState(t, id, what, 30*time.Second, 100*time.Millisecond,
		func() strategies.Strategy { return e.userStrategy(t, tr, id) }, ok)
}

// agentOrders lists every order of the agent, newest first.
func (e *tradingEnv) agentOrders(t testing.TB, agentID string) []models.Order {
	t.Helper()
	os, err := e.store.ListOrders(context.Background(), store.OrderFilter{AgentID: agentID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return os
}

// TestRevokedAgentsSellAlertPlacesNothingAgainstTheSandbox performs the
// attack of issue 24 through the whole stack: an agent buys 10 shares,
// rests a limit BUY and creates a PRICE_ALERT that sells its 10 shares
// when the price rises; the user revokes it (its key gets 401); the price
// rises past the trigger. Nothing is placed after the revocation: the
// agent's control workflow cancelled the alert (agent_revoked) and the
// resting order (on the venue, audited as the user's), and the order's
// workflow ended. A second agent of the same user, revoked in the
// database only (the process died before its control workflow started),
// places nothing either: its alert's own execution finds the agent
// revoked and cancels the strategy, and the order service would refuse
// the sell anyway (agent_inactive under the user's lock).
func TestRevokedAgentsSellAlertPlacesNothingAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will the brake hold")
	e.withStrategyFeed(t)
	ctx := context.Background()
	yes := m.TokenIDs[0]
	other := e.sibling(t, tr, "second agent")

	alertFor := func(a trader) (string, string) {
		t.Helper()
		status, body := e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
		if o := dataOrder(t, body); status != http.StatusOK || o.Status != models.OrderFilled || o.FilledSize.String() != "10" {
			t.Fatalf("the agent's buy of 10: %d %s", status, body)
		}
		status, body = e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 5})
		resting := dataOrder(t, body)
		if status != http.StatusOK || resting.Status != models.OrderOpen {
			t.Fatalf("the agent's resting buy: %d %s", status, body)
		}
		s := e.createStrategy(t, a, map[string]any{"type": "PRICE_ALERT", "maxBudget": 1, "config": map[string]any{
			"tokenId": yes, "side": "SELL", "triggerCondition": "PRICE_GTE", "triggerPrice": 0.7, "size": 10}})
		return s.ID, resting.ID
	}
	alert, resting := alertFor(tr)
	otherAlert, _ := alertFor(other)
	// The sandbox's fair price walks a tick now and then: set it, so the
	// makers quote around the price the test expects.
	e.setPrice(t, yes, "0.5")
	e.awaitQuoted(t, yes, decimal.RequireFromString("0.5"))

	// The user revokes the first agent through the controls; the second
	// only in the database.
	revokedAt := time.Now()
	if _, err := e.svc.Controls.RevokeAgent(ctx, tr.userID, tr.agentID, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Agents.Revoke(ctx, other.userID, other.agentID, "test"); err != nil {
		t.Fatal(err)
	}
	for _, a := range []trader{tr, other} {
		if s, _ := e.call(t, a.key, "GET", "/me", nil); s != http.StatusUnauthorized {
			t.Fatalf("a revoked agent's key: %d", s)
		}
	}
	var res workflows.AgentControlResult
	if err := e.tc.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindAgentControl, tr.agentID), "").Get(ctx, &res); err != nil ||
		res.Status != models.AgentRevoked || res.Cancelled != 1 || len(res.Failed) != 0 {
		t.Fatalf("the revoke's control: %+v %v", res, err)
	}

	// The price moves past the trigger.
	e.setPrice(t, yes, "0.8")
	e.awaitQuoted(t, yes, decimal.RequireFromString("0.8"))
	done := e.awaitUserStrategy(t, tr, alert, "cancelled", func(s strategies.Strategy) bool { return s.Status == strategies.StatusCancelled })
	if done.EndedReason != strategies.EndAgentRevoked || len(done.Executions) != 0 {
		t.Fatalf("the revoked agent's alert: %+v", done)
	}
	otherDone := e.awaitUserStrategy(t, other, otherAlert, "cancelled by its execution", func(s strategies.Strategy) bool {
		return s.Status == strategies.StatusCancelled
	})
	if otherDone.EndedReason != strategies.EndAgentRevoked || len(otherDone.Executions) != 0 {
		t.Fatalf("the alert of the agent revoked in the database only: %+v", otherDone)
	}
	time.Sleep(2 * time.Second) // a sell would be placed by now
	for _, a := range []trader{tr, other} {
		for _, o := range e.agentOrders(t, a.agentID) {
			if o.Side == "SELL" || o.CreatedAt.After(revokedAt) {
				t.Fatalf("an order placed for a revoked agent: %+v", o)
			}
		}
	}
	o, err := e.store.OrderByID(ctx, resting)
	if err != nil || o.Status != models.OrderCancelled {
		t.Fatalf("the revoked agent's resting order: %+v %v", o, err)
	}
	e.awaitWorkflowDone(t, workflows.WorkflowID(workflows.KindOrder, resting))
	page, err := e.svc.Audit.List(ctx, audit.Filter{AgentID: tr.agentID, Action: audit.ActionOrderCancel})
	if err != nil || len(page.Entries) != 1 || page.Entries[0].Target != resting {
		t.Fatalf("the revoke's cancel audited as %+v (%v)", page.Entries, err)
	}
}

// TestPausedAgentsStrategiesPauseAndResumeWithItAgainstTheSandbox: the
// user pauses an agent with three strategies, one of which the user had
// paused already. The two ACTIVE ones become PAUSED with pausedBy
// agent_paused; while paused, their conditions are met and nothing is
// placed, no error is counted; the agent's resting order stays on the
// book. Resuming the agent resumes exactly those two: the one the user
// paused stays paused.
func TestPausedAgentsStrategiesPauseAndResumeWithItAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will the strategies pause with the agent")
	e.withStrategyFeed(t)
	ctx := context.Background()
	yes := m.TokenIDs[0]
	user := strategies.Actor{By: strategies.ByUser, UserID: tr.userID}
	alert := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.3, "size": 5}})
	band := e.createStrategy(t, tr, map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "buyBelow": 0.3, "sellAbove": 0.9, "sizePerTrade": 5}})
	mine := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
	if _, err := e.svc.StrategyDesk.Pause(ctx, user, mine.ID); err != nil {
		t.Fatal(err)
	}
	status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.1, "size": 5})
	resting := dataOrder(t, body)
	if status != http.StatusOK || resting.Status != models.OrderOpen {
		t.Fatalf("the agent's resting buy: %d %s", status, body)
	}

	if _, err := e.svc.Controls.PauseAgent(ctx, tr.userID, tr.agentID, "test"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{alert.ID, band.ID} {
		e.awaitUserStrategy(t, tr, id, "paused with the agent", func(s strategies.Strategy) bool {
			return s.Status == strategies.StatusPaused && s.PausedBy == strategies.PausedWithAgent
		})
	}
	if s := e.userStrategy(t, tr, mine.ID); s.Status != strategies.StatusPaused || s.PausedBy != strategies.ByUser {
		t.Fatalf("the strategy the user paused: %+v", s)
	}

	// Their conditions are met while the agent is paused.
	e.setPrice(t, yes, "0.25")
	e.awaitQuoted(t, yes, decimal.RequireFromString("0.25"))
	time.Sleep(2 * time.Second)
	for _, o := range e.agentOrders(t, tr.agentID) {
		if o.ID != resting.ID {
			t.Fatalf("an order placed for a paused agent: %+v", o)
		}
	}
	for _, id := range []string{alert.ID, band.ID} {
		if s := e.userStrategy(t, tr, id); s.Status != strategies.StatusPaused || s.ConsecutiveErrors != 0 || len(s.Executions) != 0 {
			t.Fatalf("strategy %s while its agent is paused: %+v", id, s)
		}
	}
	if o, err := e.store.OrderByID(ctx, resting.ID); err != nil || o.Status != models.OrderOpen {
		t.Fatalf("the paused agent's resting order: %+v %v", o, err)
	}

	e.setPrice(t, yes, "0.5")
	e.awaitQuoted(t, yes, decimal.RequireFromString("0.5"))
	if _, err := e.svc.Controls.ResumeAgent(ctx, tr.userID, tr.agentID, "test"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{alert.ID, band.ID} {
		e.awaitUserStrategy(t, tr, id, "resumed with the agent", func(s strategies.Strategy) bool {
			return s.Status == strategies.StatusActive && s.PausedBy == ""
		})
	}
	if s := e.userStrategy(t, tr, mine.ID); s.Status != strategies.StatusPaused || s.PausedBy != strategies.ByUser {
		t.Fatalf("the strategy the user paused, after the agent resumed: %+v", s)
	}
	if s, _ := e.call(t, tr.key, "GET", "/me", nil); s != http.StatusOK {
		t.Fatalf("the resumed agent's key: %d", s)
	}
}

// TestAdminBrakesAgainstTheSandbox runs the user's brakes from the
// command line against the running service (the built binary, on the
// env's database, Temporal and sandbox), as an operator would from
// another terminal: `ats admin order cancel --order` and `--agent --all`,
// `ats admin user stop`, `ats admin agent resume` (its strategies paused
// by the stop stay paused: each is the user's pause), and `ats admin
// device approve` with the default budget, --fixed-limit and --no-limit
// (malformed and conflicting flags refused before anything is done).
func TestAdminBrakesAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will the operator's brakes work")
	ctx := context.Background()
	yes := m.TokenIDs[0]
	bin := buildATS(t)
	keyFile := filepath.Join(e.dataDir, "master.key")
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(e.master)), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := e.store.UserByID(ctx, tr.userID)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		t.Helper()
		args = append(args, "--email", u.Email, "--data-dir", e.dataDir, "--log-level", "error")
		if !(len(args) > 2 && args[1] == "agent" && args[2] == "list") {
			args = append(args, "--temporal", e.dev.FrontendAddr(), "--master-key-file", keyFile)
		}
		if args[1] == "order" || args[1] == "user" {
			args = append(args, "--sandbox-addr", strings.TrimPrefix(e.sb.URL(), "http://"))
		}
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	admin := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("ats %v: %v\n%s", args, err, out)
		}
		return out
	}
	resting := func(a trader, price float64) string {
		t.Helper()
		status, body := e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": price, "size": 5})
		o := dataOrder(t, body)
		if status != http.StatusOK || o.Status != models.OrderOpen {
			t.Fatalf("resting buy: %d %s", status, body)
		}
		return o.ID
	}
	statusOf := func(id string) string {
		t.Helper()
		o, err := e.store.OrderByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return o.Status
	}
	b := e.sibling(t, tr, "second-bot")
	one, two, theirs := resting(tr, 0.2), resting(tr, 0.21), resting(b, 0.2)
	st := e.createStrategy(t, b, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})

	for _, bad := range [][]string{{"admin", "order", "cancel", "--order", one, "--all"}, {"admin", "order", "cancel", "--agent", "e2e"},
		{"admin", "order", "cancel"}} {
		if out, err := run(bad...); err == nil || !strings.Contains(out, "--agent ID_OR_NAME --all") && !strings.Contains(out, "not both") {
			t.Fatalf("ats %v: %v %s", bad, err, out)
		}
	}
	if out := admin("admin", "order", "cancel", "--order", one); !strings.Contains(out, "order "+one+" is now CANCELLED (was OPEN)") {
		t.Fatalf("cancel one: %s", out)
	}
	if statusOf(one) != models.OrderCancelled || statusOf(two) != models.OrderOpen {
		t.Fatalf("after cancelling one: %s, %s", statusOf(one), statusOf(two))
	}
	if out := admin("admin", "order", "cancel", "--agent", "e2e", "--all"); !strings.Contains(out, "cancelled 1 open order(s)") {
		t.Fatalf("cancel all: %s", out)
	}
	if statusOf(two) != models.OrderCancelled || statusOf(theirs) != models.OrderOpen {
		t.Fatalf("after cancelling all of e2e's: %s, %s", statusOf(two), statusOf(theirs))
	}

	out := admin("admin", "user", "stop")
	if !strings.Contains(out, "paused 2 agent(s) and 1 strateg(ies)") || !strings.Contains(out, "cancelled 1 open order(s)") {
		t.Fatalf("stop: %s", out)
	}
	if statusOf(theirs) != models.OrderCancelled {
		t.Fatalf("the other agent's order after stop: %s", statusOf(theirs))
	}
	for _, a := range []trader{tr, b} {
		if s, _ := e.call(t, a.key, "GET", "/me", nil); s != http.StatusUnauthorized {
			t.Fatalf("a stopped agent's key: %d", s)
		}
	}
	if out := admin("admin", "agent", "resume", "--agent", "second-bot"); !strings.Contains(out, "is now active") {
		t.Fatalf("resume: %s", out)
	}
	var res workflows.AgentControlResult
	if err := e.tc.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindAgentControl, b.agentID), "").Get(ctx, &res); err != nil || res.Status != models.AgentActive {
		t.Fatalf("the resume's control: %+v %v", res, err)
	}
	if s := e.userStrategy(t, b, st.ID); s.Status != strategies.StatusPaused || s.PausedBy != strategies.ByUser {
		t.Fatalf("the strategy stopped by the user, after its agent resumed: %+v", s)
	}
	page, err := e.svc.Audit.List(ctx, audit.Filter{UserID: u.ID, Action: audit.ActionUserStop})
	if err != nil || len(page.Entries) != 1 || page.Entries[0].ClientAddr != "cli" {
		t.Fatalf("the stop audited as %+v (%v)", page.Entries, err)
	}

	// Approval budgets.
	approve := func(name string, flags ...string) *models.Agent {
		t.Helper()
		var dev struct {
			Data struct {
				UserCode string `json:"user_code"`
			} `json:"data"`
		}
		postJSON(t, e.api.URL+"/api/auth/device", `{"agent_name":"`+name+`"}`, http.StatusOK, &dev)
		out := admin(append([]string{"admin", "device", "approve", "--code", dev.Data.UserCode}, flags...)...)
		list, err := e.svc.Agents.List(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range list {
			if a.Name == name {
				got, err := e.store.AgentByID(ctx, a.ID)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s", strings.TrimSpace(out))
				return got
			}
		}
		t.Fatalf("no agent %s after: %s", name, out)
		return nil
	}
	for _, bad := range [][]string{{"--fixed-limit", "5", "--no-limit"}, {"--fixed-limit", "lots"}, {"--fixed-limit", "-1"}} {
		if out, err := run(append([]string{"admin", "device", "approve", "--code", "BCDF-GHJK"}, bad...)...); err == nil ||
			!strings.Contains(out, "--fixed-limit") {
			t.Fatalf("approve %v: %v %s", bad, err, out)
		}
	}
	if a := approve("scripted"); a.BudgetLimitMicro == nil || *a.BudgetLimitMicro != 25_000_000 || a.Mode != models.ModePaper {
		t.Fatalf("an approval without a budget or mode flag: %+v %s", a.BudgetLimitMicro, a.Mode)
	}
	if a := approve("for real", "--mode", "live"); a.Mode != models.ModeLive {
		t.Fatalf("--mode live: %s", a.Mode)
	}
	if out, err := run("admin", "device", "approve", "--code", "BCDF-GHJK", "--mode", "real"); err == nil || !strings.Contains(out, "paper or live") {
		t.Fatalf("approve --mode real: %v %s", err, out)
	}
	if a := approve("limited", "--fixed-limit", "40"); a.BudgetLimitMicro == nil || *a.BudgetLimitMicro != 40_000_000 {
		t.Fatalf("--fixed-limit 40: %+v", a.BudgetLimitMicro)
	}
	free := approve("unlimited", "--no-limit")
	if free.BudgetLimitMicro != nil {
		t.Fatalf("--no-limit: %+v", *free.BudgetLimitMicro)
	}
	page, err = e.svc.Audit.List(ctx, audit.Filter{AgentID: free.ID, Action: audit.ActionDeviceApprove})
	if err != nil || len(page.Entries) != 1 || !strings.Contains(string(page.Entries[0].Detail), `"no_limit":true`) {
		t.Fatalf("the explicit no limit audited as %+v (%v)", page.Entries, err)
	}

	// Going live: the paper agent "scripted" links again under its name
	// and is approved --mode live; the approval revokes the paper agent
	// (said in the output, audited) and its control runs.
	paper := approve("scripted")
	var dev struct {
		Data struct {
			UserCode string `json:"user_code"`
		} `json:"data"`
	}
	postJSON(t, e.api.URL+"/api/auth/device", `{"agent_name":"scripted"}`, http.StatusOK, &dev)
	if out := admin("admin", "device", "approve", "--code", dev.Data.UserCode, "--mode", "live"); !strings.Contains(out, "revoked: the paper agent "+paper.ID) {
		t.Fatalf("going live: %s", out)
	}
	if a, err := e.store.AgentByID(ctx, paper.ID); err != nil || a.Status != models.AgentRevoked {
		t.Fatalf("the paper agent after going live: %+v %v", a, err)
	}
	if err := e.tc.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindAgentControl, paper.ID), "").Get(ctx, &res); err != nil || res.Status != models.AgentRevoked {
		t.Fatalf("the revoked paper agent's control: %+v %v", res, err)
	}
}
