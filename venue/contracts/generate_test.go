package contracts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/abigen"
)

// bindingFiles maps each contract to the binding file generate.go writes.
var bindingFiles = map[string]string{
	"Collateral":           "collateral.go",
	"ConditionalTokens":    "conditional_tokens.go",
	"DepositWallet":        "deposit_wallet.go",
	"DepositWalletFactory": "deposit_wallet_factory.go",
	"Exchange":             "exchange.go",
	"NegRiskAdapter":       "neg_risk_adapter.go",
	"ProxyWallet":          "proxy_wallet.go",
	"ProxyWalletFactory":   "proxy_wallet_factory.go",
	"Safe":                 "safe.go",
	"SafeFactory":          "safe_factory.go",
	"SafeProxy":            "safe_proxy.go",
}

// TestBindingsMatchArtefacts regenerates every binding from build/ with the
// abigen library abigen's CLI uses (same arguments as generate.go) and
// requires the committed file to be identical.
func TestBindingsMatchArtefacts(t *testing.T) {
	if len(bindingFiles) != len(Names) {
		t.Fatalf("binding list and Names disagree")
	}
	for _, name := range Names {
		abiJSON, err := os.ReadFile(filepath.Join("build", name+".abi"))
		if err != nil {
			t.Fatal(err)
		}
		bin, err := os.ReadFile(filepath.Join("build", name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		code, err := abigen.Bind([]string{name}, []string{string(abiJSON)}, []string{string(bin)}, nil, "contracts", map[string]string{}, map[string]string{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		committed, err := os.ReadFile(bindingFiles[name])
		if err != nil {
			t.Fatal(err)
		}
		if code != string(committed) {
			t.Errorf("%s: committed binding differs from a fresh abigen run; run go generate ./venue/contracts", name)
		}
	}
}

// TestCompileReproducible recompiles the sources with the pinned solc-js in
// a scratch directory and requires byte-identical artefacts. It needs node
// and node_modules (npm ci); it is skipped without them and in -short mode
// (solc-js takes ~20 s).
func TestCompileReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("solc-js compile is slow")
	}
	// CI installs node and runs npm ci here (.ci/run), so there a missing
	// toolchain is a failure, not a reason to skip.
	skip := t.Skip
	if os.Getenv("CI") != "" {
		skip = t.Fatal
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		skip("node not installed")
	}
	abs, err := filepath.Abs("node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(abs, "solc")); err != nil {
		skip("node_modules/solc missing: run npm ci in venue/contracts")
	}
	dir := t.TempDir()
	if err := os.Symlink(abs, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	copyFile := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("compile.js", filepath.Join(dir, "compile.js"))
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	srcs, _ := filepath.Glob(filepath.Join("src", "*.sol"))
	for _, s := range srcs {
		copyFile(s, filepath.Join(dir, "src", filepath.Base(s)))
	}
	cmd := exec.Command(nodeBin, "compile.js")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	fresh, _ := filepath.Glob(filepath.Join(dir, "build", "*"))
	committed, _ := filepath.Glob(filepath.Join("build", "*"))
	if len(fresh) != len(committed) {
		t.Fatalf("fresh build has %d files, committed %d", len(fresh), len(committed))
	}
	for _, f := range fresh {
		want, err := os.ReadFile(filepath.Join("build", filepath.Base(f)))
		if err != nil {
			t.Errorf("%s not committed", filepath.Base(f))
			continue
		}
		got, _ := os.ReadFile(f)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from a fresh compile", filepath.Base(f))
		}
	}
	if v, _ := os.ReadFile(filepath.Join("build", "SOLC_VERSION")); !strings.HasPrefix(string(v), "0.8.28+") {
		t.Errorf("solc version %q", v)
	}
}
