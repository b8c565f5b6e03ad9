package e2e

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
)

// sibling links another agent to tr's user: it trades with the same
// wallet.
func (e *tradingEnv) sibling(t testing.TB, tr trader, name string) trader {
	t.Helper()
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: tr.userID, Name: name, Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000}
	if err := e.store.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return trader{userID: tr.userID, agentID: a.ID, key: plain, wallet: tr.wallet}
}

// TestAgentsStayInTheirLaneAgainstTheSandbox performs, through the whole
// stack, the attacks on a shared wallet that issue 12 lists, and checks the
// operator's spending controls reach the order path:
//
//   - agent A buys 10 shares; agent B of the same user (same wallet, which
//     holds the 10 shares) tries to sell them: 409 insufficient_position,
//     and A's position and the wallet's shares are intact;
//   - `ats admin agent budget` gives B a fixed limit of 2 USDC: B's order
//     for 5 USDC is refused with budget_exceeded while one within the limit
//     passes; --clear fixed_limit lifts it again.
func TestAgentsStayInTheirLaneAgainstTheSandbox(t *testing.T) {
	e, a, m := newTradingTest(t, tradingOpts{}, "Will agents keep to their lane")
	ctx := context.Background()
	yes := m.TokenIDs[0]
	status, body := e.call(t, a.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
	if o := dataOrder(t, body); status != http.StatusOK || o.Status != models.OrderFilled || o.FilledSize.String() != "10" {
		t.Fatalf("A's market buy: %d %s", status, body)
	}
	b := e.sibling(t, a, "agent b")
	tok, _ := new(big.Int).SetString(yes, 10)
	held := func() *big.Int {
		t.Helper()
		bal, err := e.svc.Orders.Chain.OutcomeBalance(ctx, common.HexToAddress(a.wallet.Address), tok)
		if err != nil {
			t.Fatal(err)
		}
		return bal
	}
	if got := held(); got.Int64() != 10_000_000 {
		t.Fatalf("the wallet holds %s micro-shares after A's buy", got)
	}

	// The attack, as an order and as a market sell.
	for _, typ := range []string{"LIMIT", "MARKET"} {
		status, _, raw := e.send(t, b.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"SELL","price":0.3,"size":10,"type":"`+typ+`"}`)
		if status != http.StatusConflict || errorCode(raw) != "insufficient_position" {
			t.Fatalf("B's %s sell of A's shares: %d %s", typ, status, raw)
		}
	}
	var list struct {
		Positions []struct {
			ID   string      `json:"id"`
			Size json.Number `json:"size"`
		} `json:"positions"`
	}
	status, body = e.call(t, a.key, "GET", "/positions", nil)
	if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil || len(list.Positions) != 1 || list.Positions[0].Size.String() != "10" {
		t.Fatalf("A's positions after B's attempts: %d %s", status, body)
	}
	status, body = e.call(t, b.key, "GET", "/positions", nil)
	if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil || len(list.Positions) != 0 {
		t.Fatalf("B's positions: %d %s", status, body)
	}
	if got := held(); got.Int64() != 10_000_000 {
		t.Fatalf("the wallet holds %s micro-shares after B's attempts", got)
	}
	if n, err := e.store.CountOrders(ctx, store.OrderFilter{AgentID: b.agentID}); err != nil || n != 0 {
		t.Fatalf("B has %d orders (%v)", n, err)
	}

	// Spending controls through the operator command.
	u, err := e.store.UserByID(ctx, a.userID)
	if err != nil {
		t.Fatal(err)
	}
	operator := &adminFixture{dir: e.dataDir}
	budget := func(args ...string) string {
		t.Helper()
		out, err := operator.admin(t, append([]string{"budget", "--email", u.Email, "--agent", b.agentID}, args...)...)
		if err != nil {
			t.Fatalf("ats admin agent budget %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	if out := budget("--fixed-limit", "2"); !strings.Contains(out, "fixed_limit 2 USDC") {
		t.Fatalf("budget command output %q", out)
	}
	buy := func(price string) (int, []byte) {
		status, _, raw := e.send(t, b.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"BUY","price":`+price+`,"size":10,"dryRun":true}`)
		return status, raw
	}
	if status, raw := buy("0.5"); status != http.StatusConflict || errorCode(raw) != "budget_exceeded" {
		t.Fatalf("B's 5 USDC buy over its 2 USDC limit: %d %s", status, raw)
	}
	if status, _, raw := e.send(t, b.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"BUY","price":0.5,"size":10}`); status != http.StatusConflict || errorCode(raw) != "budget_exceeded" {
		t.Fatalf("B's 5 USDC buy placed for real: %d %s", status, raw)
	}
	if status, raw := buy("0.2"); status != http.StatusOK {
		t.Fatalf("B's 2 USDC buy within its limit: %d %s", status, raw)
	}
	if out := budget("--clear", "fixed_limit"); !strings.Contains(out, "fixed_limit unset") {
		t.Fatalf("budget command output %q", out)
	}
	if status, raw := buy("0.5"); status != http.StatusOK {
		t.Fatalf("B's 5 USDC buy once the limit is cleared: %d %s", status, raw)
	}
}
