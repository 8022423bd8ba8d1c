package freshet

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is the import policy of DESIGN.md: for every package of the
// module, the module packages its non-test files may import. Imports
// point down the stack, never up. A package missing from this table fails
// the test, so a new package must say where it stands.
var layers = map[string][]string{
	"freshet":  nil,
	"dataflow": nil,
	// Test support: the transcript runner that several packages' tests
	// share.
	"internal/transcript": nil,
	// Maps in a large buffer about to be filled with one system call.
	"internal/prefault": nil,
	"arrange":           {"dataflow", "internal/prefault"},
	"storage":           {"internal/prefault", "sqlerr"},
	"sqlerr":            nil,
	"scram":             nil,
	"repr":              {"sqlerr"},
	"expr":              {"repr", "sqlerr"},
	"catalog":           {"expr", "repr", "sqlerr", "storage"},
	"planner":           {"catalog", "expr", "repr", "sqlerr"},
	"compute":           {"arrange", "dataflow", "expr", "internal/prefault", "repr", "sqlerr"},
	// coord implements the interfaces pgwire declares (Backend, Session),
	// so it names pgwire's types; pgwire never imports coord.
	// Both speak SCRAM: pgwire its exchange, coord its stored verifiers.
	"coord": {"arrange", "catalog", "compute", "dataflow", "expr", "internal/prefault", "pgwire", "planner", "repr", "scram",
		"sqlerr", "storage"},
	"pgwire": {"repr", "scram", "sqlerr"},
	"cmd/server": {"arrange", "catalog", "compute", "coord", "dataflow", "expr", "pgwire", "planner",
		"repr", "sqlerr", "storage"},
	// The benchmark command drives the server binary over the wire, as a
	// user's client would, so it imports nothing of the server.
	"cmd/freshet-bench":      nil,
	"tests/sqllogic/cmd/slt": {"tests/sqllogic"},
	"tests/e2e":              nil,
	"tests/chaos":            nil,
	"tests/sqllogic": {"arrange", "catalog", "cmd/server", "compute", "coord", "dataflow", "expr", "pgwire",
		"planner", "repr", "sqlerr", "storage"},
}

// stdlibOnly lists the packages that may import nothing outside the
// standard library and the module: the runtime stays free of SQL and of
// third-party code.
var stdlibOnly = []string{"dataflow", "arrange", "sqlerr", "internal/prefault", "internal/transcript", "scram"}

func TestImportLayering(t *testing.T) {
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = "freshet"
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[pkg][p] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 2 {
		t.Fatalf("found only %d packages; is the test running at the module root?", len(imports))
	}
	for pkg, imps := range imports {
		allowed, known := layers[pkg]
		if !known {
			t.Errorf("package %s is not in the layering policy of deps_test.go", pkg)
			continue
		}
		for imp := range imps {
			if rest, ok := strings.CutPrefix(imp, "freshet/"); ok {
				if !slices.Contains(allowed, rest) {
					t.Errorf("%s imports freshet/%s, which its layer does not allow", pkg, rest)
				}
				continue
			}
			if slices.Contains(stdlibOnly, pkg) && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
				t.Errorf("%s imports %s: it may import only the standard library and the module", pkg, imp)
			}
		}
	}
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatal(err)
	}
}
