package api

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/agent-trading/ats/api/logging"
)

// HeaderRequestID carries the request id in both directions.
const HeaderRequestID = "X-Request-Id"

// maxRequestIDLen bounds an accepted incoming request id; longer ones are
// replaced, so a client cannot bloat every log line.
const maxRequestIDLen = 64

// Keys of values stored on the gin context.
const (
	ctxKeyRequestID = "api.request_id"
	ctxKeyLogger    = "api.logger"
	ctxKeyErrorKind = "api.error_kind"
)

// RequestID returns the id of the request being handled ("" outside the
// middleware chain). Services receive it through the request context; see
// logging.RequestID.
func RequestID(c *gin.Context) string {
	if c == nil {
		return ""
	}
	return c.GetString(ctxKeyRequestID)
}

// LoggerFrom returns the server's logger for use inside a handler. Log with
// c.Request.Context() so the request id is attached.
func LoggerFrom(c *gin.Context) *slog.Logger {
	if c != nil {
		if l, ok := c.Get(ctxKeyLogger); ok {
			if l, ok := l.(*slog.Logger); ok {
				return l
			}
		}
	}
	return logging.Discard()
}

// validRequestID accepts ids made of URL- and log-safe characters only, so
// an incoming id can neither inject log fields nor split headers.
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == ':':
		default:
			return false
		}
	}
	return true
}

// requestIDMiddleware adopts a sane incoming X-Request-Id (so a caller or
// proxy can correlate) or mints one, echoes it, and stores it on both the
// gin context and the request context.
func requestIDMiddleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(HeaderRequestID)
		if !validRequestID(id) {
			id = uuid.NewString()
		}
		c.Set(ctxKeyRequestID, id)
		c.Request = c.Request.WithContext(logging.WithRequestID(c.Request.Context(), id))
		c.Header(HeaderRequestID, id)
		c.Next()
	}
}

// quietRoutes are probed constantly by orchestrators and scrapers; their
// successful requests are logged at debug level only.
var quietRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// observeMiddleware writes the access log line and the HTTP metrics. It
// logs the path without the query string (queries may carry codes or keys)
// and never headers or bodies.
func observeMiddleware(log *slog.Logger, m *httpMetrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Set(ctxKeyLogger, log)
		m.inFlight.Inc()
		defer m.inFlight.Dec()

		c.Next()

		elapsed := time.Since(start)
		status := c.Writer.Status()
		route := c.FullPath()
		m.observe(c.Request.Method, route, status, elapsed.Seconds())

		level := slog.LevelInfo
		switch {
		case status >= 500:
			level = slog.LevelWarn
		case quietRoutes[route] && status < 400:
			level = slog.LevelDebug
		}
		ctx := c.Request.Context()
		if !log.Enabled(ctx, level) {
			return
		}
		if route == "" {
			route = unmatchedRoute
		}
		attrs := []slog.Attr{
			slog.String("method", c.Request.Method),
			slog.String("path", safePath(c.Request.URL.Path)),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000),
			slog.Int("bytes", max(c.Writer.Size(), 0)),
			slog.String("client_ip", c.ClientIP()),
		}
		if k := c.GetString(ctxKeyErrorKind); k != "" {
			attrs = append(attrs, slog.String("error_kind", k))
		}
		log.LogAttrs(ctx, level, "http request", attrs...)
	}
}

// safePath bounds a client-supplied path before it is logged or echoed.
func safePath(p string) string {
	const maxLen = 256
	if len(p) > maxLen {
		return p[:maxLen] + "…"
	}
	return p
}

// recoveryMiddleware turns a handler panic into a 500 envelope carrying only
// the request id; the panic value and stack go to the log.
func recoveryMiddleware(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler {
				// The handler asked net/http to drop the connection.
				panic(rec)
			}
			log.ErrorContext(c.Request.Context(), "panic in handler",
				"panic", rec, "method", c.Request.Method, "route", c.FullPath(),
				"stack", string(debug.Stack()))
			c.Set(ctxKeyErrorKind, "panic")
			failStatus(c, http.StatusInternalServerError, "Internal Server Error",
				"internal error; quote request id "+RequestID(c)+" when reporting it")
		}()
		c.Next()
	}
}

// bodyLimitMiddleware rejects a declared oversize body at once and caps
// undeclared (chunked) ones while they are read; BindJSON and Fail turn the
// resulting *http.MaxBytesError into 413.
func bodyLimitMiddleware(limit int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > limit {
			Fail(c, tooLarge(limit, nil))
			return
		}
		if c.Request.Body != nil && c.Request.Body != http.NoBody {
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
		}
		c.Next()
	}
}

// RequireJSON rejects, with 415, POST/PUT/PATCH requests that carry a body
// whose Content-Type is not JSON. Feature groups whose endpoints all take
// JSON install it (BindJSON checks the same thing per endpoint).
func RequireJSON() gin.HandlerFunc {
	return func(c *gin.Context) {
		switch c.Request.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			if hasBody(c.Request) && !isJSONContentType(c.GetHeader("Content-Type")) {
				Fail(c, errUnsupportedMediaType)
				return
			}
		}
		c.Next()
	}
}
