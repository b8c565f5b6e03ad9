package pacing_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/pacing"
)

// gate is a Bucket whose slots the test hands out one at a time.
type gate struct{ slots chan struct{} }

func (g gate) Take(ctx context.Context, _ string) error {
	select {
	case <-g.slots:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 5*time.Second, time.Millisecond)
}

// TestRoundRobinOverAgents: one agent with twenty posts queued ahead of
// nine agents with one post each does not make them wait for its twenty.
func TestRoundRobinOverAgents(t *testing.T) {
	g := gate{slots: make(chan struct{})}
	p := pacing.New(g, nil)
	const wallet = "0xwallet"

	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	post := func(agent string) {
		defer wg.Done()
		if err := p.Wait(context.Background(), wallet, agent); err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		order = append(order, agent)
		mu.Unlock()
	}
	for range 20 {
		wg.Add(1)
		go post("busy")
	}
	waitFor(t, func() bool { return p.Waiting(wallet) == 20 })
	agents := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	for i, a := range agents {
		wg.Add(1)
		go post(a)
		waitFor(t, func() bool { return p.Waiting(wallet) == 20+i+1 })
	}
	for i := range 29 {
		g.slots <- struct{}{}
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == i+1 })
	}
	wg.Wait()
	// busy had the first turn; then every quiet agent (in arrival order)
	// comes before busy's second post: none waits behind busy's queue.
	want := append([]string{"busy"}, agents...)
	for range 19 {
		want = append(want, "busy")
	}
	assert.Equal(t, want, order)
	assert.Zero(t, p.Waiting(wallet))
}

// TestFIFOWithinAgent: one agent's posts go in the order they came.
func TestFIFOWithinAgent(t *testing.T) {
	g := gate{slots: make(chan struct{})}
	p := pacing.New(g, nil)
	got := make(chan int, 10)
	for i := range 10 {
		go func() {
			require.NoError(t, p.Wait(context.Background(), "w", "agent"))
			got <- i
		}()
		waitFor(t, func() bool { return p.Waiting("w") == i+1 })
	}
	for i := range 10 {
		g.slots <- struct{}{}
		assert.Equal(t, i, <-got)
	}
}

// TestGiveUpPassesTheTurn: a post whose context ends leaves the queue
// without consuming a slot meant for the next one, and says why.
func TestGiveUpPassesTheTurn(t *testing.T) {
	g := gate{slots: make(chan struct{})}
	p := pacing.New(g, nil)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { first <- p.Wait(ctx, "w", "a") }()
	waitFor(t, func() bool { return p.Waiting("w") == 1 })
	second := make(chan error, 1)
	go func() { second <- p.Wait(context.Background(), "w", "b") }()
	waitFor(t, func() bool { return p.Waiting("w") == 2 })
	cancel()
	require.Error(t, <-first)
	g.slots <- struct{}{}
	select {
	case err := <-second:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the slot went to the post that gave up")
	}
}

// TestMemoryBucketBound: however many agents post at once, a wallet's
// posts never run ahead of Burst + Rate×t, and another wallet's posts
// are not held up by them.
func TestMemoryBucketBound(t *testing.T) {
	lim := pacing.Limit{Rate: 100, Burst: 5}
	p := pacing.New(pacing.NewMemoryBucket(lim), nil)
	const posts = 40
	start := time.Now()
	var mu sync.Mutex
	var at []time.Duration
	var wg sync.WaitGroup
	for i := range posts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, p.Wait(context.Background(), "busy-wallet", fmt.Sprintf("agent-%d", i%10)))
			mu.Lock()
			at = append(at, time.Since(start))
			mu.Unlock()
		}()
	}
	// Another wallet posts at once while the first is queued.
	t0 := time.Now()
	require.NoError(t, p.Wait(context.Background(), "other-wallet", "x"))
	assert.Less(t, time.Since(t0), 50*time.Millisecond, "another wallet waited for the busy one")
	wg.Wait()
	for i, d := range sortDurations(at) {
		// The (i+1)th grant needs i+1-Burst refills at Rate per second.
		floor := time.Duration(float64(i+1-lim.Burst) / lim.Rate * float64(time.Second))
		assert.GreaterOrEqual(t, d, floor-5*time.Millisecond, "grant %d came too early", i+1)
	}
	assert.GreaterOrEqual(t, time.Since(start), time.Duration(float64(posts-lim.Burst)/lim.Rate*float64(time.Second))-5*time.Millisecond)
}

func sortDurations(d []time.Duration) []time.Duration {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	return d
}

// TestIdleWalletHoldsNothing: once its queue drains, a wallet has no
// dispatcher and no waiting posts.
func TestIdleWalletHoldsNothing(t *testing.T) {
	p := pacing.New(pacing.NewMemoryBucket(pacing.Limit{Rate: 1000, Burst: 10}), nil)
	for range 5 {
		require.NoError(t, p.Wait(context.Background(), "w", "a"))
	}
	waitFor(t, func() bool { return p.Waiting("w") == 0 })
}
