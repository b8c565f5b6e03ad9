package ratelimit

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/agent-trading/ats/models/throttle"
)

// Failures is a throttle.Counter kept in the Limiter's store, under its
// scope: the failed attempts the throttle package limits (passwords,
// device codes, API keys) are counted like requests, in memory or in the
// Redis that every API instance shares, with the same fixed windows
// started by the first failure. The store keeps time (Redis by its key
// TTLs), so the counter ignores any clock of the caller.
type Failures struct{ l *Limiter }

var _ throttle.Counter = Failures{}

// Failures returns the failure counter over l's store and scope.
func (l *Limiter) Failures() Failures { return Failures{l: l} }

// countRate is a rate that never limits: Failures reads counts and
// leaves the deciding to the throttle policies.
func countRate(window time.Duration) limiter.Rate {
	return limiter.Rate{Period: window, Limit: math.MaxInt64 / 2}
}

func (f Failures) call(ctx context.Context, op string, fn func(ctx context.Context) (limiter.Context, error)) (int64, time.Duration, error) {
	if f.l.store.remote {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.l.opts.StoreTimeout)
		defer cancel()
	}
	res, err := fn(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("ratelimit: %s store %s: %w", f.l.store.kind, op, err)
	}
	n := res.Limit - res.Remaining
	left := time.Until(time.Unix(res.Reset, 0))
	if n <= 0 || left < 0 {
		return max(n, 0), 0, nil
	}
	return n, left, nil
}

// Count implements throttle.Counter.
func (f Failures) Count(ctx context.Context, key string, window time.Duration) (int64, time.Duration, error) {
	return f.call(ctx, "peek", func(ctx context.Context) (limiter.Context, error) {
		return f.l.store.s.Peek(ctx, f.l.scope+":"+key, countRate(window))
	})
}

// Add implements throttle.Counter.
func (f Failures) Add(ctx context.Context, key string, window time.Duration) (int64, time.Duration, error) {
	return f.call(ctx, "increment", func(ctx context.Context) (limiter.Context, error) {
		return f.l.store.s.Increment(ctx, f.l.scope+":"+key, 1, countRate(window))
	})
}

// Reset implements throttle.Counter.
func (f Failures) Reset(ctx context.Context, key string) error {
	_, _, err := f.call(ctx, "reset", func(ctx context.Context) (limiter.Context, error) {
		return f.l.store.s.Reset(ctx, f.l.scope+":"+key, countRate(time.Second))
	})
	return err
}
