package devserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The Temporal CLI's Web UI answers whatever Host a request names, so a web
// page whose DNS name is rebound to the loopback address could read it, its
// settings included. The CLI offers no option to restrict it, so the UI
// listens on a loopback address and port of its own (innerUIAddr: a random
// one of 127/8 where the system routes it) and the address operators
// browse is this front: a reverse proxy that serves only requests naming the
// listener's own address or a loopback name (localhost, 127.0.0.1, [::1],
// with the port). A rebound page names its own host and is refused. The
// codec endpoint (which carries the operator token) is not given to the UI
// at all: the front adds it to the UI's settings, so the UI's own port,
// were a rebound page to find it by scanning, never serves it.

// settingsPath is where the Web UI reads its settings, the codec endpoint
// among them.
const settingsPath = "/api/v1/settings"

// uiFront is the Host-checking proxy in front of the Web UI.
type uiFront struct {
	hosts  map[string]bool
	proxy  *httputil.ReverseProxy
	server *http.Server
}

// newUIFront serves ln as the Web UI at upstream, adding codecEndpoint
// (when set) to the UI's settings.
func newUIFront(ln net.Listener, upstream *url.URL, codecEndpoint string) *uiFront {
	f := &uiFront{hosts: map[string]bool{}}
	for _, h := range loopbackHosts(ln.Addr().String()) {
		f.hosts[strings.ToLower(h)] = true
	}
	f.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			if r.In.URL.Path == settingsPath {
				// Read uncompressed, to rewrite.
				r.Out.Header.Del("Accept-Encoding")
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			if codecEndpoint == "" || resp.Request.URL.Path != settingsPath || resp.StatusCode != http.StatusOK {
				return nil
			}
			return withCodec(resp, codecEndpoint)
		},
	}
	f.server = &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10}
	go func() { _ = f.server.Serve(ln) }()
	return f
}

func (f *uiFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !f.hosts[strings.ToLower(r.Host)] {
		http.Error(w, "this listener does not answer for that host name; browse it as localhost or 127.0.0.1", http.StatusForbidden)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

func (f *uiFront) close() { _ = f.server.Close() }

// withCodec sets Codec.Endpoint in the settings resp carries.
func withCodec(resp *http.Response, endpoint string) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	var settings map[string]any
	if err := json.Unmarshal(b, &settings); err != nil {
		return err
	}
	codec, _ := settings["Codec"].(map[string]any)
	if codec == nil {
		codec = map[string]any{}
	}
	codec["Endpoint"] = endpoint
	settings["Codec"] = codec
	out, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	resp.Header.Del("Content-Encoding")
	return nil
}

// loopbackHosts are the Host values the front answers for a listener at
// addr: addr itself and, when it is a loopback or unspecified address, the
// loopback names with its port (as the operator listener's check,
// api/ops.LoopbackHosts).
func loopbackHosts(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	out := []string{addr}
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		out = append(out, net.JoinHostPort("localhost", port), net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port))
	}
	return out
}
