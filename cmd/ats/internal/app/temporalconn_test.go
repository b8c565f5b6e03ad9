package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/worker"
)

// testPKI is a CA with a server certificate for "temporal.test" and a
// client certificate, written as PEM files.
type testPKI struct {
	dir                           string
	pool                          *x509.CertPool
	server                        tls.Certificate
	caFile, clientCert, clientKey string
	otherCAFile                   string
	strangerCert, strangerKey     string // a client certificate of another CA
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir(), pool: x509.NewCertPool()}
	ca, caKey := selfSigned(t, "test CA")
	p.pool.AddCert(ca)
	p.caFile = p.write(t, "ca.pem", "CERTIFICATE", ca.Raw)
	srvDER, srvKey := issue(t, ca, caKey, "temporal.test", x509.ExtKeyUsageServerAuth)
	p.server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	cliDER, cliKey := issue(t, ca, caKey, "ats", x509.ExtKeyUsageClientAuth)
	p.clientCert = p.write(t, "client.pem", "CERTIFICATE", cliDER)
	p.clientKey = p.writeKey(t, "client-key.pem", cliKey)
	other, otherKey := selfSigned(t, "another CA")
	p.otherCAFile = p.write(t, "other-ca.pem", "CERTIFICATE", other.Raw)
	strDER, strKey := issue(t, other, otherKey, "stranger", x509.ExtKeyUsageClientAuth)
	p.strangerCert = p.write(t, "stranger.pem", "CERTIFICATE", strDER)
	p.strangerKey = p.writeKey(t, "stranger-key.pem", strKey)
	return p
}

func selfSigned(t *testing.T, cn string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

func issue(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		DNSNames: []string{cn}, ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return der, key
}

func (p *testPKI) write(t *testing.T, name, typ string, der []byte) string {
	t.Helper()
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func (p *testPKI) writeKey(t *testing.T, name string, k *ecdsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name, "EC PRIVATE KEY", der)
}

// fakeFrontend is a Temporal frontend speaking real gRPC over TLS: it
// answers GetSystemInfo (what a client dials with) and records who called.
type fakeFrontend struct {
	workflowservice.UnimplementedWorkflowServiceServer
	addr string
	mu   sync.Mutex
	// calls: the client certificate's CN ("" without one) and the
	// authorization header of each call.
	peers, auths []string
}

func startFakeFrontend(t *testing.T, p *testPKI, clientAuth tls.ClientAuthType) *fakeFrontend {
	t.Helper()
	f := &fakeFrontend{}
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{p.server}, ClientCAs: p.pool,
		ClientAuth: clientAuth, MinVersion: tls.VersionTLS12})
	srv := grpc.NewServer(grpc.Creds(creds), grpc.UnaryInterceptor(f.record))
	workflowservice.RegisterWorkflowServiceServer(srv, f)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return f
}

func (f *fakeFrontend) record(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	cn := ""
	if p, ok := peer.FromContext(ctx); ok {
		if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.PeerCertificates) > 0 {
			cn = ti.State.PeerCertificates[0].Subject.CommonName
		}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.peers = append(f.peers, cn)
	f.auths = append(f.auths, strings.Join(md.Get("authorization"), ","))
	f.mu.Unlock()
	return h(ctx, req)
}

func (f *fakeFrontend) GetSystemInfo(context.Context, *workflowservice.GetSystemInfoRequest) (*workflowservice.GetSystemInfoResponse, error) {
	return &workflowservice.GetSystemInfoResponse{ServerVersion: "fake"}, nil
}

func (f *fakeFrontend) seen() (peers, auths []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.peers...), append([]string(nil), f.auths...)
}

// dialWithFlags parses args as the Temporal connection flags of every
// command that dials Temporal and dials addr with them, as the commands do.
func dialWithFlags(t *testing.T, addr string, args ...string) error {
	t.Helper()
	var dialErr error
	app := &cli.App{Flags: append(temporalSecurityFlags(), temporalNamespaceFlag()), Action: func(c *cli.Context) error {
		conn, err := temporalConnFrom(c, addr)
		if err != nil {
			dialErr = err
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tc, err := worker.Dial(ctx, worker.ClientConfig{HostPort: conn.HostPort, Namespace: conn.Namespace,
			CodecKey: make([]byte, 32), TLS: conn.TLS, APIKey: conn.apiKey,
			Logger: slog.New(slog.DiscardHandler)})
		if err == nil {
			tc.Close()
		}
		dialErr = err
		return nil
	}}
	if err := app.Run(append([]string{"ats"}, args...)); err != nil {
		t.Fatal(err)
	}
	return dialErr
}

// The Temporal connection flags reach a real gRPC handshake: mutual TLS
// with the right certificates connects (and the frontend sees the client
// certificate), and every wrong or missing piece fails to connect.
func TestTemporalMutualTLS(t *testing.T) {
	p := newTestPKI(t)
	f := startFakeFrontend(t, p, tls.RequireAndVerifyClientCert)
	good := []string{"--temporal-tls-cert", p.clientCert, "--temporal-tls-key", p.clientKey,
		"--temporal-tls-ca", p.caFile, "--temporal-tls-server-name", "temporal.test"}
	if err := dialWithFlags(t, f.addr, good...); err != nil {
		t.Fatalf("mTLS dial: %v", err)
	}
	if peers, _ := f.seen(); len(peers) == 0 || peers[0] != "ats" {
		t.Fatalf("the frontend saw client certificates %v, want ats", peers)
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"plaintext to a TLS frontend", nil},
		{"no client certificate", []string{"--temporal-tls-ca", p.caFile, "--temporal-tls-server-name", "temporal.test"}},
		{"a client certificate of another CA", []string{"--temporal-tls-cert", p.strangerCert, "--temporal-tls-key", p.strangerKey,
			"--temporal-tls-ca", p.caFile, "--temporal-tls-server-name", "temporal.test"}},
		{"the server not trusted", []string{"--temporal-tls-cert", p.clientCert, "--temporal-tls-key", p.clientKey,
			"--temporal-tls-ca", p.otherCAFile, "--temporal-tls-server-name", "temporal.test"}},
		{"the wrong server name", []string{"--temporal-tls-cert", p.clientCert, "--temporal-tls-key", p.clientKey,
			"--temporal-tls-ca", p.caFile, "--temporal-tls-server-name", "evil.test"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := dialWithFlags(t, f.addr, tt.args...); err == nil {
				t.Fatal("connected")
			}
		})
	}
}

// An API key travels as a bearer token, and only over TLS.
func TestTemporalAPIKey(t *testing.T) {
	p := newTestPKI(t)
	f := startFakeFrontend(t, p, tls.NoClientCert)
	t.Setenv("ATS_TEMPORAL_API_KEY", "cloud-api-key-123")
	if err := dialWithFlags(t, f.addr, "--temporal-tls-ca", p.caFile, "--temporal-tls-server-name", "temporal.test"); err != nil {
		t.Fatalf("API-key dial: %v", err)
	}
	if _, auths := f.seen(); len(auths) == 0 || auths[0] != "Bearer cloud-api-key-123" {
		t.Fatalf("authorization headers %q", auths)
	}
	// Without --temporal-tls-ca the key still goes over TLS (system roots),
	// which this test CA is not among: the handshake fails rather than the
	// key being sent in clear.
	if err := dialWithFlags(t, f.addr, "--temporal-tls-server-name", "temporal.test"); err == nil {
		t.Fatal("connected to an untrusted frontend")
	}
	if _, auths := f.seen(); len(auths) != 1 {
		t.Fatalf("the key reached the frontend %d times, want once", len(auths))
	}
}

func TestTemporalTLSFlagsRefused(t *testing.T) {
	p := newTestPKI(t)
	for name, args := range map[string][]string{
		"a certificate without its key": {"--temporal-tls-cert", p.clientCert},
		"a key without its certificate": {"--temporal-tls-key", p.clientKey},
		"a CA file that is not PEM":     {"--temporal-tls-ca", p.dir},
		"a missing certificate file":    {"--temporal-tls-cert", filepath.Join(p.dir, "nope.pem"), "--temporal-tls-key", p.clientKey},
	} {
		t.Run(name, func(t *testing.T) {
			if err := dialWithFlags(t, "127.0.0.1:1", args...); errs.KindOf(err) != errs.Invalid {
				t.Fatalf("%v, want an invalid-argument error", err)
			}
		})
	}
}
