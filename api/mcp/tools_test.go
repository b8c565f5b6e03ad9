package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/models/errs"
)

func mustTools(t *testing.T) map[string]*tool {
	t.Helper()
	ts, err := buildTools()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*tool{}
	for _, x := range ts {
		out[x.name] = x
	}
	return out
}

// TestEveryAgentOperationHasATool fails when an operation that takes the
// agent's key is added to the OpenAPI document without its tool (or a tool
// names an operation twice).
func TestEveryAgentOperationHasATool(t *testing.T) {
	doc := openapitest.MustLoad(t).Doc
	byOp := map[string]string{}
	for _, s := range specs {
		if prev, dup := byOp[s.operationID]; dup {
			t.Errorf("tools %s and %s both call %s", prev, s.name, s.operationID)
		}
		byOp[s.operationID] = s.name
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if !strings.HasPrefix(path, "/api/agent/v1/") || op.Security == nil || len(*op.Security) == 0 {
				continue
			}
			if _, ok := byOp[op.OperationID]; !ok {
				t.Errorf("%s %s (%s) has no MCP tool: add it to specs in api/mcp/tools.go", method, path, op.OperationID)
			}
		}
	}
}

// facets are the parts of a schema the tools must carry unchanged, read
// through kin-openapi's typed model (not the inliner under test).
type facets struct {
	Types    []string `json:"types,omitempty"`
	Enum     []any    `json:"enum,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Default  any      `json:"default,omitempty"`
	Props    []string `json:"props,omitempty"`
	Required []string `json:"required,omitempty"`
}

func kinFacets(s *openapi3.Schema) facets {
	f := facets{Enum: s.Enum, Pattern: s.Pattern, Min: s.Min, Max: s.Max, Default: s.Default, Required: s.Required}
	if s.Type != nil {
		f.Types = s.Type.Slice()
	}
	for name := range s.Properties {
		f.Props = append(f.Props, name)
	}
	return f.sorted()
}

func toolFacets(s map[string]any) facets {
	var f facets
	switch ty := s["type"].(type) {
	case string:
		f.Types = []string{ty}
	case []any:
		for _, e := range ty {
			f.Types = append(f.Types, e.(string))
		}
	}
	f.Enum, _ = s["enum"].([]any)
	f.Pattern, _ = s["pattern"].(string)
	if v, ok := s["minimum"].(float64); ok {
		f.Min = &v
	}
	if v, ok := s["maximum"].(float64); ok {
		f.Max = &v
	}
	f.Default = s["default"]
	props, _ := s["properties"].(map[string]any)
	for name := range props {
		f.Props = append(f.Props, name)
	}
	f.Required = asStrings(s["required"])
	return f.sorted()
}

func (f facets) sorted() facets {
	sort.Strings(f.Types)
	sort.Strings(f.Props)
	sort.Strings(f.Required)
	if len(f.Required) == 0 {
		f.Required = nil
	}
	return f
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestToolSchemasMatchTheOpenAPIDocument checks every tool's input schema
// against its operation as kin-openapi reads the document: the same
// arguments (path and query parameters, Idempotency-Key, body fields), the
// same required ones, each with the document's type, enum, pattern, bounds,
// default and (for objects) member names; and that it is a valid JSON
// Schema 2020-12 which accepts what the body schema accepts and refuses an
// unknown field.
func TestToolSchemasMatchTheOpenAPIDocument(t *testing.T) {
	doc := openapitest.MustLoad(t).Doc
	tools := mustTools(t)
	for _, s := range specs {
		t.Run(s.name, func(t *testing.T) {
			tl := tools[s.name]
			op := doc.Paths.Find(tl.path).GetOperation(tl.method)
			if op == nil {
				t.Fatalf("%s %s not found", tl.method, tl.path)
			}
			schema := tl.def.InputSchema.(map[string]any)
			props := schema["properties"].(map[string]any)
			want := map[string]facets{}
			var required []string
			params := slices.Concat(doc.Paths.Find(tl.path).Parameters, op.Parameters)
			for _, p := range params {
				name := p.Value.Name
				switch {
				case p.Value.In == "header" && name == "Idempotency-Key":
					name = IdempotencyArg
				case p.Value.In == "header":
					continue
				}
				want[name] = kinFacets(p.Value.Schema.Value)
				if p.Value.Required {
					required = append(required, name)
				}
			}
			if op.RequestBody != nil {
				body := op.RequestBody.Value.Content.Get("application/json").Schema.Value
				for name, ps := range body.Properties {
					want[name] = kinFacets(ps.Value)
				}
				if op.RequestBody.Value.Required {
					required = append(required, body.Required...)
				}
			}
			if len(props) != len(want) {
				t.Errorf("arguments %v, want %v", keys(props), keys(want))
			}
			for name, w := range want {
				ps, ok := props[name].(map[string]any)
				if !ok {
					t.Errorf("argument %s is missing", name)
					continue
				}
				if got := toolFacets(ps); jsonOf(t, got) != jsonOf(t, w) {
					t.Errorf("argument %s: %s, the document says %s", name, jsonOf(t, got), jsonOf(t, w))
				}
			}
			sort.Strings(required)
			if got := asStrings(toAny(schema["required"])); jsonOf(t, got) != jsonOf(t, nilIfEmpty(required)) {
				t.Errorf("required %v, want %v", got, required)
			}
			if schema["additionalProperties"] != false {
				t.Error("the schema accepts unknown arguments")
			}
			compiled := compile(t, schema)
			if err := compiled.Validate(map[string]any{"surely_not_a_field": true}); err == nil {
				t.Error("an unknown argument validates")
			}
		})
	}
	// A valid order validates against both the tool and the document's body.
	place := compile(t, tools["place_order"].def.InputSchema.(map[string]any))
	order := map[string]any{"tokenId": "123", "side": "BUY", "price": json.Number("0.5"), "size": json.Number("10"), "dryRun": true}
	if err := place.Validate(order); err != nil {
		t.Errorf("a valid order: %v", err)
	}
	if err := place.Validate(map[string]any{"tokenId": "123", "side": "HOLD", "price": json.Number("0.5"), "size": json.Number("10")}); err == nil {
		t.Error("side HOLD validates")
	}
}

func toAny(v any) any {
	if s, ok := v.([]string); ok {
		out := make([]any, len(s))
		for i, e := range s {
			out[i] = e
		}
		return out
	}
	return v
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func compile(t *testing.T, schema map[string]any) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:tool", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("urn:tool")
	if err != nil {
		t.Fatalf("not a valid JSON Schema: %v", err)
	}
	return s
}

// TestAnnotationsFollowTheMethod ties the hints to what the operation is:
// GET reads (the heartbeat excepted: it consumes the events it reports),
// nothing else is read-only but the backtest (a POST of a config that
// places and stores nothing), DELETE destroys, PUT-like retries are safe
// where the operation says so.
func TestAnnotationsFollowTheMethod(t *testing.T) {
	for _, tl := range mustTools(t) {
		a := tl.def.Annotations
		switch {
		case tl.name == "heartbeat":
			if a.ReadOnlyHint || a.IdempotentHint {
				t.Errorf("heartbeat consumes the fills it reports: %+v", a)
			}
		case tl.method == http.MethodGet || tl.name == "backtest_strategy":
			if !a.ReadOnlyHint || !a.IdempotentHint {
				t.Errorf("%s (GET) is not read-only and idempotent: %+v", tl.name, a)
			}
		default:
			if a.ReadOnlyHint {
				t.Errorf("%s (%s) claims to be read-only", tl.name, tl.method)
			}
		}
		if tl.method == http.MethodDelete && !*a.DestructiveHint {
			t.Errorf("%s (DELETE) is not destructive", tl.name)
		}
		if a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s is read-only and destructive", tl.name)
		}
		if tl.takesIdemKey != tl.hasIdemArg() {
			t.Errorf("%s: idempotency argument mismatch", tl.name)
		}
	}
}

func (t *tool) hasIdemArg() bool {
	_, ok := t.def.InputSchema.(map[string]any)["properties"].(map[string]any)[IdempotencyArg]
	return ok
}

func TestRequestFromArguments(t *testing.T) {
	tools := mustTools(t)
	cases := []struct {
		tool, args             string
		method, url, body, idk string
		code                   string
	}{
		{tool: "get_market", args: `{"id":"0xab cd?x=1"}`, method: "GET", url: "/api/agent/v1/markets/0xab%20cd%3Fx=1"},
		{tool: "get_market", args: `{"id":"1/../../orders"}`, code: errs.CodeInvalidField},
		{tool: "search_markets", args: `{"q":"btc","limit":5,"accepting_orders":false}`, method: "GET",
			url: "/api/agent/v1/markets/search?accepting_orders=false&limit=5&q=btc"},
		{tool: "search_markets", args: `{"q":{"x":1}}`, code: errs.CodeInvalidQuery},
		{tool: "get_balance", args: ``, method: "GET", url: "/api/agent/v1/balance"},
		{tool: "get_balance", args: `null`, method: "GET", url: "/api/agent/v1/balance"},
		{tool: "get_balance", args: `{"x":1}`, code: errs.CodeUnknownField},
		{tool: "get_balance", args: `[1]`, code: errs.CodeInvalidJSON},
		{tool: "get_order", args: `{}`, code: errs.CodeInvalidField},
		{tool: "get_order", args: `{"id":7}`, code: errs.CodeInvalidField},
		{tool: "place_order", args: `{"tokenId":"1","side":"BUY","price":0.5,"size":10,"idempotencyKey":"k-1"}`, method: "POST",
			url: "/api/agent/v1/orders", body: `{"price":0.5,"side":"BUY","size":10,"tokenId":"1"}`, idk: "k-1"},
		{tool: "place_order", args: `{"idempotencyKey":5}`, code: errs.CodeInvalidField},
		{tool: "redeem", args: `{}`, method: "POST", url: "/api/agent/v1/settlements/redeem", body: `{}`},
		{tool: "close_position", args: `{"id":"pos_1","dryRun":true}`, method: "POST", url: "/api/agent/v1/positions/pos_1/close",
			body: `{"dryRun":true}`},
		{tool: "cancel_strategy", args: `{"id":"str_1"}`, method: "DELETE", url: "/api/agent/v1/strategies/str_1"},
		{tool: "backtest_strategy", args: `{"type":"RECURRING_BUY","config":{"tokenId":"1","amountPerInterval":5,"interval":"1h"},"maxBudget":20,` +
			`"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","startingBalance":100}`, method: "POST",
			url:  "/api/agent/v1/strategies/backtest",
			body: `{"config":{"tokenId":"1","amountPerInterval":5,"interval":"1h"},"from":"2026-11-01T00:00:00Z","maxBudget":20,"startingBalance":100,"to":"2026-11-02T00:00:00Z","type":"RECURRING_BUY"}`},
		// Operations without Idempotency-Key take no idempotencyKey.
		{tool: "cancel_order", args: `{"id":"ord_1","idempotencyKey":"k"}`, code: errs.CodeUnknownField},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			r, err := tools[c.tool].request(context.Background(), json.RawMessage(c.args))
			if c.code != "" {
				if errs.CodeOf(err) != c.code {
					t.Fatalf("error %v, want code %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != c.method || r.URL.String() != c.url {
				t.Errorf("%s %s, want %s %s", r.Method, r.URL, c.method, c.url)
			}
			body, _ := io.ReadAll(r.Body)
			if string(body) != c.body {
				t.Errorf("body %s, want %s", body, c.body)
			}
			if (c.body != "") != (r.Header.Get("Content-Type") == "application/json") {
				t.Errorf("Content-Type %q with body %q", r.Header.Get("Content-Type"), body)
			}
			if got := r.Header.Get("Idempotency-Key"); got != c.idk {
				t.Errorf("Idempotency-Key %q, want %q", got, c.idk)
			}
		})
	}
}
