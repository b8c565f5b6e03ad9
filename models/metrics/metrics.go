// Package metrics holds the service's own Prometheus collectors (orders,
// strategies, venue and chain calls, rate limits, heartbeats), registered
// once per process on the default registry, which the operator listener
// serves at /metrics (api.MetricsHandler). The HTTP layer's request metrics
// live in package api; the Temporal SDK's own metrics are bridged in by
// cmd/ats.
//
// Labels are small closed sets (statuses, kinds, API names, route
// templates), never ids, so no client can grow the series count.
package metrics

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "ats"

// latencyBuckets span a cache hit to a slow venue round trip.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

var (
	ordersPlaced = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "orders", Name: "placed_total",
		Help: "Orders the venue accepted, by side and order type.",
	}, []string{"side", "type"})
	ordersFailed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "orders", Name: "failed_total",
		Help: "Orders that ended FAILED, by error kind (invalid, venue_rejected, wallet_removed, ...).",
	}, []string{"kind"})
	orderStatus = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "orders", Name: "status_changes_total",
		Help: "Orders entering a status (OPEN, PARTIALLY_FILLED, FILLED, CANCELLED, FAILED).",
	}, []string{"status"})

	strategyExecutions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "strategy", Name: "executions_total",
		Help: "Strategy executions recorded, by strategy type and outcome (action, skip, error).",
	}, []string{"type", "outcome"})
	strategyErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "strategy", Name: "errors_total",
		Help: "Strategy executions that failed, by strategy type and error kind.",
	}, []string{"type", "kind"})
	triggerLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "strategy", Name: "trigger_latency_seconds",
		Help:    "From a strategy's price condition being met in this process's price feed to its workflow holding the signal.",
		Buckets: latencyBuckets,
	})
	copyLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "strategy", Name: "copy_latency_seconds",
		Help:    "From a copied wallet's trade being seen to the copy order being placed (COPY_TRADE strategies).",
		Buckets: latencyBuckets,
	})

	venueCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "venue", Name: "requests_total",
		Help: "HTTP requests to the venue, by API (clob, gamma, data), method, endpoint and outcome (2xx, 4xx, 5xx, error).",
	}, []string{"api", "method", "endpoint", "outcome"})
	venueLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "venue", Name: "request_duration_seconds",
		Help:    "Latency of HTTP requests to the venue, by API, method and endpoint.",
		Buckets: latencyBuckets,
	}, []string{"api", "method", "endpoint"})
	chainCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "chain", Name: "calls_total",
		Help: "Calls to the chain node, by call and outcome (ok, error).",
	}, []string{"call", "outcome"})
	chainLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "chain", Name: "call_duration_seconds",
		Help:    "Latency of calls to the chain node, by call.",
		Buckets: latencyBuckets,
	}, []string{"call"})

	rateLimited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "ratelimit", Name: "rejections_total",
		Help: "Requests answered 429 by a rate limit, by limit (key, ip).",
	}, []string{"limit"})
	heartbeats = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "heartbeat", Name: "polls_total",
		Help: "Heartbeat polls answered, by outcome (ok, sleeping, error).",
	}, []string{"outcome"})
)

func init() {
	// Once per process, on the registry /metrics serves: every command
	// that imports the service registers the same collectors exactly once.
	prometheus.MustRegister(collectors()...)
}

// OrderPlaced counts an order the venue accepted.
func OrderPlaced(side, orderType string) { ordersPlaced.WithLabelValues(side, orderType).Inc() }

// OrderFailed counts an order that ended FAILED; kind is its error kind.
func OrderFailed(kind string) { ordersFailed.WithLabelValues(kind).Inc() }

// OrderStatus counts an order entering status. The process has the store
// call it (store.Store.OnOrderStatus), once per committed change of an
// order's status; nothing else should.
func OrderStatus(status string) { orderStatus.WithLabelValues(status).Inc() }

// StrategyExecuted counts a recorded execution of a strategy of type typ
// with outcome (action, skip, error); errKind is the error's kind when the
// outcome is an error ("" otherwise).
func StrategyExecuted(typ, outcome, errKind string) {
	strategyExecutions.WithLabelValues(typ, outcome).Inc()
	if errKind != "" {
		strategyErrors.WithLabelValues(typ, errKind).Inc()
	}
}

// TriggerLatency observes the time from a condition met to its signal held.
func TriggerLatency(d time.Duration) { triggerLatency.Observe(d.Seconds()) }

// CopyLatency observes the time from a copied wallet's trade being seen
// (its venue or chain timestamp, or the moment the stream delivered it) to
// the copy order being placed. The copy-trade strategy calls it once per
// copied trade.
func CopyLatency(d time.Duration) { copyLatency.Observe(d.Seconds()) }

// RateLimited counts a request refused by the limit named limit.
func RateLimited(limit string) { rateLimited.WithLabelValues(limit).Inc() }

// Heartbeat counts a heartbeat poll answered with outcome.
func Heartbeat(outcome string) { heartbeats.WithLabelValues(outcome).Inc() }

// collectors are every collector of this package.
func collectors() []prometheus.Collector {
	return []prometheus.Collector{ordersPlaced, ordersFailed, orderStatus, strategyExecutions, strategyErrors,
		triggerLatency, copyLatency, venueCalls, venueLatency, chainCalls, chainLatency, rateLimited, heartbeats}
}

// Names are the metric names of this package's collectors, so dashboards
// and alerts can be checked against the series that exist.
func Names() []string {
	ch := make(chan *prometheus.Desc, 64)
	go func() {
		for _, c := range collectors() {
			c.Describe(ch)
		}
		close(ch)
	}()
	var out []string
	for d := range ch {
		// Desc has no accessor: its String() is
		// Desc{fqName: "ats_…", help: …}.
		s := d.String()
		if i := strings.Index(s, `fqName: "`); i >= 0 {
			rest := s[i+len(`fqName: "`):]
			out = append(out, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return out
}
