package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodePostgresTypes reads arrays, oid, regclass, name, "char" and
// timestamptz values with node-postgres (npm pg, which scripts/test
// installs into a cache folder and names in NODE_PATH), in its default
// text format and in the binary format (testdata/node_types.js). The
// expected lines are what the program prints against PostgreSQL 15 for
// the same table.
func TestNodePostgresTypes(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is required (apt-get install nodejs npm)")
	}
	found := false
	for _, dir := range filepath.SplitList(os.Getenv("NODE_PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "pg", "package.json")); err == nil {
			found = true
		}
	}
	if !found {
		t.Fatal("node-postgres is required: scripts/test installs it (npm install pg) and sets NODE_PATH")
	}
	s := startBinary(t)
	s.must(`CREATE TABLE node_types (id int, ints int[], texts text[], o oid, n name, ch "char", ts timestamptz)`)
	s.must(`INSERT INTO node_types VALUES (1, '{1,2,3}', '{a,"b c",NULL}', 16384, 'orders', 'r', '2024-01-02 03:04:05.5+00'), (2, '{}', NULL, 0, 'x', 'v', '1999-12-31 23:59:59+00')`)
	out, err := exec.Command("node", "testdata/node_types.js", "postgres://u@"+s.addr+"/freshet").CombinedOutput()
	if err != nil {
		t.Fatalf("the program failed: %v\n%s", err, out)
	}
	want := `{"binary":false,"id":1,"ints":[1,2,3],"texts":["a","b c",null],"o":16384,"n":"orders","ch":"r","ts":"2024-01-02T03:04:05.500Z"}
{"binary":false,"id":2,"ints":[],"texts":null,"o":0,"n":"x","ch":"v","ts":"1999-12-31T23:59:59.000Z"}
{"binary":true,"id":1,"ints":[1,2,3],"texts":["a","b c",null],"o":16384,"n":"orders","ch":"r","ts":"2024-01-02T03:04:05.500Z"}
{"binary":true,"id":2,"ints":[],"texts":null,"o":0,"n":"x","ch":"v","ts":"1999-12-31T23:59:59.000Z"}
{"binary":false,"r":"node_types","same":true,"relkind":"r","relname":"node_types"}
{"binary":true,"a":[1,null,3],"b":["x y","",null],"big":4294967295}
{"binary":false,"a":[1,null,3],"b":["x y","",null],"big":4294967295}`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("node-postgres read:\n%s\nwant:\n%s", got, want)
	}
}
