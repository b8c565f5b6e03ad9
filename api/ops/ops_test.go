package ops_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agent-trading/ats/api/ops"
	"github.com/agent-trading/ats/worker/codec"
)

const (
	token = "0123456789abcdef0123456789abcdef-operator"
	ui    = "http://127.0.0.1:8233"
)

// fixture is an operator listener in front of a real codec, and a payload
// of a workflow as the worker wrote it.
type fixture struct {
	srv       *httptest.Server
	host      string
	encrypted []byte // {"payloads": [...]} as the Web UI sends it
}

func newFixture(t *testing.T, tok string) *fixture {
	t.Helper()
	cd, err := codec.New(bytes.Repeat([]byte{7}, codec.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	dc := converter.WithDataConverterSerializationContext(cd.DataConverter(),
		converter.WorkflowSerializationContext{Namespace: "default", WorkflowID: "order/ord_1"})
	p, err := dc.ToPayloads(map[string]string{"secret_marker": "limit 0.42 for usr_1"})
	if err != nil {
		t.Fatal(err)
	}
	body, err := protojson.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	srv.Config.Handler = ops.New(ops.Config{
		Token:          tok,
		AllowedHosts:   append(ops.LoopbackHosts(addr), "ats-ops.internal"),
		AllowedOrigins: []string{ui + "/"},
		Metrics:        http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ats_up 1\n") }),
		Codec:          codec.NewHTTPHandler(cd, "default"),
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return &fixture{srv: srv, host: addr, encrypted: body}
}

type req struct {
	method, path, host, origin, auth, contentType string
	body                                          []byte
}

func (f *fixture) do(t *testing.T, r req) (*http.Response, string) {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodPost
	}
	if r.contentType == "" && r.method == http.MethodPost {
		r.contentType = "application/json"
	}
	if r.body == nil && r.method == http.MethodPost {
		r.body = f.encrypted
	}
	hr, err := http.NewRequest(r.method, f.srv.URL+r.path, bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.host != "" {
		hr.Host = r.host
	}
	for k, v := range map[string]string{"Origin": r.origin, "Authorization": r.auth, "Content-Type": r.contentType} {
		if v != "" {
			hr.Header.Set(k, v)
		}
	}
	hr.Header.Set("X-Namespace", "default")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Every way to the codec but the operator's gets nothing: no payload
// plaintext, no CORS grant.
func TestCodecRefusesAllButTheOperator(t *testing.T) {
	f := newFixture(t, token)
	tests := []struct {
		name string
		r    req
		want int
	}{
		{"no token", req{path: "/codec/decode"}, http.StatusUnauthorized},
		{"wrong bearer token", req{path: "/codec/decode", auth: "Bearer " + strings.ToUpper(token)}, http.StatusUnauthorized},
		{"wrong path token", req{path: "/codec/" + token[:len(token)-1] + "x/decode"}, http.StatusUnauthorized},
		{"token as basic auth", req{path: "/codec/decode", auth: "Basic " + token}, http.StatusUnauthorized},
		{"foreign Host (DNS rebinding)", req{path: "/codec/" + token + "/decode", host: "attacker.example:" + portOf(f.host)}, http.StatusForbidden},
		{"foreign Host with bearer", req{path: "/codec/decode", auth: "Bearer " + token, host: "attacker.example"}, http.StatusForbidden},
		{"foreign Origin", req{path: "/codec/" + token + "/decode", origin: "http://attacker.example"}, http.StatusForbidden},
		{"null Origin", req{path: "/codec/" + token + "/decode", origin: "null"}, http.StatusForbidden},
		{"text/plain", req{path: "/codec/" + token + "/decode", contentType: "text/plain"}, http.StatusUnsupportedMediaType},
		{"form post", req{path: "/codec/decode", auth: "Bearer " + token, contentType: "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"GET", req{method: http.MethodGet, path: "/codec/decode", auth: "Bearer " + token}, http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := f.do(t, tt.r)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if strings.Contains(body, "secret_marker") || strings.Contains(body, "usr_1") {
				t.Fatalf("refusal carries plaintext: %s", body)
			}
			if strings.Contains(body, token) {
				t.Fatalf("refusal echoes the token: %s", body)
			}
			if tt.r.origin != "" && resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Fatal("CORS granted to a foreign origin")
			}
		})
	}
}

func TestCodecAnswersTheOperator(t *testing.T) {
	f := newFixture(t, token)
	decoded := func(t *testing.T, body string) {
		t.Helper()
		var ps commonpb.Payloads
		if err := protojson.Unmarshal([]byte(body), &ps); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		var v map[string]string
		if err := converter.GetDefaultDataConverter().FromPayloads(&ps, &v); err != nil || v["secret_marker"] == "" {
			t.Fatalf("decoded %v, %v", v, err)
		}
	}
	t.Run("the Web UI: token in the endpoint URL, its origin", func(t *testing.T) {
		resp, body := f.do(t, req{path: "/codec/" + token + "/decode", origin: ui})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != ui {
			t.Fatalf("CORS origin %q", resp.Header.Get("Access-Control-Allow-Origin"))
		}
		decoded(t, body)
	})
	t.Run("the Web UI's preflight", func(t *testing.T) {
		resp, body := f.do(t, req{method: http.MethodOptions, path: "/codec/" + token + "/decode", origin: ui})
		if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "X-Namespace") {
			t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
		}
	})
	t.Run("the CLI: --codec-auth bearer, localhost", func(t *testing.T) {
		resp, body := f.do(t, req{path: "/codec/decode", auth: "Bearer " + token, host: "localhost:" + portOf(f.host)})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		decoded(t, body)
	})
	t.Run("a configured host name, any port", func(t *testing.T) {
		resp, body := f.do(t, req{path: "/codec/decode", auth: "Bearer " + token, host: "ats-ops.internal:443"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	})
}

func TestProfilerNeedsTheBearerToken(t *testing.T) {
	f := newFixture(t, token)
	resp, _ := f.do(t, req{method: http.MethodGet, path: "/debug/pprof/"})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("pprof without a token: %d", resp.StatusCode)
	}
	resp, _ = f.do(t, req{method: http.MethodGet, path: "/debug/pprof/" + token + "/"})
	if resp.StatusCode == http.StatusOK {
		t.Fatal("pprof took the token in its path")
	}
	resp, body := f.do(t, req{method: http.MethodGet, path: "/debug/pprof/cmdline", auth: "Bearer " + token})
	if resp.StatusCode != http.StatusOK || body == "" {
		t.Fatalf("pprof with the token: %d %q", resp.StatusCode, body)
	}
}

func TestMetricsAreOpenToTheScraper(t *testing.T) {
	f := newFixture(t, token)
	resp, body := f.do(t, req{method: http.MethodGet, path: "/metrics", host: "10.1.2.3:9090"})
	if resp.StatusCode != http.StatusOK || body != "ats_up 1\n" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

// TestHealthzIsTheLivenessProbe: a worker, which has no API, is probed on
// its operator listener; the probe needs no token and reveals nothing.
func TestHealthzIsTheLivenessProbe(t *testing.T) {
	f := newFixture(t, "")
	resp, body := f.do(t, req{method: http.MethodGet, path: "/healthz", host: "10.1.2.3:9091"})
	if resp.StatusCode != http.StatusOK || body != "ok\n" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

func TestNoTokenDisablesTheCodec(t *testing.T) {
	f := newFixture(t, "")
	for _, r := range []req{{path: "/codec/decode"}, {path: "/codec/decode", auth: "Bearer "}, {path: "/codec//decode"}} {
		resp, body := f.do(t, r)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "ATS_OPS_TOKEN") {
			t.Fatalf("%+v: %d %s", r, resp.StatusCode, body)
		}
	}
}

func portOf(hostport string) string {
	i := strings.LastIndexByte(hostport, ':')
	return hostport[i+1:]
}
