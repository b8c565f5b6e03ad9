package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/venue/network"
)

// withStrategyFeed runs the price feed of the env's process over the
// sandbox's market channel, as `ats dev` does, so strategy triggers wait
// in it.
func (e *tradingEnv) withStrategyFeed(t testing.TB) {
	t.Helper()
	_, stop := app.RunPriceFeed(network.Sandbox(e.sandboxURL()).StreamsURL, e.svc.Orders.CLOB, e.svc, e.log)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = stop(ctx)
	})
}

type apiStrategy struct {
	ID          string      `json:"id"`
	Status      string      `json:"status"`
	Mode        string      `json:"mode"`
	EndedReason *string     `json:"endedReason"`
	BudgetUsed  json.Number `json:"budgetUsed"`
	OpenSize    json.Number `json:"openSize"`
	Executions  []struct {
		Seq         int         `json:"seq"`
		Kind        string      `json:"kind"`
		Reason      string      `json:"reason"`
		Side        *string     `json:"side"`
		OrderID     *string     `json:"orderId"`
		OrderStatus *string     `json:"orderStatus"`
		Amount      json.Number `json:"amount"`
	} `json:"executions"`
}

func (e *tradingEnv) createStrategy(t testing.TB, tr trader, body map[string]any) apiStrategy {
	t.Helper()
	status, b := e.call(t, tr.key, "POST", "/strategies", body)
	if status != 200 {
		t.Fatalf("create: %d %s", status, b)
	}
	return dataStrategy(t, b)
}

func dataStrategy(t testing.TB, b map[string]json.RawMessage) apiStrategy {
	t.Helper()
	var d struct {
		Strategy apiStrategy `json:"strategy"`
	}
	if err := json.Unmarshal(b["data"], &d); err != nil {
		t.Fatal(err)
	}
	return d.Strategy
}

// awaitStrategy polls GET /strategies/{id} until ok holds (30 s at most).
func (e *tradingEnv) awaitStrategy(t testing.TB, tr trader, id string, what string, ok func(apiStrategy) bool) apiStrategy {
	t.Helper()
	return awaitStrategyState(t, id, what, 30*time.Second, 100*time.Millisecond, func() apiStrategy {
		status, b := e.call(t, tr.key, "GET", "/strategies/"+id, nil)
		if status != 200 {
			t.Fatalf("get: %d %s", status, b)
		}
		return dataStrategy(t, b)
	}, ok)
}

// awaitStrategyState reads strategy id's state with read every interval
// until ok holds, failing t after limit: the one poll behind the tests'
// views of a strategy (the agent's answer, the user's, the store's).
func awaitStrategyState[S any](t testing.TB, id, what string, limit, interval time.Duration, read func() S, ok func(S) bool) S {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(interval) {
		s := read()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("strategy %s never %s: %+v", id, what, s)
		}
	}
}

func (e *tradingEnv) setPrice(t testing.TB, token, price string) {
	t.Helper()
	e.control(t, "/control/markets/"+token+"/price", `{"price":`+price+`}`, nil)
}

// awaitQuoted waits (30 s at most) until the sandbox's market makers quote
// token around price again: every level of theirs (100, 250 and 500
// shares, 1, 2 and 4 ticks away) on both sides of the book.
func (e *tradingEnv) awaitQuoted(t testing.TB, token string, price decimal.Decimal) {
	t.Helper()
	near := decimal.RequireFromString("0.05")
	want := decimal.NewFromInt(850)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		book, err := e.svc.Orders.CLOB.OrderBook(context.Background(), token)
		if err != nil {
			t.Fatal(err)
		}
		asks, bids := decimal.Zero, decimal.Zero
		for _, l := range book.Asks {
			if l.Price.LessThanOrEqual(price.Add(near)) {
				asks = asks.Add(l.Size)
			}
		}
		for _, l := range book.Bids {
			if l.Price.GreaterThanOrEqual(price.Sub(near)) {
				bids = bids.Add(l.Size)
			}
		}
		if asks.GreaterThanOrEqual(want) && bids.GreaterThanOrEqual(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the makers never quoted %s around %s again: %s shares offered, %s bid", token, price, asks, bids)
		}
	}
}

// TestStrategiesAgainstTheSandbox runs the three strategy types through
// the HTTP API against the sandbox venue, the worker and Temporal: a price
// moved with /control fires a PRICE_ALERT whose order reaches the venue
// and the strategy completes; BUY_LOW_SELL_HIGH buys low and sells high;
// RECURRING_BUY buys at once, and one whose priceLimit is below the
// market logs a skip.
func TestStrategiesAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will strategies trade")
	e.withStrategyFeed(t)
	yes := m.TokenIDs[0]

	t.Run("price alert", func(t *testing.T) {
		s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 20, "config": map[string]any{
			"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 10}})
		if s.Status != "ACTIVE" {
			t.Fatalf("created %+v", s)
		}
		time.Sleep(500 * time.Millisecond) // nothing happens at 0.5
		if _, b := e.call(t, tr.key, "GET", "/strategies/"+s.ID, nil); len(dataStrategy(t, b).Executions) != 0 {
			t.Fatal("the alert fired above its trigger")
		}
		t0 := time.Now()
		e.setPrice(t, yes, "0.3")
		done := e.awaitStrategy(t, tr, s.ID, "completed", func(s apiStrategy) bool { return s.Status == "COMPLETED" })
		t.Logf("price moved → strategy COMPLETED in %v", time.Since(t0))
		if done.EndedReason == nil || *done.EndedReason != "trigger_fired" || len(done.Executions) != 1 || done.Executions[0].OrderID == nil {
			t.Fatalf("completed %+v", done)
		}
		status, b := e.call(t, tr.key, "GET", "/orders/"+*done.Executions[0].OrderID, nil)
		o := dataOrder(t, b)
		if status != 200 || o.PolyOrderID == "" || o.Side != "BUY" {
			t.Fatalf("the alert's order: %d %+v", status, o)
		}
		if done.BudgetUsed.String() == "0" {
			t.Fatalf("budget not charged: %+v", done)
		}
	})

	t.Run("buy low sell high", func(t *testing.T) {
		e.setPrice(t, yes, "0.5")
		s := e.createStrategy(t, tr, map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 50, "config": map[string]any{
			"tokenId": yes, "buyBelow": 0.4, "sellAbove": 0.6, "sizePerTrade": 5}})
		e.setPrice(t, yes, "0.35")
		e.awaitStrategy(t, tr, s.ID, "bought", func(s apiStrategy) bool { return len(s.Executions) == 1 && s.OpenSize.String() != "0" })
		e.setPrice(t, yes, "0.65")
		// The sell's fills may reach the strategy after the execution that
		// placed it was recorded (they arrive as the order's changes):
		// wait until its openSize shows them.
		sold := e.awaitStrategy(t, tr, s.ID, "sold", func(s apiStrategy) bool { return len(s.Executions) == 2 && s.OpenSize.String() == "0" })
		if *sold.Executions[1].Side != "BUY" || *sold.Executions[0].Side != "SELL" || sold.OpenSize.String() != "0" ||
			sold.Executions[0].Kind != "action" || sold.Status != "ACTIVE" {
			t.Fatalf("cycle %+v", sold)
		}
		if status, b := e.call(t, tr.key, "DELETE", "/strategies/"+s.ID, nil); status != 200 || dataStrategy(t, b).Status != "CANCELLED" {
			t.Fatalf("delete: %d %s", status, b)
		}
	})

	t.Run("admin commands act as the user", func(t *testing.T) {
		bin := buildATS(t)
		keyFile := filepath.Join(e.dataDir, "master.key")
		if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(e.master)), 0o600); err != nil {
			t.Fatal(err)
		}
		u, err := e.store.UserByID(context.Background(), tr.userID)
		if err != nil {
			t.Fatal(err)
		}
		e.setPrice(t, yes, "0.5")
		s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
			"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
		admin := func(args ...string) string {
			t.Helper()
			args = append([]string{"admin", "strategy"}, args...)
			args = append(args, "--email", u.Email, "--data-dir", e.dataDir)
			if args[2] != "list" {
				args = append(args, "--strategy", s.ID, "--temporal", e.dev.FrontendAddr(), "--master-key-file", keyFile)
			}
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("ats %v: %v\n%s", args, err, out)
			}
			return string(out)
		}
		if out := admin("list", "--agent", tr.agentID); !strings.Contains(out, s.ID) || !strings.Contains(out, "ACTIVE") {
			t.Fatalf("list:\n%s", out)
		}
		if out := admin("pause"); !strings.Contains(out, "PAUSED") {
			t.Fatalf("pause: %s", out)
		}
		_, b := e.call(t, tr.key, "GET", "/strategies/"+s.ID, nil)
		var paused struct {
			Strategy struct {
				PausedBy *string `json:"pausedBy"`
			} `json:"strategy"`
		}
		_ = json.Unmarshal(b["data"], &paused)
		if paused.Strategy.PausedBy == nil || *paused.Strategy.PausedBy != "user" {
			t.Fatalf("an admin pause is a user pause: %s", b["data"])
		}
		until := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Second)
		if out := admin("extend", "--until", until.Format(time.RFC3339)); !strings.Contains(out, until.Format(time.RFC3339)) {
			t.Fatalf("extend: %s", out)
		}
		if out := admin("resume"); !strings.Contains(out, "ACTIVE") {
			t.Fatalf("resume: %s", out)
		}
		if out := admin("cancel"); !strings.Contains(out, "CANCELLED") {
			t.Fatalf("cancel: %s", out)
		}
	})

	t.Run("recurring buy", func(t *testing.T) {
		e.setPrice(t, yes, "0.5")
		// The makers re-quote a moved market by cancelling their quotes and
		// placing new ones; a market buy at the best ask read in between
		// finds no match. Start once the book is quoted again.
		e.awaitQuoted(t, yes, decimal.RequireFromString("0.5"))
		s := e.createStrategy(t, tr, map[string]any{"type": "RECURRING_BUY", "maxBudget": 10, "config": map[string]any{
			"tokenId": yes, "amountPerInterval": 2, "interval": "1h", "priceLimit": 0.9}})
		bought := e.awaitStrategy(t, tr, s.ID, "bought", func(s apiStrategy) bool { return len(s.Executions) == 1 })
		if bought.Executions[0].Kind != "action" || bought.Executions[0].OrderID == nil {
			t.Fatalf("first interval %+v", bought)
		}
		capped := e.createStrategy(t, tr, map[string]any{"type": "RECURRING_BUY", "maxBudget": 10, "config": map[string]any{
			"tokenId": yes, "amountPerInterval": 2, "intervalMs": 60000, "priceLimit": 0.2}})
		skipped := e.awaitStrategy(t, tr, capped.ID, "skipped", func(s apiStrategy) bool { return len(s.Executions) == 1 })
		if skipped.Executions[0].Kind != "skip" || skipped.Executions[0].OrderID != nil || skipped.Executions[0].Reason == "" {
			t.Fatalf("above the limit %+v", skipped)
		}
	})
}
