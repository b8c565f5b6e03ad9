// Package clustertest runs a real Temporal cluster for tests, the way
// production runs it (deployments/temporal): the Temporal server
// (go.temporal.io/server, ServerVersion, built from the Go module proxy into
// .bin/ by .ci/run) on PostgreSQL persistence and SQL visibility, its
// schemas set up by temporal-sql-tool and its namespace and search
// attributes registered by deployments/temporal/setup.sh, one process per
// service on loopback — frontend, internal-frontend, two history, matching
// and worker — and the public frontend behind mutual TLS, with the
// configuration file compose and Kubernetes use
// (deployments/temporal/config/production.yaml).
//
// Each process is a child of the test process in its own process group,
// killed by the kernel if the test process dies (Linux), so a test can
// SIGKILL one service (Kill), start it again (Start), or restart the whole
// cluster (KillAll, StartAll) while the service under test keeps running.
//
// Without the binaries the test is skipped with a message (and fails under
// CI, which builds them).
package clustertest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	// The pgx database/sql driver, for dropping the cluster's databases.
	_ "github.com/jackc/pgx/v5/stdlib"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/worker/devserver"
)

// ServerVersion is the Temporal server the cluster runs: the one the pinned
// CLI (v1.5.1) embeds, so the dev server and the cluster run the same
// server. deployments/ pins its images to it (go test ./deployments/).
const ServerVersion = "1.29.1"

// The services, each its own process (History runs Histories of them).
const (
	Frontend         = "frontend"
	InternalFrontend = "internal-frontend"
	History          = "history"
	Matching         = "matching"
	Worker           = "worker"
)

// Services are the Temporal services of a production cluster, in the order
// the cluster starts them.
var Services = []string{History, Matching, Frontend, InternalFrontend, Worker}

// Histories is how many history processes the cluster runs.
const Histories = 2

// Binaries the cluster needs, found in .bin/ up to the module root (where
// .ci/run and the README's command put them) unless the environment names
// them.
const (
	EnvServer  = "ATS_TEMPORAL_SERVER"
	EnvSQLTool = "ATS_TEMPORAL_SQL_TOOL"
)

// Options configure Start.
type Options struct {
	// DatabaseURL is a PostgreSQL server URL whose user may create
	// databases; the cluster creates its two databases there and drops
	// them at cleanup.
	DatabaseURL string
	// HistoryShards is fixed when the cluster is first created; 8 when 0
	// (production: 512, see deployments/temporal).
	HistoryShards int
	// LogLevel of the server processes; "warn" when empty.
	LogLevel string
}

// Cluster is a running Temporal cluster of separate processes.
type Cluster struct {
	t        testing.TB
	dir      string
	root     string // deployments/temporal
	server   string
	sqlTool  string
	cli      string
	env      []string
	frontend string
	certs    Certs
	// dbURL is the persistence database.
	dbURL string
	mu    sync.Mutex
	procs map[string]*proc
	names []string // process names in start order
}

// Certs are the files of the frontend's mutual TLS: the CA, the client
// certificate and key the service presents, and the name the frontend's
// certificate carries.
type Certs struct {
	CA, ClientCert, ClientKey, ServerName string
	serverCert, serverKey                 string
}

type proc struct {
	name    string
	service string
	env     []string
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{}
}

// Start builds the cluster: databases and schemas, the service processes,
// then the namespace "default" with the search attributes. It returns once
// the frontend serves the namespace; cleanup stops every process and drops
// the databases.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	server, sqlTool, cli := binaries(t)
	if o.DatabaseURL == "" {
		t.Fatal("clustertest: Options.DatabaseURL is required")
	}
	if o.HistoryShards == 0 {
		o.HistoryShards = 8
	}
	if o.LogLevel == "" {
		o.LogLevel = "warn"
	}
	root, err := deploymentRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &Cluster{t: t, dir: dir, root: root, server: server, sqlTool: sqlTool, cli: cli, procs: map[string]*proc{}}
	if c.certs, err = writeCerts(dir); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(o.DatabaseURL)
	if err != nil {
		t.Fatalf("clustertest: database URL: %v", err)
	}
	pw, _ := u.User.Password()
	suffix := strings.TrimPrefix(models.NewID("t"), "t_")
	db, vis := "temporal_"+suffix, "temporal_visibility_"+suffix
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	port := func() string { p := ports[0]; ports = ports[1:]; return strconv.Itoa(p) }
	c.frontend = "127.0.0.1:" + port()
	_, fp, _ := net.SplitHostPort(c.frontend)
	c.env = []string{
		"TEMPORAL_DB_ADDR=" + u.Host, "TEMPORAL_DB_USER=" + u.User.Username(), "TEMPORAL_DB_PASSWORD=" + pw,
		"TEMPORAL_DB_NAME=" + db, "TEMPORAL_VISIBILITY_DB_NAME=" + vis,
		"TEMPORAL_DB_MAX_CONNS=10",
		"TEMPORAL_HISTORY_SHARDS=" + strconv.Itoa(o.HistoryShards),
		"TEMPORAL_BIND_IP=127.0.0.1", "TEMPORAL_BROADCAST_ADDRESS=127.0.0.1",
		"TEMPORAL_FRONTEND_ADDRESS=" + c.frontend,
		"TEMPORAL_FRONTEND_PORT=" + fp, "TEMPORAL_FRONTEND_MEMBERSHIP_PORT=" + port(), "TEMPORAL_FRONTEND_HTTP_PORT=" + port(),
		"TEMPORAL_INTERNAL_FRONTEND_PORT=" + port(), "TEMPORAL_INTERNAL_FRONTEND_MEMBERSHIP_PORT=" + port(),
		"TEMPORAL_INTERNAL_FRONTEND_HTTP_PORT=" + port(),
		"TEMPORAL_MATCHING_PORT=" + port(), "TEMPORAL_MATCHING_MEMBERSHIP_PORT=" + port(),
		"TEMPORAL_WORKER_PORT=" + port(), "TEMPORAL_WORKER_MEMBERSHIP_PORT=" + port(),
		"TEMPORAL_TLS_CERT=" + c.certs.serverCert, "TEMPORAL_TLS_KEY=" + c.certs.serverKey, "TEMPORAL_TLS_CLIENT_CA=" + c.certs.CA,
		"TEMPORAL_METRICS_ADDRESS=none",
		"TEMPORAL_DYNAMIC_CONFIG=" + filepath.Join(root, "config", "dynamicconfig.yaml"),
		"TEMPORAL_LOG_LEVEL=" + o.LogLevel,
	}
	t.Cleanup(func() { dropDatabases(t, o.DatabaseURL, db, vis) })
	du := *u
	du.Path = "/" + db
	c.dbURL = du.String()
	c.setup("schema")

	for _, svc := range Services {
		n := 1
		if svc == History {
			n = Histories
		}
		for i := 1; i <= n; i++ {
			name := svc
			var env []string
			if svc == History {
				// Each history process has its own ports; the others
				// find them through membership.
				name = fmt.Sprintf("%s-%d", svc, i)
				env = []string{"TEMPORAL_HISTORY_PORT=" + port(), "TEMPORAL_HISTORY_MEMBERSHIP_PORT=" + port()}
			}
			c.procs[name] = &proc{name: name, service: svc, env: env}
			c.names = append(c.names, name)
		}
	}
	t.Cleanup(c.KillAll)
	c.StartAll()
	c.setup("namespace")
	return c
}

// binaries finds the server, the SQL tool and the CLI, or skips t (fails
// under CI).
func binaries(t testing.TB) (server, sqlTool, cli string) {
	t.Helper()
	missing := func(what string, err error) {
		t.Helper()
		msg := fmt.Sprintf("%s not found (%v): build it with .ci/run's step 1 (see README, \"A Temporal cluster\")", what, err)
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs the Temporal cluster: " + msg)
		}
		t.Skip(msg)
	}
	var err error
	if server, err = findBin(EnvServer, "temporal-server"); err != nil {
		missing("the Temporal server", err)
	}
	if sqlTool, err = findBin(EnvSQLTool, "temporal-sql-tool"); err != nil {
		missing("temporal-sql-tool", err)
	}
	if cli, err = devserver.FindBinary(os.Getenv("TEMPORAL_CLI")); err != nil {
		missing("the Temporal CLI", err)
	}
	return server, sqlTool, cli
}

// findBin is $env, else name in .bin/ of the current directory or a parent
// up to the module root.
func findBin(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return "", fmt.Errorf("no .bin/%s in %s and %s unset", name, dir, env)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no .bin/%s and %s unset", name, env)
		}
		dir = parent
	}
}

// deploymentRoot is deployments/temporal of this module.
func deploymentRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("clustertest: cannot locate the module")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "deployments", "temporal")
	if _, err := os.Stat(filepath.Join(root, "config", "production.yaml")); err != nil {
		return "", fmt.Errorf("clustertest: %w", err)
	}
	return filepath.Abs(root)
}

// setup runs deployments/temporal/setup.sh step with the cluster's tools.
func (c *Cluster) setup(step string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(c.root, "setup.sh"), step)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Env = append(cmd.Env, "TEMPORAL_SQL_TOOL="+c.sqlTool, "TEMPORAL_CLI="+c.cli, "TEMPORAL_ADDRESS="+c.frontend,
		"TEMPORAL_TLS_CERT="+c.certs.ClientCert, "TEMPORAL_TLS_KEY="+c.certs.ClientKey, "TEMPORAL_TLS_CA="+c.certs.CA,
		"TEMPORAL_TLS_SERVER_NAME="+c.certs.ServerName, "TEMPORAL_NAMESPACE=default", "TEMPORAL_RETENTION=24h")
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("clustertest: setup.sh %s: %v\n%s%s", step, err, out, c.Logs())
	}
}

// Address is the public frontend (mutual TLS: see TLS).
func (c *Cluster) Address() string { return c.frontend }

// Certs are the files of the frontend's mutual TLS.
func (c *Cluster) Certs() Certs { return c.certs }

// TLS is the client configuration for the frontend: its CA, the client
// certificate, its name.
func (c *Cluster) TLS() *tls.Config {
	c.t.Helper()
	pair, err := tls.LoadX509KeyPair(c.certs.ClientCert, c.certs.ClientKey)
	if err != nil {
		c.t.Fatal(err)
	}
	ca, err := os.ReadFile(c.certs.CA)
	if err != nil {
		c.t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, ServerName: c.certs.ServerName, MinVersion: tls.VersionTLS12}
}

// Processes are the names of the cluster's processes ("history-1",
// "history-2", "matching", …) in start order.
func (c *Cluster) Processes() []string { return slices.Clone(c.names) }

// Pid is the process id of the named process, 0 when it is not running.
func (c *Cluster) Pid(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.procs[name]; p != nil && p.cmd != nil {
		return p.cmd.Process.Pid
	}
	return 0
}

// Start starts the named process (after Kill), on the ports it had.
func (c *Cluster) Start(name string) {
	c.t.Helper()
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil {
		c.t.Fatalf("clustertest: no process %q (have %v)", name, c.names)
	}
	if err := c.spawn(p); err != nil {
		c.t.Fatal(err)
	}
	if p.service == Frontend {
		c.awaitFrontend()
	}
}

// Kill sends SIGKILL to the named process and waits for it to end.
func (c *Cluster) Kill(name string) {
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil {
		c.t.Fatalf("clustertest: no process %q (have %v)", name, c.names)
	}
	p.kill()
}

// StartAll starts every process, history first, and returns once the
// frontend answers. The first process alone writes the cluster's metadata
// into a new database (processes starting together on an empty one race
// for it, and the losers exit): the others start once it is there.
func (c *Cluster) StartAll() {
	c.t.Helper()
	for i, name := range c.names {
		if err := c.spawn(c.procs[name]); err != nil {
			c.t.Fatal(err)
		}
		if i == 0 {
			c.awaitMetadata(name)
		}
	}
	c.awaitFrontend()
}

// awaitMetadata waits until the cluster's metadata is in the database.
func (c *Cluster) awaitMetadata(first string) {
	c.t.Helper()
	db, err := sql.Open("pgx", c.dbURL)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM cluster_metadata_info").Scan(&n); err == nil && n > 0 {
			return
		}
		if dead := c.exited(); dead != "" || time.Now().After(deadline) {
			c.t.Fatalf("clustertest: %s never wrote the cluster metadata (%s exited?)\n%s", first, dead, c.Logs())
		}
	}
}

// KillAll sends SIGKILL to every process, as a machine's crash would.
func (c *Cluster) KillAll() {
	for _, name := range c.names {
		c.procs[name].kill()
	}
}

// awaitFrontend waits until the frontend passes a health check over mTLS.
func (c *Cluster) awaitFrontend() {
	c.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var last error
	for time.Now().Before(deadline) {
		if dead := c.exited(); dead != "" {
			c.t.Fatalf("clustertest: %s exited\n%s", dead, c.Logs())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cl, err := client.DialContext(ctx, client.Options{HostPort: c.frontend, Namespace: "default",
			ConnectionOptions: client.ConnectionOptions{TLS: c.TLS()}, Logger: quiet{}})
		if err == nil {
			_, err = cl.CheckHealth(ctx, &client.CheckHealthRequest{})
			cl.Close()
		}
		cancel()
		if err == nil {
			return
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	c.t.Fatalf("clustertest: the frontend never answered: %v\n%s", last, c.Logs())
}

// exited names a process that should run and has exited, "" when none.
func (c *Cluster) exited() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, name := range c.names {
		p := c.procs[name]
		if p.cmd == nil {
			continue
		}
		select {
		case <-p.done:
			return name
		default:
		}
	}
	return ""
}

func (c *Cluster) spawn(p *proc) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("clustertest: %s is running", p.name)
	}
	if p.log == nil {
		f, err := os.Create(filepath.Join(c.dir, p.name+".log"))
		if err != nil {
			return err
		}
		p.log = f
		c.t.Cleanup(func() { _ = f.Close() })
	}
	cmd := exec.Command(c.server, "--root", c.root, "--config", "config", "--env", "production", "--allow-no-auth",
		"start", "--service", p.service)
	cmd.Env = append(append(os.Environ(), c.env...), p.env...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("clustertest: start %s: %w", p.name, err)
	}
	p.cmd = cmd
	done := make(chan struct{})
	p.done = done
	go func() { _ = cmd.Wait(); close(done) }()
	return nil
}

func (p *proc) kill() {
	if p.cmd == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Process.Kill()
	<-p.done
	p.cmd = nil
}

// Logs are the last lines of every process's log, for a failing test.
func (c *Cluster) Logs() string {
	var b strings.Builder
	for _, name := range c.names {
		raw, err := os.ReadFile(filepath.Join(c.dir, name+".log"))
		if err != nil {
			continue
		}
		lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "--- %s (last %d lines)\n%s\n", name, len(lines), bytes.Join(lines, []byte("\n")))
	}
	return b.String()
}

// dropDatabases drops the cluster's databases (connections terminated).
func dropDatabases(t testing.TB, base string, names ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Errorf("clustertest: %v", err)
		return
	}
	defer admin.Close()
	for _, n := range names {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)"); err != nil {
			t.Errorf("clustertest: drop %s: %v", n, err)
		}
	}
}

// freePorts reserves n distinct free loopback ports below 32768 (closed
// again before the servers bind them; on loopback nothing takes them in
// between). The server stores membership ports as a PostgreSQL smallint,
// so the kernel's ephemeral ports (32768 and up) do not fit.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	out := make([]int, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries > 1000 {
			return nil, errors.New("clustertest: no free loopback ports between 20000 and 32767")
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(20000+rand.IntN(12768)))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// quiet drops the SDK's logs of the health probes.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
