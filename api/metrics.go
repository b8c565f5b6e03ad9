package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// unmatchedRoute labels requests that matched no route (404/405), so that
// scanners probing random paths cannot blow up the label cardinality.
const unmatchedRoute = "unmatched"

// httpMetrics are the RED metrics of the HTTP layer, labelled by route
// template (c.FullPath(), e.g. /api/agent/v1/orders/:id), never raw path.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "ats",
			Subsystem: "http",
			Name:      "requests_total",
			Help:      "HTTP requests handled, by method, route template and status code.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "ats",
			Subsystem: "http",
			Name:      "request_duration_seconds",
			Help:      "HTTP request latency, by method and route template.",
			// From sub-millisecond cache hits to venue round trips and the
			// write timeout.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "ats",
			Subsystem: "http",
			Name:      "requests_in_flight",
			Help:      "HTTP requests being handled now.",
		}),
	}
	m.requests = registerOrReuse(reg, m.requests)
	m.duration = registerOrReuse(reg, m.duration)
	m.inFlight = registerOrReuse(reg, m.inFlight)
	return m
}

// registerOrReuse registers c, or returns the identical collector already
// registered (a second server in the same process, e.g. in tests or when
// `ats dev` restarts its API), so both servers feed the same series.
func registerOrReuse[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("api: registering HTTP metrics: " + err.Error())
	}
	return c
}

func (m *httpMetrics) observe(method, route string, status int, seconds float64) {
	if route == "" {
		route = unmatchedRoute
	}
	method = normaliseMethod(method)
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(method, route).Observe(seconds)
}

// normaliseMethod maps arbitrary client-chosen methods to one label value.
func normaliseMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// defaultRegistry joins the process-wide default registerer and gatherer,
// which carry the Go runtime and process collectors.
func defaultRegistry() Registry {
	return struct {
		prometheus.Registerer
		prometheus.Gatherer
	}{prometheus.DefaultRegisterer, prometheus.DefaultGatherer}
}

// MetricsHandler serves reg (nil: the process-wide default registry, the
// one a Server uses by default) in the Prometheus text format. It belongs
// on the operator listener: metrics describe the whole service and cost a
// gather per scrape, neither of which agents should get.
func MetricsHandler(reg Registry) http.Handler {
	if reg == nil {
		reg = defaultRegistry()
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// A collector failing must not take the whole scrape down.
		ErrorHandling: promhttp.ContinueOnError,
	})
}
