// Package apitest holds helpers for the HTTP layer's tests and benchmarks.
package apitest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Load serves b.N requests in parallel (GOMAXPROCS goroutines × the
// benchmark's parallelism), the i-th built by req(i), failing on any
// status but 200, and reports requests per second ("req/s"), the median
// and 99th percentile latency ("p50-µs", "p99-µs"), this process's CPU
// time per request ("cpu-µs/req", user + system; a database server's
// share is not in it) and the machine's one-minute load average at the
// end ("loadavg": on a shared machine, read every figure beside it).
// Allocations per request are reported as allocs/op.
func Load(b *testing.B, h http.Handler, req func(i int) *http.Request) {
	var (
		mu  sync.Mutex
		all []time.Duration
		n   atomic.Int64
	)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
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
	cpu := processCPU() - cpu0
	b.StopTimer()
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[(len(all)*99)/100].Microseconds()), "p99-µs")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(all)), "cpu-µs/req")
	}
	if avg, ok := LoadAverage(); ok {
		b.ReportMetric(avg, "loadavg")
	}
}

// processCPU is the CPU time this process has used (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LoadAverage is the machine's one-minute load average (Linux; false
// elsewhere).
func LoadAverage() (float64, bool) {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// Get returns a GET of path with the bearer key (none when key is "").
func Get(path, key string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return r
}
