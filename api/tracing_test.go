package api

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestTracing: with a tracer provider every request gets a server span
// named by its route, the handler's context (and so its log lines) is in
// it, a client's traceparent is ignored, and probes are not traced.
func TestTracing(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	var inHandler trace.SpanContext
	ts := newTestServer(t, Config{TracerProvider: tp}, Deps{Routes: []Routes{func(s *Server) {
		s.Group("/api/agent/v1").GET("/orders/:id", func(c *gin.Context) {
			inHandler = trace.SpanContextFromContext(c.Request.Context())
			LoggerFrom(c).InfoContext(c.Request.Context(), "in the handler")
			OK(c, gin.H{})
		})
	}}})
	req := httptest.NewRequest("GET", "/api/agent/v1/orders/ord_1", nil)
	const foreign = "4bf92f3577b34da6a3ce929d0e0e4736"
	req.Header.Set("traceparent", "00-"+foreign+"-00f067aa0ba902b7-01")
	ts.do(t, req)
	ts.do(t, httptest.NewRequest("GET", "/healthz", nil))
	ended := spans.Ended()
	if len(ended) != 1 || ended[0].Name() != "GET /api/agent/v1/orders/:id" || ended[0].SpanKind() != trace.SpanKindServer {
		t.Fatalf("spans %v", spanNames(ended))
	}
	sc := ended[0].SpanContext()
	if sc.TraceID().String() == foreign || ended[0].Parent().IsValid() {
		t.Fatal("the request joined the client's trace")
	}
	if inHandler.TraceID() != sc.TraceID() {
		t.Fatalf("the handler ran in trace %s, the server span is %s", inHandler.TraceID(), sc.TraceID())
	}
	if !strings.Contains(ts.logs.String(), `"trace_id":"`+sc.TraceID().String()+`"`) {
		t.Fatalf("the handler's log line lacks the trace id: %s", ts.logs.String())
	}
}

func spanNames(ss []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name()
	}
	return out
}
