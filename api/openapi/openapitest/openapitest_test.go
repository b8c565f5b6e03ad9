package openapitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheck shows the validator fails what it must: each case is an answer
// a handler could give, and whether the document allows it.
func TestCheck(t *testing.T) {
	v := MustLoad(t)
	const rid = "X-Request-Id"
	errBody := func(status int, label, code string) string {
		b := `{"success":false,"error":"` + label + `","message":"m","requestId":"r"`
		if code != "" {
			b += `,"code":"` + code + `"`
		}
		return b + "}"
	}
	tests := []struct {
		name, method, path string
		status             int
		header             map[string]string
		body               string
		want               string // "" = valid; else a part of the error
	}{
		{"a documented answer", "GET", "/api/agent/v1/balance", 200, nil,
			`{"success":true,"data":{"usdc":12.5,"address":"0xab","walletType":"proxy"}}`, ""},
		{"a decimal string where a number is documented", "GET", "/api/agent/v1/balance", 200, nil,
			`{"success":true,"data":{"usdc":"12.5","address":"0xab","walletType":"proxy"}}`, "got string, want number"},
		{"an undocumented field", "GET", "/api/agent/v1/balance", 200, nil,
			`{"success":true,"data":{"usdc":1,"address":"0xab","walletType":"proxy","extra":1}}`, "additional properties 'extra' not allowed"},
		{"a missing field", "GET", "/api/agent/v1/me", 200, nil,
			`{"success":true,"data":{"agentId":"a","name":"n","status":"active","mode":"live"}}`, "missing property 'scopes'"},
		{"an undocumented status", "GET", "/api/agent/v1/balance", 409, nil,
			errBody(409, "Conflict", "budget_exceeded"), "status is not supported"},
		{"the wrong label for the status", "GET", "/api/agent/v1/balance", 404, nil,
			errBody(404, "Conflict", "no_wallet"), "value must be 'Not Found'"},
		{"a catalogued code", "GET", "/api/agent/v1/balance", 404, nil,
			errBody(404, "Not Found", "no_wallet"), ""},
		{"a code outside the catalogue", "GET", "/api/agent/v1/balance", 404, nil,
			errBody(404, "Not Found", "wallet_gone"), "not in the catalogue"},
		{"a code with a status the catalogue does not give it", "GET", "/api/agent/v1/orders/ord_1", 404, nil,
			errBody(404, "Not Found", "budget_exceeded"), "the catalogue gives it [409]"},
		{"an RFC 8628 code in error", "GET", "/api/auth/device/token?device_code=x", 400,
			map[string]string{"Cache-Control": "no-store", "Pragma": "no-cache"},
			`{"success":false,"error":"authorization_pending","message":"m","requestId":"r"}`, ""},
		{"an unknown code in error", "GET", "/api/auth/device/token?device_code=x", 400,
			map[string]string{"Cache-Control": "no-store", "Pragma": "no-cache"},
			`{"success":false,"error":"authorisation_pending","message":"m","requestId":"r"}`, "not in the catalogue"},
		{"an undeclared rate-limit header", "GET", "/api/agent/v1/openapi.json", 200,
			map[string]string{"Cache-Control": "public", "ETag": `"x"`, "X-RateLimit-Limit": "100"},
			`{"openapi":"3.1.0","info":{},"paths":{}}`, "X-RateLimit-Limit is sent but not declared"},
		{"a declared rate-limit header", "GET", "/api/agent/v1/me", 200,
			map[string]string{"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": "1700000000"},
			`{"success":true,"data":{"agentId":"a","name":"n","status":"active","mode":"live","scopes":["read"]}}`, ""},
		{"a body that is not JSON", "GET", "/api/agent/v1/me", 200, nil, `<html>`, "not JSON"},
		{"a malformed rate-limit header", "GET", "/api/agent/v1/me", 200,
			map[string]string{"X-RateLimit-Limit": "lots"},
			`{"success":true,"data":{"agentId":"a","name":"n","status":"active","mode":"live","scopes":["read"]}}`, "X-RateLimit-Limit"},
		{"an undocumented endpoint that answers", "GET", "/api/agent/v1/not-an-endpoint", 200, nil,
			`{"success":true,"data":{}}`, "not in the OpenAPI document"},
		{"an undocumented endpoint that is not found", "GET", "/api/agent/v1/not-an-endpoint", 404, nil,
			errBody(404, "Not Found", ""), ""},
		{"a path outside the prefixes", "GET", "/healthz", 200, nil, `{"status":"ok"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			h := http.Header{"Content-Type": {"application/json; charset=utf-8"}, rid: {"r1"}}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			err := v.Check(req, tt.status, h, []byte(tt.body))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("want an error containing %q, got none", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("want an error containing %q, got %v", tt.want, err)
			}
		})
	}
	t.Run("X-Request-Id is required", func(t *testing.T) {
		req := httptest.NewRequest("GET", "/api/agent/v1/me", nil)
		h := http.Header{"Content-Type": {"application/json"}}
		err := v.Check(req, 200, h, []byte(`{"success":true,"data":{"agentId":"a","name":"n","status":"active","mode":"live","scopes":[]}}`))
		if err == nil || !strings.Contains(err.Error(), rid) {
			t.Fatalf("want a missing %s error, got %v", rid, err)
		}
	})
}

// TestHandlerSeesUpgrades: a handler that upgrades the connection (a
// WebSocket stream) gets a writer it can hijack, and the upgrade is checked
// as a 101 of its operation, so an undocumented stream fails.
func TestHandlerSeesUpgrades(t *testing.T) {
	v := MustLoad(t)
	var reported []error
	upgrade := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
	})
	checked := make(chan struct{})
	h := v.handler(upgrade, func(err error) { reported = append(reported, err) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(checked)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/agent/v1/stream")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	<-checked // a hijacked connection's handler outlives the server's tracking
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d, want 101", resp.StatusCode)
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "answered 101 but is not in the OpenAPI document") {
		t.Fatalf("want the undocumented stream reported, got %v", reported)
	}
}
