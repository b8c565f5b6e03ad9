// Package devserver runs the pinned Temporal CLI's embedded development
// server (`temporal server start-dev`, CLI v1.5.1) as a child process of the
// service, and registers the service's search attributes on any cluster.
//
// The child runs in its own process group and, on Linux, is killed by the
// kernel when the parent dies (Pdeathsig), so a crashed or SIGKILLed `ats`
// never leaves an orphaned Temporal server holding its ports and database.
package devserver

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/workflows"
)

// Options configures Start.
type Options struct {
	// Binary is the path of the Temporal CLI; see FindBinary.
	Binary string
	// IP every listener binds to; "127.0.0.1" when empty.
	IP string
	// Port of the gRPC frontend; 0 picks a free port.
	Port int
	// UIPort of the Web UI; 0 picks a free port, -1 runs headless. The
	// port is served by a Host-checking front (uifront.go); the UI itself
	// listens on a loopback port of its own.
	UIPort int
	// DBFile persists the server's state (SQLite) when set; empty keeps
	// everything in memory and loses it on exit.
	DBFile string
	// SQLitePragmas are passed as --sqlite-pragma NAME=VALUE (e.g.
	// "journal_mode=wal", "synchronous=normal"); the SQLite defaults
	// (a rollback journal, every commit synced) when empty.
	SQLitePragmas []string
	// Namespace is created at start in addition to "default".
	Namespace string
	// LogLevel of the server's own logs; "warn" when empty.
	LogLevel string
	// UICodecEndpoint, when set, points the Web UI at a codec server
	// (codec.NewHTTPHandler) so operators see decrypted payloads. Only the
	// front serves it (in the UI's settings); the UI's own port does not.
	UICodecEndpoint string
	// SearchAttributes are registered at start; workflows.SearchAttributes()
	// when nil.
	SearchAttributes []temporal.SearchAttributeKey
	// Stdout and Stderr receive the server's output; discarded when nil
	// (the last few KiB of stderr are kept for start-up error messages).
	Stdout, Stderr io.Writer
	// StartTimeout bounds the wait for the frontend and UI; 30 s when 0.
	StartTimeout time.Duration
	// StopGrace is how long Stop waits after SIGINT before SIGKILL; 10 s
	// when 0.
	StopGrace time.Duration
}

// Server is a running dev server.
type Server struct {
	cmd       *exec.Cmd
	frontend  string
	httpAPI   string
	uiURL     string
	ui        *uiFront
	uiInner   string // the UI's own address, behind ui
	namespace string
	grace     time.Duration
	done      chan struct{} // closed when the child has exited
	waitErr   error         // valid once done is closed
	stopOnce  sync.Once
	stopErr   error
}

// EnvBinary is the environment variable naming the Temporal CLI binary.
const EnvBinary = "ATS_TEMPORAL_CLI"

// FindBinary locates the Temporal CLI: flag (if non-empty), else
// $ATS_TEMPORAL_CLI, else .bin/temporal next to the running executable
// (the README builds `ats` into .bin/ beside it, so `.bin/ats dev` works
// from any directory), else <dir>/.bin/temporal for dir = the current
// directory and its parents up to the repository root (a directory holding
// go.mod), else "temporal" on PATH.
func FindBinary(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv(EnvBinary); env != "" {
		return env, nil
	}
	if exe, err := os.Executable(); err == nil {
		if p, ok := besideExecutable(exe); ok {
			return p, nil
		}
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			p := filepath.Join(dir, ".bin", "temporal")
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	p, err := exec.LookPath("temporal")
	if err != nil {
		return "", errs.E(errs.Invalid, "Temporal CLI not found").
			WithHint("install it with `GOBIN=$PWD/.bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1` or set " + EnvBinary)
	}
	return p, nil
}

// besideExecutable finds the Temporal CLI installed beside exe: in exe's
// own directory when that is a .bin/ directory, else in exe's directory's
// .bin/ (a binary built at the repository root). Symbolic links are
// followed first, so a link to .bin/ats on PATH finds its .bin/.
func besideExecutable(exe string) (string, bool) {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	for _, p := range []string{filepath.Join(dir, "temporal"), filepath.Join(dir, ".bin", "temporal")} {
		if filepath.Base(filepath.Dir(p)) != ".bin" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// Start launches the dev server and returns once its gRPC frontend passes
// a health check and, unless headless, its Web UI answers HTTP 200. ctx
// bounds the start-up only; the server runs until Stop (or until this
// process dies). On any start-up failure the child is killed.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Binary == "" {
		return nil, errs.E(errs.Invalid, "devserver: Options.Binary is required")
	}
	if opts.IP == "" {
		opts.IP = "127.0.0.1"
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "warn"
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 30 * time.Second
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = 10 * time.Second
	}
	if opts.SearchAttributes == nil {
		opts.SearchAttributes = workflows.SearchAttributes()
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	// The free ports are released before the server binds them, so
	// another process can take one in between (likely when many tests
	// start servers in parallel); the server then exits at once, and a
	// second try with new ports succeeds.
	var err error
	for attempt := 1; ; attempt++ {
		var s *Server
		s, err = startOnce(ctx, opts)
		if err == nil || !errors.Is(err, errExitedEarly) || attempt == 3 || ctx.Err() != nil {
			return s, err
		}
	}
}

// errExitedEarly marks a server process that exited before becoming ready.
var errExitedEarly = errors.New("server exited during start-up")

func startOnce(ctx context.Context, opts Options) (*Server, error) {
	ns := opts.Namespace
	if ns == "" {
		ns = "default"
	}

	ports, err := freePorts(opts.IP, 3)
	if err != nil {
		return nil, err
	}
	port := opts.Port
	if port == 0 {
		port = ports[0]
	}
	httpAPI := net.JoinHostPort(opts.IP, strconv.Itoa(ports[1]))
	// The frontend's HTTP API, like the UI, answers only its own address
	// and the loopback names (Temporal's own check), not a rebound name.
	allowed, err := json.Marshal(loopbackHosts(httpAPI))
	if err != nil {
		return nil, err
	}
	args := []string{"server", "start-dev",
		"--ip", opts.IP,
		"--port", strconv.Itoa(port),
		"--http-port", strconv.Itoa(ports[1]),
		"--metrics-port", strconv.Itoa(ports[2]),
		"--log-level", opts.LogLevel,
		// Offline by design: no version check phoning home.
		"--dynamic-config-value", "frontend.enableServerVersionCheck=false",
		"--dynamic-config-value", "frontend.httpAllowedHosts=" + string(allowed),
	}
	var (
		front   net.Listener
		uiInner *url.URL
	)
	if opts.UIPort < 0 {
		args = append(args, "--headless")
	} else {
		// The front takes the operators' port; the UI a loopback port
		// only the front uses.
		front, err = net.Listen("tcp", net.JoinHostPort(opts.IP, strconv.Itoa(opts.UIPort)))
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "cannot listen for the Temporal Web UI")
		}
		innerIP, inner, err := innerUIAddr(opts.IP)
		if err != nil {
			_ = front.Close()
			return nil, err
		}
		uiInner = &url.URL{Scheme: "http", Host: net.JoinHostPort(innerIP, strconv.Itoa(inner[0]))}
		args = append(args, "--ui-ip", innerIP, "--ui-port", strconv.Itoa(inner[0]))
	}
	if opts.DBFile != "" {
		args = append(args, "--db-filename", opts.DBFile)
	}
	for _, p := range opts.SQLitePragmas {
		args = append(args, "--sqlite-pragma", p)
	}
	if opts.Namespace != "" && opts.Namespace != "default" {
		args = append(args, "--namespace", opts.Namespace)
	}
	for _, k := range opts.SearchAttributes {
		args = append(args, "--search-attribute", k.GetName()+"="+typeName(k.GetValueType()))
	}

	cmd := exec.Command(opts.Binary, args...)
	cmd.Env = os.Environ()
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stdout = orDiscard(opts.Stdout)
	cmd.Stderr = io.MultiWriter(orDiscard(opts.Stderr), tail)
	cmd.SysProcAttr = sysProcAttr()

	s := &Server{
		cmd:       cmd,
		frontend:  net.JoinHostPort(opts.IP, strconv.Itoa(port)),
		httpAPI:   httpAPI,
		namespace: ns,
		grace:     opts.StopGrace,
		done:      make(chan struct{}),
	}
	if front != nil {
		s.uiURL = "http://" + front.Addr().String()
		s.ui, s.uiInner = newUIFront(front, uiInner, opts.UICodecEndpoint), uiInner.Host
	}
	if err := s.spawn(); err != nil {
		s.closeUI()
		return nil, errs.Wrap(errs.Internal, err, "cannot start the Temporal dev server")
	}

	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		msg := "Temporal dev server did not become ready"
		if t := bytes.TrimSpace(tail.Bytes()); len(t) > 0 {
			err = fmt.Errorf("%w; server output: %s", err, t)
		}
		return nil, errs.Wrap(errs.Transient, err, msg)
	}
	return s, nil
}

// spawn starts the child from a goroutine locked to its OS thread, which
// stays alive until the child exits: Pdeathsig fires when the *thread* that
// forked the child dies, and the Go runtime may retire threads, so the
// thread must outlive the child.
func (s *Server) spawn() error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := s.cmd.Start(); err != nil {
			runtime.UnlockOSThread()
			started <- err
			close(s.done)
			return
		}
		started <- nil
		s.waitErr = s.cmd.Wait()
		runtime.UnlockOSThread()
		close(s.done)
	}()
	return <-started
}

func (s *Server) waitReady(ctx context.Context) error {
	c, err := client.NewLazyClient(client.Options{
		HostPort:  s.frontend,
		Namespace: s.namespace,
		Logger:    log.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	})
	if err != nil {
		return err
	}
	defer c.Close()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	frontendUp, uiUp := false, s.uiURL == ""
	for {
		if !frontendUp {
			hctx, cancel := context.WithTimeout(ctx, time.Second)
			_, lastErr = c.CheckHealth(hctx, &client.CheckHealthRequest{})
			cancel()
			frontendUp = lastErr == nil
		}
		if frontendUp && !uiUp {
			lastErr = getOK(ctx, s.uiURL)
			uiUp = lastErr == nil
		}
		if frontendUp && uiUp {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%w: %v", errExitedEarly, s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("%w (last check: %v)", ctx.Err(), lastErr)
		case <-tick.C:
		}
	}
}

func getOK(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("web UI answered %s", resp.Status)
	}
	return nil
}

// FrontendAddr is the bound gRPC frontend address ("127.0.0.1:port") to
// dial.
func (s *Server) FrontendAddr() string { return s.frontend }

// HTTPAPIAddr is the frontend's HTTP API address.
func (s *Server) HTTPAPIAddr() string { return s.httpAPI }

// innerUIAddr picks the loopback address and free port the Web UI itself
// listens on behind its front (which is bound to ip): a random address of
// 127.0.0.0/8 where the system routes the whole block to loopback (Linux
// does), so that a rebound page scanning loopback ports for the UI's own
// port must also guess one of 16 million addresses; else 127.0.0.1, or
// ::1 when the service listens on IPv6 loopback.
func innerUIAddr(ip string) (string, []int, error) {
	if a := net.ParseIP(ip); a != nil && a.To4() == nil && a.IsLoopback() {
		ports, err := freePorts("::1", 1)
		return "::1", ports, err
	}
	var b [3]byte
	if _, err := cryptorand.Read(b[:]); err == nil {
		random := net.IPv4(127, b[0], b[1], max(b[2], 2)).String()
		if ports, err := freePorts(random, 1); err == nil {
			return random, ports, nil
		}
	}
	ports, err := freePorts("127.0.0.1", 1)
	return "127.0.0.1", ports, err
}

func (s *Server) closeUI() {
	if s.ui != nil {
		s.ui.close()
	}
}

// UIURL is the Web UI's base URL, or "" when headless.
func (s *Server) UIURL() string { return s.uiURL }

// Namespace is the namespace created for the service.
func (s *Server) Namespace() string { return s.namespace }

// Pid is the child's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Done is closed when the server process has exited, for whatever reason.
func (s *Server) Done() <-chan struct{} { return s.done }

// Stop shuts the server down: SIGINT to its process group, then SIGKILL if
// it has not exited within the grace period. It returns once the process
// is gone. Stop is idempotent; an exit caused by Stop's signals is not an
// error.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		defer s.closeUI()
		select {
		case <-s.done:
			s.stopErr = exitError(s.waitErr, false)
			return
		default:
		}
		_ = signalGroup(s.cmd.Process.Pid, syscall.SIGINT)
		timer := time.NewTimer(s.grace)
		defer timer.Stop()
		select {
		case <-s.done:
			s.stopErr = exitError(s.waitErr, true)
		case <-timer.C:
			_ = signalGroup(s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
			s.stopErr = errs.E(errs.Transient, "Temporal dev server ignored SIGINT and was killed")
		}
	})
	return s.stopErr
}

// exitError classifies the child's exit status; a death by the SIGINT we
// sent is a clean stop.
func exitError(err error, interrupted bool) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if interrupted && errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGINT {
			return nil
		}
	}
	return errs.Wrap(errs.Internal, err, "Temporal dev server exited with an error")
}

// freePorts reserves n distinct free TCP ports on ip. The listeners are
// closed before the server binds, so another process could take a port in
// between; on loopback in practice it does not, and Start reports the bind
// failure if it does.
func freePorts(ip string, n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "cannot reserve a free port")
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func typeName(t enumspb.IndexedValueType) string {
	switch t {
	case enumspb.INDEXED_VALUE_TYPE_TEXT:
		return "Text"
	case enumspb.INDEXED_VALUE_TYPE_KEYWORD:
		return "Keyword"
	case enumspb.INDEXED_VALUE_TYPE_INT:
		return "Int"
	case enumspb.INDEXED_VALUE_TYPE_DOUBLE:
		return "Double"
	case enumspb.INDEXED_VALUE_TYPE_BOOL:
		return "Bool"
	case enumspb.INDEXED_VALUE_TYPE_DATETIME:
		return "Datetime"
	case enumspb.INDEXED_VALUE_TYPE_KEYWORD_LIST:
		return "KeywordList"
	}
	return "Keyword"
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
