package models_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// module is the import path all the project's packages share.
const module = "github.com/agent-trading/ats"

// scope says which imports of a package a layer rule looks at.
type scope uint8

const (
	// prod: what the package's own (non-test) files import, followed
	// transitively, so a forbidden package reached through any number of
	// allowed ones still counts.
	prod scope = 1 << iota
	// tests: what its _test.go files import directly, and what test-support
	// packages (a last path element ending in "test", e.g.
	// models/store/storetest) import.
	tests
	// direct: what the package's own (non-test) files import directly;
	// for a rule about the shape of one layer's calls, where a forbidden
	// package may still be reached through an allowed one.
	direct
)

// layerRule is one row of the layering rules (docs/architecture.md). Package
// patterns are relative to the module: "venue" is that package, "venue/..."
// it and every package below it, "..." every package, "*test" every
// test-support package.
type layerRule struct {
	pkgs   []string // the packages the rule is about
	except []string // packages among pkgs it leaves out
	scope  scope
	only   []string // when set, of the project's packages they import only these
	never  []string // they never import these
	why    string
}

// layerRules are the rules the import graph obeys. A new layer or a new
// exception is a new row here and a line in docs/architecture.md.
var layerRules = []layerRule{
	{
		pkgs: []string{"venue/..."}, scope: prod, only: []string{"venue/..."},
		why: "the venue client is a protocol library: it knows nothing of the service",
	},
	{
		pkgs: []string{"venue/..."}, scope: tests, only: []string{"venue/...", "sandbox/...", "models/store/..."},
		why: "venue tests run against the sandbox venue; the fill watcher's restart test persists to the service's watermark store",
	},
	{
		pkgs: []string{"sandbox/..."}, scope: prod | tests, only: []string{"sandbox/...", "venue/..."},
		why: "the sandbox is a venue: it speaks the venue's protocol and nothing of the service",
	},
	{
		pkgs: []string{"..."}, except: []string{"cmd/...", "sandbox/..."}, scope: prod, never: []string{"sandbox/..."},
		why: "only the binary starts the sandbox; the service reaches it through the venue's own APIs, like the real venue",
	},
	{
		pkgs: []string{"models/..."}, scope: prod | tests, never: []string{"api/...", "workflows/...", "activities/...", "worker/...", "cmd/..."},
		why: "the domain is called by the entry points and durable work, never the other way",
	},
	{
		pkgs: []string{"models/errs"}, scope: prod, only: []string{"venue"},
		why: "the error taxonomy is the leaf every layer classifies with; it knows only the venue's errors, to map them",
	},
	{
		pkgs: []string{"models/errs/temporalerr"}, scope: prod, only: []string{"models/errs", "venue"},
		why: "the Temporal error conversion is a leaf beside the taxonomy: the workflows' clients, the workflows and the activities classify through it, and it knows nothing else of ours",
	},
	{
		pkgs: []string{"api/..."}, scope: prod, never: []string{"worker/...", "sandbox/..."},
		why: "HTTP handlers call services; the worker process and the sandbox are wired by cmd",
	},
	{
		pkgs: []string{"workflows/...", "activities/..."}, scope: prod, never: []string{"api/...", "worker/...", "cmd/..."},
		why: "durable work does not depend on the HTTP layer or on the process that hosts it",
	},
	{
		pkgs: []string{"activities/..."}, scope: prod, never: []string{"workflows/..."},
		why: "activities are the steps the workflows order: they never know the workflows, nor start one",
	},
	{
		pkgs: []string{"api/..."}, scope: direct, never: []string{"activities/..."},
		why: "handlers reach durable work through the workflows' clients and Temporal, never by running a step themselves",
	},
	{
		pkgs: []string{"worker/..."}, scope: prod, never: []string{"api/...", "sandbox/..."},
		why: "the worker hosts workflows and activities; the HTTP layer is a separate entry point",
	},
	{
		pkgs: []string{"..."}, except: []string{"cmd/..."}, scope: prod | tests, never: []string{"cmd/..."},
		why: "the binary is the top: its code (cmd/ats/internal/app, the composition root) is imported only by its main and its end-to-end tests (cmd/ats/e2e)",
	},
	{
		pkgs: []string{"..."}, except: []string{"*test"}, scope: prod, never: []string{"*test"},
		why: "test-support packages never end up in the binary",
	},
}

// listedPackage is the part of `go list -json` the rules need.
type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// TestLayering checks every rule of layerRules against the module's import
// graph and names the import chain of each violation.
func TestLayering(t *testing.T) {
	pkgs := listModule(t)
	if len(pkgs) < 20 || pkgs["models"] == nil || pkgs["venue/clob"] == nil {
		t.Fatalf("go list found %d packages; is the test running inside the module?", len(pkgs))
	}
	var violations []string
	for _, r := range layerRules {
		violations = append(violations, r.check(pkgs)...)
	}
	if len(violations) > 0 {
		t.Fatalf("%d forbidden import(s):\n%s", len(violations), strings.Join(violations, "\n"))
	}
}

// TestLayeringCatchesViolations runs the rules on a made-up graph, so a
// rule that can never fail is noticed.
func TestLayeringCatchesViolations(t *testing.T) {
	graph := map[string]*listedPackage{
		"venue/clob":              {ImportPath: "venue/clob", Imports: []string{"venue/clob/rest"}},
		"venue/clob/rest":         {ImportPath: "venue/clob/rest", Imports: []string{"models/errs"}},
		"models/errs":             {ImportPath: "models/errs", Imports: []string{"venue"}},
		"venue":                   {ImportPath: "venue"},
		"models/orders":           {ImportPath: "models/orders", Imports: []string{"venue/clob"}, TestImports: []string{"workflows"}},
		"workflows":               {ImportPath: "workflows", Imports: []string{"activities"}},
		"activities":              {ImportPath: "activities", Imports: []string{"workflows"}},
		"api/orders":              {ImportPath: "api/orders", Imports: []string{"activities", "workflows"}},
		"api/markets":             {ImportPath: "api/markets", Imports: []string{"models/markets"}, XTestImports: []string{"sandbox"}},
		"models/markets":          {ImportPath: "models/markets", Imports: []string{"sandbox/markets"}},
		"sandbox/markets":         {ImportPath: "sandbox/markets"},
		"sandbox":                 {ImportPath: "sandbox"},
		"models/store/storetest":  {ImportPath: "models/store/storetest", Imports: []string{"sandbox"}},
		"cmd/ats/internal/app":    {ImportPath: "cmd/ats/internal/app", Imports: []string{"sandbox", "models/store/storetest"}},
		"models/errs/temporalerr": {ImportPath: "models/errs/temporalerr", Imports: []string{"models/errs", "models/store"}},
		"models/store":            {ImportPath: "models/store"},
		"worker":                  {ImportPath: "worker", Imports: []string{"cmd/ats/internal/app"}},
		"cmd/ats/e2e":             {ImportPath: "cmd/ats/e2e", TestImports: []string{"cmd/ats/internal/app", "sandbox"}},
	}
	var got []string
	for _, r := range layerRules {
		got = append(got, r.check(graph)...)
	}
	want := []string{
		"venue/clob → venue/clob/rest → models/errs",     // venue imports the domain, through a sub-package
		"venue/clob/rest → models/errs",                  // and directly
		"models/orders (tests) → workflows",              // the domain's tests reach a layer above
		"models/markets → sandbox/markets",               // production code starts the sandbox
		"api/markets → models/markets → sandbox/markets", // also for whatever imports it
		"cmd/ats/internal/app → models/store/storetest",  // a test helper in the binary
		"activities → workflows",                         // a step that knows the workflows
		"api/orders → activities",                        // a handler that runs a step itself
		"models/errs/temporalerr → models/store",         // the error conversion is no leaf any more
		"worker → cmd/ats/internal/app",                  // a layer below imports the binary's code
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(v string) bool { return strings.HasPrefix(v, w+"  ✗") }) {
			t.Errorf("no violation names %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	for _, v := range got {
		if strings.Contains(v, "storetest → sandbox") || strings.HasPrefix(v, "api/markets (tests)") || strings.HasPrefix(v, "cmd/ats/e2e") ||
			strings.HasPrefix(v, "api/orders → workflows → activities") {
			t.Errorf("a test import that is allowed was reported: %s", v)
		}
	}
}

func listModule(t *testing.T) map[string]*listedPackage {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-json", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		p.ImportPath = rel(p.ImportPath)
		for _, l := range []*[]string{&p.Imports, &p.TestImports, &p.XTestImports} {
			*l = ours(*l)
		}
		pkgs[p.ImportPath] = &p
	}
	return pkgs
}

// rel makes a project import path relative to the module ("" for others).
func rel(path string) string {
	if path == module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return ""
}

// ours keeps the project's packages of an import list, relative.
func ours(imports []string) []string {
	var out []string
	for _, i := range imports {
		if r := rel(i); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// match reports whether pkg is one of patterns.
func match(pkg string, patterns []string) bool {
	for _, p := range patterns {
		switch {
		case p == "...":
			return true
		case p == "*test":
			if strings.HasSuffix(pkg[strings.LastIndex(pkg, "/")+1:], "test") {
				return true
			}
		case strings.HasSuffix(p, "/..."):
			base := strings.TrimSuffix(p, "/...")
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		case pkg == p:
			return true
		}
	}
	return false
}

// forbids reports whether the rule forbids importing dep.
func (r layerRule) forbids(dep string) bool {
	if r.only != nil && !match(dep, r.only) {
		return true
	}
	return match(dep, r.never)
}

func (r layerRule) describe() string {
	var what string
	if r.only != nil {
		what = "import only " + strings.Join(r.only, ", ")
	}
	if r.never != nil {
		if what != "" {
			what += " and "
		}
		what += "never import " + strings.Join(r.never, ", ")
	}
	s := strings.Join(r.pkgs, ", ")
	if r.except != nil {
		s += " (except " + strings.Join(r.except, ", ") + ")"
	}
	return s + " " + what + ": " + r.why
}

// check returns one line per forbidden import: the chain from the package
// the rule is about to the forbidden one, and the rule.
func (r layerRule) check(pkgs map[string]*listedPackage) []string {
	var out []string
	names := make([]string, 0, len(pkgs))
	for n := range pkgs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if !match(name, r.pkgs) || match(name, r.except) {
			continue
		}
		p := pkgs[name]
		testSupport := match(name, []string{"*test"})
		if r.scope&prod != 0 && !testSupport {
			for _, chain := range forbiddenChains(pkgs, name, r) {
				out = append(out, strings.Join(chain, " → ")+"  ✗ "+r.describe())
			}
		}
		if r.scope&direct != 0 && !testSupport {
			for _, dep := range p.Imports {
				if r.forbids(dep) {
					out = append(out, name+" → "+dep+"  ✗ "+r.describe())
				}
			}
		}
		if r.scope&tests != 0 {
			direct := slices.Concat(p.TestImports, p.XTestImports)
			if testSupport {
				direct = p.Imports
			}
			slices.Sort(direct)
			for _, dep := range slices.Compact(direct) {
				if dep != name && r.forbids(dep) {
					out = append(out, name+" (tests) → "+dep+"  ✗ "+r.describe())
				}
			}
		}
	}
	return out
}

// forbiddenChains walks the production imports of from breadth first and
// returns the shortest chain to each package the rule forbids. The walk
// does not continue through a forbidden package: its own imports are its
// own rules' business.
func forbiddenChains(pkgs map[string]*listedPackage, from string, r layerRule) [][]string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	var out [][]string
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		p := pkgs[cur]
		if p == nil {
			continue
		}
		for _, dep := range p.Imports {
			if _, seen := prev[dep]; seen {
				continue
			}
			prev[dep] = cur
			if r.forbids(dep) {
				var chain []string
				for n := dep; n != ""; n = prev[n] {
					chain = append(chain, n)
				}
				slices.Reverse(chain)
				out = append(out, chain)
				continue
			}
			queue = append(queue, dep)
		}
	}
	return out
}
