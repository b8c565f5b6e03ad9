package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/openapi"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/models/errs"
)

// TestDocumentIsValidOpenAPI31 loads the served document with kin-openapi,
// which validates it by the rules of its version (3.1: JSON Schema 2020-12
// schemas, type arrays, const...).
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	v := openapitest.MustLoad(t)
	if v.Doc.OpenAPI != "3.1.0" || !v.Doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want 3.1.0", v.Doc.OpenAPI)
	}
	if v.Doc.Paths.Len() == 0 {
		t.Fatal("no paths")
	}
	// Every operation names its answers: the validator refuses statuses it
	// does not list, so a missing one would only show as a failing test.
	for path, item := range v.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" {
				t.Errorf("%s %s: needs an operationId and a summary", method, path)
			}
			if op.Responses.Status(http.StatusOK) == nil {
				t.Errorf("%s %s: no 200 answer", method, path)
			}
			secured := op.Security != nil && len(*op.Security) > 0
			if secured && (op.Responses.Status(401) == nil || op.Responses.Status(403) == nil || op.Responses.Status(429) == nil) {
				t.Errorf("%s %s: a keyed operation answers 401, 403 and 429", method, path)
			}
		}
	}
}

func TestErrorCodeEnumIsTheCatalogue(t *testing.T) {
	v := openapitest.MustLoad(t)
	var got []string
	for _, c := range v.Doc.Components.Schemas["ErrorCode"].Value.Enum {
		got = append(got, c.(string))
	}
	if !slices.Equal(got, errs.Codes()) {
		t.Fatalf("ErrorCode enum = %v, want the catalogue %v", got, errs.Codes())
	}
}

func TestServeDocument(t *testing.T) {
	h := openapitest.Handler(t, api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{openapi.Routes()}}))
	get := func(hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, openapi.Path, nil)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := get(nil)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("GET %s: %d %s", openapi.Path, w.Code, w.Header().Get("Content-Type"))
	}
	want, _ := openapi.Document()
	if w.Body.String() != string(want) {
		t.Fatal("served body is not Document()")
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.OpenAPI != "3.1.0" || doc.Paths[openapi.Path] == nil {
		t.Fatalf("not the document: %v %q", err, doc.OpenAPI)
	}
	etag := w.Header().Get("ETag")
	if etag == "" || !strings.Contains(w.Header().Get("Cache-Control"), "public") {
		t.Fatalf("not cacheable: ETag %q, Cache-Control %q", etag, w.Header().Get("Cache-Control"))
	}
	tests := []struct {
		match string
		want  int
	}{
		{etag, http.StatusNotModified},
		{`W/` + etag, http.StatusNotModified},
		{`"other", ` + etag, http.StatusNotModified},
		{"*", http.StatusNotModified},
		{`"other"`, http.StatusOK},
	}
	for _, tt := range tests {
		if w := get(map[string]string{"If-None-Match": tt.match}); w.Code != tt.want {
			t.Errorf("If-None-Match %s: %d, want %d", tt.match, w.Code, tt.want)
		}
	}
}
