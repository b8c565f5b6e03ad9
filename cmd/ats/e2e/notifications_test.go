package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/notify"
)

// TestWebhookDeliveryOnTheStack: a fill of an agent's order, on the real
// stack (sandbox venue and chain, Temporal, the worker), writes the user's
// notification; the dispatcher starts its delivery workflow on the
// change; the receiver's first answer (503) is retried after the backoff
// and the second (200) ends it; both attempts are in the delivery log,
// and the post is signed with the user's secret. With
// ATS_RECORD_ORDER_HISTORY set, the delivery's history is recorded for
// the workflows' replay test.
func TestWebhookDeliveryOnTheStack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	e := newTradingEnv(t, tradingOpts{noWorker: true})
	hub := changes.NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	done := changes.Feed(ctx, e.store, hub, e.log)
	t.Cleanup(func() { cancel(); <-done })
	e.svc.Changes = hub
	e.svc.Notify.Delivery.AllowPrivate = true
	e.startWorker(t)

	var calls atomic.Int32
	posts := make(chan []byte, 4)
	var sig atomic.Value
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		sig.Store(r.Header.Get("X-ATS-Signature"))
		posts <- b
	}))
	t.Cleanup(rcv.Close)

	tr := e.newTrader(t, 0)
	st, err := e.svc.Notify.Save(ctx, tr.userID, []string{models.NotifyFill}, rcv.URL, false, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	m := e.newMarket(t, "Will the webhook arrive", "0.5")
	var placed struct {
		Order struct {
			ID string `json:"id"`
		} `json:"order"`
	}
	e.agentData(t, tr.key, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.6, "size": 5, "type": "MARKET"},
		http.StatusOK, &placed)
	o := placed.Order
	var body []byte
	select {
	case body = <-posts:
	case <-time.After(90 * time.Second):
		t.Fatalf("no delivery (%d attempts)", calls.Load())
	}
	if err := notify.Verify(st.Secret, sig.Load().(string), body, time.Now(), time.Minute); err != nil {
		t.Fatalf("signature: %v", err)
	}
	var p notify.Payload
	if err := json.Unmarshal(body, &p); err != nil || p.Type != models.NotifyFill || p.Data["orderId"] != o.ID {
		t.Fatalf("payload %v %s", err, body)
	}
	wf := "webhook/" + p.ID
	e.awaitWorkflowDone(t, wf)
	log, err := e.svc.Notify.Deliveries(ctx, tr.userID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].StatusCode != 200 || log[0].Attempt != 2 || log[1].StatusCode != 503 || log[1].Attempt != 1 {
		t.Fatalf("delivery log %+v", log)
	}
	got, err := e.store.NotificationByID(ctx, p.ID)
	if err != nil || got.Webhook != models.WebhookDelivered {
		t.Fatalf("notification %+v %v", got, err)
	}
	e.recordHistory(t, wf)
}
