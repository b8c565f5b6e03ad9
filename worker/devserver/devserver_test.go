package devserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/workflows"
)

func temporalCLI(t *testing.T) string {
	t.Helper()
	p, err := FindBinary(os.Getenv("TEMPORAL_CLI"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs the Temporal CLI: %v", err)
		}
		t.Skipf("Temporal CLI not found (%v); install it with the README's first command", err)
	}
	return p
}

func TestFindBinary(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(root, ".bin", "temporal")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pathDir := t.TempDir()
	onPath := filepath.Join(pathDir, "temporal")
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "go.mod"), []byte("module y\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, flag, env, cwd, path, want string
		wantErr                          bool
	}{
		{name: "flag wins", flag: "/opt/t", env: "/env/t", cwd: sub, path: pathDir, want: "/opt/t"},
		{name: "env next", env: "/env/t", cwd: sub, path: pathDir, want: "/env/t"},
		{name: "repo .bin from a subdirectory", cwd: sub, path: pathDir, want: local},
		{name: "PATH last", cwd: empty, path: pathDir, want: onPath},
		{name: "nowhere", cwd: empty, path: t.TempDir(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvBinary, tt.env)
			t.Setenv("PATH", tt.path)
			t.Chdir(tt.cwd)
			got, err := FindBinary(tt.flag)
			if tt.wantErr {
				if errs.KindOf(err) != errs.Invalid {
					t.Fatalf("err = %v, want invalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("FindBinary = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBesideExecutable: `.bin/ats dev` started from another directory finds
// the Temporal CLI installed next to it (the README installs both into
// .bin/), also through a symbolic link to the binary, and a binary built at
// the repository root finds the root's .bin/.
func TestBesideExecutable(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cli := filepath.Join(bin, "temporal")
	for _, f := range []string{cli, filepath.Join(bin, "ats"), filepath.Join(root, "ats")} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "ats")
	if err := os.Symlink(filepath.Join(bin, "ats"), link); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "temporal"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// filepath.EvalSymlinks resolves the temporary directory itself too.
	want, err := filepath.EvalSymlinks(cli)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, exe, want string
	}{
		{"in .bin beside it", filepath.Join(bin, "ats"), want},
		{"built at the root", filepath.Join(root, "ats"), want},
		{"through a link on PATH", link, want},
		// A temporal beside a binary outside any .bin/ is not taken: it
		// could be anything the user keeps there.
		{"not beside a stray binary", filepath.Join(elsewhere, "ats"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := besideExecutable(tt.exe)
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("besideExecutable(%s) = %q, %v; want %q", tt.exe, got, ok, tt.want)
			}
		})
	}
}

func TestFreePortsDistinct(t *testing.T) {
	ports, err := freePorts("127.0.0.1", 4)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v", ports)
		}
		seen[p] = true
	}
}

func TestTailBufferKeepsEnd(t *testing.T) {
	tb := &tailBuffer{max: 8}
	for _, s := range []string{"hello ", "world", "!!"} {
		_, _ = tb.Write([]byte(s))
	}
	if got := string(tb.Bytes()); got != " world!!" {
		t.Fatalf("tail = %q, want %q", got, " world!!")
	}
}

func TestStartFailures(t *testing.T) {
	dir := t.TempDir()
	crashing := filepath.Join(dir, "crash")
	if err := os.WriteFile(crashing, []byte("#!/bin/sh\necho 'fatal: cannot bind' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		wantMsg string
	}{
		{"no binary", Options{}, "Binary is required"},
		{"missing binary", Options{Binary: filepath.Join(dir, "nope")}, "cannot start"},
		{"exits at once", Options{Binary: crashing}, "cannot bind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(context.Background(), tt.opts)
			if err == nil {
				_ = s.Stop()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestStartTimesOutAndKills(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	hang := filepath.Join(dir, "hang")
	// A "server" that never listens and ignores SIGINT.
	script := fmt.Sprintf("#!/bin/sh\ntrap '' INT\necho $$ > %s\nwhile :; do sleep 1; done\n", pidFile)
	if err := os.WriteFile(hang, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Binary: hang, UIPort: -1, StartTimeout: 500 * time.Millisecond, StopGrace: 200 * time.Millisecond})
	if errs.KindOf(err) != errs.Transient {
		t.Fatalf("err = %v, want transient", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if alive(pid) {
		t.Fatalf("hung child %d survived a failed Start", pid)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Format: pid (comm) state ...
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestDevServerLifecycle(t *testing.T) {
	bin := temporalCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbFile := filepath.Join(t.TempDir(), "temporal.db")
	s, err := Start(ctx, Options{Binary: bin, UIPort: -1, LogLevel: "error", Namespace: "ats", DBFile: dbFile})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Stop() }()
	if s.UIURL() != "" {
		t.Errorf("headless server has UI URL %q", s.UIURL())
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: s.FrontendAddr(), Namespace: "ats"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	list := func() map[string]enumspb.IndexedValueType {
		resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "ats"})
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetCustomAttributes()
	}
	have := list()
	for _, k := range workflows.SearchAttributes() {
		if have[k.GetName()] != k.GetValueType() {
			t.Errorf("%s not registered in the extra namespace", k.GetName())
		}
	}

	extra := temporal.NewSearchAttributeKeyInt64("AtsTestCounter")
	if err := ensureSearchAttributes(ctx, c, "ats", append(workflows.SearchAttributes(), extra)); err != nil {
		t.Fatal(err)
	}
	if list()["AtsTestCounter"] != enumspb.INDEXED_VALUE_TYPE_INT {
		t.Fatal("missing attribute not added")
	}
	if err := EnsureSearchAttributes(ctx, c, "ats"); err != nil {
		t.Fatalf("second ensure: %v", err)
	}
	wrongType := temporal.NewSearchAttributeKeyString("UserId") // Text, registered as Keyword
	if err := ensureSearchAttributes(ctx, c, "ats", []temporal.SearchAttributeKey{wrongType}); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("type clash: err = %v, want conflict", err)
	}

	pid := s.Pid()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if alive(pid) {
		t.Fatalf("pid %d alive after Stop", pid)
	}

	// State persists in DBFile across restarts (with the same flags).
	s2, err := Start(ctx, Options{Binary: bin, UIPort: -1, LogLevel: "error", Namespace: "ats", DBFile: dbFile})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s2.Stop() }()
	c2, err := client.DialContext(ctx, client.Options{HostPort: s2.FrontendAddr(), Namespace: "ats"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	resp, err := c2.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "ats"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetCustomAttributes()["AtsTestCounter"] != enumspb.INDEXED_VALUE_TYPE_INT {
		t.Fatal("search attribute added before the restart is gone: state not persisted")
	}
}

// TestChildDiesWithParent SIGKILLs a process that started a dev server and
// checks the kernel kills the server too (Pdeathsig).
func TestChildDiesWithParent(t *testing.T) {
	bin := temporalCLI(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStartAndHang$")
	cmd.Env = append(os.Environ(), "ATS_DEVSERVER_HELPER=1", "TEMPORAL_CLI="+bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	pidCh := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "SERVER_PID="); ok {
				pid, _ := strconv.Atoi(v)
				pidCh <- pid
				return
			}
		}
		close(pidCh)
	}()
	var pid int
	select {
	case pid = <-pidCh:
	case <-time.After(time.Minute):
		t.Fatal("helper did not start a server")
	}
	if pid == 0 || !alive(pid) {
		t.Fatalf("server pid %d not running", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server %d outlived its SIGKILLed parent", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHelperStartAndHang is the parent process of TestChildDiesWithParent;
// it does nothing in a normal test run.
func TestHelperStartAndHang(t *testing.T) {
	if os.Getenv("ATS_DEVSERVER_HELPER") != "1" {
		t.Skip("helper process only")
	}
	s, err := Start(context.Background(), Options{Binary: os.Getenv("TEMPORAL_CLI"), UIPort: -1, LogLevel: "error"})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("SERVER_PID=%d\n", s.Pid())
	time.Sleep(2 * time.Minute) // killed by the parent test long before
	_ = s.Stop()
}

// TestWebUIAnswersLoopbackHostsOnly performs the DNS-rebinding attack on
// the Web UI: a page whose name is rebound to the loopback address sends
// its own name as Host. The front refuses every name but the listener's
// address and the loopback names, and only it serves the codec endpoint
// (with its token) in the UI's settings; the UI's own port never names it.
// The frontend's HTTP API refuses a rebound name too.
func TestWebUIAnswersLoopbackHostsOnly(t *testing.T) {
	bin := temporalCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const codec = "http://127.0.0.1:9/codec/operator-token-in-the-url"
	s, err := Start(ctx, Options{Binary: bin, LogLevel: "error", UICodecEndpoint: codec})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Stop() }()
	addr := strings.TrimPrefix(s.UIURL(), "http://")
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	get := func(target, host, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target+path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{addr, "localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST:" + port} {
		if status, body := get(addr, host, "/"); status != http.StatusOK {
			t.Errorf("Host %s: %d %.200s", host, status, body)
		}
		status, body := get(addr, host, settingsPath)
		var settings struct{ Codec struct{ Endpoint string } }
		if err := json.Unmarshal([]byte(body), &settings); status != http.StatusOK || err != nil || settings.Codec.Endpoint != codec {
			t.Errorf("Host %s: settings %d %.300s", host, status, body)
		}
	}
	for _, host := range []string{"attacker.example:" + port, "localhost.attacker.example:" + port, "127.0.0.1.nip.io:" + port,
		"localhost", "localhost:1", "attacker.example"} {
		for _, path := range []string{"/", settingsPath} {
			status, body := get(addr, host, path)
			if status != http.StatusForbidden || strings.Contains(body, "operator-token") {
				t.Errorf("Host %s %s: %d %.200s", host, path, status, body)
			}
		}
	}
	// The UI's own port, on a random loopback address where the system
	// routes 127/8 (Linux), serves no token, whatever the Host.
	if runtime.GOOS == "linux" && strings.HasPrefix(s.uiInner, "127.0.0.1:") {
		t.Errorf("the UI's own address %s is the well-known one", s.uiInner)
	}
	if status, body := get(s.uiInner, "attacker.example:"+port, settingsPath); status != http.StatusOK || strings.Contains(body, "operator-token") {
		t.Errorf("the UI's own port: %d %.300s", status, body)
	}
	// The frontend's HTTP API.
	_, apiPort, _ := net.SplitHostPort(s.HTTPAPIAddr())
	if status, body := get(s.HTTPAPIAddr(), "127.0.0.1:"+apiPort, "/api/v1/namespaces"); status != http.StatusOK {
		t.Errorf("HTTP API as 127.0.0.1: %d %.200s", status, body)
	}
	if status, body := get(s.HTTPAPIAddr(), "attacker.example:"+apiPort, "/api/v1/namespaces"); status != http.StatusForbidden {
		t.Errorf("HTTP API as a rebound name: %d %.200s", status, body)
	}
}
