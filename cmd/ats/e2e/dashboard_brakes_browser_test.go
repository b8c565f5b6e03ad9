package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/strategies"
)

// TestDashboardBrakesInTheBrowser drives the user's brakes in headless
// Chromium through the real server (sandbox venue, Temporal, worker): on
// the Orders page, cancel on one open order's row and "cancel all" of the
// agent's open orders, each cancelled on the venue; on the Positions
// page, close on the position's row (confirmed), a SELL through the
// normal order path in the agent's name; and "stop everything", which
// asks for a fresh second factor like revoke does, then pauses both
// agents (their keys get 401) and the strategy (by the user) and cancels
// the other agent's open order. Each is in the activity log.
func TestDashboardBrakesInTheBrowser(t *testing.T) {
	dashboardtest.ChromiumPath(t)
	if testing.Short() {
		t.Skip("starts the sandbox, Temporal and a browser")
	}
	const fresh = 4 * time.Second
	e := newTradingEnv(t, tradingOpts{dashboard: true, freshFor: fresh})
	ctx := context.Background()
	b := dashboardtest.NewBrowser(t, e.publicURL)
	const email, password = "brakes@sandbox.test", "correct horse battery staple"
	b.Open("/signup")
	b.Fill("email", email)
	b.Fill("password", password)
	b.Click("#signup-submit", "/?done=welcome")
	u, err := e.store.UserByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.svc.Wallets.SeedDemo(ctx, e.sb.EVM(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	agent := func(name string) trader {
		t.Helper()
		plain, hash, prefix := secret.NewAPIKey()
		a := &models.Agent{UserID: u.ID, Name: name, Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000}
		if err := e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
			t.Fatal(err)
		}
		return trader{userID: u.ID, agentID: a.ID, key: plain, wallet: w}
	}
	alice, bob := agent("alice-bot"), agent("bob-bot")
	m := e.newMarket(t, "Will the brakes work in the browser", "0.5")
	yes := m.TokenIDs[0]
	order := func(a trader, body map[string]any, want string) string {
		t.Helper()
		status, resp := e.call(t, a.key, "POST", "/orders", body)
		o := dataOrder(t, resp)
		if status != http.StatusOK || o.Status != want {
			t.Fatalf("order %v: %d %s", body, status, resp)
		}
		return o.ID
	}
	order(alice, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"}, models.OrderFilled)
	one := order(alice, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 5}, models.OrderOpen)
	two := order(alice, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.21, "size": 5}, models.OrderOpen)
	three := order(alice, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.22, "size": 5}, models.OrderOpen)
	bobs := order(bob, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 5}, models.OrderOpen)
	st := e.createStrategy(t, bob, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
	statusOf := func(id string) string {
		t.Helper()
		o, err := e.store.OrderByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return o.Status
	}

	// Cancel one order on its row.
	b.Open("/orders?agent=" + alice.agentID)
	b.See("3 open orders of this agent", "Cancel all open orders")
	b.Screenshot("orders-controls")
	b.Click("#row-"+one+" button", "/orders?")
	b.See("Order cancelled.")
	if s := statusOf(one); s != models.OrderCancelled {
		t.Fatalf("the order cancelled on its row is %s", s)
	}
	if s := statusOf(two); s != models.OrderOpen {
		t.Fatalf("another order is %s after one was cancelled", s)
	}
	// Cancel all of the agent's.
	b.See("2 open orders of this agent")
	b.Click("#cancel-all", "/orders?")
	b.See("The agent's open orders were cancelled.")
	for _, id := range []string{two, three} {
		if s := statusOf(id); s != models.OrderCancelled {
			t.Fatalf("order %s after cancel all: %s", id, s)
		}
	}
	if s := statusOf(bobs); s != models.OrderOpen {
		t.Fatalf("the other agent's order after cancel all: %s", s)
	}

	// Close the position on its row (the fair price set again: the
	// sandbox's walks a tick now and then).
	e.setPrice(t, yes, "0.5")
	e.awaitQuoted(t, yes, decimal.RequireFromString("0.5"))
	b.Open("/positions?agent=" + alice.agentID)
	b.See("Will the brakes work in the browser")
	b.Click(`a[href^="/positions/pos_"]`, "/positions/pos_")
	b.See("Close at market", "alice-bot")
	b.Click("#confirm-submit", "/positions?")
	b.See("Position closed")
	var sold bool
	for _, o := range e.agentOrders(t, alice.agentID) {
		if o.Side == "SELL" && o.Status == models.OrderFilled && o.FilledSizeMicro == 10_000_000 {
			sold = true
		}
	}
	if !sold {
		t.Fatalf("the close sold nothing: %+v", e.agentOrders(t, alice.agentID))
	}

	// Stop everything, after a fresh second factor.
	b.Open("/security")
	b.Click("#enable-2fa", "/security/2fa")
	totpSecret := b.Text("#totp-secret")
	b.Fill("code", totpCode(t, totpSecret, time.Now()))
	b.Click("#totp-confirm", "/security/2fa/confirm")
	time.Sleep(fresh + time.Second)
	b.Open("/")
	b.Click("#stop-everything", "/reauth?next=%2Fstop")
	b.Fill("code", totpCode(t, totpSecret, time.Now().Add(30*time.Second)))
	b.Click("#code-submit", "/stop")
	b.See("Stop everything?", "Every agent is paused")
	// The report is the answer to the form, at the same address.
	b.Do(chromedp.Click(chromedp.ID("stop-submit")), chromedp.WaitVisible(chromedp.ID("stop-report")))
	b.See("2 agents paused, 1 strategy paused, 1 open order cancelled")
	b.Screenshot("stopped")
	for _, a := range []trader{alice, bob} {
		if s, _ := e.call(t, a.key, "GET", "/me", nil); s != http.StatusUnauthorized {
			t.Fatalf("a stopped agent's key: %d", s)
		}
	}
	if s := statusOf(bobs); s != models.OrderCancelled {
		t.Fatalf("the other agent's order after stop everything: %s", s)
	}
	if s := e.userStrategy(t, bob, st.ID); s.Status != strategies.StatusPaused || s.PausedBy != strategies.ByUser {
		t.Fatalf("the strategy after stop everything: %+v", s)
	}
	b.Open("/audit")
	b.See("Stopped everything", "Agents paused: 2 · Strategies paused: 1 · Orders cancelled: 1", "Order cancelled", "Order placed")
	page, err := e.svc.Audit.List(ctx, audit.Filter{UserID: u.ID, Action: audit.ActionOrderCancel, Limit: 100})
	if err != nil || len(page.Entries) != 4 {
		t.Fatalf("%d cancels audited (%v), want 4", len(page.Entries), err)
	}
	for _, en := range page.Entries {
		if !strings.Contains(string(en.Detail), `"by":"user"`) {
			t.Fatalf("a cancel audited as %s", en.Detail)
		}
	}
}
