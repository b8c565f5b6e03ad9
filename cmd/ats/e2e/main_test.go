// Package e2e holds the end-to-end tests of the `ats` binary: they build
// and run the real executable (buildATS), or wire the whole stack in one
// test process as `ats dev` does, through what cmd/ats/internal/app
// exports (newTradingEnv), against the sandbox venue, a Temporal dev server
// and SQLite or PostgreSQL. The SIGKILL tests share kill_harness_test.go.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/devserver/devservertest"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" database/sql driver, to read the data dir
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// testDir is this package's directory: `go test` starts the test binary
// there, and it is read before any test could change the working directory.
var testDir, _ = os.Getwd()

// buildATS compiles the binary once per test process; the tests run the real
// executable because signals, exit codes and child processes are the point.
// It builds the module's cmd/ats (found through `go env GOMOD` from this
// package's directory), whatever the working directory is by then.
func buildATS(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		gomod, err := exec.Command("go", "-C", testDir, "env", "GOMOD").Output()
		if err != nil || strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == os.DevNull {
			buildErr = fmt.Errorf("finding the module of %s: %v (%q)", testDir, err, gomod)
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(gomod)))
		dir, err := os.MkdirTemp("", "ats-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "ats")
		out, err := exec.Command("go", "-C", root, "build", "-o", builtBin, "./cmd/ats").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

func temporalCLI(t testing.TB) string { return devservertest.Binary(t) }

func TestAdminUserCreateTwiceIsAConflict(t *testing.T) {
	bin := buildATS(t)
	dir := t.TempDir()
	run := func() (string, int) {
		cmd := exec.Command(bin, "admin", "user", "create", "--email", "a@b.c", "--password-stdin", "--data-dir", dir)
		cmd.Stdin = strings.NewReader("correct horse battery staple\n")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	}
	out, code := run()
	if code != 0 || !strings.Contains(out, "created user usr_") {
		t.Fatalf("first create: exit %d, output %q", code, out)
	}
	out, code = run()
	if code == 0 {
		t.Fatalf("second create succeeded: %q", out)
	}
	if !strings.Contains(out, "already exists") {
		t.Fatalf("second create should name the conflict, got %q", out)
	}
	if strings.Contains(out, "correct horse") {
		t.Fatal("password echoed")
	}
}

func TestAdminUserCreateRequiresStdinPassword(t *testing.T) {
	bin := buildATS(t)
	cmd := exec.Command(bin, "admin", "user", "create", "--email", "a@b.c", "--data-dir", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("expected failure, got %q", out)
	}
	if !strings.Contains(string(out), "--password-stdin") {
		t.Fatalf("message should explain --password-stdin: %q", out)
	}
}

func TestAPIRefusesToStartWithoutMasterKey(t *testing.T) {
	bin := buildATS(t)
	for _, sub := range []string{"api", "worker"} {
		cmd := exec.Command(bin, sub, "--data-dir", t.TempDir())
		cmd.Env = append(os.Environ(), "ATS_MASTER_KEY=", "ATS_MASTER_KEY_FILE=")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("%s started without a master key: %q", sub, out)
		}
		if !strings.Contains(string(out), "no master key") {
			t.Fatalf("%s: want a clear message, got %q", sub, out)
		}
	}
}

// TestDevStartsEverythingAndStopsCleanly is the README's first command in
// miniature: every port on :0, /readyz 200, the Web UI answers, bad input
// gets 4xx envelopes, and SIGINT leaves no process behind. The binary runs
// as the README installs it, .bin/ats beside .bin/temporal, started from
// another directory without naming the Temporal CLI: it finds the CLI
// beside itself. It names the dashboard's address for browsers.
func TestDevStartsEverythingAndStopsCleanly(t *testing.T) {
	temporal := temporalCLI(t)
	bin := installBeside(t, buildATS(t), temporal)
	// A data dir that does not exist yet, like ./.ats on a fresh clone.
	dir := filepath.Join(t.TempDir(), "fresh", ".ats")
	// Port-only addresses: `ats dev` binds them on loopback.
	cmd := exec.Command(bin, "dev", "--demo", "--data-dir", dir,
		"--http", ":0", "--ops-listen", ":0", "--temporal-listen", ":0", "--temporal-ui-listen", ":0",
		"--sandbox-addr", ":0", "--log-format", "text")
	cmd.Dir = t.TempDir()
	cmd.Env = withoutEnv(os.Environ(), "ATS_TEMPORAL_CLI", "TEMPORAL_CLI")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer // written by exec's copier while the test reads it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()

	var stdoutLog syncBuffer // scanned for secrets with stderr
	urls := readListening(t, io.TeeReader(stdout, &stdoutLog), []string{"sandbox", "temporal", "temporal-ui", "api", "ops", "dashboard"}, 90*time.Second)
	api := urls["api"]
	if want := "http://localhost:" + api[strings.LastIndex(api, ":")+1:]; urls["dashboard"] != want {
		t.Errorf("listening dashboard %s, want %s (the API listener, named for browsers)", urls["dashboard"], want)
	}
	dashboard := urls["dashboard"]
	delete(urls, "dashboard")
	waitStatus(t, dashboard+"/signin", http.StatusOK, 60*time.Second)
	for name, u := range urls {
		if !strings.HasPrefix(strings.TrimPrefix(u, "http://"), "127.0.0.1:") {
			t.Errorf("listener %s at %s: a port-only address must bind loopback in dev", name, u)
		}
	}

	waitStatus(t, api+"/readyz", http.StatusOK, 60*time.Second)
	waitStatus(t, urls["temporal-ui"]+"/", http.StatusOK, 10*time.Second)
	waitStatus(t, urls["sandbox"]+"/clob/ok", http.StatusOK, 10*time.Second)

	resp, err := http.Get(api + "/no/such/route")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"success":false`) {
		t.Fatalf("unknown route: %d %s", resp.StatusCode, body)
	}
	// The OpenAPI document, public, validated against itself.
	getJSON(t, api+"/api/agent/v1/openapi.json", "", http.StatusOK, nil)

	checkOperatorListener(t, dir, urls)
	adminOut := linkAgentThroughTheCLI(t, bin, dir, urls)
	tradeOut, orderID := tradeWithBothWallets(t, bin, dir, urls)
	adminOut += tradeOut
	needles := scanForWalletSecrets(t, urls["temporal"], dir, []byte(stderr.String()+stdoutLog.String()+adminOut), orderID)

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ats dev exited with %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("ats dev did not stop within 60s of SIGINT")
	}
	// The whole log, shutdown included.
	logs := map[string][]byte{"logs": []byte(stderr.String() + stdoutLog.String() + adminOut)}
	for _, hit := range findSecrets(logs, needles) {
		t.Error(hit)
	}
	// Nothing may keep listening: the embedded Temporal is a child process.
	for name, u := range urls {
		if name == "temporal" {
			u = "http://" + u
		}
		c := http.Client{Timeout: time.Second}
		if resp, err := c.Get(u); err == nil {
			resp.Body.Close()
			t.Errorf("%s still answers at %s after shutdown", name, u)
		}
	}
}

// checkOperatorListener: metrics are on the operator listener, not the
// API; the embedded Web UI is configured with a codec endpoint that
// decodes for the UI's origin as a browser calls it; nobody else gets
// anything from /codec.
func checkOperatorListener(t *testing.T, dataDir string, urls map[string]string) {
	t.Helper()
	opsURL := urls["ops"]
	if resp, err := http.Get(urls["api"] + "/metrics"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET {api}/metrics: %v %v, want 404", resp, err)
	}
	resp, err := http.Get(opsURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte("ats_http_requests_total")) {
		t.Fatalf("GET {ops}/metrics: %d %.300s", resp.StatusCode, b)
	}

	// The Web UI's own settings name the codec endpoint its browser calls.
	var settings struct{ Codec struct{ Endpoint string } }
	getJSON(t, urls["temporal-ui"]+"/api/v1/settings", "", http.StatusOK, &settings)
	endpoint := settings.Codec.Endpoint
	if !strings.HasPrefix(endpoint, opsURL+"/codec/") {
		t.Fatalf("the Web UI's codec endpoint %q is not the operator listener's", endpoint)
	}
	// A page rebinding its name to the UI's address gets nothing, its
	// settings (the token) least of all.
	ui := strings.TrimPrefix(urls["temporal-ui"], "http://")
	rebound, _ := http.NewRequest(http.MethodGet, urls["temporal-ui"]+"/api/v1/settings", nil)
	rebound.Host = "evil.example:" + ui[strings.LastIndexByte(ui, ':')+1:]
	if resp, err := http.DefaultClient.Do(rebound); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || bytes.Contains(b, []byte("/codec/")) {
			t.Fatalf("the Web UI as a rebound host name: %d %.200s", resp.StatusCode, b)
		}
	}
	cd := dataDirCodec(t, dataDir)
	// A payload as the worker writes it into a workflow's history.
	p, err := converter.WithDataConverterSerializationContext(cd.DataConverter(),
		converter.WorkflowSerializationContext{Namespace: "default", WorkflowID: "order/ord_ui"}).ToPayloads("shown to the operator")
	if err != nil {
		t.Fatal(err)
	}
	body, err := protojson.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	origin := strings.TrimSuffix(urls["temporal-ui"], "/")
	post := func(url, origin, host string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Namespace", "default")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	// The browser's preflight and request, exactly as the UI makes them.
	pre, _ := http.NewRequest(http.MethodOptions, endpoint+"/decode", nil)
	pre.Header.Set("Origin", origin)
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "content-type,x-namespace")
	resp, err = http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Fatalf("preflight from the Web UI: %d %v", resp.StatusCode, resp.Header)
	}
	status, hdr, got := post(endpoint+"/decode", origin, "")
	if status != http.StatusOK || hdr.Get("Access-Control-Allow-Origin") != origin {
		t.Fatalf("decode from the Web UI: %d %v %s", status, hdr, got)
	}
	var dec commonpb.Payloads
	var shown string
	if err := protojson.Unmarshal([]byte(got), &dec); err != nil || converter.GetDefaultDataConverter().FromPayloads(&dec, &shown) != nil || shown != "shown to the operator" {
		t.Fatalf("the Web UI would show %q (%v) from %s", shown, err, got)
	}
	// Nobody else.
	host := strings.TrimPrefix(opsURL, "http://")
	for name, c := range map[string]struct{ url, origin, host string }{
		"no token":                    {opsURL + "/codec/decode", "", ""},
		"another origin":              {endpoint + "/decode", "http://evil.example", ""},
		"a rebound host name":         {endpoint + "/decode", "", "evil.example:" + host[strings.LastIndexByte(host, ':')+1:]},
		"the API port instead of ops": {urls["api"] + "/codec/decode", "", ""},
		"the token on the API's port": {urls["api"] + strings.TrimPrefix(endpoint, opsURL) + "/decode", origin, ""},
	} {
		status, _, got := post(c.url, c.origin, c.host)
		if status == http.StatusOK || strings.Contains(got, "shown to the operator") {
			t.Errorf("%s: %d %s", name, status, got)
		}
	}
}

// dataDirCodec is the payload codec of the `ats dev` whose data dir is
// dataDir.
func dataDirCodec(t *testing.T, dataDir string) *codec.Codec {
	t.Helper()
	master, err := vault.LoadMasterKey(filepath.Join(dataDir, app.MasterKeyFileName), "")
	if err != nil {
		t.Fatal(err)
	}
	cd, err := codec.FromMasterKeys(master)
	if err != nil {
		t.Fatal(err)
	}
	return cd
}

// installBeside installs the built binary as the README does, as
// .bin/ats next to .bin/temporal in a directory of its own, and returns
// its path.
func installBeside(t *testing.T, bin, temporal string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(temporal)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "temporal")); err != nil {
		t.Fatal(err)
	}
	// A copy, as the README's `go build -o .bin/ats` makes (a link would
	// resolve to the build directory, which has no .bin/).
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "ats")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// withoutEnv drops the named variables from env.
func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

func readListening(t *testing.T, r io.Reader, names []string, timeout time.Duration) map[string]string {
	t.Helper()
	got := map[string]string{}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(timeout)
	for len(got) < len(names) {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("ats exited before announcing its listeners; got %v", got)
			}
			if f := strings.Fields(l); len(f) == 3 && f[0] == "listening" {
				got[f[1]] = f[2]
			}
		case <-deadline:
			t.Fatalf("timed out waiting for listening lines; got %v", got)
		}
	}
	go func() {
		for range lines {
		}
	}()
	return got
}

func waitStatus(t *testing.T, url string, want int, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == want {
				return
			}
			last = resp.Status + " " + string(b)
		} else {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s never answered %d; last: %s", url, want, last)
}

// linkAgentThroughTheCLI runs the device flow against the running `ats dev`
// with the admin commands from "another terminal": code → approve → key
// once → key works → pause 401 → resume → revoke 401 for good.
func linkAgentThroughTheCLI(t *testing.T, bin, dataDir string, urls map[string]string) string {
	t.Helper()
	api := urls["api"]
	var outputs strings.Builder
	admin := func(args ...string) string {
		t.Helper()
		args = append(args, "--data-dir", dataDir, "--log-level", "error")
		if args[1] == "device" || args[1] == "agent" && args[2] != "list" {
			args = append(args, "--temporal", urls["temporal"])
		}
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("ats %v: %v\n%s", args, err, out)
		}
		outputs.Write(out)
		return string(out)
	}
	var dev struct {
		Data struct {
			DeviceCode string `json:"device_code"`
			UserCode   string `json:"user_code"`
		} `json:"data"`
	}
	postJSON(t, api+"/api/auth/device", `{"agent_name":"cli-e2e"}`, http.StatusOK, &dev)
	if dev.Data.UserCode == "" || dev.Data.DeviceCode == "" {
		t.Fatalf("device response without codes: %+v", dev)
	}
	admin("admin", "device", "approve", "--email", app.DemoEmail, "--code", dev.Data.UserCode, "--mode", "live")

	var tok struct {
		Data struct {
			APIKey string `json:"api_key"`
		} `json:"data"`
	}
	getJSON(t, api+"/api/auth/device/token?device_code="+dev.Data.DeviceCode, "", http.StatusOK, &tok)
	if len(tok.Data.APIKey) != 67 || !strings.HasPrefix(tok.Data.APIKey, "ll_") {
		t.Fatalf("want an ll_ + 64 key, got %d chars", len(tok.Data.APIKey))
	}
	getJSON(t, api+"/api/auth/device/token?device_code="+dev.Data.DeviceCode, "", http.StatusBadRequest, nil)

	me := api + "/api/agent/v1/me"
	getJSON(t, me, tok.Data.APIKey, http.StatusOK, nil)

	// The demo user's funded Safe/proxy wallet is what the agent trades with.
	var bal struct {
		Data struct {
			USDC       float64 `json:"usdc"`
			Address    string  `json:"address"`
			WalletType string  `json:"walletType"`
		} `json:"data"`
	}
	getJSON(t, api+"/api/agent/v1/balance", tok.Data.APIKey, http.StatusOK, &bal)
	if bal.Data.USDC != 1000 || bal.Data.WalletType != "proxy" || !strings.HasPrefix(bal.Data.Address, "0x") {
		t.Fatalf("demo balance: %+v", bal.Data)
	}
	var search struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	getJSON(t, api+"/api/agent/v1/markets/search?limit=5", tok.Data.APIKey, http.StatusOK, &search)
	if len(search.Data) == 0 {
		t.Fatal("market search found nothing in the sandbox")
	}
	getJSON(t, api+"/api/agent/v1/budget", tok.Data.APIKey, http.StatusOK, nil)
	if out := admin("admin", "agent", "list", "--email", app.DemoEmail); !strings.Contains(out, "cli-e2e") {
		t.Fatalf("agent list misses the agent:\n%s", out)
	}
	admin("admin", "agent", "pause", "--email", app.DemoEmail, "--agent", "cli-e2e")
	getJSON(t, me, tok.Data.APIKey, http.StatusUnauthorized, nil)
	admin("admin", "agent", "resume", "--email", app.DemoEmail, "--agent", "cli-e2e")
	getJSON(t, me, tok.Data.APIKey, http.StatusOK, nil)
	admin("admin", "agent", "revoke", "--email", app.DemoEmail, "--agent", "cli-e2e")
	getJSON(t, me, tok.Data.APIKey, http.StatusUnauthorized, nil)
	out, err := exec.Command(bin, "admin", "agent", "resume", "--email", app.DemoEmail, "--agent", "cli-e2e", "--data-dir", dataDir,
		"--temporal", urls["temporal"]).CombinedOutput()
	if err == nil {
		t.Fatalf("resume after revoke succeeded: %s", out)
	}
	getJSON(t, me, tok.Data.APIKey, http.StatusUnauthorized, nil)

	// A second user imports a plain EOA wallet from the command line. The
	// account has no two-step verification: the import is refused, saying
	// why, unless the operator relaxes it.
	cmd := exec.Command(bin, "admin", "user", "create", "--email", "eoa@example.com", "--password-stdin", "--data-dir", dataDir)
	cmd.Stdin = strings.NewReader("another good password\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("user create: %v %s", err, out)
	}
	sandboxHost := strings.TrimPrefix(urls["sandbox"], "http://")
	const testKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	importWallet := func(extra ...string) ([]byte, error) {
		imp := exec.Command(bin, append([]string{"admin", "wallet", "import", "--email", "eoa@example.com", "--private-key-stdin",
			"--data-dir", dataDir, "--sandbox-addr", sandboxHost, "--log-level", "error"}, extra...)...)
		imp.Stdin = strings.NewReader(testKey + "\n")
		return imp.CombinedOutput()
	}
	if out, err := importWallet(); err == nil || !strings.Contains(string(out), "two-step verification") {
		t.Fatalf("a wallet import without two-step verification: %v %s", err, out)
	}
	out, err = importWallet("--wallet-import-without-2fa")
	if err != nil || !strings.Contains(string(out), "imported eoa wallet") {
		t.Fatalf("wallet import: %v %s", err, out)
	}
	outputs.Write(out)
	return outputs.String()
}

// testKey is the private key the end-to-end test imports; the secret scan
// looks for it everywhere it must not be.
const testKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

// scanForWalletSecrets searches every API response the test saw, the logs
// of ats dev and of the admin commands, and the history of every workflow —
// as stored and decoded with the payload codec keyed from the data dir's
// master key — for the wallets' private keys (the imported one and the
// demo wallet's, both of which signed), their venue API secrets and every
// stored ciphertext, and finds none. The database holds the keys only
// sealed. It returns the needles for a last look at the logs after
// shutdown.
func scanForWalletSecrets(t *testing.T, frontend, dataDir string, logs []byte, orderID string) []needle {
	t.Helper()
	s := readStoredSecrets(t, dataDir)
	if len(s.keys) < 2 {
		t.Fatalf("want the demo and the imported wallet in the database, found %d", len(s.keys))
	}
	if !slices.ContainsFunc(s.keys, func(k []byte) bool { return hex.EncodeToString(k) == testKey }) {
		t.Fatal("the imported key is not among the sealed keys: the scan would look for the wrong secrets")
	}
	if len(s.creds) < 4 {
		t.Fatalf("both wallets traded, so both hold venue credentials; found %d secrets", len(s.creds))
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "ats.db"))
	if err != nil {
		t.Fatal(err)
	}
	if wal, err := os.ReadFile(filepath.Join(dataDir, "ats.db-wal")); err == nil {
		raw = append(raw, wal...)
	}
	for i, k := range s.keys {
		if bytes.Contains(bytes.ToLower(raw), []byte(hex.EncodeToString(k))) || bytes.Contains(raw, k) {
			t.Fatalf("private key %d is in the database unsealed", i)
		}
	}

	hs := readHistories(t, frontend, dataDirCodec(t, dataDir))
	for _, kind := range []string{"order/", "approve/", "redeem/", "device-link/"} {
		if !slices.ContainsFunc(hs.workflows, func(id string) bool { return strings.HasPrefix(id, kind) }) {
			t.Fatalf("no %s workflow ran: the histories would not show what signing leaves behind (%v)", kind, hs.workflows)
		}
	}
	// The decoding is real: payloads are stored encrypted, and the order
	// workflow's input is readable only once decoded.
	if hs.encrypted == 0 || !bytes.Contains(hs.decodedPayloads, []byte(orderID)) || bytes.Contains(hs.rawPayloads, []byte(orderID)) {
		t.Fatalf("decoded histories do not show the order %s (%d encrypted payloads)", orderID, hs.encrypted)
	}

	places := map[string][]byte{"API responses": responses.Bytes(), "logs": logs,
		"workflow histories (as stored)": hs.raw, "workflow histories (decoded)": hs.decoded}
	for where, data := range places {
		if len(data) == 0 {
			t.Fatalf("nothing captured from %s: the scan would prove nothing", where)
		}
	}
	needles := secretNeedles(s.keys, s.ciphertexts, s.creds)
	for _, hit := range findSecrets(places, needles) {
		t.Error(hit)
	}
	return needles
}

func postJSON(t *testing.T, url, body string, want int, into any) {
	t.Helper()
	resp, err := openapitest.Client(t, nil).Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	decodeWant(t, resp, want, into)
}

func getJSON(t *testing.T, url, key string, want int, into any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := openapitest.Client(t, nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	decodeWant(t, resp, want, into)
}

// responses collects every API response body the end-to-end test saw, for
// the secret scan.
var responses bytes.Buffer

func decodeWant(t *testing.T, resp *http.Response, want int, into any) {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	responses.Write(b)
	responses.WriteByte('\n')
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, b)
	}
	if into != nil {
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A development stack never trades real funds by accident: the live venue
// needs --live, and the refusal comes before anything starts.
func TestDevRefusesTheLiveVenueWithoutLive(t *testing.T) {
	bin := buildATS(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "dev", "--venue", "polymarket", "--data-dir", dir,
		"--http", ":0", "--ops-listen", ":0", "--temporal-cli", "/nonexistent/temporal")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2: %s", err, out)
	}
	if !strings.Contains(string(out), "--live") || strings.Contains(string(out), "listening ") {
		t.Fatalf("want a refusal naming --live before any listener: %s", out)
	}
}
