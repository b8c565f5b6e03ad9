package markets_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	smarkets "github.com/agent-trading/ats/sandbox/markets"
)

// BenchmarkMarketByID measures GET /api/agent/v1/markets/{id} over real
// HTTP (keep-alive client, 8 goroutines per core) through the full chain:
// request id, access log, metrics, Bearer auth (in-memory keys), scope
// check, the service and its caches, and the sandbox venue. "bare-gin" is a
// gin engine with one JSON handler served the same way, as the floor the
// HTTP stack itself costs; "no-cache" disables the service caches so every
// request makes one Gamma and one CLOB call to the sandbox.
// Reported: req/s and p99 latency (µs) of the requests of the run.
func BenchmarkMarketByID(b *testing.B) {
	var m smarkets.Info
	for _, mk := range sb.Venue().Markets() {
		if mk.UpDown == nil && !mk.Resolved {
			m = mk
			break
		}
	}
	path := "/api/agent/v1/markets/" + strconv.Itoa(m.ID)
	n := sb.Network()

	// api.New puts gin in release mode; build its engines first.
	cached := engine(newService(n.GammaURL, n.CLOBURL))
	noCacheSvc := newService(n.GammaURL, n.CLOBURL)
	noCacheSvc.MarketTTL, noCacheSvc.BookTTL = -1, -1
	uncached := engine(noCacheSvc)
	bare := gin.New()
	bare.GET(path, func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"success": true, "data": gin.H{"id": m.ID}}) })

	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"bare-gin", bare}, {"markets-id", cached}, {"markets-id-no-cache", uncached}} {
		b.Run(tc.name, func(b *testing.B) { benchHTTP(b, tc.h, path) })
	}
}

func benchHTTP(b *testing.B, h http.Handler, path string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	do := func() error {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+readKey)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	if err := do(); err != nil { // warm the caches and the connection pool
		b.Fatal(err)
	}
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(8)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			t0 := time.Now()
			if err := do(); err != nil {
				b.Error(err)
				return
			}
			local = append(local, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
}
