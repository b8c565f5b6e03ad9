package workflows_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path all the project's packages share.
const module = "github.com/agent-trading/ats"

// allowedPorts are the models fields that may still hold a port into
// workflows, each with the reason (docs/architecture.md, "Ports that
// remain"). A field found that is not here fails the test, and so does an
// entry here that no field matches any more (the list stays true).
var allowedPorts = map[string]string{
	"models/strategies.Engine.Orders": "a strategy run that executed before the child-orders version places its order through the order desk from " +
		"the ExecuteStrategy activity until it continues as new; runs from that version place child Order workflows",
	"models/orders.Router.Signaler": "an event source in the worker process: it signals an order's workflow a hint " +
		"(venue-event) and waits for nothing; no workflow or activity calls it",
	"models/orders.PaperWatcher.Signaler": "an event source in the worker process: the venue's trades that fill a paper " +
		"order signal its workflow a hint and wait for nothing; no workflow or activity calls it",
	"models/strategies.Triggers.Signal": "an event source in the worker process: it signals a strategy's workflow a " +
		"price hint and waits for nothing; an execution re-checks the price itself",
	"models/strategies.CopyHub.Signal": "an event source in the worker process: it signals a COPY_TRADE's workflow " +
		"that its target traded and waits for nothing; the execution claims the recorded event itself",
	"models/wallets.Service.Imported": "after an import's commit, cmd stops the user's copies of the imported wallet " +
		"(strategies.StopOwnCopies) and hints their workflows; a signal that waits for nothing, from an import the " +
		"dashboard or `ats admin wallet import` makes, never an activity",
}

// TestDomainHoldsNoWorkflowPort keeps the walks one-way
// (docs/architecture.md): no struct in any models package holds a field a
// workflows type could fill to call back into a workflow — an interface
// some workflows type implements, or a func type some workflows method or
// function fits. The import rules cannot see such a callback (an
// interface or a func value hides the import), so this test reads the
// types of every models package (test-support packages aside: they never
// reach the binary) from the compiler's export data.
func TestDomainHoldsNoWorkflowPort(t *testing.T) {
	u := loadTypes(t, module+"/models/...", module+"/workflows")
	wf := u.imp(t, module+"/workflows")
	var domain []*types.Package
	for _, path := range u.listed {
		rel := strings.TrimPrefix(path, module+"/")
		if (rel == "models" || strings.HasPrefix(rel, "models/")) && !strings.HasSuffix(rel, "test") {
			domain = append(domain, u.imp(t, path))
		}
	}
	if len(domain) < 20 {
		t.Fatalf("found %d models packages; is the test running inside the module?", len(domain))
	}
	found := map[string]bool{}
	for _, p := range workflowPorts(domain, wf) {
		key := strings.TrimPrefix(p.field, module+"/")
		found[key] = true
		if _, ok := allowedPorts[key]; !ok {
			t.Errorf("%s holds a workflow port: %s", key, p.why)
		}
	}
	for key := range allowedPorts {
		if !found[key] {
			t.Errorf("allowedPorts lists %s, which holds no workflow port any more: drop it (and its line in docs/architecture.md)", key)
		}
	}
}

// TestWalksCheckCatchesPlantedPorts runs the check on a package planted
// for it: the order placement port, the strategy hint as a func field, a
// change port nested in an unnamed struct and an embedded one are caught;
// a clock and an interface no workflows type implements are not.
func TestWalksCheckCatchesPlantedPorts(t *testing.T) {
	u := loadTypes(t, module+"/models/...", module+"/workflows")
	wf := u.imp(t, module+"/workflows")
	const src = `package planted

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/strategies"
)

type Service struct {
	Placer orders.Placer
	Hint   func(context.Context, string) error
	Nested struct {
		Runs interface {
			Change(context.Context, strategies.Change) (strategies.State, error)
		}
	}
	Clock  func() time.Time
	Quotes interface{ NotAWorkflowMethod(int) float32 }
}

type Embeds struct {
	orders.Signaler
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: u.importer}
	planted, err := conf.Check("example.com/planted", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range workflowPorts([]*types.Package{planted}, wf) {
		got = append(got, p.field)
	}
	sort.Strings(got)
	want := []string{"example.com/planted.Embeds.Signaler", "example.com/planted.Service.Hint",
		"example.com/planted.Service.Nested.Runs", "example.com/planted.Service.Placer"}
	if !slices.Equal(got, want) {
		t.Fatalf("the check found %q in the planted package, want %q", got, want)
	}
}

// port is a field that a workflows type can fill.
type port struct {
	field string // package path.Type.Field
	why   string
}

// workflowPorts returns the fields of every struct type declared in pkgs
// (fields of unnamed struct types within them included) whose type is an
// interface with methods that a concrete workflows type (or its pointer)
// implements, or a func type to which a method value of a workflows type,
// or a workflows function, can be assigned.
func workflowPorts(pkgs []*types.Package, wf *types.Package) []port {
	type fn struct {
		name string
		sig  *types.Signature
	}
	var concrete []*types.Named
	var fns []fn
	for _, name := range wf.Scope().Names() {
		switch o := wf.Scope().Lookup(name).(type) {
		case *types.TypeName:
			n, ok := o.Type().(*types.Named)
			if !ok || n.TypeParams().Len() > 0 || types.IsInterface(n) {
				continue
			}
			concrete = append(concrete, n)
			ms := types.NewMethodSet(types.NewPointer(n))
			for i := range ms.Len() {
				m := ms.At(i).Obj().(*types.Func)
				s := m.Type().(*types.Signature)
				fns = append(fns, fn{n.Obj().Name() + "." + m.Name(), types.NewSignatureType(nil, nil, nil, s.Params(), s.Results(), s.Variadic())})
			}
		case *types.Func:
			if s := o.Type().(*types.Signature); s.TypeParams().Len() == 0 {
				fns = append(fns, fn{o.Name(), s})
			}
		}
	}
	var out []port
	var walk func(where string, st *types.Struct)
	walk = func(where string, st *types.Struct) {
		for i := range st.NumFields() {
			f := st.Field(i)
			name := where + "." + f.Name()
			ft := f.Type()
			if p, ok := ft.Underlying().(*types.Pointer); ok && !isNamed(ft) {
				ft = p.Elem()
			}
			switch u := ft.Underlying().(type) {
			case *types.Struct:
				if !isNamed(ft) { // a named struct is walked as its own type
					walk(name, u)
				}
			case *types.Interface:
				if u.NumMethods() == 0 {
					continue
				}
				for _, c := range concrete {
					if types.Implements(c, u) || types.Implements(types.NewPointer(c), u) {
						out = append(out, port{name, fmt.Sprintf("%s is implemented by workflows.%s", ft, c.Obj().Name())})
						break
					}
				}
			case *types.Signature:
				for _, m := range fns {
					if types.AssignableTo(m.sig, ft) {
						out = append(out, port{name, fmt.Sprintf("%s can hold workflows.%s", ft, m.name)})
						break
					}
				}
			}
		}
	}
	for _, p := range pkgs {
		for _, name := range p.Scope().Names() {
			o, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || o.IsAlias() {
				continue
			}
			if st, ok := o.Type().Underlying().(*types.Struct); ok {
				walk(p.Path()+"."+name, st)
			}
		}
	}
	return out
}

func isNamed(t types.Type) bool {
	switch t.(type) {
	case *types.Named, *types.Alias:
		return true
	}
	return false
}

// typeUniverse reads packages' types from the export data the go command
// builds for them (and their dependencies).
type typeUniverse struct {
	listed   []string          // the packages the patterns matched
	exports  map[string]string // import path → export data file
	importer types.Importer
}

func loadTypes(t *testing.T, patterns ...string) *typeUniverse {
	t.Helper()
	u := &typeUniverse{exports: map[string]string{}}
	for _, deps := range []bool{false, true} {
		args := []string{"list", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}
		if deps {
			args = append(args, "-deps")
		}
		cmd := exec.Command("go", append(args, patterns...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, stderr.String())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			path, file, _ := strings.Cut(sc.Text(), "\t")
			if deps {
				u.exports[path] = file
			} else {
				u.listed = append(u.listed, path)
			}
		}
	}
	u.importer = importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := u.exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	return u
}

func (u *typeUniverse) imp(t *testing.T, path string) *types.Package {
	t.Helper()
	p, err := u.importer.Import(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
