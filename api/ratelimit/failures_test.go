package ratelimit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/ratelimit"
)

// TestFailures: the failure counter counts per key and scope in a window
// started by the first failure, forgets on Reset, and (in Redis) is one
// count for every Limiter over the same server.
func TestFailures(t *testing.T) {
	ctx := context.Background()
	for _, sf := range stores {
		t.Run(sf.name, func(t *testing.T) {
			st, srv := sf.new(t)
			f := ratelimit.New(st, ratelimit.Options{}).Scope("attempts").Failures()
			n, left, err := f.Count(ctx, "acct:x", time.Minute)
			require.NoError(t, err)
			assert.Zero(t, n)
			assert.Zero(t, left)
			for i := range 3 {
				n, left, err = f.Add(ctx, "acct:x", time.Minute)
				require.NoError(t, err)
				assert.Equal(t, int64(i+1), n)
				assert.True(t, left > 55*time.Second && left <= time.Minute, "left %v", left)
			}
			n, _, err = f.Count(ctx, "acct:x", time.Minute)
			require.NoError(t, err)
			assert.Equal(t, int64(3), n)
			other := ratelimit.New(st, ratelimit.Options{}).Scope("keys").Failures()
			n, _, err = other.Count(ctx, "acct:x", time.Minute)
			require.NoError(t, err)
			assert.Zero(t, n, "another scope counts apart")
			require.NoError(t, f.Reset(ctx, "acct:x"))
			n, _, err = f.Count(ctx, "acct:x", time.Minute)
			require.NoError(t, err)
			assert.Zero(t, n)

			// Concurrent failures all count.
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					_, _, err := f.Add(ctx, "addr:198.51.100.7", time.Minute)
					assert.NoError(t, err)
				})
			}
			wg.Wait()
			n, _, err = f.Count(ctx, "addr:198.51.100.7", time.Minute)
			require.NoError(t, err)
			assert.Equal(t, int64(8), n, "no failure lost")

			if srv == nil {
				return
			}
			second, err := ratelimit.NewRedisStore(srv.URL)
			require.NoError(t, err)
			t.Cleanup(func() { _ = second.Close() })
			g := ratelimit.New(second, ratelimit.Options{}).Scope("attempts").Failures()
			_, _, err = f.Add(ctx, "addr:192.0.2.1", time.Minute)
			require.NoError(t, err)
			n, _, err = g.Add(ctx, "addr:192.0.2.1", time.Minute)
			require.NoError(t, err)
			assert.Equal(t, int64(2), n, "two instances on one Redis share the count")
		})
	}
}
