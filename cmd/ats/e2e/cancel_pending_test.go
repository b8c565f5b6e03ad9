package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/workflows"
)

// TestCancelPendingOrderAgainstTheSandbox: a PENDING order is cancelled
// without waiting for its placement and is never posted afterwards. An
// order whose workflow never started (the API died between storing it and
// starting it) is cancelled directly instead of answering 404; an order
// whose workflow waits for a worker is cancelled by the workflow as soon
// as a worker runs it. Both answer previousStatus PENDING and hold no
// budget, and the venue never sees either.
func TestCancelPendingOrderAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{noWorker: true, placeTimeout: 2 * time.Second}, "Will pending cancels hold")
	yes := m.TokenIDs[0]
	ctx := context.Background()

	// An order stored PENDING whose workflow never started.
	orphan := e.orphanOrder(t, tr, yes)
	t0 := time.Now()
	status, body := e.call(t, tr.key, "DELETE", "/orders/"+orphan.ID, nil)
	if c := dataOrder(t, body); status != http.StatusOK || c.Status != models.OrderCancelled || c.PreviousStatus != models.OrderPending {
		t.Fatalf("cancel of an order without workflow: %d %s", status, body)
	}
	if took := time.Since(t0); took > 10*time.Second {
		t.Fatalf("the cancel took %v", took)
	}
	if n, err := e.svc.OrderDesk.ResumeStale(ctx, time.Now().Add(2*time.Minute), time.Minute); err != nil || n != 0 {
		t.Fatalf("ResumeStale after the cancel = %d, %v", n, err)
	}

	// An order placed while no worker runs: 202, PENDING.
	status, body = e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 10})
	pending := dataOrder(t, body)
	if status != http.StatusAccepted || pending.Status != models.OrderPending {
		t.Fatalf("place without a worker: %d %s", status, body)
	}
	w, err := worker.NewWithLogger(e.tc, app.WorkerDeps(e.store, e.svc), e.log)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	time.AfterFunc(time.Second, func() { started <- w.Start() })
	status, body = e.call(t, tr.key, "DELETE", "/orders/"+pending.ID, nil)
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	if c := dataOrder(t, body); status != http.StatusOK || c.Status != models.OrderCancelled || c.PreviousStatus != models.OrderPending {
		t.Fatalf("cancel of an order waiting for its placement: %d %s", status, body)
	}
	wf := workflows.WorkflowID(workflows.KindOrder, pending.ID)
	e.awaitWorkflowDone(t, wf)
	e.recordHistory(t, wf)

	status, body = e.call(t, tr.key, "GET", "/orders/"+pending.ID, nil)
	if o := dataOrder(t, body); status != http.StatusOK || o.Status != models.OrderCancelled {
		t.Fatalf("get the cancelled order: %d %s", status, body)
	}
	if venue := e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address), TokenID: yes}); len(venue) != 0 {
		t.Fatalf("the venue holds %d orders of the wallet: a cancelled PENDING order was posted", len(venue))
	}
	totals, err := e.store.BudgetTotals(ctx, tr.userID, tr.agentID)
	if err != nil || totals.AgentHeldMicro != 0 || totals.AgentUsedMicro != 0 {
		t.Fatalf("budget after the cancels: %+v %v", totals, err)
	}
}
