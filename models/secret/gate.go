package secret

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/agent-trading/ats/models/errs"
)

// DefaultHashWait is how long a password hash waits for room before it is
// refused: long enough to ride out a burst of honest sign-ins, short
// enough that a flood is turned away instead of queueing.
const DefaultHashWait = 2 * time.Second

// Gate bounds the memory that concurrent Argon2 computations (hashing and
// verifying passwords) use: each takes its memory cost (KiB) out of a
// fixed budget and waits, up to a limit, for room. Without it every
// parallel sign-in attempt allocates its own 64 MiB, so a burst of them
// exhausts the process's memory long before a rate limit notices. A Gate
// is safe for concurrent use.
type Gate struct {
	sem    *semaphore.Weighted
	budget int64
	wait   time.Duration
}

// NewGate returns a gate for budgetKiB of concurrent Argon2 memory; a
// computation waits at most wait (DefaultHashWait when 0) for room.
func NewGate(budgetKiB int64, wait time.Duration) *Gate {
	if wait <= 0 {
		wait = DefaultHashWait
	}
	return &Gate{sem: semaphore.NewWeighted(budgetKiB), budget: budgetKiB, wait: wait}
}

// DefaultGate is the process's gate: room for two default-cost hashes per
// CPU (a hash keeps one core busy, so more in flight only queue in the
// scheduler while holding their memory), and never more than a quarter of
// the Go memory limit when one is set (GOMEMLIMIT).
var DefaultGate = NewGate(defaultBudgetKiB(runtime.NumCPU(), debug.SetMemoryLimit(-1)), 0)

func defaultBudgetKiB(cpus int, memLimit int64) int64 {
	per := int64(DefaultArgon2.MemoryKiB)
	budget := int64(max(cpus, 1)) * 2 * per
	if memLimit > 0 && memLimit < math.MaxInt64 {
		budget = min(budget, memLimit/1024/4)
	}
	return max(budget, per) // at least one hash at a time
}

// Do runs fn, a computation using kib of memory, once the gate has room
// for it. A cost above the whole budget is capped to it (it then runs
// alone). When there is no room within the gate's wait, or ctx ends first,
// fn does not run and Do returns errs.Transient with code server_busy and
// a retry-after of one second.
func (g *Gate) Do(ctx context.Context, kib uint32, fn func()) error {
	w := min(int64(kib), g.budget)
	wctx, cancel := context.WithTimeout(ctx, g.wait)
	defer cancel()
	if err := g.sem.Acquire(wctx, w); err != nil {
		e := errs.E(errs.Transient, "the server is busy checking passwords; retry in a moment").WithCode(errs.CodeServerBusy)
		e.RetryAfterSeconds = 1
		return e
	}
	defer g.sem.Release(w)
	fn()
	return nil
}

// HashPasswordContext is HashPasswordWith through gate g (DefaultGate when
// nil).
func HashPasswordContext(ctx context.Context, g *Gate, password string, p Argon2Params) (string, error) {
	if g == nil {
		g = DefaultGate
	}
	var (
		h   string
		err error
	)
	if gerr := g.Do(ctx, p.MemoryKiB, func() { h, err = HashPasswordWith(password, p) }); gerr != nil {
		return "", gerr
	}
	return h, err
}

// VerifyPasswordContext is VerifyPassword through gate g (DefaultGate when
// nil), charged the memory cost the stored hash names.
func VerifyPasswordContext(ctx context.Context, g *Gate, encoded, password string) (bool, error) {
	if g == nil {
		g = DefaultGate
	}
	p, _, _, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	var ok bool
	if gerr := g.Do(ctx, p.MemoryKiB, func() { ok, err = VerifyPassword(encoded, password) }); gerr != nil {
		return false, gerr
	}
	return ok, err
}
