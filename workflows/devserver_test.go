package workflows_test

import (
	"github.com/agent-trading/ats/activities"

	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/devserver/devservertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// onDevServer starts a Temporal dev server (the test is skipped in -short
// mode) and workers on it running every workflow and acts, and returns a
// client whose payloads are encrypted with the replay tests' key — so a
// history recorded from it replays in replay_test.go — and a context
// bounding the test. Worker, client and server stop when t ends, in that
// order.
func onDevServer(t *testing.T, acts ...any) (context.Context, client.Client) {
	t.Helper()
	return onDevServerWithOrders(t, nil, acts...)
}

// onDevServerWithOrders is onDevServer whose order task queue runs order,
// when set, as the Order workflow (a stand-in that places orders on the
// strategies fixture's venue: venueOrder).
func onDevServerWithOrders(t *testing.T, order any, acts ...any) (context.Context, client.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := devservertest.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	srv, err := devserver.Start(ctx, devserver.Options{Binary: bin, UIPort: -1, DBFile: filepath.Join(t.TempDir(), "temporal.db"), LogLevel: "error"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	c, err := worker.Dial(ctx, worker.ClientConfig{HostPort: srv.FrontendAddr(), CodecKey: replaytest.HistoryCodecKey,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// Orders run on their own task queue (workflows.OrderTaskQueue), as
	// in production's workers.
	for _, q := range []string{workflows.TaskQueue, workflows.OrderTaskQueue} {
		w := sdkworker.New(c, q, sdkworker.Options{})
		if order != nil && q == workflows.OrderTaskQueue {
			w.RegisterWorkflowWithOptions(order, workflow.RegisterOptions{Name: "Order"})
		} else {
			workflows.Register(w)
		}
		for _, a := range acts {
			w.RegisterActivity(a)
			if s, ok := a.(*activities.Strategies); ok && q == workflows.TaskQueue {
				// Executions at strategy-shape 2 start their orders.
				w.RegisterActivity(&workflows.StrategyPlacer{Engine: s.Engine, Orders: workflows.OrderDeskClient{Client: c}})
			}
		}
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
	}
	return ctx, c
}
