// Package api is the HTTP conventions layer of the Agent Trading Service:
// one gin engine with the cross-cutting middleware (request ids, access
// logs, panic recovery, body limits, Prometheus metrics, served on the
// operator listener by MetricsHandler), the response
// envelope, the single errs.Kind → HTTP status mapping, JSON decoding rules
// and the health endpoints. Feature packages (api/agentapi, api/device, the
// dashboard) add their routes through the Routes hook and answer with
// OK/OKWith/Fail/BindJSON so every endpoint speaks the same dialect.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-trading/ats/api/logging"
)

// DefaultMaxBodyBytes is the request body limit when Config.MaxBodyBytes is
// zero. Agent requests are small JSON documents; 1 MiB is generous for them
// and small enough that a client cannot make the server buffer much.
const DefaultMaxBodyBytes int64 = 1 << 20

// DefaultReadyTimeout bounds /readyz when Config.ReadyTimeout is zero.
const DefaultReadyTimeout = 2 * time.Second

// DefaultReadyCacheTTL is how long a /readyz result is reused when
// Config.ReadyCacheTTL is zero. A probe costs a database ping, three
// Temporal calls and a venue request; anyone may call /readyz, so however
// often they do, the dependencies see about one probe a second.
const DefaultReadyCacheTTL = time.Second

// Registry is what the HTTP layer needs from a Prometheus registry: a place
// to register its collectors and a source for /metrics.
type Registry interface {
	prometheus.Registerer
	prometheus.Gatherer
}

// Config holds the HTTP layer's settings. The zero value is usable.
type Config struct {
	// MaxBodyBytes caps every request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ReadyTimeout bounds all readiness checks together; 0 means
	// DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// ReadyCacheTTL is how long a /readyz result is reused; 0 means
	// DefaultReadyCacheTTL, negative disables the cache.
	ReadyCacheTTL time.Duration
	// Now is the clock of the readiness cache; nil means time.Now.
	Now func() time.Time
	// Registry receives the HTTP metrics, which MetricsHandler serves (on
	// the operator listener, never on this server). Nil means the
	// process-wide default registry (which also carries the Go runtime and
	// process collectors and whatever other packages register). Tests
	// inject prometheus.NewRegistry() to stay isolated.
	Registry Registry
	// TrustedProxies lists the proxy addresses or CIDRs whose
	// X-Forwarded-For is believed when computing the client IP. Empty means
	// none: the peer address is the client, so clients cannot spoof it.
	TrustedProxies []string
	// TracerProvider, when set, traces every request (a server span per
	// request, the parent of what the handler does: Temporal calls, venue
	// requests). Incoming trace headers are ignored: a client does not
	// choose which trace its request joins, nor force it to be sampled.
	TracerProvider trace.TracerProvider
}

// Check is one named readiness probe. Fn must honour ctx; it returns nil
// when the dependency answers. A classified error's Message (see errs) is
// shown on /readyz; an unclassified error's text is only logged.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Routes registers a feature's routes on the server, typically with
// s.Group("/api/agent/v1", authMiddleware). Feature packages export a
// constructor that closes over their services and returns a Routes, e.g.
//
//	func Routes(svc *orders.Service) api.Routes {
//		return func(s *api.Server) { g := s.Group("/api/agent/v1"); g.POST("/orders", h.place) }
//	}
//
// so that package api never imports them (no import cycles) and the lead
// wires everything in cmd/ats.
type Routes func(s *Server)

// Deps holds what the HTTP layer uses from the rest of the program. Feature
// services are not fields here: they reach their handlers through the
// Routes closures.
type Deps struct {
	// Logger receives access logs, recovered panics and internal errors.
	// Nil discards. Use logging.NewLogger so secrets are redacted and the
	// request id is attached.
	Logger *slog.Logger
	// Checks are run by /readyz (the lead wires database, temporal, worker
	// and venue).
	Checks []Check
	// Routes are applied in order after the built-in routes.
	Routes []Routes
}

var ginModeOnce sync.Once

// Server is the configured engine plus what route registrars need.
type Server struct {
	engine  *gin.Engine
	cfg     Config
	log     *slog.Logger
	metrics *httpMetrics
	checks  []Check
	ready   readyCache
}

// New builds the HTTP handler: NewServer(cfg, deps).Engine().
func New(cfg Config, deps Deps) *gin.Engine { return NewServer(cfg, deps).Engine() }

// NewServer builds the engine with the middleware chain, the built-in
// routes (/healthz, /readyz), the 404/405 envelopes, and then applies
// deps.Routes.
//
// It panics when the metrics cannot be registered on cfg.Registry for a
// reason other than being registered already, which is a programming error
// detected at start-up.
func NewServer(cfg Config, deps Deps) *Server {
	// gin's mode is process-global and not safe to set concurrently.
	ginModeOnce.Do(func() { gin.SetMode(gin.ReleaseMode) })
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = DefaultReadyTimeout
	}
	if cfg.ReadyCacheTTL == 0 {
		cfg.ReadyCacheTTL = DefaultReadyCacheTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Registry == nil {
		cfg.Registry = defaultRegistry()
	}
	log := deps.Logger
	if log == nil {
		log = logging.Discard()
	}
	s := &Server{
		cfg:     cfg,
		log:     log,
		metrics: newHTTPMetrics(cfg.Registry),
		checks:  append([]Check(nil), deps.Checks...),
	}

	e := gin.New()
	// A trailing-slash redirect would bypass the middleware chain and, for
	// JSON clients, only hide a wrong URL; answer 404 instead.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	// Lets handlers pass *gin.Context where a context.Context is expected and
	// still see the request's cancellation and values (request id).
	e.ContextWithFallback = true
	if err := e.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		panic("api: invalid TrustedProxies: " + err.Error())
	}
	if cfg.TracerProvider != nil {
		e.Use(otelgin.Middleware("ats-api", otelgin.WithTracerProvider(cfg.TracerProvider),
			otelgin.WithPropagators(propagation.NewCompositeTextMapPropagator()),
			// Probes and scrapes every few seconds would drown the traces.
			otelgin.WithGinFilter(func(c *gin.Context) bool { return !quietRoutes[c.FullPath()] })))
	}
	e.Use(
		requestIDMiddleware(),
		observeMiddleware(log, s.metrics),
		recoveryMiddleware(log),
		bodyLimitMiddleware(cfg.MaxBodyBytes),
	)
	e.NoRoute(NotFound)
	e.NoMethod(MethodNotAllowed)
	s.engine = e

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)

	for _, r := range deps.Routes {
		if r != nil {
			r(s)
		}
	}
	return s
}

// NotFound answers a request for a path nothing serves with the JSON
// envelope (404). A route registrar that serves pages (the dashboard) may
// answer browsers with a page instead and API clients with this.
func NotFound(c *gin.Context) {
	failStatus(c, http.StatusNotFound, "Not Found", "no such endpoint: "+c.Request.Method+" "+safePath(c.Request.URL.Path))
}

// MethodNotAllowed answers a method a path does not take with the JSON
// envelope (405, the Allow header set by the router); see NotFound.
func MethodNotAllowed(c *gin.Context) {
	failStatus(c, http.StatusMethodNotAllowed, "Method Not Allowed",
		"method "+c.Request.Method+" is not allowed here; allowed: "+c.Writer.Header().Get("Allow"))
}

// Engine returns the gin engine, an http.Handler.
func (s *Server) Engine() *gin.Engine { return s.engine }

// ServeHTTP makes the Server itself an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

// Group returns a router group under prefix running mw (e.g. API-key
// authentication, RequireJSON) after the global middleware.
func (s *Server) Group(prefix string, mw ...gin.HandlerFunc) *gin.RouterGroup {
	return s.engine.Group(prefix, mw...)
}

// Logger returns the server's logger, for route registrars that log at
// start-up. Inside handlers log with the request context
// (logger.InfoContext(c.Request.Context(), ...)) to get the request id.
func (s *Server) Logger() *slog.Logger { return s.log }

// MaxHeaderBytes caps the request headers of every listener the service
// serves (net/http's default is 1 MiB).
const MaxHeaderBytes = 64 << 10

// Timeouts are an http.Server's deadlines, chosen per listener.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// APITimeouts suit the agent-facing JSON API: slow-header and idle
// connections are cut, and the write timeout leaves room for an order's
// placement (a venue round trip through Temporal).
var APITimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 120 * time.Second}

// HardenedServer is the http.Server every listener of the service uses:
// headers capped at MaxHeaderBytes, the given deadlines, and net/http's own
// errors (TLS handshakes, malformed requests) logged at warn.
func HardenedServer(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	if log == nil {
		log = logging.Discard()
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// HTTPServer wraps the engine in HardenedServer with APITimeouts.
func (s *Server) HTTPServer(addr string) *http.Server {
	srv := HardenedServer(s.engine, APITimeouts, s.log)
	srv.Addr = addr
	return srv
}
