package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/ratelimit/redistest"
	"github.com/agent-trading/ats/models/pacing"
)

// TestPacingSharedAcrossWorkers: two workers (two Pacers, each with its
// own Redis connection) posting for one wallet share one bucket — the
// wallet's posts take as long as one bucket allows, not half of it —
// while another wallet is not held up. (Here rather than in
// models/pacing: the Redis test server lives under api/, which models
// may not import.)
func TestPacingSharedAcrossWorkers(t *testing.T) {
	srv := redistest.Start(t)
	lim := pacing.Limit{Rate: 20, Burst: 2}
	worker := func() *pacing.Pacer {
		opt, err := redis.ParseURL(srv.URL)
		require.NoError(t, err)
		rc := redis.NewClient(opt)
		t.Cleanup(func() { _ = rc.Close() })
		return pacing.New(pacing.NewRedisBucket(rc, lim), nil)
	}
	w1, w2 := worker(), worker()
	const posts = 30 // 15 per worker
	start := time.Now()
	var wg sync.WaitGroup
	for i := range posts {
		p := w1
		if i%2 == 1 {
			p = w2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, p.Wait(context.Background(), "0xshared", fmt.Sprintf("agent-%d", i%5)))
		}()
	}
	t0 := time.Now()
	require.NoError(t, w2.Wait(context.Background(), "0xother", "x"))
	assert.Less(t, time.Since(t0), 200*time.Millisecond, "another wallet waited for the busy one")
	wg.Wait()
	took := time.Since(start)
	// One shared bucket: (posts - burst) refills at 20/s = 1.4 s. Two
	// separate buckets would take about half that.
	floor := time.Duration(float64(posts-lim.Burst) / lim.Rate * float64(time.Second))
	assert.GreaterOrEqual(t, took, floor-50*time.Millisecond)
	assert.Less(t, took, 2*floor+time.Second, "the shared bucket let posts through far slower than its rate")
}

// TestCancelBucketApartFromPosts: in one Redis, a wallet's cancels draw on
// a bucket of their own: a wallet whose posts used up their bucket still
// cancels at once.
func TestCancelBucketApartFromPosts(t *testing.T) {
	srv := redistest.Start(t)
	opt, err := redis.ParseURL(srv.URL)
	require.NoError(t, err)
	rc := redis.NewClient(opt)
	t.Cleanup(func() { _ = rc.Close() })
	lim := pacing.Limit{Rate: 0.5, Burst: 1}
	posts := pacing.NewRedisBucket(rc, lim)
	cancels := pacing.NewRedisBucketAt(rc, lim, pacing.CancelKeyPrefix)
	ctx := context.Background()
	require.NoError(t, posts.Take(ctx, "0xwallet")) // the posts' one slot
	t0 := time.Now()
	require.NoError(t, cancels.Take(ctx, "0xwallet"))
	assert.Less(t, time.Since(t0), 500*time.Millisecond, "the cancel waited for the posts' bucket")
	// The posts' bucket is empty indeed: the next post waits for a refill.
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	assert.Error(t, posts.Take(short, "0xwallet"))
}
