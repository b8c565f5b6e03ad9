package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api/logging"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue"
)

// syncBuffer is a log sink safe for the goroutines of a test server.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type testServer struct {
	*Server
	logs *syncBuffer
	reg  *prometheus.Registry
}

func newTestServer(t *testing.T, cfg Config, deps Deps) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	reg := prometheus.NewRegistry()
	cfg.Registry = reg
	deps.Logger = logging.NewLogger(logs, slog.LevelDebug, true)
	return &testServer{Server: NewServer(cfg, deps), logs: logs, reg: reg}
}

func (ts *testServer) do(t *testing.T, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	ts.ServeHTTP(w, r)
	return w
}

func decodeError(t *testing.T, w *httptest.ResponseRecorder) ErrorBody {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, body %s", ct, w.Body)
	}
	var raw map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
		t.Fatalf("body is not JSON: %q", w.Body)
	}
	if raw["success"] != false {
		t.Fatalf("success = %v in %s", raw["success"], w.Body)
	}
	var b ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if b.Error == "" || b.Message == "" {
		t.Fatalf("error envelope lacks error/message: %s", w.Body)
	}
	return b
}

// orderRequest is a DTO shaped like the agent API's.
type orderRequest struct {
	TokenID string          `json:"tokenId"`
	Side    string          `json:"side"`
	Price   decimal.Decimal `json:"price"`
	Size    int64           `json:"size"`
	Tags    []string        `json:"tags,omitempty"`
	Limits  struct {
		MaxSpend decimal.Decimal `json:"maxSpend"`
		Expiry   int             `json:"expiryMinutes"`
	} `json:"limits"`
}

func (r *orderRequest) Validate() error {
	if r.Side != "BUY" && r.Side != "SELL" {
		return errs.E(errs.Invalid, `side must be "BUY" or "SELL"`).WithCode("invalid_side")
	}
	if r.Size == 42 {
		return errors.New("unclassified validation failure with db detail")
	}
	return nil
}

func orderRoutes(s *Server) {
	g := s.Group("/api/agent/v1")
	g.POST("/orders", func(c *gin.Context) {
		var req orderRequest
		if !BindJSON(c, &req) {
			return
		}
		OKWith(c, http.StatusCreated, gin.H{"tokenId": req.TokenID, "price": req.Price}, nil)
	})
	g.GET("/orders/:id", func(c *gin.Context) { OK(c, gin.H{"id": c.Param("id")}) })
}

func TestBindJSON(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{orderRoutes}})
	big := `{"tokenId":"` + strings.Repeat("a", 2<<20) + `"}`
	tests := []struct {
		name     string
		body     string
		ct       string
		chunked  bool
		status   int
		label    string
		contains string
		code     string
	}{
		{"valid", `{"tokenId":"123","side":"BUY","price":"0.42","size":10}`, "application/json", false, 201, "", "", ""},
		{"valid with charset", `{"side":"SELL","price":0.5}`, "application/json; charset=utf-8", false, 201, "", "", ""},
		{"valid +json type", `{"side":"SELL"}`, "application/vnd.ats+json", false, 201, "", "", ""},
		{"malformed", `{"tokenId": "1",}`, "application/json", false, 400, "Bad Request", "malformed JSON at line 1, column 17", errs.CodeInvalidJSON},
		{"malformed second line", "{\n  \"side\": BUY\n}", "application/json", false, 400, "Bad Request", "line 2, column 11", errs.CodeInvalidJSON},
		{"truncated", `{"tokenId": "1"`, "application/json", false, 400, "Bad Request", "unexpected end of input", errs.CodeInvalidJSON},
		{"empty body", ``, "application/json", false, 400, "Bad Request", "request body is required", errs.CodeInvalidJSON},
		{"whitespace body", "  \n ", "application/json", false, 400, "Bad Request", "request body is required", errs.CodeInvalidJSON},
		{"null body", `null`, "application/json", false, 400, "Bad Request", "not null", errs.CodeInvalidJSON},
		{"two values", `{"side":"BUY"} {"side":"SELL"}`, "application/json", false, 400, "Bad Request", "single JSON value", errs.CodeInvalidJSON},
		{"array instead of object", `[1,2]`, "application/json", false, 400, "Bad Request", "request body must be an object, got array", errs.CodeInvalidJSON},
		{"unknown field", `{"side":"BUY","pirce":"0.4"}`, "application/json", false, 400, "Bad Request", `unknown field "pirce"`, errs.CodeUnknownField},
		{"wrong type", `{"side":"BUY","size":"ten"}`, "application/json", false, 400, "Bad Request", `field "size" must be an integer, got string`, errs.CodeInvalidField},
		{"wrong nested type", `{"side":"BUY","limits":{"expiryMinutes":true}}`, "application/json", false, 400, "Bad Request", `field "limits.expiryMinutes" must be an integer, got bool`, errs.CodeInvalidField},
		{"bad decimal", `{"side":"BUY","price":"abc"}`, "application/json", false, 400, "Bad Request", "invalid value", errs.CodeInvalidField},
		{"validate classified", `{"side":"HOLD"}`, "application/json", false, 400, "Bad Request", `side must be "BUY" or "SELL"`, "invalid_side"},
		{"validate unclassified", `{"side":"BUY","size":42}`, "application/json", false, 400, "Bad Request", "the request body is invalid", ""},
		{"wrong content type", `{"side":"BUY"}`, "text/plain", false, 415, "Unsupported Media Type", "Content-Type must be application/json", ""},
		{"form content type", `side=BUY`, "application/x-www-form-urlencoded", false, 415, "Unsupported Media Type", "application/json", ""},
		{"missing content type", `{"side":"BUY"}`, "", false, 415, "Unsupported Media Type", "application/json", ""},
		{"garbage content type", `{"side":"BUY"}`, "application/json; =;", false, 415, "Unsupported Media Type", "application/json", ""},
		{"2 MB declared", big, "application/json", false, 413, "Payload Too Large", "request body too large", ""},
		{"2 MB chunked", big, "application/json", true, 413, "Payload Too Large", "request body too large", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(strings.NewReader(tt.body)) // hides the length
			}
			r := httptest.NewRequest(http.MethodPost, "/api/agent/v1/orders", body)
			if tt.chunked {
				r.ContentLength = -1
			}
			if tt.ct != "" {
				r.Header.Set("Content-Type", tt.ct)
			}
			w := ts.do(t, r)
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tt.status, w.Body)
			}
			if tt.status < 300 {
				var env Envelope
				if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || !env.Success {
					t.Fatalf("bad success envelope %s", w.Body)
				}
				return
			}
			b := decodeError(t, w)
			if b.Error != tt.label {
				t.Errorf("error = %q, want %q", b.Error, tt.label)
			}
			if !strings.Contains(b.Message, tt.contains) {
				t.Errorf("message = %q, want it to contain %q", b.Message, tt.contains)
			}
			if b.Code != tt.code {
				t.Errorf("code = %q, want %q", b.Code, tt.code)
			}
			for _, leak := range []string{"decimal.Decimal", "main.", "api.orderRequest", "int64", "Go value", "json: "} {
				if strings.Contains(b.Message, leak) {
					t.Errorf("message leaks %q: %q", leak, b.Message)
				}
			}
			if b.RequestID == "" || b.RequestID != w.Header().Get(HeaderRequestID) {
				t.Errorf("requestId %q vs header %q", b.RequestID, w.Header().Get(HeaderRequestID))
			}
		})
	}
}

func TestBodyLimitWithoutBinding(t *testing.T) {
	// A handler that never reads the body still gets the 413 for a declared
	// oversize body, and the limit is configurable.
	called := false
	ts := newTestServer(t, Config{MaxBodyBytes: 10}, Deps{Routes: []Routes{func(s *Server) {
		s.Group("").POST("/raw", func(c *gin.Context) { called = true; OK(c, nil) })
		s.Group("").POST("/read", func(c *gin.Context) {
			if _, err := io.ReadAll(c.Request.Body); err != nil {
				Fail(c, err)
				return
			}
			OK(c, nil)
		})
	}}})
	w := ts.do(t, httptest.NewRequest(http.MethodPost, "/raw", strings.NewReader(strings.Repeat("x", 11))))
	if w.Code != http.StatusRequestEntityTooLarge || called {
		t.Fatalf("status %d called %v", w.Code, called)
	}
	if b := decodeError(t, w); !strings.Contains(b.Message, "limit 10 bytes") {
		t.Fatalf("message %q", b.Message)
	}
	r := httptest.NewRequest(http.MethodPost, "/read", io.MultiReader(strings.NewReader(strings.Repeat("x", 11))))
	r.ContentLength = -1
	if w := ts.do(t, r); w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("streamed: status %d %s", w.Code, w.Body)
	}
	if w := ts.do(t, httptest.NewRequest(http.MethodPost, "/raw", strings.NewReader("0123456789"))); w.Code != http.StatusOK {
		t.Fatalf("at the limit: status %d %s", w.Code, w.Body)
	}
}

func TestRequireJSON(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{func(s *Server) {
		g := s.Group("/j", RequireJSON())
		h := func(c *gin.Context) { OK(c, "done") }
		g.POST("/x", h)
		g.DELETE("/x", h)
	}}})
	tests := []struct {
		method, ct, body string
		status           int
	}{
		{http.MethodPost, "text/xml", "<a/>", 415},
		{http.MethodPost, "application/json", "{}", 200},
		{http.MethodPost, "", "", 200}, // no body, nothing to type-check
		{http.MethodDelete, "text/plain", "x", 200},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, "/j/x", strings.NewReader(tt.body))
		if tt.ct != "" {
			r.Header.Set("Content-Type", tt.ct)
		}
		if w := ts.do(t, r); w.Code != tt.status {
			t.Errorf("%s ct=%q: status %d, want %d (%s)", tt.method, tt.ct, w.Code, tt.status, w.Body)
		}
	}
}

func TestFailMapsEveryKind(t *testing.T) {
	cause := errors.New("pq: password authentication failed for user ats at 10.1.2.3")
	tests := []struct {
		name       string
		err        error
		status     int
		label      string
		message    string
		code, hint string
		retryAfter int
	}{
		{"invalid", errs.E(errs.Invalid, "price must be between 0.01 and 0.99"), 400, "Bad Request", "price must be between 0.01 and 0.99", "", "", 0},
		{"unauthorized", errs.E(errs.Unauthorized, "API key revoked"), 401, "Unauthorized", "API key revoked", "", "", 0},
		{"forbidden", errs.E(errs.Forbidden, "scope trade required"), 403, "Forbidden", "scope trade required", "", "", 0},
		{"not found", fmt.Errorf("store: %w", errs.E(errs.NotFound, "order not found")), 404, "Not Found", "order not found", "", "", 0},
		{"conflict with code", errs.E(errs.Conflict, "budget exceeded").WithCode("budget_exceeded"), 409, "Conflict", "budget exceeded", "budget_exceeded", "", 0},
		{"rate limited", &errs.Error{Kind: errs.RateLimited, Message: "Too many requests, please wait before retrying", RetryAfterSeconds: 17}, 429, "Rate Limited", "Too many requests, please wait before retrying", "", "", 17},
		{"rate limited without delay", errs.E(errs.RateLimited, "slow down"), 429, "Rate Limited", "slow down", "", "", 1},
		{"venue rejected with hint", errs.E(errs.VenueRejected, "not enough balance / allowance").WithCode("allowance").WithHint("POST /wallet/approve with token CTF").WithCause(cause), 422, "Venue Rejected", "not enough balance / allowance", "allowance", "POST /wallet/approve with token CTF", 0},
		{"transient", errs.Wrap(errs.Transient, cause, "database unavailable"), 503, "Service Unavailable", "database unavailable", "", "", 0},
		{"transient with retry", &errs.Error{Kind: errs.Transient, Message: "venue busy", RetryAfterSeconds: 5}, 503, "Service Unavailable", "venue busy", "", "", 5},
		{"empty message gets default", &errs.Error{Kind: errs.NotFound}, 404, "Not Found", "not found", "", "", 0},
		{"internal hides message", errs.E(errs.Internal, "nil map in budget calc").WithCode("bug"), 500, "Internal Server Error", "internal error; quote request id", "", "", 0},
		{"unclassified hides text", cause, 500, "Internal Server Error", "internal error; quote request id", "", "", 0},
		{"deadline", fmt.Errorf("calling venue: %w", context.DeadlineExceeded), 503, "Service Unavailable", "timed out", "", "", 0},
		// Venue errors arrive as the venue classified them and answer as
		// models/errs maps them; the venue refusing the service's
		// credentials is a 502, never the agent's own 401/403.
		{"venue 401", fmt.Errorf("post order: %w", venue.E(venue.Unauthorized, "Unauthorized/Invalid api key").WithCode("unauthorized").WithCause(cause)), 502, "Bad Gateway", "the venue refused the service's credentials", "venue_unauthorized", "", 0},
		{"venue 403", venue.E(venue.Forbidden, "Access restricted. Regional restrictions").WithCode("geoblocked"), 502, "Bad Gateway", "Access restricted", "geoblocked", "", 0},
		{"venue rejected", &venue.Error{Category: venue.Rejected, Code: "insufficient_balance_or_allowance", Message: "not enough balance / allowance", Asset: venue.AssetConditional}, 422, "Venue Rejected", "not enough balance / allowance", "insufficient_balance_or_allowance", "POST /wallet/approve with token CTF", 0},
		{"venue unavailable", &venue.Error{Category: venue.Unavailable, Code: "trading_disabled", Message: "Trading is currently disabled", RetryAfterSeconds: 30}, 503, "Service Unavailable", "Trading is currently disabled", "trading_disabled", "", 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, Config{}, Deps{Routes: []Routes{func(s *Server) {
				// Fail in a middleware aborts the chain: the handler never runs.
				s.Group("", func(c *gin.Context) { Fail(c, tt.err) }).GET("/fail", func(c *gin.Context) {
					c.JSON(http.StatusOK, "must not be written after Fail")
				})
			}}})
			w := ts.do(t, httptest.NewRequest(http.MethodGet, "/fail", nil))
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d (%s)", w.Code, tt.status, w.Body)
			}
			b := decodeError(t, w)
			if b.Error != tt.label || !strings.Contains(b.Message, tt.message) || b.Code != tt.code || b.Hint != tt.hint || b.RetryAfter != tt.retryAfter {
				t.Fatalf("body = %+v, want label %q message~%q code %q hint %q retryAfter %d", b, tt.label, tt.message, tt.code, tt.hint, tt.retryAfter)
			}
			if got, want := w.Header().Get("Retry-After"), tt.retryAfter; (want == 0 && got != "") || (want != 0 && got != fmt.Sprint(want)) {
				t.Fatalf("Retry-After header = %q, want %d", got, want)
			}
			if strings.Contains(w.Body.String(), "10.1.2.3") || strings.Contains(w.Body.String(), "nil map") {
				t.Fatalf("cause leaked to client: %s", w.Body)
			}
			if status, _ := StatusFor(errs.KindOf(tt.err)); tt.status == 500 && status != 500 {
				t.Fatalf("StatusFor disagrees: %d", status)
			}
			if tt.status == 500 {
				if !strings.Contains(b.Message, b.RequestID) {
					t.Fatalf("internal message %q lacks request id %q", b.Message, b.RequestID)
				}
				logs := ts.logs.String()
				if !strings.Contains(logs, `"msg":"internal error"`) || !strings.Contains(logs, `"request_id":"`+b.RequestID+`"`) {
					t.Fatalf("internal error not logged with request id: %s", logs)
				}
				if strings.Contains(logs, "nil map") == false && strings.Contains(logs, "10.1.2.3") == false {
					t.Fatalf("internal cause not logged: %s", logs)
				}
			}
		})
	}
}

func TestStatusForCoversEveryKind(t *testing.T) {
	seen := map[int]errs.Kind{}
	for k := errs.Internal; k <= errs.Transient; k++ {
		status, label := StatusFor(k)
		if label == "" || status < 400 {
			t.Fatalf("%v → %d %q", k, status, label)
		}
		if prev, dup := seen[status]; dup {
			t.Fatalf("%v and %v share status %d", k, prev, status)
		}
		seen[status] = k
	}
	if s, _ := StatusFor(errs.Kind(200)); s != 500 {
		t.Fatalf("unknown kind → %d", s)
	}
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{orderRoutes}})
	tests := []struct {
		method, path string
		status       int
		label, allow string
	}{
		{http.MethodGet, "/nope", 404, "Not Found", ""},
		{http.MethodGet, "/api/agent/v1/orders/ord_1/", 404, "Not Found", ""}, // no redirect
		{http.MethodDelete, "/api/agent/v1/orders", 405, "Method Not Allowed", "POST"},
		{http.MethodPut, "/healthz", 405, "Method Not Allowed", "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := ts.do(t, httptest.NewRequest(tt.method, tt.path, nil))
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d (%s)", w.Code, tt.status, w.Body)
			}
			b := decodeError(t, w)
			if b.Error != tt.label {
				t.Fatalf("label %q", b.Error)
			}
			if tt.allow != "" && !strings.Contains(w.Header().Get("Allow"), tt.allow) {
				t.Fatalf("Allow = %q", w.Header().Get("Allow"))
			}
		})
	}
}

func TestPanicRecovery(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{func(s *Server) {
		s.Group("").GET("/boom", func(c *gin.Context) { panic("secret panic text with ll_" + strings.Repeat("k", 64)) })
	}}})
	w := ts.do(t, httptest.NewRequest(http.MethodGet, "/boom", nil))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", w.Code)
	}
	b := decodeError(t, w)
	if strings.Contains(w.Body.String(), "secret panic") || strings.Contains(w.Body.String(), "goroutine") {
		t.Fatalf("panic leaked: %s", w.Body)
	}
	if b.Error != "Internal Server Error" || !strings.Contains(b.Message, b.RequestID) {
		t.Fatalf("body %+v", b)
	}
	logs := ts.logs.String()
	if !strings.Contains(logs, "panic in handler") || !strings.Contains(logs, "secret panic text") {
		t.Fatalf("panic not logged: %s", logs)
	}
	if strings.Contains(logs, strings.Repeat("k", 64)) {
		t.Fatalf("key in panic value reached the log: %s", logs)
	}
	// The server keeps serving.
	if w := ts.do(t, httptest.NewRequest(http.MethodGet, "/healthz", nil)); w.Code != 200 {
		t.Fatalf("after panic: %d", w.Code)
	}
}

func TestRequestID(t *testing.T) {
	var seenInHandler, seenInContext string
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{func(s *Server) {
		s.Group("").GET("/id", func(c *gin.Context) {
			seenInHandler = RequestID(c)
			seenInContext = logging.RequestID(c.Request.Context())
			LoggerFrom(c).InfoContext(c.Request.Context(), "handler ran")
			OK(c, nil)
		})
	}}})
	tests := []struct {
		name, incoming string
		kept           bool
	}{
		{"sane incoming is kept", "abc-123_DEF.4:5", true},
		{"absent is generated", "", false},
		{"too long is replaced", strings.Repeat("a", 65), false},
		{"unsafe characters are replaced", "abc\"def", false},
		{"spaces are replaced", "abc def", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/id", nil)
			if tt.incoming != "" {
				r.Header.Set(HeaderRequestID, tt.incoming)
			}
			w := ts.do(t, r)
			got := w.Header().Get(HeaderRequestID)
			if tt.kept && got != tt.incoming {
				t.Fatalf("echoed %q, want %q", got, tt.incoming)
			}
			if !tt.kept && (got == "" || got == tt.incoming || !validRequestID(got)) {
				t.Fatalf("generated %q", got)
			}
			if seenInHandler != got || seenInContext != got {
				t.Fatalf("handler saw %q / %q, header %q", seenInHandler, seenInContext, got)
			}
			if !strings.Contains(ts.logs.String(), `"request_id":"`+got+`"`) {
				t.Fatalf("request id missing from logs: %s", ts.logs)
			}
		})
	}
}

func TestAccessLog(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{orderRoutes}})
	r := httptest.NewRequest(http.MethodGet, "/api/agent/v1/orders/ord_9?device_code=SECRETCODE&x=1", nil)
	r.Header.Set("Authorization", "Bearer ll_"+strings.Repeat("z", 64))
	r.Header.Set("Cookie", "session=COOKIEVALUE")
	r.RemoteAddr = "192.0.2.7:5555"
	r.Header.Set("X-Forwarded-For", "203.0.113.9") // untrusted: must not be believed
	w := ts.do(t, r)
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	var line map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(ts.logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line not JSON: %q", l)
		}
		if m["msg"] == "http request" {
			line = m
		}
	}
	if line == nil {
		t.Fatalf("no access log line: %s", ts.logs)
	}
	want := map[string]any{
		"method": "GET", "path": "/api/agent/v1/orders/ord_9", "route": "/api/agent/v1/orders/:id",
		"status": float64(200), "client_ip": "192.0.2.7", "request_id": w.Header().Get(HeaderRequestID),
	}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %v, want %v", k, line[k], v)
		}
	}
	if _, ok := line["latency_ms"].(float64); !ok {
		t.Errorf("latency_ms missing: %v", line)
	}
	for _, leak := range []string{"SECRETCODE", "zzzzzzzz", "COOKIEVALUE", "Bearer"} {
		if strings.Contains(ts.logs.String(), leak) {
			t.Errorf("log contains %q: %s", leak, ts.logs)
		}
	}
}

func TestEnvelopes(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{func(s *Server) {
		g := s.Group("/e")
		g.GET("/ok", func(c *gin.Context) { OK(c, []int{1, 2}) })
		g.GET("/nil", func(c *gin.Context) { OK(c, nil) })
		g.GET("/msg", func(c *gin.Context) { OKMessage(c, "Order cancelled", gin.H{"id": "ord_1"}) })
		g.GET("/with", func(c *gin.Context) {
			OKWith(c, http.StatusAccepted, []string{}, map[string]any{
				"sync":    gin.H{"enabled": true, "updated": 2},
				"success": false, "data": "clobbered", "error": "x",
			})
		})
	}}})
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/e/ok", 200, `{"success":true,"data":[1,2]}`},
		{"/e/nil", 200, `{"success":true,"data":null}`},
		{"/e/msg", 200, `{"success":true,"data":{"id":"ord_1"},"message":"Order cancelled"}`},
		{"/e/with", 202, `{"success":true,"data":[],"sync":{"enabled":true,"updated":2}}`},
	}
	for _, tt := range tests {
		w := ts.do(t, httptest.NewRequest(http.MethodGet, tt.path, nil))
		if w.Code != tt.status {
			t.Errorf("%s: status %d", tt.path, w.Code)
		}
		var got, want any
		_ = json.Unmarshal(w.Body.Bytes(), &got)
		_ = json.Unmarshal([]byte(tt.want), &want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: body %s, want %s", tt.path, w.Body, tt.want)
		}
	}
}

func TestHealthz(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Checks: []Check{{Name: "db", Fn: func(context.Context) error { return errors.New("down") }}}})
	w := ts.do(t, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"status":"ok"}` {
		t.Fatalf("healthz %d %s", w.Code, w.Body)
	}
}

func TestReadyz(t *testing.T) {
	ok := func(context.Context) error { return nil }
	hang := func(context.Context) error { select {} } // ignores its context
	slow := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	tests := []struct {
		name    string
		checks  []Check
		status  int
		down    []string
		checks2 map[string]string
	}{
		{"no checks", nil, 200, nil, map[string]string{}},
		{"all ok", []Check{{"database", ok}, {"temporal", ok}}, 200, nil, map[string]string{"database": "ok", "temporal": "ok"}},
		{"some down", []Check{
			{"venue", func(context.Context) error {
				return errs.Wrap(errs.Transient, errors.New("dial tcp 10.0.0.1:443"), "venue unreachable")
			}},
			{"database", ok},
			{"worker", func(context.Context) error { return errors.New("secret internal detail") }},
			{"temporal", slow},
			{"stuck", hang},
			{"broken", func(context.Context) error { panic("oops") }},
			{"nil", Check{}.Fn},
		}, 503, []string{"broken", "nil", "stuck", "temporal", "venue", "worker"}, map[string]string{
			"database": "ok", "venue": "venue unreachable", "worker": "unavailable",
			"temporal": "no answer within 50ms", "stuck": "no answer within 50ms", "broken": "unavailable", "nil": "unavailable",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, Config{ReadyTimeout: 50 * time.Millisecond}, Deps{Checks: tt.checks})
			w := ts.do(t, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			var rep ReadyReport
			if err := json.Unmarshal(w.Body.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			wantStatus := map[int]string{200: "ready", 503: "unavailable"}[tt.status]
			if rep.Status != wantStatus || fmt.Sprint(rep.Down) != fmt.Sprint(tt.down) || fmt.Sprint(rep.Checks) != fmt.Sprint(tt.checks2) {
				t.Fatalf("report %+v, want status %s down %v checks %v", rep, wantStatus, tt.down, tt.checks2)
			}
			if strings.Contains(w.Body.String(), "secret internal detail") || strings.Contains(w.Body.String(), "10.0.0.1") {
				t.Fatalf("unsafe text in readyz: %s", w.Body)
			}
		})
	}
}

// readyzCounter is a readiness check that counts its probes; each probe
// takes a while, so concurrent /readyz calls overlap it.
type readyzCounter struct{ n atomic.Int64 }

func (c *readyzCounter) check(ctx context.Context) error {
	c.n.Add(1)
	select {
	case <-time.After(20 * time.Millisecond):
	case <-ctx.Done():
	}
	return nil
}

// A hundred /readyz calls within a second cost the dependencies one probe
// (the amplification finding): the result is reused for about a
// second and concurrent calls share the probe in flight.
func TestReadyzCostsOneProbePerSecond(t *testing.T) {
	var now atomic.Int64 // nanoseconds since start, moved by the test
	start := time.Now()
	clock := func() time.Time { return start.Add(time.Duration(now.Load())) }
	var probes readyzCounter
	ts := newTestServer(t, Config{Now: clock}, Deps{Checks: []Check{{"database", probes.check}}})
	call := func() {
		w := ts.do(t, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"database":"ok"`) {
			t.Errorf("readyz %d %s", w.Code, w.Body)
		}
	}
	var wg sync.WaitGroup
	for i := range 100 {
		// Half at once, half one after another, spread over 0.99 s.
		if i%2 == 0 {
			wg.Go(call)
			continue
		}
		now.Store(int64(time.Duration(i) * 10 * time.Millisecond))
		call()
	}
	wg.Wait()
	if got := probes.n.Load(); got != 1 {
		t.Fatalf("100 calls within a second ran %d probes, want 1", got)
	}
	now.Store(int64(1100 * time.Millisecond))
	call()
	if got := probes.n.Load(); got != 2 {
		t.Fatalf("after the cache aged: %d probes, want 2", got)
	}
}

// The cache keeps a failure too, and never blocks: a dependency that is
// down is reported down to every caller of the second.
func TestReadyzCachesFailures(t *testing.T) {
	var probes atomic.Int64
	down := func(context.Context) error {
		probes.Add(1)
		return errs.E(errs.Transient, "venue unreachable")
	}
	ts := newTestServer(t, Config{}, Deps{Checks: []Check{{"venue", down}}})
	for range 20 {
		w := ts.do(t, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "venue unreachable") {
			t.Fatalf("readyz %d %s", w.Code, w.Body)
		}
	}
	if probes.Load() != 1 {
		t.Fatalf("%d probes, want 1", probes.Load())
	}
}

func TestMetricsEndpoint(t *testing.T) {
	ts := newTestServer(t, Config{}, Deps{Routes: []Routes{orderRoutes}})
	for _, p := range []string{"/api/agent/v1/orders/ord_1", "/api/agent/v1/orders/ord_2", "/random/probe"} {
		ts.do(t, httptest.NewRequest(http.MethodGet, p, nil))
	}
	// Metrics are the operator listener's: the API does not serve them.
	if w := ts.do(t, httptest.NewRequest(http.MethodGet, "/metrics", nil)); w.Code != http.StatusNotFound {
		t.Fatalf("GET /metrics on the API: %d, want 404", w.Code)
	}
	w := httptest.NewRecorder()
	MetricsHandler(ts.reg).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	body := w.Body.String()
	for _, want := range []string{
		`ats_http_requests_total{method="GET",route="/api/agent/v1/orders/:id",status="200"} 2`,
		`ats_http_requests_total{method="GET",route="unmatched",status="404"} 2`, // /random/probe and /metrics
		`ats_http_request_duration_seconds_count{method="GET",route="/api/agent/v1/orders/:id"} 2`,
		`ats_http_request_duration_seconds_bucket{method="GET",route="/api/agent/v1/orders/:id",le="+Inf"} 2`,
		`ats_http_requests_in_flight 0`, // the scrape no longer passes through the API
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "ord_1") || strings.Contains(body, "/random/probe") {
		t.Errorf("raw paths in labels:\n%s", body)
	}
}

func TestTwoServersShareRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := NewServer(Config{Registry: reg}, Deps{})
	b := NewServer(Config{Registry: reg}, Deps{})
	for _, s := range []*Server{a, b} {
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	}
	w := httptest.NewRecorder()
	MetricsHandler(reg).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if !strings.Contains(w.Body.String(), `ats_http_requests_total{method="GET",route="/healthz",status="200"} 2`) {
		t.Fatalf("shared counters wrong:\n%s", w.Body)
	}
}

func TestDefaultRegistryExposesProcessMetrics(t *testing.T) {
	s := NewServer(Config{}, Deps{})
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	w := httptest.NewRecorder()
	MetricsHandler(nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if !strings.Contains(w.Body.String(), "go_goroutines") || !strings.Contains(w.Body.String(), "ats_http_requests_in_flight") {
		t.Fatalf("default registry lacks runtime or HTTP metrics:\n%.2000s", w.Body)
	}
	// A second server on the default registry must not panic.
	_ = New(Config{}, Deps{})
}

func BenchmarkOKRequest(b *testing.B) {
	s := NewServer(Config{Registry: prometheus.NewRegistry()}, Deps{Routes: []Routes{orderRoutes}})
	r := httptest.NewRequest(http.MethodGet, "/api/agent/v1/orders/ord_1", nil)
	b.ReportAllocs()
	for b.Loop() {
		s.ServeHTTP(httptest.NewRecorder(), r)
	}
}

func BenchmarkBindJSON(b *testing.B) {
	s := NewServer(Config{Registry: prometheus.NewRegistry()}, Deps{Routes: []Routes{orderRoutes}})
	body := `{"tokenId":"71321045679252212594626385532706912750332728571942532289631379312455583992563","side":"BUY","price":"0.42","size":10}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/api/agent/v1/orders", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(httptest.NewRecorder(), r)
	}
}
