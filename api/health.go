package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/singleflight"

	"github.com/agent-trading/ats/models/errs"
)

// ReadyReport is the /readyz body. Checks maps each check name to "ok" or
// a client-safe reason; Down lists the failing names, sorted.
type ReadyReport struct {
	Status string            `json:"status"`
	Down   []string          `json:"down,omitempty"`
	Checks map[string]string `json:"checks"`
}

// healthz answers as long as the process serves HTTP; it checks nothing
// else so that an orchestrator does not restart the process because a
// dependency is down.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz answers the readiness report, 200 only when every check passes.
// The report is reused for Config.ReadyCacheTTL, and concurrent callers
// share one probe, so /readyz costs the dependencies about one probe per
// TTL however often it is called.
func (s *Server) readyz(c *gin.Context) {
	rep := s.cachedReady(c.Request.Context())
	status := http.StatusOK
	if rep.Status != "ready" {
		status = http.StatusServiceUnavailable
	}
	c.JSON(status, rep)
}

// readyCache holds the last readiness report and joins concurrent probes.
type readyCache struct {
	flight singleflight.Group
	mu     sync.Mutex
	at     time.Time
	rep    *ReadyReport
}

func (s *Server) cachedReady(ctx context.Context) ReadyReport {
	ttl := s.cfg.ReadyCacheTTL
	if ttl < 0 {
		return s.Ready(ctx)
	}
	fresh := func() (ReadyReport, bool) {
		s.ready.mu.Lock()
		defer s.ready.mu.Unlock()
		if s.ready.rep != nil && s.cfg.Now().Sub(s.ready.at) < ttl {
			return *s.ready.rep, true
		}
		return ReadyReport{}, false
	}
	if rep, ok := fresh(); ok {
		return rep
	}
	ch := s.ready.flight.DoChan("ready", func() (any, error) {
		if rep, ok := fresh(); ok {
			return rep, nil
		}
		// Shared by every caller waiting now: one of them hanging up
		// must not fail the others' probe.
		rep := s.Ready(context.WithoutCancel(ctx))
		s.ready.mu.Lock()
		s.ready.rep, s.ready.at = &rep, s.cfg.Now()
		s.ready.mu.Unlock()
		return rep, nil
	})
	select {
	case r := <-ch:
		return r.Val.(ReadyReport)
	case <-ctx.Done():
		return ReadyReport{Status: "unavailable", Down: []string{"request"}, Checks: map[string]string{"request": "cancelled"}}
	}
}

// Ready runs the readiness checks concurrently, each bounded by the
// configured ReadyTimeout even if it ignores its context, and reports the
// result. It is exported for `ats` to print the same report at start-up.
func (s *Server) Ready(ctx context.Context) ReadyReport {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ReadyTimeout)
	defer cancel()

	results := make([]string, len(s.checks))
	var wg sync.WaitGroup
	for i, chk := range s.checks {
		wg.Go(func() { results[i] = s.runCheck(ctx, chk) })
	}
	wg.Wait()

	rep := ReadyReport{Status: "ready", Checks: make(map[string]string, len(s.checks))}
	for i, chk := range s.checks {
		rep.Checks[chk.Name] = results[i]
		if results[i] != "ok" {
			rep.Down = append(rep.Down, chk.Name)
		}
	}
	if len(rep.Down) > 0 {
		rep.Status = "unavailable"
		slices.Sort(rep.Down)
		rep.Down = slices.Compact(rep.Down)
	}
	return rep
}

// runCheck returns "ok" or a client-safe reason. The check runs in its own
// goroutine so that one ignoring ctx cannot hold /readyz past the deadline.
func (s *Server) runCheck(ctx context.Context, chk Check) string {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("check panicked: %v", r)
			}
		}()
		if chk.Fn == nil {
			done <- errors.New("check has no function")
			return
		}
		done <- chk.Fn(ctx)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		return "ok"
	}
	s.log.WarnContext(ctx, "readiness check failed", "check", chk.Name, "error", err)
	if e, ok := errs.As(err); ok && e.Kind != errs.Internal && e.Message != "" {
		return e.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", s.cfg.ReadyTimeout)
	}
	return "unavailable"
}
