package cache

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestCacheCoalescesAndExpires(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	c := New[int](10, time.Second, clk.now)
	var calls atomic.Int32
	release := make(chan struct{})
	fetch := func(context.Context) (int, error) {
		calls.Add(1)
		<-release
		return 7, nil
	}
	var wg sync.WaitGroup
	results := make([]int, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Get(context.Background(), "k", fetch)
			assert.NoError(t, err)
			results[i] = v
		}()
	}
	// Let every goroutine reach the cache before the fetch completes.
	require.Eventually(t, func() bool { return calls.Load() == 1 }, time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	assert.Equal(t, int32(1), calls.Load(), "concurrent misses share one fetch")
	for _, v := range results {
		assert.Equal(t, 7, v)
	}

	v, ok := c.Peek("k")
	assert.True(t, ok)
	assert.Equal(t, 7, v)
	clk.add(time.Second)
	_, ok = c.Peek("k")
	assert.False(t, ok, "expired")
	n := 0
	v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { n++; return 8, nil })
	require.NoError(t, err)
	assert.Equal(t, 8, v)
	assert.Equal(t, 1, n)
}

func TestCacheDoesNotKeepErrors(t *testing.T) {
	c := New[int](10, time.Minute, nil)
	boom := errors.New("boom")
	_, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { return 0, boom })
	assert.ErrorIs(t, err, boom)
	_, ok := c.Peek("k")
	assert.False(t, ok)
	v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { return 3, nil })
	require.NoError(t, err)
	assert.Equal(t, 3, v)
}

func TestCacheWaiterHonoursContext(t *testing.T) {
	c := New[int](10, time.Minute, nil)
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = c.Get(context.Background(), "k", func(context.Context) (int, error) { close(started); <-release; return 1, nil })
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Get(ctx, "k", func(context.Context) (int, error) { t.Fatal("second fetch"); return 0, nil })
	assert.ErrorIs(t, err, context.Canceled)
	close(release)
}

func TestCacheBounded(t *testing.T) {
	clk := &clock{t: time.Unix(0, 0)}
	const size = 100
	c := New[int](size, time.Second, clk.now)
	for i := range size {
		c.Put(strconv.Itoa(i), i)
	}
	_, _ = c.Peek("0") // recently used: survives the next eviction
	c.Put("new", size)
	assert.Equal(t, size, c.Len(), "never more than size entries")
	_, ok := c.Peek("1")
	assert.False(t, ok, "the least recently used entry was evicted")
	_, ok = c.Peek("0")
	assert.True(t, ok)

	clk.add(2 * time.Second)
	c.Put("newer", 1)
	for _, k := range []string{"0", "2", "new"} {
		_, ok := c.Peek(k)
		assert.False(t, ok, "%s expired", k)
	}
	v, ok := c.Peek("newer")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	assert.LessOrEqual(t, c.Len(), size)
}

func TestCacheUpdateMergesFreshValues(t *testing.T) {
	clk := &clock{t: time.Unix(0, 0)}
	type info struct{ tick, minSize string }
	c := New[info](10, time.Second, clk.now)
	c.Update("tok", func(i *info) { i.tick = "0.01" })
	clk.add(900 * time.Millisecond)
	c.Update("tok", func(i *info) { i.minSize = "5" })
	clk.add(900 * time.Millisecond) // 1.8 s after the first update, 0.9 s after the last
	v, ok := c.Peek("tok")
	require.True(t, ok, "an update refreshes the entry")
	assert.Equal(t, info{"0.01", "5"}, v)

	clk.add(time.Second)
	c.Update("tok", func(i *info) { i.minSize = "1" })
	v, _ = c.Peek("tok")
	assert.Equal(t, info{minSize: "1"}, v, "an expired entry starts from zero")
	c.Remove("tok")
	_, ok = c.Peek("tok")
	assert.False(t, ok)
}

func TestCacheDisabled(t *testing.T) {
	c := New[int](10, -1, nil)
	n := 0
	for range 2 {
		v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { n++; return n, nil })
		require.NoError(t, err)
		assert.Equal(t, n, v)
	}
	assert.Equal(t, 2, n, "every Get fetches")
	c.Put("k", 1)
	c.Update("k", func(v *int) { *v = 2 })
	_, ok := c.Peek("k")
	assert.False(t, ok)
	assert.Zero(t, c.Len())
}
