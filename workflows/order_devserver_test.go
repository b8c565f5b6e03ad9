package workflows_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdkworker "go.temporal.io/sdk/worker"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/devserver/devservertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestOrderCancelDuringPlacementBackoffOnDevServer runs the order workflow
// on a real Temporal server, whose activity retries and cancellation the
// test environment only imitates: an order whose placement keeps failing
// is cancelled while the placement backs off. The cancel answers at once
// (previousStatus PENDING), the placement is stopped (no further attempt)
// and the workflow ends CANCELLED. An order without a workflow, and one
// whose workflow ended, answer errs.CodeOrderWorkflowNotFound, for the service to
// cancel them directly. With ATS_RECORD_HISTORY=<path> it writes the
// history for the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/order_cancel_backoff.json \
//	  go test -run TestOrderCancelDuringPlacementBackoffOnDevServer ./workflows/
func TestOrderCancelDuringPlacementBackoffOnDevServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := devservertest.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{Binary: bin, UIPort: -1, DBFile: filepath.Join(t.TempDir(), "temporal.db"), LogLevel: "error"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Stop() }()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := worker.Dial(ctx, worker.ClientConfig{HostPort: srv.FrontendAddr(), CodecKey: replaytest.HistoryCodecKey, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000, failSubmits: 1 << 30}
	w := sdkworker.New(c, workflows.TaskQueue, sdkworker.Options{})
	workflows.Register(w)
	w.RegisterActivity(&activities.Orders{Steps: f, Intents: intenttest.Keys(t)})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	oc := workflows.OrderClient{Client: c, Intents: intenttest.Keys(t)}
	if _, _, err := oc.Cancel(ctx, "ord_none"); errs.CodeOf(err) != errs.CodeOrderWorkflowNotFound {
		t.Fatalf("cancel without a workflow: %v", err)
	}
	if err := oc.Resume(ctx, "ord_1", "usr_1", "agt_1", "123"); err != nil {
		t.Fatal(err)
	}
	submits := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.submits
	}
	for submits() < 3 { // attempts at 0, 0.5 and 1.5 s: the next one is 2 s away
		if ctx.Err() != nil {
			t.Fatal("the placement was never attempted three times")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t0 := time.Now()
	prev, status, err := oc.Cancel(ctx, "ord_1")
	if took := time.Since(t0); err != nil || prev != "PENDING" || status != "CANCELLED" || took > 5*time.Second {
		t.Fatalf("cancel during the backoff: %q %q %v after %v", prev, status, err, took)
	}
	id := workflows.WorkflowID(workflows.KindOrder, "ord_1")
	var res activities.OrderState
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || res.Status != "CANCELLED" {
		t.Fatalf("workflow result %+v %v", res, err)
	}
	n := submits()
	time.Sleep(3 * time.Second) // past the next attempt the placement would have made
	if submits() != n || n > 4 {
		t.Fatalf("%d placement attempts by the cancel, %d after it", n, submits())
	}
	if _, _, err := oc.Cancel(ctx, "ord_1"); errs.CodeOf(err) != errs.CodeOrderWorkflowNotFound {
		t.Fatalf("cancel after the workflow ended: %v", err)
	}

	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, id, ""))
	}
}
