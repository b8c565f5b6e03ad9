package ratelimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/api/ratelimit/redistest"
)

// benchKeys spreads requests over many API keys, as a busy instance sees
// them, with a limit that is never reached so every request is counted and
// passed on.
const (
	benchKeys  = 1024
	benchLimit = 1 << 30
)

// bareEngine is gin with only the limiter in front of a trivial handler, so
// the figure is the middleware's cost, not the rest of the HTTP layer's.
func bareEngine(mw ...gin.HandlerFunc) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.GET("/ping", append(mw, func(c *gin.Context) { c.Status(http.StatusNoContent) })...)
	return e
}

func benchIdentify(c *gin.Context) (string, int, bool) {
	return c.GetHeader(hdrKeyID), benchLimit, true
}

func benchServe(b *testing.B, e *gin.Engine) {
	reqs := make([]*http.Request, benchKeys)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/ping", nil)
		reqs[i].Header.Set(hdrKeyID, "key_"+strconv.Itoa(i))
	}
	var n atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &sinkWriter{header: http.Header{}}
		for pb.Next() {
			clear(w.header)
			w.code = 0
			e.ServeHTTP(w, reqs[n.Add(1)%benchKeys])
			if w.code != http.StatusNoContent {
				b.Errorf("status %d", w.code)
				return
			}
		}
	})
}

// sinkWriter is a reusable ResponseWriter that keeps only the status, so
// the benchmarks do not measure httptest.Recorder's header snapshots.
type sinkWriter struct {
	header http.Header
	code   int
}

func (w *sinkWriter) Header() http.Header { return w.header }

func (w *sinkWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return len(p), nil
}

func (w *sinkWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

// BenchmarkBaseline is the same engine without the limiter, to subtract.
func BenchmarkBaseline(b *testing.B) {
	benchServe(b, bareEngine())
}

// BenchmarkPerKeyMemory is one request through PerKey with the memory store.
func BenchmarkPerKeyMemory(b *testing.B) {
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	benchServe(b, bareEngine(ratelimit.PerKey(l, benchIdentify)))
}

// BenchmarkPerKeyRedis is the same with the shared Redis store (one round
// trip to a local redis-server per request).
func BenchmarkPerKeyRedis(b *testing.B) {
	srv := redistest.Start(b)
	s, err := ratelimit.NewRedisStore(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := ratelimit.New(s, ratelimit.Options{})
	benchServe(b, bareEngine(ratelimit.PerKey(l, benchIdentify)))
}

// BenchmarkAllowMemory is the limiter alone, one goroutine.
func BenchmarkAllowMemory(b *testing.B) {
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = "key:key_" + strconv.Itoa(i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Allow(ctx, keys[i%benchKeys], benchLimit); err != nil {
			b.Fatal(err)
		}
	}
}
