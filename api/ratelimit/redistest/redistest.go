// Package redistest starts a throw-away redis-server for tests: on a free
// loopback port, in the test's temp dir, without persistence, stopped when
// the test ends. Tests that need a real Redis (shared rate-limit budgets,
// caches) call Start and connect to the returned URL.
//
// When no redis-server binary is installed the test is skipped with a
// message saying how to install it, except when the environment variable CI
// is set: there a missing binary fails the test, so a CI image without the
// Debian package redis-server cannot silently skip the Redis tests.
package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds how long Start waits for the server to answer PING.
const startTimeout = 10 * time.Second

// Server is a running redis-server.
type Server struct {
	// Addr is host:port on the loopback interface.
	Addr string
	// URL is redis://Addr/0, for go-redis's ParseURL.
	URL  string
	stop func()
}

// Binary returns the path of redis-server: $REDIS_SERVER if set, else the
// one on PATH, else Debian's /usr/bin/redis-server. ok is false when none
// exists.
func Binary() (path string, ok bool) {
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		return p, true
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, true
	}
	if _, err := os.Stat("/usr/bin/redis-server"); err == nil {
		return "/usr/bin/redis-server", true
	}
	return "", false
}

// Start runs a redis-server for the duration of t, or skips t when the
// binary is missing (fails it when CI is set). A port taken between being
// chosen and bound is retried with another.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, ok := Binary()
	if !ok {
		missingBinary(t)
		return nil
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := start(t, bin)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("redistest: %v", lastErr)
	return nil
}

// missingBinary skips t, or fails it when CI is set.
func missingBinary(t testing.TB) {
	t.Helper()
	const msg = "redis-server not installed (Debian: apt-get install -y redis-server)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "; CI must run the Redis tests")
		return
	}
	t.Skip(msg + "; skipping the Redis test")
}

func start(t testing.TB, bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var out bytes.Buffer
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--loglevel", "warning",
		"--logfile", "",
	)
	cmd.Dir = dir
	cmd.Stdout = &out
	cmd.Stderr = &out
	setParentDeath(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			<-exited
		})
	}

	deadline := time.Now().Add(startTimeout)
	for {
		if err := ping(addr); err == nil {
			break
		} else if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("redis-server on %s did not answer within %s: %v; output: %s", addr, startTimeout, err, out.String())
		}
		select {
		case werr := <-exited:
			// Most likely the port was taken in the meantime.
			exited <- werr
			return nil, fmt.Errorf("redis-server on %s exited: %v; output: %s", addr, werr, strings.TrimSpace(out.String()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Cleanup(stop)
	return &Server{Addr: addr, URL: "redis://" + addr + "/0", stop: stop}, nil
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping speaks just enough RESP to see the server ready.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("unexpected reply %q", line)
	}
	return nil
}

// Stop kills the server now (tests of behaviour with Redis down); it is
// also run at the end of the test. Calling it twice is harmless.
func (s *Server) Stop() { s.stop() }
