package logging

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"go.opentelemetry.io/otel/trace"
	"log/slog"
	"strings"
	"testing"
)

const (
	testAPIKey  = "ll_Q2hhbmdlTWVQbGVhc2VUaGlzSXNOb3RBUmVhbEtleUJ1dExvb2tzTGlrZU9uZQ"
	testPrivKey = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	// A condition id has the same shape as a private key but is public.
	testCondID = "0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af"
)

type credStringer struct{}

type walletConfig struct {
	Address    string
	PrivateKey string `json:"privateKey,omitempty"`
	APISecret  string `json:"apiSecret,omitempty"`
}

func (credStringer) String() string { return "creds " + testAPIKey }

func TestLoggerRedacts(t *testing.T) {
	tests := []struct {
		name   string
		log    func(l *slog.Logger)
		secret string // must not appear
		keep   string // must appear (proves the record was written)
	}{
		{"api key in message", func(l *slog.Logger) { l.Info("agent used " + testAPIKey) }, testAPIKey, "agent used"},
		{"api key under innocent key", func(l *slog.Logger) { l.Info("x", "value", testAPIKey) }, testAPIKey, "value"},
		{"api key prefix survives redaction check", func(l *slog.Logger) { l.Info("x", "k", "key="+testAPIKey[:30]) }, testAPIKey[:30], "key="},
		{"private key under innocent key", func(l *slog.Logger) { l.Info("x", "data", testPrivKey) }, testPrivKey[2:], "data"},
		{"private key upper-case hex", func(l *slog.Logger) { l.Info("x", "data", strings.ToUpper(testPrivKey)) }, strings.ToUpper(testPrivKey[2:]), "data"},
		{"private key without hash exemption under hash key is kept only when exact", func(l *slog.Logger) {
			l.Info("x", "tx_hash", "signed with "+testPrivKey)
		}, testPrivKey[2:], "signed with"},
		{"private key without 0x", func(l *slog.Logger) { l.Info("x", "data", "k="+testPrivKey[2:]) }, testPrivKey[2:], "data"},
		{"private key without 0x in message", func(l *slog.Logger) { l.Info("read " + strings.ToUpper(testPrivKey[2:]) + " from stdin") },
			strings.ToUpper(testPrivKey[2:]), "from stdin"},
		{"private key in error", func(l *slog.Logger) { l.Error("boom", "err", fmt.Errorf("decode %s: bad", testPrivKey)) }, testPrivKey[2:], "decode"},
		{"api key in stringer", func(l *slog.Logger) { l.Info("x", "thing", credStringer{}) }, testAPIKey, "creds"},
		{"api key in bytes", func(l *slog.Logger) { l.Info("x", "raw", []byte("k="+testAPIKey)) }, testAPIKey, "raw"},
		{"bearer header text", func(l *slog.Logger) { l.Info("x", "h", "Bearer abc.def-ghi") }, "abc.def-ghi", "Bearer"},
		{"authorization key", func(l *slog.Logger) { l.Info("x", "Authorization", "whatever-it-is") }, "whatever-it-is", "Authorization"},
		{"password key", func(l *slog.Logger) { l.Info("x", "password", "hunter2hunter2") }, "hunter2hunter2", "password"},
		{"private_key key", func(l *slog.Logger) { l.Info("x", "private_key", "not-hex-at-all") }, "not-hex-at-all", "private_key"},
		{"privateKey key", func(l *slog.Logger) { l.Info("x", "privateKey", "abcabc-123") }, "abcabc-123", "privateKey"},
		{"secret key", func(l *slog.Logger) { l.Info("x", "api_secret", "s3cr3tvalue") }, "s3cr3tvalue", "api_secret"},
		{"passphrase key", func(l *slog.Logger) { l.Info("x", "passphrase", "pp-value-1") }, "pp-value-1", "passphrase"},
		{"apiKey key", func(l *slog.Logger) { l.Info("x", "apiKey", "k-short-9") }, "k-short-9", "apiKey"},
		{"api_key key", func(l *slog.Logger) { l.Info("x", "api_key", "k-short-8") }, "k-short-8", "api_key"},
		{"token key", func(l *slog.Logger) { l.Info("x", "token", "tok-123-xyz") }, "tok-123-xyz", "token"},
		{"access token key", func(l *slog.Logger) { l.Info("x", "access_token", "tok-123-xyz") }, "tok-123-xyz", "access_token"},
		{"device_code key", func(l *slog.Logger) { l.Info("x", "device_code", "dc-98765") }, "dc-98765", "device_code"},
		{"cookie key", func(l *slog.Logger) { l.Info("x", "cookie", "session=abc999") }, "abc999", "cookie"},
		{"secret key with non-string value", func(l *slog.Logger) { l.Info("x", "password", 123456789) }, "123456789", "password"},
		{"secret inside group", func(l *slog.Logger) {
			l.Info("x", slog.Group("wallet", slog.String("privateKey", "zz-top-secret")))
		}, "zz-top-secret", "wallet"},
		{"whole secret group", func(l *slog.Logger) {
			l.Info("x", slog.Group("credentials", slog.String("user", "u-visible-name")))
		}, "u-visible-name", "credentials"},
		{"secret in WithAttrs", func(l *slog.Logger) { l.With("password", "pw-in-with").Info("x") }, "pw-in-with", "password"},
		{"secret field in struct", func(l *slog.Logger) {
			l.Info("x", "wallet", walletConfig{Address: "0xabc-visible", PrivateKey: "plain-words-key", APISecret: "sek-123"})
		}, "plain-words-key", "0xabc-visible"},
		{"secret field in struct pointer", func(l *slog.Logger) {
			l.Info("x", "wallet", &walletConfig{Address: "0xabc-visible", APISecret: "sek-123456"})
		}, "sek-123456", "0xabc-visible"},
		{"key-shaped value in nested struct", func(l *slog.Logger) {
			l.Info("x", "req", map[string]any{"order": map[string]any{"note": "k " + testAPIKey}, "side": "BUY"})
		}, testAPIKey, "BUY"},
		{"slice of structs", func(l *slog.Logger) {
			l.Info("x", "wallets", []walletConfig{{Address: "0xabc-visible", PrivateKey: "plain-words-key"}})
		}, "plain-words-key", "0xabc-visible"},
		{"raw JSON", func(l *slog.Logger) {
			l.Info("x", "body", json.RawMessage(`{"apiKey":"raw-json-key","market":"m-visible"}`))
		}, "raw-json-key", "m-visible"},
		{"secret in map", func(l *slog.Logger) {
			l.Info("x", "headers", map[string]string{"Authorization": "Bearer zzz-in-map", "Accept": "json"})
		}, "zzz-in-map", "Accept"},
	}
	for _, format := range []bool{true, false} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/json=%v", tt.name, format), func(t *testing.T) {
				var buf bytes.Buffer
				tt.log(NewLogger(&buf, slog.LevelDebug, format))
				out := buf.String()
				if strings.Contains(out, tt.secret) {
					t.Fatalf("secret %q leaked: %s", tt.secret, out)
				}
				if !strings.Contains(out, tt.keep) {
					t.Fatalf("expected %q in output: %s", tt.keep, out)
				}
				if !strings.Contains(out, Redacted) {
					t.Fatalf("no redaction marker in output: %s", out)
				}
			})
		}
	}
}

func TestLoggerDropsKeyMaterial(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []bool{true, false} {
		var buf bytes.Buffer
		NewLogger(&buf, slog.LevelInfo, format).Info("signer ready", "key", k, "signer", struct{ K *ecdsa.PrivateKey }{k})
		if strings.Contains(buf.String(), k.D.String()) || strings.Contains(buf.String(), k.D.Text(16)) {
			t.Fatalf("private scalar leaked: %s", buf.String())
		}
		if !strings.Contains(buf.String(), "signer ready") {
			t.Fatalf("record missing: %s", buf.String())
		}
	}
}

func TestLoggerKeepsPublicValues(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, slog.LevelInfo, true)
	l.Info("order placed",
		"token_id", "71321045679252212594626385532706912750332728571942532289631379312455583992563",
		"condition_id", testCondID,
		"tx_hash", testCondID,
		"signature", "0x"+strings.Repeat("ab", 65),
		"user_code", "WDJB-MJHT",
	)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("bad JSON %q: %v", buf.String(), err)
	}
	for _, k := range []string{"token_id", "condition_id", "tx_hash", "signature", "user_code"} {
		if v, _ := rec[k].(string); v == "" || v == Redacted {
			t.Errorf("%s = %v, want the original value", k, rec[k])
		}
	}
	if strings.Contains(buf.String(), Redacted) {
		t.Errorf("unexpected redaction: %s", buf.String())
	}
}

func TestRequestIDFromContext(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, slog.LevelInfo, true).With("component", "test")
	ctx := WithRequestID(context.Background(), "req-123")
	l.InfoContext(ctx, "hello")
	l.Info("no context")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", buf.String())
	}
	var first, second map[string]any
	if err := errors.Join(json.Unmarshal([]byte(lines[0]), &first), json.Unmarshal([]byte(lines[1]), &second)); err != nil {
		t.Fatal(err)
	}
	if first[RequestIDKey] != "req-123" {
		t.Errorf("request_id = %v", first[RequestIDKey])
	}
	if _, ok := second[RequestIDKey]; ok {
		t.Errorf("request_id without context: %v", second)
	}
	if RequestID(context.Background()) != "" {
		t.Error("empty context has a request id")
	}
}

func TestLevelFilter(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, slog.LevelWarn, false)
	l.Info("dropped")
	l.Warn("kept")
	if strings.Contains(buf.String(), "dropped") || !strings.Contains(buf.String(), "kept") {
		t.Fatalf("level filter wrong: %q", buf.String())
	}
}

func TestIsSecretKey(t *testing.T) {
	tests := map[string]bool{
		"authorization": true, "Authorization": true, "X-Api-Key": true, "api_key": true, "apiKey": true,
		"password": true, "new_password": true, "private_key": true, "privateKey": true, "secret": true,
		"clientSecret": true, "passphrase": true, "token": true, "refreshToken": true, "device_code": true,
		"cookie": true, "Set-Cookie": true,
		"token_id": false, "tokenIds": false, "clobTokenIds": false, "user_code": false, "status": false,
		"condition_id": false, "": false, "path": false,
	}
	for k, want := range tests {
		if got := IsSecretKey(k); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in   string
		want slog.Level
		ok   bool
	}{
		{"debug", slog.LevelDebug, true}, {"INFO", slog.LevelInfo, true}, {"warning", slog.LevelWarn, true},
		{"error", slog.LevelError, true}, {"", slog.LevelInfo, true}, {"loud", slog.LevelInfo, false},
	}
	for _, tt := range tests {
		got, ok := ParseLevel(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLevel(%q) = %v,%v want %v,%v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func BenchmarkLoggerJSON(b *testing.B) {
	l := NewLogger(&bytes.Buffer{}, slog.LevelInfo, true)
	b.ReportAllocs()
	for b.Loop() {
		l.Info("http request", "method", "POST", "path", "/api/agent/v1/orders", "status", 201, "latency_ms", 3)
	}
}

// TestTraceIDFromContext: a line logged with a context inside a span
// carries its trace and span ids, unredacted, so it can be found from the
// trace and vice versa; a line without one carries neither.
func TestTraceIDFromContext(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, slog.LevelInfo, true)
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	l.InfoContext(WithRequestID(ctx, "req-1"), "traced")
	l.InfoContext(context.Background(), "untraced")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var first, second map[string]any
	if err := errors.Join(json.Unmarshal([]byte(lines[0]), &first), json.Unmarshal([]byte(lines[1]), &second)); err != nil {
		t.Fatal(err)
	}
	if first[TraceIDKey] != tid.String() || first[SpanIDKey] != sid.String() || first[RequestIDKey] != "req-1" {
		t.Errorf("traced line: %v", first)
	}
	if _, ok := second[TraceIDKey]; ok {
		t.Errorf("untraced line: %v", second)
	}
}
