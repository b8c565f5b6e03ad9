// Package openapi serves the OpenAPI 3.1 document of the agent API and the
// device flow at GET /api/agent/v1/openapi.json.
//
// The document is written by hand in openapi.yaml (embedded) next to the
// handlers it describes; what follows from code is added here when it is
// served: the error codes of the catalogue (models/errs) as the enum of
// ErrorCode, and the headers every response carries (X-Request-Id, the
// rate-limit headers, Idempotent-Replayed). The HTTP tests validate every
// response against the served document (openapitest), and a test fails
// when a registered route is not in it. docs/openapi.md tells how to add an
// endpoint.
package openapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"go.yaml.in/yaml/v3"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/errs"
)

// Path is where the document is served.
const Path = "/api/agent/v1/openapi.json"

//go:embed openapi.yaml
var source []byte

// Document returns the served document: openapi.yaml as JSON, with the
// error codes and the common headers added. It is built once.
func Document() ([]byte, error) { return document() }

var document = sync.OnceValues(func() ([]byte, error) {
	var root any
	if err := yaml.Unmarshal(source, &root); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	doc, ok := jsonTree(root).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapi.yaml: not a mapping")
	}
	if err := complete(doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return json.Marshal(doc)
})

// jsonTree converts what the YAML decoder produced into the types
// encoding/json marshals as JSON: mapping keys (also status codes written
// unquoted) become strings.
func jsonTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonTree(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonTree(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonTree(e)
		}
		return x
	}
	return v
}

// The header components the document is completed with.
var (
	requestIDHeader  = ref("headers", "X-Request-Id")
	rateLimitHeaders = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}
	replayedHeader   = "Idempotent-Replayed"
	idempotencyParam = ref("parameters", "IdempotencyKey")
)

func ref(kind, name string) map[string]any {
	return map[string]any{"$ref": "#/components/" + kind + "/" + name}
}

var methods = []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}

// complete adds to doc what follows from code: the catalogue's codes as
// ErrorCode's enum, X-Request-Id on every response, the rate-limit headers
// on every response of the rate-limited operations (all but the document's
// own) and Idempotent-Replayed on every response of the operations that
// take an Idempotency-Key. A response shared through components.responses
// gets the headers there, unless the operation adds Idempotent-Replayed,
// which gets its own copy.
func complete(doc map[string]any) error {
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	code, ok := schemas["ErrorCode"].(map[string]any)
	if !ok {
		return fmt.Errorf("components.schemas.ErrorCode is missing")
	}
	var enum []any
	for _, c := range errs.Codes() {
		enum = append(enum, c)
	}
	code["enum"] = enum

	shared, _ := components["responses"].(map[string]any)
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		item, _ := item.(map[string]any)
		for _, m := range methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			responses, _ := op["responses"].(map[string]any)
			replayable := hasParam(op, idempotencyParam)
			for status, r := range responses {
				resp, ok := r.(map[string]any)
				if !ok {
					return fmt.Errorf("%s %s: response %s is not an object", m, path, status)
				}
				if target, isRef := resp["$ref"].(string); isRef {
					name := strings.TrimPrefix(target, "#/components/responses/")
					base, ok := shared[name].(map[string]any)
					if !ok {
						return fmt.Errorf("%s %s: response %s refers to %s, which is not defined", m, path, status, target)
					}
					if !replayable {
						resp = base
					} else {
						resp = deepCopy(base).(map[string]any)
						responses[status] = resp
					}
				}
				headers, _ := resp["headers"].(map[string]any)
				if headers == nil {
					headers = map[string]any{}
					resp["headers"] = headers
				}
				headers["X-Request-Id"] = requestIDHeader
				if path != Path {
					for _, h := range rateLimitHeaders {
						headers[h] = ref("headers", h)
					}
				}
				if replayable {
					headers[replayedHeader] = ref("headers", replayedHeader)
				}
			}
		}
	}
	return nil
}

func hasParam(op map[string]any, want map[string]any) bool {
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		if p, ok := p.(map[string]any); ok && p["$ref"] == want["$ref"] {
			return true
		}
	}
	return false
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// cacheControl lets clients and proxies keep the document for a while: it
// changes only with a release.
const cacheControl = "public, max-age=3600"

// Routes serves the document at Path: public (no API key, no rate limit:
// it is a static answer) and cacheable, with an ETag so a client revalidates
// for a 304. The document is built here, at start-up, so a broken
// openapi.yaml stops the server instead of failing the first request.
func Routes() api.Routes {
	body, err := Document()
	if err != nil {
		panic("openapi: " + err.Error())
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return func(s *api.Server) {
		s.Engine().GET(Path, func(c *gin.Context) {
			c.Header("Cache-Control", cacheControl)
			c.Header("ETag", etag)
			if match := c.GetHeader("If-None-Match"); match != "" && etagMatches(match, etag) {
				c.Status(http.StatusNotModified)
				return
			}
			c.Data(http.StatusOK, "application/json; charset=utf-8", body)
		})
	}
}

// etagMatches implements If-None-Match's weak comparison (RFC 9110 13.1.2)
// over a list of tags or "*".
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
