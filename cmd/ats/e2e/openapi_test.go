package e2e

import (
	"crypto/rand"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/logging"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/gamma"
	"github.com/agent-trading/ats/venue/network"
)

// TestEveryRouteIsDocumented builds the engine as `ats api` wires it and
// compares its routes under the agent and device prefixes with the paths
// of the OpenAPI document, both ways: an endpoint without its description,
// or a description of an endpoint that is not served, fails.
func TestEveryRouteIsDocumented(t *testing.T) {
	st := storetest.NewSQLite(t)
	// A lazy client dials only when used, and nothing here uses it.
	tc, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	n := network.Sandbox("http://127.0.0.1:1")
	v := &app.VenueClients{Net: n, CLOB: clob.NewClient(clob.ConfigFor(n)), Gamma: gamma.New(gamma.ConfigFor(n))}
	master := make([]byte, 32)
	rand.Read(master)
	svc, err := app.NewServices(st, tc, v, app.MasterKeys{Current: master}, "http://127.0.0.1:1", logging.Discard())
	if err != nil {
		t.Fatal(err)
	}
	limiter := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	srv := api.NewServer(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: svc.Routes(limiter)})

	var served []string
	for _, r := range srv.Engine().Routes() {
		if openapitest.Covered(r.Path) {
			served = append(served, r.Method+" "+templatePath(r.Path))
		}
	}
	var documented []string
	for path, item := range openapitest.MustLoad(t).Doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(served)
	slices.Sort(documented)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("%s is served but not in the OpenAPI document (api/openapi/openapi.yaml)", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("%s is in the OpenAPI document but not served", r)
		}
	}
	if len(served) < 20 {
		t.Fatalf("only %d routes found: %v", len(served), served)
	}
	if !slices.Contains(served, http.MethodGet+" /api/agent/v1/openapi.json") {
		t.Error("the document itself is not served")
	}
}

// templatePath turns gin's /orders/:id into OpenAPI's /orders/{id}.
func templatePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}
