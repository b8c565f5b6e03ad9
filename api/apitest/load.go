// Package apitest holds helpers for the HTTP layer's tests and benchmarks.
package apitest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Load serves b.N requests in parallel (GOMAXPROCS goroutines × the
// benchmark's parallelism), the i-th built by req(i), failing on any
// status but 200, and reports requests per second ("req/s") and the 99th
// percentile latency ("p99-µs").
func Load(b *testing.B, h http.Handler, req func(i int) *http.Request) {
	var (
		mu  sync.Mutex
		all []time.Duration
		n   atomic.Int64
	)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			r := req(int(n.Add(1) - 1))
			rec := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(rec, r)
			local = append(local, time.Since(t0))
			if rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body.String())
				return
			}
		}
		mu.Lock()
		all = append(all, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(all[(len(all)*99)/100].Microseconds()), "p99-µs")
}

// Get returns a GET of path with the bearer key (none when key is "").
func Get(path, key string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return r
}
