package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProxyConfig configures Proxy.
type ProxyConfig struct {
	// APIURL is the service's {base_url} (http(s)://host[:port][/prefix]).
	APIURL string
	// Key is the agent's ll_ API key.
	Key string
	// Version is announced to the local client.
	Version string
	// HTTPClient reaches the service; nil means a client without timeout
	// (calls are bounded by the service's own deadlines).
	HTTPClient *http.Client
}

// Proxy serves on local (stdio for `ats mcp`) the tools of the service's
// MCP endpoint, {APIURL}/mcp: it connects there with the key, lists the
// tools once and forwards every call unchanged, answers included. It holds
// no credentials but the key and opens no database, so it runs anywhere
// the API is reachable, and authentication, scopes, limits and the venue
// content marking are the service's. It returns when the local client
// disconnects or ctx ends; a key or address the service refuses fails at
// once.
func Proxy(ctx context.Context, cfg ProxyConfig, local sdk.Transport) error {
	endpoint, err := endpointURL(cfg.APIURL)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(cfg.Key, "ll_") {
		return errors.New("the API key must be the agent's ll_… key (ATS_API_KEY)")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	hc = &http.Client{Transport: bearer{key: cfg.Key, next: transportOf(hc)}, Timeout: hc.Timeout,
		CheckRedirect: refuseRedirects}
	upstream, err := sdk.NewClient(&sdk.Implementation{Name: "ats-mcp-proxy", Version: cfg.Version}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	defer upstream.Close()
	instructions := Instructions
	if init := upstream.InitializeResult(); init != nil && init.Instructions != "" {
		instructions = init.Instructions
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "Agent Trading Service", Version: cfg.Version},
		&sdk.ServerOptions{Instructions: instructions, Capabilities: &sdk.ServerCapabilities{}})
	n := 0
	for t, err := range upstream.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the tools of %s: %w", endpoint, err)
		}
		srv.AddTool(t, forward(upstream))
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s offers no tools", endpoint)
	}
	return srv.Run(ctx, local)
}

// forward calls the same tool upstream with the same arguments.
func forward(upstream *sdk.ClientSession) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return upstream.CallTool(ctx, &sdk.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
	}
}

// endpointURL is {base_url}/mcp.
func endpointURL(base string) (string, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--api-url %q: want the service's base URL, http(s)://host[:port]", base)
	}
	return u.String() + Path, nil
}

// A redirect could carry the key to another host; the endpoint's address
// is configured, so none is followed.
func refuseRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// bearer adds the agent's key to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}
