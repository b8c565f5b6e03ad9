package app

import (
	"crypto/tls"
	"crypto/x509"
	"os"

	"github.com/urfave/cli/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-trading/ats/models/errs"
)

// Flags of the Temporal connection's security.
const (
	flagTemporalTLSCert       = "temporal-tls-cert"
	flagTemporalTLSKey        = "temporal-tls-key"
	flagTemporalTLSCA         = "temporal-tls-ca"
	flagTemporalTLSServerName = "temporal-tls-server-name"
	flagTemporalAPIKey        = "temporal-api-key"
)

// temporalSecurityFlags are on every command that dials Temporal.
func temporalSecurityFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagTemporalTLSCert, EnvVars: []string{"ATS_TEMPORAL_TLS_CERT"},
			Usage: "PEM client certificate for mTLS to the Temporal frontend (with --temporal-tls-key)"},
		&cli.StringFlag{Name: flagTemporalTLSKey, EnvVars: []string{"ATS_TEMPORAL_TLS_KEY"},
			Usage: "PEM private key of --temporal-tls-cert"},
		&cli.StringFlag{Name: flagTemporalTLSCA, EnvVars: []string{"ATS_TEMPORAL_TLS_CA"},
			Usage: "PEM CA bundle the Temporal frontend's certificate must chain to; default: the system roots"},
		&cli.StringFlag{Name: flagTemporalTLSServerName, EnvVars: []string{"ATS_TEMPORAL_TLS_SERVER_NAME"},
			Usage: "name the frontend's certificate must carry, when it differs from the --temporal host"},
		&cli.StringFlag{Name: flagTemporalAPIKey, EnvVars: []string{"ATS_TEMPORAL_API_KEY"},
			Usage: "API key sent as a bearer token (Temporal Cloud); implies TLS. Prefer the environment variable: command lines are visible to other users"},
	}
}

// TemporalConn is how to reach Temporal.
type TemporalConn struct {
	HostPort, Namespace string
	TLS                 *tls.Config
	apiKey              string
	// Tracing, when set, traces the client's calls and the workflows and
	// activities of workers built on it.
	Tracing trace.TracerProvider
}

// temporalConnFrom reads the connection flags for the frontend at
// hostPort. Set at all, TLS is verified TLS 1.2+; a client certificate
// makes it mutual.
func temporalConnFrom(c *cli.Context, hostPort string) (TemporalConn, error) {
	conn := TemporalConn{HostPort: hostPort, Namespace: c.String(flagTemporalNS), apiKey: c.String(flagTemporalAPIKey)}
	cert, key, ca, name := c.String(flagTemporalTLSCert), c.String(flagTemporalTLSKey), c.String(flagTemporalTLSCA), c.String(flagTemporalTLSServerName)
	if cert == "" && key == "" && ca == "" && name == "" {
		return conn, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: name}
	switch {
	case cert != "" && key != "":
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return conn, errs.Wrap(errs.Invalid, err, "cannot load the Temporal client certificate: "+err.Error())
		}
		cfg.Certificates = []tls.Certificate{pair}
	case cert != "" || key != "":
		return conn, errs.Ef(errs.Invalid, "--%s and --%s go together", flagTemporalTLSCert, flagTemporalTLSKey)
	}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return conn, errs.Wrap(errs.Invalid, err, "cannot read the Temporal CA bundle: "+err.Error())
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return conn, errs.Ef(errs.Invalid, "--%s holds no PEM certificate", flagTemporalTLSCA)
		}
		cfg.RootCAs = pool
	}
	conn.TLS = cfg
	return conn, nil
}

// secured reports whether any connection security flag is set.
func (t TemporalConn) secured() bool { return t.TLS != nil || t.apiKey != "" }
