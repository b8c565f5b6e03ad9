// Package logging builds the structured loggers every ats process (API
// server, Temporal worker, sandbox) uses, with secret redaction applied in
// the handler so that no call site can leak a credential by accident.
//
// Redaction works on three levels:
//
//   - by attribute key: any attribute (or group) whose key names a secret,
//     such as "authorization", "password", "private_key", "api_key",
//     "token", "device_code" or "cookie", has its whole value replaced by
//     [Redacted], whatever the value is;
//   - by value shape: inside every string that reaches the output (messages,
//     string attributes, error texts, Stringers) substrings that look like an
//     agent API key ("ll_" + a long random string), a 32-byte hex string
//     with or without 0x (an EVM private key) or a bearer credential are
//     replaced;
//   - by type: values that are or contain private keys (*ecdsa.PrivateKey,
//     ed25519.PrivateKey, types named *PrivateKey* or *Secret*) are dropped
//     whole, and other composite values (structs, maps, slices) are rendered
//     as JSON with secret-named fields redacted.
//
// Bytes32 values are also condition ids and transaction hashes, which are
// public and essential when debugging. Attributes whose key is one of those
// public-hash keys (see publicHashKeys) keep a value that is exactly one
// 0x-prefixed 64-hex string; everywhere else the shape wins and the value is
// redacted.
package logging

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding"
	"encoding/json"
	"fmt"
	"go.opentelemetry.io/otel/trace"
	"io"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"sync"
)

// Redacted is the text that replaces a secret in log output.
const Redacted = "[REDACTED]"

// RequestIDKey is the attribute key under which the request id of the
// context passed to a *Context logging method is emitted.
const RequestIDKey = "request_id"

// TraceIDKey and SpanIDKey carry the OpenTelemetry trace and span of the
// context a line is logged with, when it has one.
const (
	TraceIDKey = "trace_id"
	SpanIDKey  = "span_id"
)

// NewLogger returns a logger writing to w at the given minimum level, as
// JSON lines when json is true and as logfmt-style text otherwise. Every
// record goes through secret redaction, and records logged with a context
// carrying a request id (see WithRequestID) get a request_id attribute.
func NewLogger(w io.Writer, level slog.Level, json bool) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redactAttr}
	var h slog.Handler
	if json {
		h = slog.NewJSONHandler(w, opts)
	} else {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(&contextHandler{inner: h})
}

// ParseLevel parses "debug", "info", "warn"/"warning" or "error" (any case)
// for command-line flags; it reports false for anything else.
func ParseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, true
	case "info", "":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return slog.LevelInfo, false
}

// Discard returns a logger that drops everything; for tests and optional
// dependencies, so callers never need a nil check.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

type requestIDKey struct{}

// WithRequestID returns a copy of ctx carrying the request id, so that logs
// written with that context (and by code further down the call chain, such
// as services and store calls) can be correlated with the HTTP request.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id carried by ctx, or "".
func RequestID(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// contextHandler adds the request id and the trace found in the record's
// context. It sits
// outside the redacting handler so the id goes through the same pipeline.
type contextHandler struct{ inner slog.Handler }

func (h *contextHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *contextHandler) Handle(ctx context.Context, r slog.Record) error {
	id := RequestID(ctx)
	// The trace id joins a log line to its trace (and to the log lines
	// of the same request in other processes: the worker's activities
	// carry it through Temporal's headers).
	sc := trace.SpanContextFromContext(ctx)
	if id != "" || sc.IsValid() {
		r = r.Clone()
	}
	if id != "" {
		r.AddAttrs(slog.String(RequestIDKey, id))
	}
	if sc.IsValid() {
		r.AddAttrs(slog.String(TraceIDKey, sc.TraceID().String()), slog.String(SpanIDKey, sc.SpanID().String()))
	}
	return h.inner.Handle(ctx, r)
}

func (h *contextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &contextHandler{inner: h.inner.WithAttrs(as)}
}

func (h *contextHandler) WithGroup(name string) slog.Handler {
	return &contextHandler{inner: h.inner.WithGroup(name)}
}

// secretKeyParts are matched against normalised keys (lower case, without
// '_', '-', '.' and spaces). A key containing one of them is secret.
var secretKeyParts = [][]byte{
	[]byte("authorization"),
	[]byte("password"),
	[]byte("passwd"),
	[]byte("privatekey"),
	[]byte("secret"),
	[]byte("passphrase"),
	[]byte("apikey"),
	[]byte("devicecode"),
	[]byte("cookie"),
	[]byte("mnemonic"),
	[]byte("masterkey"),
	[]byte("credential"),
}

// publicHashKeys are normalised keys whose values are public bytes32 hashes
// (condition ids, transaction and order hashes). They are exempt from the
// private-key shape rule only; see the package comment.
var publicHashKeys = map[string]bool{
	"conditionid":     true,
	"questionid":      true,
	"txhash":          true,
	"transactionhash": true,
	"orderhash":       true,
	"blockhash":       true,
	"hash":            true,
}

// normaliseKey lower-cases k and drops '_', '-', '.' and spaces, so that
// "Private-Key", "private_key" and "privateKey" compare equal.
func normaliseKey(k string) string {
	var buf [64]byte
	return string(appendNormalised(buf[:0], k))
}

func appendNormalised(dst []byte, k string) []byte {
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+('a'-'A'))
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// IsSecretKey reports whether an attribute, header or field named key holds
// a secret and must never be logged. "token" on its own or as a suffix
// (access_token, refreshToken) is secret; "token_id" and "tokenIds", the
// venue's public outcome-token identifiers, are not.
func IsSecretKey(key string) bool {
	var buf [64]byte
	n := appendNormalised(buf[:0], key)
	if len(n) == 0 {
		return false
	}
	for _, p := range secretKeyParts {
		if bytes.Contains(n, p) {
			return true
		}
	}
	return bytes.HasSuffix(n, []byte("token")) || bytes.HasSuffix(n, []byte("tokens"))
}

// isPublicHashKey reports whether key is one of publicHashKeys.
func isPublicHashKey(key string) bool {
	var buf [64]byte
	return publicHashKeys[string(appendNormalised(buf[:0], key))]
}

var (
	// ll_ followed by the key body; 20+ characters so identifiers such as
	// "ll_keys" in prose are left alone while truncated keys are still caught.
	apiKeyRE = regexp.MustCompile(`\bll_[A-Za-z0-9_\-]{20,}`)
	// Exactly 32 bytes of hex: longer hex runs (signatures, calldata) are not
	// private keys and are left alone by the trailing \b.
	privKeyRE = regexp.MustCompile(`\b0[xX][0-9a-fA-F]{64}\b`)
	// The same without 0x: how keys are pasted into tools and read from
	// stdin. A word boundary on both sides keeps it off longer runs, such
	// as 77-digit token ids and signatures.
	barePrivKeyRE = regexp.MustCompile(`\b[0-9a-fA-F]{64}\b`)
	bearerRE      = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]+`)
	hash32RE      = regexp.MustCompile(`^0[xX][0-9a-fA-F]{64}$`)
)

// Scrub returns s with every substring that looks like a secret replaced by
// [Redacted]. It is exported for code that writes secrets-prone text
// somewhere other than a logger (for example a stored error message).
func Scrub(s string) string {
	if len(s) >= 64 {
		s = barePrivKeyRE.ReplaceAllString(s, Redacted)
	}
	// Cheap guards first: most log strings contain none of the markers and
	// must not pay for three regular expressions.
	if !strings.Contains(s, "ll_") && !strings.Contains(s, "0x") && !strings.Contains(s, "0X") &&
		!strings.Contains(s, "earer") && !strings.Contains(s, "EARER") {
		return s
	}
	s = apiKeyRE.ReplaceAllString(s, Redacted)
	s = privKeyRE.ReplaceAllString(s, Redacted)
	s = bearerRE.ReplaceAllString(s, "${1} "+Redacted)
	return s
}

// redactAttr is the slog ReplaceAttr hook. slog calls it for every non-group
// attribute, including the built-in message, with the enclosing group names.
func redactAttr(groups []string, a slog.Attr) slog.Attr {
	for _, g := range groups {
		if IsSecretKey(g) {
			return slog.String(a.Key, Redacted)
		}
	}
	if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.SourceKey) {
		return a
	}
	if IsSecretKey(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		s := v.String()
		if isPublicHashKey(a.Key) && hash32RE.MatchString(s) {
			return slog.String(a.Key, s)
		}
		return slog.String(a.Key, Scrub(s))
	case slog.KindAny:
		x := v.Any()
		if isPublicHashKey(a.Key) {
			if s, ok := textOf(x); ok && hash32RE.MatchString(s) {
				return slog.String(a.Key, s)
			}
		}
		return slog.Any(a.Key, scrubAny(x))
	default:
		return slog.Attr{Key: a.Key, Value: v}
	}
}

func textOf(x any) (string, bool) {
	switch t := x.(type) {
	case fmt.Stringer:
		return t.String(), true
	case encoding.TextMarshaler:
		b, err := t.MarshalText()
		return string(b), err == nil
	}
	return "", false
}

// scrubAny makes an arbitrary attribute value safe. Values printed through
// their text form (errors, Stringers, byte slices) become scrubbed strings;
// key material is dropped whole; composite values (structs, maps, slices)
// are rendered to JSON with secret-named fields redacted and secret-shaped
// strings scrubbed, so a struct logged whole cannot leak its credentials.
func scrubAny(x any) any {
	if x == nil {
		return nil
	}
	if isKeyMaterial(x) {
		return Redacted
	}
	switch t := x.(type) {
	case error:
		return Scrub(t.Error())
	case fmt.Stringer:
		return Scrub(t.String())
	case encoding.TextMarshaler:
		b, err := t.MarshalText()
		if err != nil {
			return Redacted
		}
		return Scrub(string(b))
	case []byte:
		return Scrub(string(t))
	case json.RawMessage:
		return scrubJSON(t)
	case string:
		return Scrub(t)
	}
	switch reflect.Indirect(reflect.ValueOf(x)).Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface:
		b, err := json.Marshal(x)
		if err != nil {
			return Scrub(fmt.Sprintf("%+v", x))
		}
		return scrubJSON(b)
	}
	return x
}

// isKeyMaterial reports values that are, or structurally contain, private
// keys by type, whatever their fields are called: *ecdsa.PrivateKey would
// otherwise print its scalar D, and ed25519.PrivateKey is a plain byte
// slice. Such values are redacted whole.
func isKeyMaterial(x any) bool {
	t := reflect.TypeOf(x)
	if v, ok := keyTypeCache.Load(t); ok {
		return v.(bool)
	}
	found := typeHasKeyMaterial(t, map[reflect.Type]bool{})
	keyTypeCache.Store(t, found)
	return found
}

var keyTypeCache sync.Map // reflect.Type → bool

var keyMaterialTypes = map[reflect.Type]bool{
	reflect.TypeFor[ecdsa.PrivateKey]():   true,
	reflect.TypeFor[ed25519.PrivateKey](): true,
	reflect.TypeFor[ecdh.PrivateKey]():    true,
}

func typeHasKeyMaterial(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if keyMaterialTypes[t] {
		return true
	}
	if n := normaliseKey(t.Name()); strings.Contains(n, "privatekey") || strings.Contains(n, "secret") {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return typeHasKeyMaterial(t.Elem(), seen)
	case reflect.Map:
		return typeHasKeyMaterial(t.Key(), seen) || typeHasKeyMaterial(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if typeHasKeyMaterial(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// scrubJSON redacts a JSON document by key and by value shape and returns
// it as raw JSON (the JSON handler embeds it as is; the text handler quotes
// it). Invalid JSON is scrubbed as text.
func scrubJSON(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Scrub(string(raw))
	}
	out, err := json.Marshal(redactJSONValue(v))
	if err != nil {
		return Redacted
	}
	return json.RawMessage(out)
}

func redactJSONValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if IsSecretKey(k) {
				t[k] = Redacted
			} else {
				t[k] = redactJSONValue(e)
			}
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = redactJSONValue(e)
		}
		return t
	case string:
		return Scrub(t)
	}
	return v
}
