package app

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/venue/chain"
)

// Tracing is configured the OpenTelemetry way, by the standard environment
// variables: an OTLP endpoint turns it on, nothing is exported without one.
const (
	envOTLPEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envOTLPTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envOTLPProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envOTLPTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envOTelSDKDisabled    = "OTEL_SDK_DISABLED"
)

// startTracing returns the process's tracer provider, exporting over OTLP
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; the
// protocol from OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL, http/protobuf by
// default; OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and
// OTEL_TRACES_SAMPLER as the specification says), or nil when no endpoint
// is configured: then nothing is traced and nothing leaves the process.
// The provider is flushed when the stack stops.
func startTracing(ctx context.Context, st *stack, service string) (trace.TracerProvider, error) {
	if os.Getenv(envOTLPEndpoint) == "" && os.Getenv(envOTLPTracesEndpoint) == "" ||
		strings.EqualFold(os.Getenv(envOTelSDKDisabled), "true") {
		return nil, nil
	}
	protocol := os.Getenv(envOTLPTracesProtocol)
	if protocol == "" {
		protocol = os.Getenv(envOTLPProtocol)
	}
	var exp sdktrace.SpanExporter
	var err error
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, errs.Ef(errs.Invalid, "%s=%q: this service exports traces over grpc or http/protobuf", envOTLPProtocol, protocol)
	}
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "cannot configure the OTLP trace exporter")
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins
	// over the command's default name.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), resource.WithHost(), resource.WithProcessPID())
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "bad OpenTelemetry resource attributes")
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	st.onStop("tracing", tp.Shutdown)
	st.log.Info("exporting traces over OTLP", "protocol", map[bool]string{true: "http/protobuf", false: protocol}[protocol == ""])
	return tp, nil
}

// temporalInterceptors trace every Temporal call, workflow and activity
// under tp (none when tp is nil). The trace context travels in Temporal's
// headers, which are not payloads: the codec still encrypts every payload.
func temporalInterceptors(tp trace.TracerProvider) ([]interceptor.ClientInterceptor, error) {
	if tp == nil {
		return nil, nil
	}
	i, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: tp.Tracer("go.temporal.io/sdk")})
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "cannot build the Temporal tracing interceptor")
	}
	return []interceptor.ClientInterceptor{i}, nil
}

// temporalMetrics bridges the Temporal SDK's own metrics (requests, polls,
// task latencies, sticky cache, ...) into the default Prometheus registry
// that /metrics serves. One bridge per process: every client shares it.
var temporalMetrics = sync.OnceValues(func() (client.MetricsHandler, error) {
	exp, err := otelprom.New(otelprom.WithRegisterer(prometheus.DefaultRegisterer), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "cannot register the Temporal SDK metrics")
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	// Monotonic counters, so Prometheus sees counters (temporal_request_total) it can rate().
	return temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{Meter: mp.Meter("temporal-sdk-go"), UseMonotonicCounters: true}), nil
})

// venueTimeout is the venue clients' overall HTTP deadline, a second line of
// defence behind each call's own (15 s by default).
const venueTimeout = 16 * time.Second

// venueHTTP is the HTTP client of one venue API: measured (metrics) and,
// with tp, traced. Trace headers are not sent to the venue: its spans are
// client spans of ours.
func venueHTTP(api, baseURL string, tp trace.TracerProvider) *http.Client {
	var rt http.RoundTripper = http.DefaultTransport
	if tp != nil {
		rt = otelhttp.NewTransport(rt, otelhttp.WithTracerProvider(tp),
			otelhttp.WithPropagators(propagation.NewCompositeTextMapPropagator()),
			otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
				return "venue " + api + " " + r.Method + " " + metrics.Endpoint(strings.TrimPrefix(r.URL.Path, basePath(baseURL)))
			}))
	}
	return &http.Client{Timeout: venueTimeout, Transport: metrics.VenueTransport(api, basePath(baseURL), rt)}
}

func basePath(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimRight(p.Path, "/")
}

// chainOptions measure the calls made to the chain node.
func chainOptions() chain.Options { return chain.Options{Instrument: metrics.ChainBackend} }
