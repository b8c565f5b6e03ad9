package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/proxy"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ops"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/replaytest"
)

// TestTelemetryAgainstTheSandbox runs the whole service in one process, as
// `ats dev` wires it, with tracing on and every metric on the registry the
// operator listener serves:
//
//   - the trace of one POST /orders holds the API's server span, the
//     Temporal client call, the order workflow, its activities and the
//     venue's HTTP request, all in one trace, while the workflow's payloads
//     stay encrypted (the trace context travels in a header);
//   - after real traffic (orders placed, resting, refused by the venue, a
//     strategy firing, a heartbeat, a rate-limited key) /metrics holds the
//     service's series with values that add up, and the Temporal SDK's own.
func TestTelemetryAgainstTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e := newTradingEnv(t, tradingOpts{tracing: tp, defaultRegistry: true})
	e.withStrategyFeed(t)
	tr := e.newTrader(t, 0)
	m := e.newMarket(t, "Will the operators see inside", "0.5")
	yes := m.TokenIDs[0]
	scrape := metricsScraper(t)
	before := scrape()

	t.Run("trace of POST /orders", func(t *testing.T) {
		status, b := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 5})
		if status != http.StatusOK {
			t.Fatalf("place: %d %s", status, b)
		}
		o := dataOrder(t, b)
		var root trace.SpanContext
		for _, s := range spans.Ended() {
			if s.SpanKind() == trace.SpanKindServer && s.Name() == "POST /api/agent/v1/orders" {
				root = s.SpanContext()
			}
		}
		if !root.IsValid() {
			t.Fatalf("no server span for POST /orders among %v", spanNames(spans.Ended()))
		}
		// The workflow's span ends when the workflow does (this order
		// rests), so started spans count too.
		want := []string{"POST /api/agent/v1/orders", "UpdateWithStartWorkflow:", "RunWorkflow:Order", "StartActivity:SubmitOrder",
			"RunActivity:SubmitOrder", "venue clob POST /order"}
		var got []string
		deadline := time.Now().Add(10 * time.Second)
		for {
			got = got[:0]
			seen := map[string]bool{}
			all := spans.Ended()
			for _, s := range spans.Started() {
				all = append(all, s)
			}
			for _, s := range all {
				if s.SpanContext().TraceID() != root.TraceID() || seen[s.SpanContext().SpanID().String()] {
					continue
				}
				seen[s.SpanContext().SpanID().String()] = true
				got = append(got, s.Name())
			}
			if hasPrefixes(got, want) || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		sort.Strings(got)
		t.Logf("trace %s of order %s: %s", root.TraceID(), o.ID, strings.Join(got, " · "))
		if !hasPrefixes(got, want) {
			t.Fatalf("the trace lacks some of %q", want)
		}
		// Every payload of the order's workflow is still encrypted; the
		// trace context is a header, the only plain-text payload.
		assertOnlyTraceHeadersPlain(t, e, "order/"+o.ID)
	})

	t.Run("metrics after traffic", func(t *testing.T) {
		// A FOK far below the ask is killed by the venue: FAILED.
		status, b := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.21, "size": 5, "type": "MARKET"})
		if status != http.StatusOK || dataOrder(t, b).Status != models.OrderFailed {
			t.Fatalf("unfillable FOK: %d %s", status, b)
		}
		if status, _ := e.call(t, tr.key, "GET", "/heartbeat", nil); status != http.StatusOK {
			t.Fatalf("heartbeat: %d", status)
		}
		slow := e.agentWithLimit(t, tr, 2)
		codes := []int{}
		for range 3 {
			status, _ := e.call(t, slow, "GET", "/me", nil)
			codes = append(codes, status)
		}
		if codes[2] != http.StatusTooManyRequests {
			t.Fatalf("a key limited to 2 a minute answered %v", codes)
		}
		s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 20, "config": map[string]any{
			"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 5}})
		e.setPrice(t, yes, "0.3")
		e.awaitStrategy(t, tr, s.ID, "completed", func(s apiStrategy) bool { return s.Status == "COMPLETED" })

		after := scrape()
		d := func(name string, labels ...string) float64 {
			return after.sum(name, labels...) - before.sum(name, labels...)
		}
		checks := []struct {
			what string
			got  float64
			min  float64
		}{
			{"POST /orders latency observations", d("ats_http_request_duration_seconds", "method", "POST", "route", "/api/agent/v1/orders"), 2},
			{"orders placed", d("ats_orders_placed_total"), 2},
			{"orders failed", d("ats_orders_failed_total", "kind", "venue_rejected"), 1},
			{"orders entering OPEN", d("ats_orders_status_changes_total", "status", "OPEN"), 1},
			{"orders entering FAILED", d("ats_orders_status_changes_total", "status", "FAILED"), 1},
			{"PRICE_ALERT executions", d("ats_strategy_executions_total", "type", "PRICE_ALERT", "outcome", "action"), 1},
			{"trigger latency observations", d("ats_strategy_trigger_latency_seconds"), 1},
			{"venue order posts", d("ats_venue_request_duration_seconds", "api", "clob", "method", "POST", "endpoint", "/order"), 2},
			{"venue answers 2xx", d("ats_venue_requests_total", "api", "clob", "outcome", "2xx"), 3},
			{"chain calls", d("ats_chain_calls_total", "outcome", "ok"), 1},
			{"rate-limit rejections", d("ats_ratelimit_rejections_total", "limit", "default/key"), 1},
			{"heartbeat polls", d("ats_heartbeat_polls_total"), 1},
			{"Temporal SDK requests", d("temporal_request_total"), 1},
			{"Temporal activity executions", d("temporal_activity_execution_latency_seconds"), 1},
		}
		for _, c := range checks {
			if c.got < c.min {
				t.Errorf("%s: %v, want at least %v", c.what, c.got, c.min)
			}
		}
		if t.Failed() {
			var names []string
			for n, f := range after {
				if strings.HasPrefix(n, "temporal_") || strings.HasPrefix(n, "ats_") {
					names = append(names, n+"="+f.String()[:min(len(f.String()), 300)])
				}
			}
			sort.Strings(names)
			t.Logf("families:\n%s", strings.Join(names, "\n"))
		}
		// Latencies are plausible: a loopback venue answers in well under
		// a second on average, and nothing took a negative time.
		for _, h := range []string{"ats_venue_request_duration_seconds", "ats_strategy_trigger_latency_seconds", "ats_http_request_duration_seconds"} {
			n, sum := after.sum(h), after.histSum(h)
			if n == 0 || sum <= 0 || sum/n > 5 {
				t.Errorf("%s: %v observations summing to %v s", h, n, sum)
			}
		}
	})
}

// agentWithLimit links another agent to tr's user whose key may make
// perMinute requests a minute.
func (e *tradingEnv) agentWithLimit(t testing.TB, tr trader, perMinute int) string {
	t.Helper()
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: tr.userID, Name: "slow", Scopes: "read", RateLimitPerMinute: perMinute}
	if err := e.store.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return plain
}

func spanNames(ss []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name()
	}
	return out
}

// hasPrefixes reports whether every prefix in want begins some name.
func hasPrefixes(names, want []string) bool {
	for _, w := range want {
		found := false
		for _, n := range names {
			if strings.HasPrefix(n, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// scraped is one /metrics answer.
type scraped map[string]*dto.MetricFamily

// sum adds up the samples of family name whose labels include the given
// name, value pairs: counter and gauge values, histogram observation counts.
func (s scraped) sum(name string, labels ...string) float64 {
	return s.add(name, labels, func(m *dto.Metric) float64 {
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
		return 0
	})
}

// histSum adds up the observed values of histogram name.
func (s scraped) histSum(name string, labels ...string) float64 {
	return s.add(name, labels, func(m *dto.Metric) float64 { return m.GetHistogram().GetSampleSum() })
}

func (s scraped) add(name string, labels []string, v func(*dto.Metric) float64) float64 {
	f, ok := s[name]
	if !ok {
		return 0
	}
	total := 0.0
metrics:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue metrics
			}
		}
		total += v(m)
	}
	return total
}

// metricsScraper serves the process's metrics through the operator
// listener's handler and returns a function that scrapes them.
func metricsScraper(t testing.TB) func() scraped {
	srv := httptest.NewServer(ops.New(ops.Config{Metrics: api.MetricsHandler(nil)}))
	t.Cleanup(srv.Close)
	return func() scraped { return scrapeURL(t, srv.URL+"/metrics") }
}

// scrapeURL reads a Prometheus text exposition.
func scrapeURL(t testing.TB, url string) scraped {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return fams
}

// assertOnlyTraceHeadersPlain fails unless every payload in the history of
// workflow id is encrypted, except trace-context headers, and at least one
// such header is there.
func assertOnlyTraceHeadersPlain(t *testing.T, e *tradingEnv, id string) {
	t.Helper()
	ctx := context.Background()
	h := replaytest.History(t, ctx, e.tc, id, "")
	encrypted, headers := 0, 0
	err := proxy.VisitPayloads(ctx, h, proxy.VisitPayloadsOptions{
		SkipSearchAttributes: true,
		Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
			for _, p := range ps {
				switch enc := string(p.GetMetadata()[codec.MetadataEncoding]); {
				case enc == codec.EncodingEncrypted:
					encrypted++
				case enc == "binary/null" && len(p.GetData()) == 0:
				default:
					var carrier map[string]string
					if json.Unmarshal(p.GetData(), &carrier) != nil || carrier["traceparent"] == "" {
						t.Errorf("a plain-text payload (%s) in %s: %.80q", enc, id, p.GetData())
						continue
					}
					for k := range carrier {
						if k != "traceparent" && k != "tracestate" && k != "baggage" {
							t.Errorf("a trace header of %s carries %q", id, k)
						}
					}
					headers++
				}
			}
			return ps, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if encrypted == 0 || headers == 0 {
		t.Fatalf("%s: %d encrypted payloads, %d trace headers", id, encrypted, headers)
	}
}
