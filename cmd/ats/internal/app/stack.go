package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// stack starts components in order and stops them in reverse order, so that
// e.g. the API stops accepting requests before the worker and Temporal go
// away. A component that fails while running cancels the whole stack.
type stack struct {
	log     *slog.Logger
	out     io.Writer
	mu      sync.Mutex
	closers []namedCloser
	failed  chan error
	// keys are the process's master keys once loaded.
	keys MasterKeys
	// tracing is the process's tracer provider; nil when tracing is off.
	tracing trace.TracerProvider
}

type namedCloser struct {
	name string
	fn   func(context.Context) error
}

func newStack(log *slog.Logger) *stack {
	return &stack{log: log, out: os.Stdout, failed: make(chan error, 8)}
}

// onStop registers fn to run at shutdown.
func (s *stack) onStop(name string, fn func(context.Context) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closers = append(s.closers, namedCloser{name, fn})
}

// fail reports that a running component stopped unexpectedly.
func (s *stack) fail(name string, err error) {
	if err == nil {
		return
	}
	select {
	case s.failed <- fmt.Errorf("%s: %w", name, err):
	default:
	}
}

// listening prints the line scripts and tests parse to find bound ports.
func (s *stack) listening(name, url string) {
	fmt.Fprintf(s.out, "listening %s %s\n", name, url)
}

// wait blocks until ctx is done (Ctrl-C) or a component fails.
func (s *stack) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		s.log.Info("shutting down")
		return nil
	case err := <-s.failed:
		s.log.Error("component failed; shutting down", "err", err)
		return err
	}
}

// stop runs the closers in reverse order with a deadline.
func (s *stack) stop(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.mu.Lock()
	closers := s.closers
	s.closers = nil
	s.mu.Unlock()
	var all error
	for i := len(closers) - 1; i >= 0; i-- {
		c := closers[i]
		if err := c.fn(ctx); err != nil {
			s.log.Warn("stop failed", "component", c.name, "err", err)
			all = errors.Join(all, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return all
}
