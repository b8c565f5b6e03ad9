package rest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
)

func TestStatusErrorParsing(t *testing.T) {
	cases := []struct {
		name   string
		status int
		hdr    map[string]string
		body   string
		msg    string
		code   string
		retry  int
	}{
		{"error field", 400, nil, `{"error":"not enough balance / allowance"}`, "not enough balance / allowance", "", 0},
		{"503 with code", 503, map[string]string{"Retry-After": "30"}, `{"error":"post-only mode: only post-only orders and cancels are allowed","code":"post_only_mode","retry_after_seconds":30}`, "post-only mode: only post-only orders and cancels are allowed", "post_only_mode", 30},
		{"message field", 404, nil, `{"message":"market not found"}`, "market not found", "", 0},
		{"bare string", 400, nil, `"Invalid orderID"`, "Invalid orderID", "", 0},
		{"plain text", 403, nil, `Access restricted. Regional restrictions`, "Access restricted. Regional restrictions", "", 0},
		{"empty", 502, nil, ``, "Bad Gateway", "", 0},
		{"object error", 400, nil, `{"error":{"x":1}}`, `{"x":1}`, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range c.hdr {
					w.Header().Set(k, v)
				}
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			cl := New(Config{BaseURL: srv.URL, Retries: -1}, "x")
			_, err := cl.Do(context.Background(), Request{Method: "GET", Path: "/x", Idempotent: true})
			var se *StatusError
			require.True(t, errors.As(err, &se))
			require.Equal(t, c.status, se.Status)
			require.Equal(t, c.msg, se.Message)
			require.Equal(t, c.code, se.Code)
			require.Equal(t, c.retry, se.RetryAfter)
		})
	}
}

func TestRetryPolicy(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(500)
	}))
	defer srv.Close()
	cl := New(Config{BaseURL: srv.URL, Retries: 3, Backoff: time.Millisecond}, "x")
	_, err := cl.Do(context.Background(), Request{Method: "GET", Path: "/", Idempotent: true})
	require.Error(t, err)
	require.Equal(t, int32(4), n.Load())
	n.Store(0)
	_, err = cl.Do(context.Background(), Request{Method: "POST", Path: "/", Body: []byte("{}")})
	require.Error(t, err)
	require.Equal(t, int32(1), n.Load(), "non-idempotent requests are never retried")
	require.Equal(t, venue.Unavailable, venue.CategoryOf(MapError(err, "x")))
}

func TestTransportNotSent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cl := New(Config{BaseURL: "http://" + addr, Retries: -1}, "x")
	_, err = cl.Do(context.Background(), Request{Method: "POST", Path: "/order"})
	var te *TransportError
	require.True(t, errors.As(err, &te))
	require.True(t, te.NotSent)
}

func TestCancelStopsRetries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	cl := New(Config{BaseURL: srv.URL, Retries: 5, Backoff: time.Hour}, "x")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := cl.Do(ctx, Request{Method: "GET", Path: "/", Idempotent: true})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// A Retry-After longer than the backoff is waited for in full.
func TestRetryHonoursRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	cl := New(Config{BaseURL: srv.URL, Retries: 1, Backoff: time.Millisecond}, "x")
	t0 := time.Now()
	_, err := cl.Do(context.Background(), Request{Method: "GET", Path: "/", Idempotent: true})
	require.NoError(t, err)
	require.Equal(t, int32(2), n.Load())
	require.GreaterOrEqual(t, time.Since(t0), time.Second)
}
