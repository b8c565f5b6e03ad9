// Package ops is the operator listener's handler (`--ops-listen`, never the
// agent-facing port): Prometheus metrics, the Temporal Web UI's payload
// codec and Go's profiler.
//
// The codec decrypts workflow payloads and the profiler exposes the
// process, so both answer only an operator: a request must carry the
// operator token, as "Authorization: Bearer <token>" (the Temporal CLI's
// --codec-auth, curl, go tool pprof -http with a header) or, for the codec,
// as the first path segment, /codec/<token>/decode — the one form the Web
// UI can supply, because its codec setting is a URL (its other option,
// passing the user's own access token, needs an HTTPS endpoint and an
// identity provider this service does not verify). Both also check:
//
//   - the Host header, against the listener's own addresses and the
//     configured names, so a page that rebinds its DNS name to this
//     address (DNS rebinding) is refused;
//   - the Origin of browser requests: only the Web UI's origins get CORS
//     headers, and a request from any other origin is refused outright;
//   - the codec speaks application/json only (its handler refuses the rest).
//
// /metrics stays open to the scraper (it is reached by pod address, so no
// Host check either): it reveals request counts, not data.
package ops

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"slices"
	"strings"
)

// Config configures the operator handler.
type Config struct {
	// Token authenticates operators. Empty disables the codec and the
	// profiler (they answer 403 and say how to enable them).
	Token string
	// AllowedHosts are the Host header values accepted on the codec and
	// the profiler: "host:port" matches exactly, "host" any port.
	AllowedHosts []string
	// AllowedOrigins are the Temporal Web UI origins (scheme://host:port)
	// whose browser requests are answered, with CORS headers.
	AllowedOrigins []string
	// Metrics serves /metrics.
	Metrics http.Handler
	// Codec serves /codec/encode and /codec/decode; nil answers 404.
	Codec http.Handler
	// Logger receives refused requests (never the token).
	Logger *slog.Logger
}

// New returns the operator handler.
func New(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	o := &operator{cfg: cfg}
	for _, origin := range cfg.AllowedOrigins {
		o.origins = append(o.origins, strings.TrimSuffix(origin, "/"))
	}
	mux := http.NewServeMux()
	if cfg.Metrics != nil {
		mux.Handle("GET /metrics", cfg.Metrics)
	}
	// The liveness probe of processes without an API (ats worker): the
	// process serves, nothing more.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("/codec/", o.guard(true, http.HandlerFunc(o.codec)))
	prof := http.NewServeMux()
	prof.HandleFunc("/debug/pprof/", pprof.Index)
	prof.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	prof.HandleFunc("/debug/pprof/profile", pprof.Profile)
	prof.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	prof.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/pprof/", o.guard(false, prof))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "not an operator endpoint: /metrics, /healthz, /codec/{encode,decode}, /debug/pprof/")
	})
	return mux
}

type operator struct {
	cfg     Config
	origins []string
}

// guard applies the Host check, the Origin check with CORS, and operator
// authentication. pathToken allows the token as the first path segment
// after the mount point (the codec's Web UI form).
func (o *operator) guard(pathToken bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !o.hostAllowed(r.Host) {
			o.refuse(w, r, http.StatusForbidden, "unknown Host "+r.Host, "this listener does not answer for that host name")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			if !slices.Contains(o.origins, origin) {
				o.refuse(w, r, http.StatusForbidden, "foreign Origin "+origin, "this origin may not call the operator listener")
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "POST")
				h.Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if o.cfg.Token == "" {
			fail(w, http.StatusForbidden, "operator endpoints are disabled: configure an operator token (ATS_OPS_TOKEN or --ops-token-file)")
			return
		}
		if r2, ok := o.authenticated(r, pathToken); ok {
			next.ServeHTTP(w, r2)
			return
		}
		o.refuse(w, r, http.StatusUnauthorized, "no or wrong operator token", "operator token required")
	})
}

// authenticated checks the token and, when it came in the path, returns
// the request with that segment removed.
func (o *operator) authenticated(r *http.Request, pathToken bool) (*http.Request, bool) {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && o.tokenOK(tok) {
		return r, true
	}
	if !pathToken {
		return nil, false
	}
	// /codec/<token>/rest → /codec/rest
	mount, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	tok, tail, found := strings.Cut(rest, "/")
	if !found || !o.tokenOK(tok) {
		return nil, false
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + mount + "/" + tail
	r2.URL.RawPath = ""
	return r2, true
}

// tokenOK compares in constant time (over digests, so not even the
// token's length leaks).
func (o *operator) tokenOK(got string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(o.cfg.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

func (o *operator) hostAllowed(host string) bool {
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = host
	}
	for _, a := range o.cfg.AllowedHosts {
		if _, _, err := net.SplitHostPort(a); err == nil {
			if strings.EqualFold(a, host) {
				return true
			}
		} else if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

func (o *operator) codec(w http.ResponseWriter, r *http.Request) {
	if o.cfg.Codec == nil {
		fail(w, http.StatusNotFound, "this process serves no codec")
		return
	}
	http.StripPrefix("/codec", o.cfg.Codec).ServeHTTP(w, r)
}

// refuse answers and logs a refused request; the log names the reason and
// the peer, never the path (it may hold a wrong token, one character away
// from the right one).
func (o *operator) refuse(w http.ResponseWriter, r *http.Request, status int, reason, msg string) {
	o.cfg.Logger.Warn("operator request refused", "reason", reason, "remote", r.RemoteAddr, "method", r.Method)
	fail(w, status, msg)
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// LoopbackHosts are the Host values under which a listener bound to addr
// is reached on this machine: its literal address, and localhost when it
// is a loopback or unspecified address.
func LoopbackHosts(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	out := []string{addr}
	ip := net.ParseIP(host)
	if ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		out = append(out, net.JoinHostPort("localhost", port), net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port))
	}
	return out
}
