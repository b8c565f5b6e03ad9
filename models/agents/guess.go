package agents

import (
	"math"
	"sync"
	"time"

	"github.com/agent-trading/ats/models/errs"
)

// Default guess limits: 10 failures per key in 15 minutes.
const (
	DefaultMaxGuessFailures = 10
	DefaultGuessWindow      = 15 * time.Minute
)

// maxGuessKeys bounds the limiter's memory; past it, expired windows are
// swept on the next failure.
const maxGuessKeys = 10_000

// GuessLimiter counts failures (wrong user codes, wrong passwords on the
// /link page) per key — "user:<id>", "addr:<ip>" — in fixed windows. It is
// in-process: with several API replicas each enforces its own budget,
// which only multiplies the (already tiny) chance of guessing a code.
type GuessLimiter struct {
	max    int
	window time.Duration

	mu      sync.Mutex
	windows map[string]*guessWindow
}

type guessWindow struct {
	start    time.Time
	failures int
}

// NewGuessLimiter allows max failures per key per window.
func NewGuessLimiter(max int, window time.Duration) *GuessLimiter {
	return &GuessLimiter{max: max, window: window, windows: map[string]*guessWindow{}}
}

// Check returns errs.RateLimited (with the seconds to wait) when any of
// keys has used up its failures in the current window.
func (g *GuessLimiter) Check(now time.Time, keys ...string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	wait := time.Duration(0)
	for _, k := range keys {
		w, ok := g.windows[k]
		if !ok || now.Sub(w.start) >= g.window || w.failures < g.max {
			continue
		}
		wait = max(wait, g.window-now.Sub(w.start))
	}
	if wait == 0 {
		return nil
	}
	e := errs.E(errs.RateLimited, "too many failed attempts; wait before trying again").WithCode("too_many_attempts")
	e.RetryAfterSeconds = int(math.Ceil(wait.Seconds()))
	return e
}

// Fail records one failure against each key.
func (g *GuessLimiter) Fail(now time.Time, keys ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.windows) >= maxGuessKeys {
		for k, w := range g.windows {
			if now.Sub(w.start) >= g.window {
				delete(g.windows, k)
			}
		}
	}
	for _, k := range keys {
		w, ok := g.windows[k]
		if !ok || now.Sub(w.start) >= g.window {
			w = &guessWindow{start: now}
			g.windows[k] = w
		}
		w.failures++
	}
}
