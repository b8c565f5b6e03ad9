package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/workflows"
)

// TestEagerPlacementAgainstTheSandbox runs the order path as `ats dev`
// wires it: the workflow started eagerly on the in-process worker, the
// placement a local activity in its first workflow task, the API answered
// from that attempt. A placement costs one workflow task and no activity
// task. When the venue's answer to a post is lost (the venue took the
// order, the service saw a 503), the attempt fails, the API waits for the
// workflow instead, and the workflow's next attempt — after a backoff
// timer — finds the order on the venue and adopts it: posted once, never
// twice. The order is then cancelled through its workflow as usual.
// With ATS_RECORD_ORDER_HISTORY=<path> it writes the second order's
// history (workflows/testdata/order_local.json).
func TestEagerPlacementAgainstTheSandbox(t *testing.T) {
	var posts atomic.Int64
	loseSecondAnswer := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/clob/order" && posts.Add(1) == 2 {
				next.ServeHTTP(httptest.NewRecorder(), r)                                        // the venue takes it...
				http.Error(w, `{"error":"upstream unavailable"}`, http.StatusServiceUnavailable) // ...the answer is lost
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	e, tr, m := newTradingTest(t, tradingOpts{eager: true, wrapCLOB: loseSecondAnswer}, "Will the fast path hold")
	token := m.TokenIDs[0]
	place := func(price string) apiOrder {
		t.Helper()
		status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": price, "size": 5})
		o := dataOrder(t, body)
		if status != http.StatusOK || o.Status != models.OrderOpen || !strings.HasPrefix(o.PolyOrderID, "0x") {
			t.Fatalf("resting buy at %s: %d %s", price, status, body)
		}
		// The answer is the order as stored: on this path the placement
		// attempt's own view of the row it wrote, not read back.
		if st, got := e.call(t, tr.key, "GET", "/orders/"+o.ID, nil); st != http.StatusOK || string(got["data"]) != string(body["data"]) {
			t.Fatalf("the placement answered\n%s\nthe order reads\n%s", body["data"], got["data"])
		}
		return o
	}
	count := func(id string) map[enumspb.EventType]int {
		t.Helper()
		n := map[enumspb.EventType]int{}
		it := e.tc.GetWorkflowHistory(context.Background(), workflows.WorkflowID(workflows.KindOrder, id), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			n[ev.GetEventType()]++
		}
		return n
	}

	first := place("0.2")
	// The answer comes from the attempt inside the first workflow task;
	// the task's completion reaches the history a moment later.
	n := count(first.ID)
	for deadline := time.Now().Add(10 * time.Second); n[enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED] == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		n = count(first.ID)
	}
	if n[enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED] != 1 || n[enumspb.EVENT_TYPE_MARKER_RECORDED] < 1 ||
		n[enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED] != 0 || n[enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED] != 0 {
		t.Fatalf("the placement's history: %v", n)
	}

	second := place("0.21")
	if posts.Load() != 2 {
		t.Fatalf("%d posts: the second order's lost answer was posted again", posts.Load())
	}
	if n := count(second.ID); n[enumspb.EVENT_TYPE_TIMER_STARTED] != 1 || n[enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED] != 0 {
		t.Fatalf("the retried placement's history (one backoff timer, attempts as local activities): %v", n)
	}
	venue := e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address), TokenID: token})
	if len(venue) != 2 {
		t.Fatalf("the venue holds %d orders of the wallet in the token, want the 2 placed", len(venue))
	}

	status, body := e.call(t, tr.key, "DELETE", "/orders/"+second.ID, nil)
	if o := dataOrder(t, body); status != http.StatusOK || o.Status != models.OrderCancelled || o.PreviousStatus != models.OrderOpen {
		t.Fatalf("cancel: %d %s", status, body)
	}
	wid := workflows.WorkflowID(workflows.KindOrder, second.ID)
	e.awaitWorkflowDone(t, wid)
	e.recordHistory(t, wid)
}
