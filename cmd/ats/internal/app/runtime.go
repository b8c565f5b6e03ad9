package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/logging"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/workflows"
)

// The store is the production Housekeeper.
var _ activities.Housekeeper = (*store.Store)(nil)

// MasterKeyFileName is the key `ats dev` generates into its data dir.
const MasterKeyFileName = "master.key"

func newLogger(c *cli.Context) *slog.Logger {
	log := logging.NewLogger(os.Stderr, parseLevel(c.String(flagLogLevel)), c.String(flagLogFormat) != "text")
	slog.SetDefault(log)
	return log
}

// openStore opens the database and applies pending migrations (every
// process migrates at start-up; the migration library serialises them).
func openStore(ctx context.Context, c *cli.Context, log *slog.Logger) (*store.Store, error) {
	dir := c.String(flagDataDir)
	dbURL, err := databaseURL(c)
	if err != nil {
		return nil, err
	}
	if dbURL == "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create data dir: %w", err)
		}
	}
	s, err := store.Open(ctx, store.Config{URL: dbURL, DataDir: dir, Logger: log})
	if err != nil {
		return nil, err
	}
	if _, err := s.Migrate(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// DialTemporal connects to the frontend (over TLS or with an API key when
// configured) with the payload codec keyed from the master keys and makes
// sure the search attributes exist.
func DialTemporal(ctx context.Context, conn TemporalConn, keys MasterKeys, log *slog.Logger) (client.Client, error) {
	cd, err := keys.Codec()
	if err != nil {
		return nil, err
	}
	mh, err := temporalMetrics()
	if err != nil {
		return nil, err
	}
	ics, err := temporalInterceptors(conn.Tracing)
	if err != nil {
		return nil, err
	}
	tc, err := worker.Dial(ctx, worker.ClientConfig{
		HostPort:       conn.HostPort,
		Namespace:      conn.Namespace,
		Codec:          cd,
		TLS:            conn.TLS,
		APIKey:         conn.apiKey,
		Logger:         log,
		Interceptors:   ics,
		MetricsHandler: mh,
	})
	if err != nil {
		return nil, err
	}
	saCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := devserver.EnsureSearchAttributes(saCtx, tc, conn.Namespace); err != nil {
		tc.Close()
		return nil, err
	}
	return tc, nil
}

// startWorker runs the Temporal worker until the stack stops.
func startWorker(ctx context.Context, st *stack, tc client.Client, svc *Services, deps worker.Deps, log *slog.Logger) error {
	w, err := worker.NewWithLogger(tc, deps, log)
	if err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	st.onStop("worker", func(context.Context) error { w.Stop(); return nil })
	if svc != nil && svc.OrderDesk != nil && svc.OrderDesk.Runs != nil {
		resumeStaleOrders(ctx, st, svc.OrderDesk, log)
	}
	if e, ok := deps.Strategies.(*strategies.Engine); ok {
		if t, ok := e.Triggers.(*strategies.Triggers); ok {
			// The conditions of ACTIVE strategies lived in the memory of
			// the process that armed them: re-register them here.
			n, err := t.Rebuild(ctx, e.Store)
			if err != nil {
				return fmt.Errorf("rebuild strategy triggers: %w", err)
			}
			log.Info("strategy triggers rebuilt", "strategies", n)
			followTriggers(ctx, st, t, e.Store)
		}
	}
	schedCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return workflows.EnsureHousekeepingSchedule(schedCtx, tc)
}

// startPlacer runs the worker of a process that places orders but runs
// no other workflow (`ats api`: worker.NewPlacer) until the stack stops.
func startPlacer(st *stack, tc client.Client, svc *Services, log *slog.Logger) error {
	w, err := worker.NewPlacer(tc, WorkerDeps(svc.store, svc), log)
	if err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the order placement worker: %w", err)
	}
	st.onStop("placer", func(context.Context) error { w.Stop(); return nil })
	return nil
}

// followTriggers keeps t in line with the database by events (a strategy
// created, changed or ended anywhere is announced to every worker: see
// strategies.Triggers.Follow) until the stack stops. There is no periodic
// scan: a strategy whose conditions lived in a worker that died is already
// armed in the others, which armed every strategy at start and follow every
// change since.
func followTriggers(ctx context.Context, st *stack, t *strategies.Triggers, s *store.Store) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	st.onStop("strategy-trigger-follow", func(context.Context) error { cancel(); <-done; return nil })
	go func() {
		defer close(done)
		t.Follow(ctx, s, nil)
	}()
}

// readinessChecks are the /readyz probes of a process that serves the API.
func readinessChecks(s *store.Store, tc client.Client, venue func(context.Context) error) []api.Check {
	checks := []api.Check{
		{Name: "database", Fn: s.Ping},
		{Name: "temporal", Fn: func(ctx context.Context) error {
			_, err := tc.CheckHealth(ctx, &client.CheckHealthRequest{})
			if err != nil {
				return errs.Wrap(errs.Transient, err, "temporal frontend does not answer")
			}
			return nil
		}},
		{Name: "worker", Fn: func(ctx context.Context) error {
			// Both queues need a worker polling workflow and activity
			// tasks (an API's own placement worker polls no activities).
			if err := worker.WorkerAlive(ctx, tc, workflows.TaskQueue); err != nil {
				return err
			}
			return worker.WorkerAlive(ctx, tc, workflows.OrderTaskQueue)
		}},
	}
	if venue != nil {
		checks = append(checks, api.Check{Name: "venue", Fn: venue})
	}
	return checks
}

// resumeStaleOrders looks for orders left PENDING without a workflow (the
// API died between storing an order and starting its workflow) at start-up
// and every minute until the stack stops; starting an order's workflow is
// idempotent, so several workers doing it is harmless.
func resumeStaleOrders(ctx context.Context, st *stack, r *workflows.OrderDesk, log *slog.Logger) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	st.onStop("stale-order-resumer", func(context.Context) error { cancel(); <-done; return nil })
	go func() {
		defer close(done)
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			if n, err := r.ResumeStale(ctx, time.Now(), time.Minute); err != nil && ctx.Err() == nil {
				log.Warn("resuming stale pending orders failed", "err", err)
			} else if n > 0 {
				log.Info("resumed workflows of stale pending orders", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}
