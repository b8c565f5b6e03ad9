package e2e

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
)

// btRow is a simulated execution row of the dashboard's backtest.
var btRow = regexp.MustCompile(`<tr data-seq="\d+" data-time="([^"]+)" data-side="([^"]*)" data-price="([^"]*)" data-size="([^"]*)" data-filled="([^"]*)">`)

// TestDashboardBacktestAgainstTheSandbox runs a strategy's backtest from
// its dashboard page in the service as `ats dev` wires it (the venue's
// recorded history in the sandbox, the per-user limit) and gets the
// executions the agent API answers for the same config and window.
func TestDashboardBacktestAgainstTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	e := newTradingEnv(t, tradingOpts{dashboard: true})
	ctx := context.Background()
	const email, password = "backtest@sandbox.test", "correct horse battery staple"
	c := dashboardtest.New(t, e.publicURL)
	if r := c.Submit("/signup", "/signup", url.Values{"email": {email}, "password": {password}}); r.Status != http.StatusSeeOther {
		t.Fatalf("sign up: %d", r.Status)
	}
	u, err := e.store.UserByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.svc.Wallets.SeedDemo(ctx, e.sb.EVM(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "band-bot", Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000}
	if err := e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	tr := trader{userID: u.ID, agentID: a.ID, key: plain, wallet: w}

	m := e.newMarket(t, "Will the dashboard backtest replay", "0.5")
	yes := m.TokenIDs[0]
	// Buys 10 at 0.39, sells them at 0.61, buys 10 again at 0.40 (as
	// TestBacktestAgainstTheSandbox works out).
	t0 := time.Now().UTC().Truncate(time.Minute).Add(-6 * time.Hour)
	e.recordPath(t, yes, t0, time.Minute, "0.50", "0.38", "0.45", "0.62", "0.39", "0.55")
	config := map[string]any{"tokenId": yes, "buyBelow": 0.40, "sellAbove": 0.60, "sizePerTrade": 10}
	s := e.createStrategy(t, tr, map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 100, "config": config})

	page := "/strategies/" + s.ID
	r := c.Submit(page, page+"/backtest", url.Values{"window": {"custom"}, "from": {t0.Format("2006-01-02T15:04")},
		"to": {t0.Add(3 * time.Hour).Format("2006-01-02T15:04")}, "balance": {"100"}})
	if r.Status != http.StatusOK || !strings.Contains(r.Body, `id="backtest-result"`) {
		t.Fatalf("backtest from the page: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(r.Body, `class="mark buy simulated"`) || !strings.Contains(r.Body, `class="mark sell simulated"`) {
		t.Fatal("no simulated marks on the chart")
	}
	var got []string
	for _, m := range btRow.FindAllStringSubmatch(r.Body, -1) {
		at, err := time.Parse(time.RFC3339, html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %s", at.Sub(t0), m[2], decimal.RequireFromString(m[3]), decimal.RequireFromString(m[4]), decimal.RequireFromString(m[5])))
	}
	status, bt, code := e.backtest(t, tr, "BUY_LOW_SELL_HIGH", config, "100", t0, t0.Add(3*time.Hour))
	if status != http.StatusOK {
		t.Fatalf("API backtest: %d %s", status, code)
	}
	dec := func(n fmt.Stringer) decimal.Decimal {
		if n.String() == "" {
			return decimal.Zero
		}
		return decimal.RequireFromString(n.String())
	}
	var want []string
	for _, x := range bt.Executions {
		want = append(want, fmt.Sprintf("%s %s %s %s %s", x.Time.Sub(t0), deref(x.Side), dec(x.Price), dec(x.Size), dec(x.FilledSize)))
	}
	if len(want) != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the page's executions:\n%s\nthe API's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
