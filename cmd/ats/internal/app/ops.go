package app

import (
	"encoding/base64"
	"net"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ops"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/worker/codec"
)

// Flags of the operator listener.
const (
	flagOpsListen        = "ops-listen"
	flagOpsTokenFile     = "ops-token-file"
	flagOpsAllowedHosts  = "ops-allowed-hosts"
	flagTemporalUIOrigin = "temporal-ui-origin"
)

// minOpsTokenLen keeps operator tokens out of guessing range.
const minOpsTokenLen = 32

// opsTimeouts: codec batches are small, and a CPU profile runs 30 s by
// default, so writes may take a while.
var opsTimeouts = api.Timeouts{ReadHeader: 5 * time.Second, Read: 30 * time.Second, Write: 2 * time.Minute, Idle: 60 * time.Second}

// Default operator listeners: the worker's differs from the API's so both
// can run on one host with their defaults.
const (
	defaultOpsAddr       = "127.0.0.1:9090"
	defaultWorkerOpsAddr = "127.0.0.1:9091"
)

// opsFlags are the operator listener's flags of command ("dev", "api" or
// "worker"; the worker serves no codec, so it has no Web UI origin).
func opsFlags(command string) []cli.Flag {
	token := "file holding the operator token that /codec and /debug/pprof on the operator listener require " +
		"(Authorization: Bearer <token>, or /codec/<token>/ in the Temporal Web UI's codec endpoint); the token itself may instead be given in ATS_OPS_TOKEN. "
	addr, what := defaultOpsAddr, "/metrics, the Temporal Web UI's codec endpoint /codec, /debug/pprof"
	switch command {
	case "dev":
		token += "Default: derived from the master key, and handed to the embedded Web UI"
	case "worker":
		addr, what = defaultWorkerOpsAddr, "/metrics, /debug/pprof"
		token = "file holding the operator token /debug/pprof on the operator listener requires (Authorization: Bearer <token>); " +
			"the token itself may instead be given in ATS_OPS_TOKEN. Without one, /debug/pprof is disabled"
	default:
		token += "Without one, /codec and /debug/pprof are disabled"
	}
	flags := []cli.Flag{
		&cli.StringFlag{Name: flagOpsListen, EnvVars: []string{"ATS_OPS_ADDR"}, Value: addr,
			Usage: "address of the operator listener (" + what + "); never the agent-facing port"},
		&cli.StringFlag{Name: flagOpsTokenFile, EnvVars: []string{"ATS_OPS_TOKEN_FILE"}, Usage: token},
		&cli.StringSliceFlag{Name: flagOpsAllowedHosts, EnvVars: []string{"ATS_OPS_ALLOWED_HOSTS"},
			Usage: "host names (host, or host:port) operators reach the operator listener by, besides its own address and localhost; other Host headers are refused (DNS rebinding)"},
	}
	if command != "worker" {
		flags = append(flags, &cli.StringSliceFlag{Name: flagTemporalUIOrigin, EnvVars: []string{"ATS_TEMPORAL_UI_ORIGIN"},
			Usage: "origin (scheme://host:port) of the Temporal Web UI whose browser may call /codec; other origins are refused"})
	}
	return flags
}

// opsToken is the configured operator token (ATS_OPS_TOKEN, else the
// content of --ops-token-file), "" when there is none. A token must be
// long and URL-safe: it may travel as a path segment.
func opsToken(c *cli.Context) (string, error) {
	tok := os.Getenv("ATS_OPS_TOKEN")
	if tok == "" {
		if f := c.String(flagOpsTokenFile); f != "" {
			b, err := os.ReadFile(f)
			if err != nil {
				return "", errs.Wrap(errs.Invalid, err, "cannot read the operator token file")
			}
			tok = strings.TrimSpace(string(b))
		}
	}
	if tok == "" {
		return "", nil
	}
	if len(tok) < minOpsTokenLen || strings.IndexFunc(tok, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r))
	}) >= 0 {
		return "", errs.Ef(errs.Invalid, "the operator token must be at least %d characters of A-Z a-z 0-9 - . _ ~ (e.g. head -c32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')", minOpsTokenLen)
	}
	return tok, nil
}

func encodeToken(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// opsSetup is what the operator listener serves.
type opsSetup struct {
	token     string
	origins   []string
	codec     *codec.Codec
	namespace string
}

// serveOps serves the operator handler on ln.
func serveOps(st *stack, c *cli.Context, ln net.Listener, o opsSetup) string {
	hosts := append(ops.LoopbackHosts(ln.Addr().String()), c.StringSlice(flagOpsAllowedHosts)...)
	cfg := ops.Config{
		Token:          o.token,
		AllowedHosts:   hosts,
		AllowedOrigins: append(o.origins, c.StringSlice(flagTemporalUIOrigin)...), // unset on the worker: nil
		Metrics:        api.MetricsHandler(nil),
		Logger:         st.log.With("component", "ops"),
	}
	if o.codec != nil {
		cfg.Codec = codec.NewHTTPHandler(o.codec, o.namespace)
	}
	if o.token == "" {
		st.log.Warn("no operator token: /codec and /debug/pprof on the operator listener are disabled (set ATS_OPS_TOKEN or --ops-token-file)")
	}
	return serveListener(st, "ops", ln, ops.New(cfg), opsTimeouts)
}

// reachableURL is the URL a local browser reaches listener addr by: an
// unspecified address (0.0.0.0, ::) is reached over loopback.
func reachableURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + addr
}
