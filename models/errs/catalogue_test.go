package errs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var codeSyntax = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func TestCatalogueIsWellFormed(t *testing.T) {
	seen := map[string]string{}
	for _, g := range Catalogue() {
		if g.Title == "" || len(g.Entries) == 0 {
			t.Errorf("group %q: needs a title and entries", g.Title)
		}
		for _, e := range g.Entries {
			if prev, dup := seen[e.Code]; dup {
				t.Errorf("%s: in %q and %q", e.Code, prev, g.Title)
			}
			seen[e.Code] = g.Title
			if !codeSyntax.MatchString(e.Code) {
				t.Errorf("%q: codes are lower_snake_case", e.Code)
			}
			if e.Meaning == "" || e.Remedy == "" {
				t.Errorf("%s: needs a meaning and a remedy", e.Code)
			}
			if e.Kind == Internal || slices.Contains(e.Also, Internal) {
				// Internal errors never show their code (api.Fail).
				t.Errorf("%s: an Internal error's code never reaches a client", e.Code)
			}
			ks := e.Kinds()
			slices.Sort(ks)
			if len(slices.Compact(ks)) != len(e.Kinds()) {
				t.Errorf("%s: a kind is listed twice", e.Code)
			}
		}
	}
	for _, code := range []string{CodeBudgetExceeded, CodeInvalidJSON, CodeAuthorizationPending} {
		if _, ok := Lookup(code); !ok {
			t.Errorf("Lookup(%q) misses", code)
		}
	}
	if _, ok := Lookup("no_such_code"); ok {
		t.Error("Lookup finds a code that is not catalogued")
	}
}

// TestCatalogueConstantsAreTheRows holds the constants and the rows of
// catalogue.go together: one constant per row, one row per constant.
func TestCatalogueConstantsAreTheRows(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "catalogue.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := stringConsts(f)
	var declared []string
	for name, v := range consts {
		if strings.HasPrefix(name, "Code") {
			declared = append(declared, v)
		}
	}
	rows := Codes()
	slices.Sort(declared)
	slices.Sort(rows)
	if !slices.Equal(declared, rows) {
		t.Errorf("constants and catalogue rows differ:\nconstants only: %v\nrows only: %v", minus(declared, rows), minus(rows, declared))
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestCodesInSourceAreCatalogued reads the module's Go source (tests and
// the sandbox, which answers in the venue's own dialect, aside) and checks
// every code given to WithCode or set in an errs.Error or api.ErrorBody
// literal, when it is a constant: it must be catalogued, the kind it is
// built with must be one the catalogue lists for it, and outside venue/
// (which imports nothing of ours once it has its own error type) it must be
// written as the catalogue's constant, errs.CodeX, not as a literal or
// another package's constant.
func TestCodesInSourceAreCatalogued(t *testing.T) {
	root := moduleRoot(t)
	module := modulePath(t, root)
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	consts := map[string]map[string]string{} // package dir → const name → value
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules"),
				p == filepath.Join(root, "sandbox"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		files[p] = f
		dir := filepath.Dir(p)
		if consts[dir] == nil {
			consts[dir] = map[string]string{}
		}
		for k, v := range stringConsts(f) {
			consts[dir][k] = v
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for p, f := range files {
		imports := importDirs(f, root, module)
		value := func(e ast.Expr) (string, bool) {
			switch x := e.(type) {
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					s, err := strconv.Unquote(x.Value)
					return s, err == nil
				}
			case *ast.Ident:
				v, ok := consts[filepath.Dir(p)][x.Name]
				return v, ok
			case *ast.SelectorExpr:
				if pkg, ok := x.X.(*ast.Ident); ok {
					v, ok := consts[imports[pkg.Name]][x.Sel.Name]
					return v, ok
				}
			}
			return "", false // a variable: the HTTP tests see what it holds
		}
		venue := strings.HasPrefix(p, filepath.Join(root, "venue")+string(filepath.Separator))
		check := func(n ast.Node, code ast.Expr, kind string) {
			v, ok := value(code)
			if !ok {
				return
			}
			checked++
			where := fset.Position(n.Pos())
			if venue {
				// A venue code reaches a client through FromVenue, which
				// renames the generic refusals.
				if c, ok := deniedCodes[v]; ok {
					v = c
				}
			} else if !isCatalogueConstant(code) {
				t.Errorf("%s: write code %q as the catalogue's constant errs.Code…", where, v)
			}
			e, ok := Lookup(v)
			if !ok {
				t.Errorf("%s: code %q is not in the catalogue (models/errs/catalogue.go)", where, v)
				return
			}
			if k, known := kindIdents[kind]; known && !slices.Contains(e.Kinds(), k) {
				t.Errorf("%s: code %q built as %s, but the catalogue lists %v", where, v, kind, e.Kinds())
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithCode" && len(x.Args) == 1 {
					check(x, x.Args[0], builtKind(sel.X))
				}
			case *ast.CompositeLit:
				if !isErrorLiteral(x.Type, f.Name.Name) {
					return true
				}
				var code ast.Expr
				kind := ""
				for _, el := range x.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch key, _ := kv.Key.(*ast.Ident); {
					case key == nil:
					case key.Name == "Code":
						code = kv.Value
					case key.Name == "Kind":
						kind = kindName(kv.Value)
					}
				}
				if code != nil {
					check(x, code, kind)
				}
			}
			return true
		})
	}
	if checked < 50 {
		t.Fatalf("only %d codes found in the source: the scan is broken", checked)
	}
}

// isCatalogueConstant reports whether e is errs.CodeX.
func isCatalogueConstant(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errs" && strings.HasPrefix(sel.Sel.Name, "Code")
}

// kindIdents maps the Go names of the kinds, as written in source.
var kindIdents = map[string]Kind{
	"Internal": Internal, "Invalid": Invalid, "Unauthorized": Unauthorized, "Forbidden": Forbidden,
	"NotFound": NotFound, "Conflict": Conflict, "RateLimited": RateLimited, "VenueRejected": VenueRejected,
	"Transient": Transient, "VenueDenied": VenueDenied,
}

// builtKind returns the kind of an errs.E/errs.Ef call at the start of a
// WithX chain, or "" when the receiver is not such a call.
func builtKind(e ast.Expr) string {
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return ""
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return ""
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "errs" && (sel.Sel.Name == "E" || sel.Sel.Name == "Ef") {
			if len(call.Args) == 0 {
				return ""
			}
			return kindName(call.Args[0])
		}
		e = sel.X
	}
}

func kindName(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "errs" {
			return sel.Sel.Name
		}
	}
	return ""
}

// isErrorLiteral reports whether typ is errs.Error or api.ErrorBody.
func isErrorLiteral(typ ast.Expr, pkg string) bool {
	switch x := typ.(type) {
	case *ast.SelectorExpr:
		p, ok := x.X.(*ast.Ident)
		return ok && (p.Name == "errs" && x.Sel.Name == "Error" || p.Name == "api" && x.Sel.Name == "ErrorBody")
	case *ast.Ident:
		return pkg == "errs" && x.Name == "Error" || pkg == "api" && x.Name == "ErrorBody"
	}
	return false
}

// stringConsts returns the file's constants with a string literal value.
func stringConsts(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if v, err := strconv.Unquote(bl.Value); err == nil {
						out[n.Name] = v
					}
				}
			}
		}
	}
	return out
}

// importDirs maps the file's import names of module packages to their
// directories.
func importDirs(f *ast.File, root, module string) map[string]string {
	out := map[string]string{}
	for _, is := range f.Imports {
		path, _ := strconv.Unquote(is.Path.Value)
		rel, ok := strings.CutPrefix(path, module+"/")
		if !ok {
			continue
		}
		name := filepath.Base(rel)
		if is.Name != nil {
			name = is.Name.Name
		}
		out[name] = filepath.Join(root, filepath.FromSlash(rel))
	}
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("no module line in go.mod")
	return ""
}
