// Package openapitest holds the HTTP tests to the OpenAPI document: it
// validates every answer of the agent API and the device flow that a test
// sees against the document the service serves, and fails the test on a
// mismatch.
//
// Wrap the handler under test (Handler), or the client of a server in
// another process (Client):
//
//	srv := httptest.NewServer(openapitest.Handler(t, api.New(cfg, deps)))
//
// An answer fails the test when its status is not documented for the
// operation, when its body or a documented header does not match the
// document, when it carries a rate-limit, Retry-After,
// Idempotent-Replayed or WWW-Authenticate header the document does not
// declare for it, when its error code is not in the catalogue
// (models/errs) or comes with a status the catalogue does not give the
// code, and when an undocumented path under the agent or device prefix
// answers with success.
package openapitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/openapi"
	"github.com/agent-trading/ats/models/errs"
)

// Prefixes are the paths the document covers: every route under them must
// be documented.
var Prefixes = []string{"/api/agent/v1/", "/api/auth/device", "/mcp"}

// Covered reports whether path is under one of Prefixes.
func Covered(path string) bool {
	for _, p := range Prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// Validator checks exchanges against the served document.
//
// kin-openapi finds the operation and checks the status and the headers;
// bodies are checked with JSON Schema 2020-12 (the dialect of OpenAPI 3.1)
// by santhosh-tekuri/jsonschema, against the schemas of the served document
// compiled once each: kin-openapi compiles a schema anew for every value,
// which made each answer cost milliseconds.
type Validator struct {
	Doc    *openapi3.T
	router routers.Router
	raw    map[string]any // the served document, as JSON values

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema // by JSON pointer into the document
}

// docURL names the served document as a JSON Schema resource, so the
// schemas' "#/components/schemas/…" references resolve within it.
const docURL = "urn:ats:openapi.json"

// Load loads and validates the served document (once per test binary).
func Load() (*Validator, error) { return load() }

var load = sync.OnceValues(func() (*Validator, error) {
	raw, err := openapi.Document()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	tree, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, tree); err != nil {
		return nil, err
	}
	return &Validator{Doc: doc, router: router, raw: tree.(map[string]any), compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
})

// schema returns the compiled schema at pointer (e.g.
// "/components/schemas/Error") of the document.
func (v *Validator) schema(pointer string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.schemas[pointer]; ok {
		return s, nil
	}
	s, err := v.compiler.Compile(docURL + "#" + pointer)
	if err != nil {
		return nil, err
	}
	v.schemas[pointer] = s
	return s, nil
}

// validateBody validates a JSON body against the schema at pointer.
func (v *Validator) validateBody(pointer string, body []byte) error {
	s, err := v.schema(pointer)
	if err != nil {
		return fmt.Errorf("compiling %s: %w", pointer, err)
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := s.Validate(value); err != nil {
		return fmt.Errorf("the body does not match %s: %w", pointer, err)
	}
	return nil
}

// bodyPointer returns the JSON pointer of the JSON body schema of the
// operation's answer with status, following a reference to
// components/responses; "" when that answer has no body.
func (v *Validator) bodyPointer(route *routers.Route, status int) string {
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1") }
	code := strconv.Itoa(status)
	paths, _ := v.raw["paths"].(map[string]any)
	item, _ := paths[route.Path].(map[string]any)
	op, _ := item[strings.ToLower(route.Method)].(map[string]any)
	responses, _ := op["responses"].(map[string]any)
	resp, _ := responses[code].(map[string]any)
	pointer := "/paths/" + esc(route.Path) + "/" + strings.ToLower(route.Method) + "/responses/" + code
	if ref, ok := resp["$ref"].(string); ok {
		pointer = strings.TrimPrefix(ref, "#")
		name := strings.TrimPrefix(ref, "#/components/responses/")
		components, _ := v.raw["components"].(map[string]any)
		shared, _ := components["responses"].(map[string]any)
		resp, _ = shared[name].(map[string]any)
	}
	content, _ := resp["content"].(map[string]any)
	if _, ok := content["application/json"]; !ok {
		return ""
	}
	return pointer + "/content/application~1json/schema"
}

// MustLoad is Load for tests.
func MustLoad(t testing.TB) *Validator {
	t.Helper()
	v, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// strictHeaders are headers an answer may carry only where the document
// declares them: they tell clients something (a budget, a wait, a replay,
// a challenge) the document must promise.
var strictHeaders = []string{
	"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	"Retry-After", "Idempotent-Replayed", "WWW-Authenticate",
}

// Check validates one answer to req. Answers to paths outside Prefixes are
// not checked.
func (v *Validator) Check(req *http.Request, status int, header http.Header, body []byte) error {
	if !Covered(req.URL.Path) {
		return nil
	}
	var problems []error
	route, params, err := v.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrPathNotFound), errors.Is(err, routers.ErrMethodNotAllowed):
		if status < 400 {
			return fmt.Errorf("%s %s answered %d but is not in the OpenAPI document (api/openapi/openapi.yaml)", req.Method, req.URL.Path, status)
		}
		// An unknown route or method: the HTTP layer's error envelope.
		if err := v.validateBody("/components/schemas/Error", body); err != nil {
			problems = append(problems, err)
		}
	case err != nil:
		return fmt.Errorf("%s %s: finding the route: %w", req.Method, req.URL.Path, err)
	default:
		input := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{
				Request: req, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
			},
			Status: status,
			Header: header,
			// The body is validated below, with a compiled schema.
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: true},
		}
		input.SetBodyBytes(body)
		if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
			problems = append(problems, err)
		} else if pointer := v.bodyPointer(route, status); pointer != "" {
			if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				problems = append(problems, fmt.Errorf("Content-Type %q, want application/json", ct))
			} else if err := v.validateBody(pointer, body); err != nil {
				problems = append(problems, err)
			}
		}
		if resp := route.Operation.Responses.Status(status); resp != nil && resp.Value != nil {
			for _, h := range strictHeaders {
				if header.Get(h) != "" && resp.Value.Headers[h] == nil {
					problems = append(problems, fmt.Errorf("header %s is sent but not declared for status %d", h, status))
				}
			}
		}
	}
	if err := checkCodes(status, body); err != nil {
		problems = append(problems, err)
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s %s → %d does not match the OpenAPI document: %w\nbody: %s",
		req.Method, req.URL.Path, status, errors.Join(problems...), truncate(body))
}

// codeLike tells an error code from a status label in "error".
var codeLike = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkCodes fails an error answer whose code (in "code", or in "error"
// where the device token endpoint puts its RFC 8628 codes) is not in the
// catalogue, or whose status is not one the catalogue gives the code.
func checkCodes(status int, body []byte) error {
	var e struct {
		Success *bool  `json:"success"`
		Error   string `json:"error"`
		Code    string `json:"code"`
	}
	if json.Unmarshal(body, &e) != nil || e.Success == nil || *e.Success {
		return nil
	}
	var problems []error
	for _, code := range []string{e.Code, e.Error} {
		if !codeLike.MatchString(code) {
			continue
		}
		entry, ok := errs.Lookup(code)
		if !ok {
			problems = append(problems, fmt.Errorf("error code %q is not in the catalogue (models/errs/catalogue.go)", code))
			continue
		}
		if st := api.CodeStatuses(entry); !slices.Contains(st, status) {
			problems = append(problems, fmt.Errorf("error code %q answered %d; the catalogue gives it %v", code, status, st))
		}
	}
	return errors.Join(problems...)
}

func truncate(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// Handler returns h with every answer under Prefixes validated: a
// mismatch fails t. Safe for concurrent requests. A benchmark gets h as it
// is, so that validation is not what it measures.
func Handler(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	if _, bench := t.(*testing.B); bench {
		return h
	}
	v := MustLoad(t)
	return v.handler(h, func(err error) { t.Errorf("openapitest: %v", err) })
}

// handler is Handler reporting mismatches to report.
func (v *Validator) handler(h http.Handler, report func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if !Covered(r.URL.Path) {
			return
		}
		status := rec.statusOr200()
		if rec.hijacked {
			// An upgraded connection (a WebSocket stream): the 101 went
			// out on the raw connection, past the recorder.
			status = http.StatusSwitchingProtocols
		}
		if err := v.Check(r, status, w.Header(), rec.body.Bytes()); err != nil {
			report(err)
		}
	})
}

// recorder tees what a handler writes.
type recorder struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	hijacked bool
}

// Hijack lets a handler upgrade the connection (WebSocket libraries assert
// http.Hijacker on the writer they are given).
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil {
		r.hijacked = true
	}
	return conn, rw, err
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

func (r *recorder) statusOr200() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// Flush lets streaming handlers flush through the recorder.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Client returns a client like base (nil: http.DefaultClient) whose
// answers under Prefixes are validated, for servers in another process: a
// mismatch fails t.
func Client(t testing.TB, base *http.Client) *http.Client {
	t.Helper()
	v := MustLoad(t)
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || !Covered(req.URL.Path) {
			return resp, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err := v.Check(req, resp.StatusCode, resp.Header, body); err != nil {
			t.Errorf("openapitest: %v", err)
		}
		return resp, nil
	})
	return &c
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
