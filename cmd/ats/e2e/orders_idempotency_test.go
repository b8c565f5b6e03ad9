package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
)

func rawOrder(t testing.TB, raw []byte) apiOrder {
	t.Helper()
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	return dataOrder(t, body)
}

func errorCode(raw []byte) string {
	var b struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(raw, &b)
	return b.Code
}

// TestOrderIdempotencyAndScopingAgainstTheSandbox drives POST /orders with
// an Idempotency-Key through the whole stack: a replay answers the first
// response byte for byte without placing again, another body under the key
// is 422; a 202 (placement not answered in time, here because the worker
// is stopped) is not final, so the retry answers the order's current state
// once it is placed, and only that final answer is replayed. Another agent
// of the same user can neither read nor cancel the order (404). A FAK
// that can only partly fill keeps what filled and ends with the rest
// killed.
func TestOrderIdempotencyAndScopingAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{placeTimeout: 5 * time.Second}, "Will idempotency hold")
	yes := m.TokenIDs[0]
	const hdr = "Idempotency-Key"
	countOrders := func() int64 {
		n, err := e.store.CountOrders(context.Background(), store.OrderFilter{AgentID: tr.agentID})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// placeFinal posts until the answer is final: a slow machine may answer
	// 202 first, which the retry (same key) turns into the order's state.
	placeFinal := func(apiKey, key, body string) (int, []byte) {
		deadline := time.Now().Add(60 * time.Second)
		for {
			status, _, raw := e.send(t, apiKey, "POST", "/orders", body, hdr, key)
			if status != http.StatusAccepted || time.Now().After(deadline) {
				return status, raw
			}
		}
	}

	// Replay and reuse.
	body := `{"tokenId":"` + yes + `","side":"BUY","price":0.2,"size":10}`
	status, first := placeFinal(tr.key, "replay-1", body)
	if status != http.StatusOK || rawOrder(t, first).Status != models.OrderOpen {
		t.Fatalf("first: %d %s", status, first)
	}
	placed := rawOrder(t, first)
	status, h, again := e.send(t, tr.key, "POST", "/orders", `{"size":10, "price":0.2, "side":"BUY", "tokenId":"`+yes+`"}`, hdr, "replay-1")
	if status != http.StatusOK || !bytes.Equal(again, first) || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s %v, want the first answer %s", status, again, h, first)
	}
	status, _, reused := e.send(t, tr.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"BUY","price":0.21,"size":10}`, hdr, "replay-1")
	if status != http.StatusUnprocessableEntity || errorCode(reused) != "idempotency_key_reused" {
		t.Fatalf("another body under the key: %d %s", status, reused)
	}
	if n := countOrders(); n != 1 {
		t.Fatalf("%d orders placed, want 1", n)
	}

	// Another agent of the same user: not its order.
	plain, hash, prefix := secret.NewAPIKey()
	other := &models.Agent{UserID: tr.userID, Name: "other", Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000}
	if err := e.store.CreateAgentWithKey(context.Background(), other, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"GET", "DELETE"} {
		if status, _, raw := e.send(t, plain, method, "/orders/"+placed.ID, ""); status != http.StatusNotFound {
			t.Fatalf("%s of another agent's order: %d %s", method, status, raw)
		}
	}
	status, _, raw := e.send(t, tr.key, "GET", "/orders/"+placed.ID, "")
	if status != http.StatusOK || rawOrder(t, raw).Status != models.OrderOpen {
		t.Fatalf("the order after the other agent's cancel: %d %s", status, raw)
	}
	// The key is the agent's own: the other agent places its own order.
	status, raw = placeFinal(plain, "replay-1", body)
	if status != http.StatusOK || rawOrder(t, raw).ID == placed.ID {
		t.Fatalf("the other agent's order under the same key: %d %s", status, raw)
	}

	// 202 is not final.
	e.worker.Stop()
	slow := `{"tokenId":"` + yes + `","side":"BUY","price":0.25,"size":10}`
	status, h, raw = e.send(t, tr.key, "POST", "/orders", slow, hdr, "slow-1")
	if status != http.StatusAccepted || rawOrder(t, raw).Status != models.OrderPending {
		t.Fatalf("placement without a worker: %d %s", status, raw)
	}
	pending := rawOrder(t, raw)
	status, h, raw = e.send(t, tr.key, "POST", "/orders", slow, hdr, "slow-1")
	if status != http.StatusAccepted || rawOrder(t, raw).ID != pending.ID || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry without a worker: %d %s %v", status, raw, h)
	}
	e.startWorker(t)
	status, final := placeFinal(tr.key, "slow-1", slow)
	if o := rawOrder(t, final); status != http.StatusOK || o.ID != pending.ID || o.Status != models.OrderOpen {
		t.Fatalf("retry once the worker is back: %d %s", status, final)
	}
	status, h, raw = e.send(t, tr.key, "POST", "/orders", slow, hdr, "slow-1")
	if status != http.StatusOK || !bytes.Equal(raw, final) || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay of the final answer: %d %s %v", status, raw, h)
	}
	if n := countOrders(); n != 2 {
		t.Fatalf("%d orders placed, want 2", n)
	}

	// A FAK for more than the book holds at its price fills what there is
	// and the rest is killed. The market makers re-quote every 2 s, so the
	// depth read here may have grown by the time the order arrives: ask for
	// twice of it, as far as the demo wallet affords (a margin of 5 shares
	// was once outgrown under load).
	limit := decimal.RequireFromString("0.55")
	depth := e.askDepth(t, yes, limit)
	affordable := decimal.NewFromInt(900).Div(limit).Floor()
	size := decimal.Min(depth.Mul(decimal.NewFromInt(2)).Ceil(), affordable)
	if depth.IsZero() || size.LessThan(depth.Add(decimal.NewFromInt(5))) {
		t.Fatalf("the book holds %s shares up to %s: cannot test a partial FAK with the demo wallet", depth, limit)
	}
	status, fak := placeFinal(tr.key, "fak-1", `{"tokenId":"`+yes+`","side":"BUY","price":0.55,"size":`+size.String()+`,"type":"FAK"}`)
	o := rawOrder(t, fak)
	filled := decimal.RequireFromString(o.FilledSize.String())
	if status != http.StatusOK || !filled.IsPositive() || !filled.LessThan(size) || o.Status != models.OrderCancelled {
		t.Fatalf("partial FAK (book depth %s, size %s): %d %s", depth, size, status, fak)
	}
	t.Logf("partial FAK: %s of %s filled, status %s", filled, size, o.Status)

	// A FAK with nothing to match at its price is refused by the venue:
	// the order ends FAILED with the refusal's catalogue code stored
	// beside its text (a COPY_TRADE tells a copy the market moved away
	// from by it).
	status, raw = placeFinal(tr.key, "fak-2", `{"tokenId":"`+yes+`","side":"BUY","price":0.02,"size":100,"type":"FAK"}`)
	failed, err := e.store.ListOrders(context.Background(), store.OrderFilter{AgentID: tr.agentID, Statuses: []string{models.OrderFailed}})
	if err != nil || len(failed) != 1 || failed[0].FailureCode != errs.CodeFAKNoMatch || failed[0].FailureReason == "" {
		t.Fatalf("a FAK with nothing to match: %d %s; failed orders %+v %v", status, raw, failed, err)
	}
}
