package coord

import (
	"strings"
	"testing"

	"freshet/catalog"
	"freshet/sqlerr"
)

// TestTemporaryTables: CREATE TEMP TABLE makes a table in the session's
// pg_temp_<pid> schema, which the session searches first (hiding a
// permanent table of the same name) and names as pg_temp; other
// sessions do not see it by its bare name. A view over it is temporary
// too, a materialized view over it is refused, an index on it lives with
// it. DISCARD TEMP, the session's end, and a restart with the session
// still open each drop the schema and all in it.
func TestTemporaryTables(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1)")
	env.exec(s, "CREATE TEMP TABLE t (k int, note text)")
	env.exec(s, "INSERT INTO t VALUES (2, 'mine')")
	if got := env.query(s, "SELECT k, note FROM t"); got != "2,mine" {
		t.Fatalf("the temporary t: %s", got)
	}
	if got := env.query(s, "SELECT k FROM public.t"); got != "1" {
		t.Fatalf("the permanent t: %s", got)
	}
	if got := env.query(other, "SELECT * FROM t"); got != "1" {
		t.Fatalf("another session's t: %s", got)
	}
	// A permanent object made while the temporary schema is first in
	// the path still goes where it would have.
	env.exec(s, "CREATE TABLE perm (a int)")
	if got := env.query(other, "SELECT count(*), current_schema() FROM public.perm"); got != "0,public" {
		t.Fatalf("a permanent table made beside temporary ones: %s", got)
	}
	if got := env.query(s, "SELECT current_schema()"); got != "public" {
		t.Fatalf("current_schema() with a temporary schema: %s", got)
	}
	if got := env.query(s, "SELECT count(*) FROM pg_temp.t"); got != "1" {
		t.Fatalf("pg_temp.t: %s", got)
	}
	schema := env.query(s, "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 't' AND c.relpersistence = 't'")
	if !strings.HasPrefix(schema, "pg_temp_") {
		t.Fatalf("the temporary t's schema: %q", schema)
	}
	env.exec(s, "CREATE INDEX t_k ON t (k)")
	env.exec(s, "CREATE VIEW mine AS SELECT note FROM t")
	if got := env.query(s, "SELECT * FROM mine"); got != "mine" {
		t.Fatalf("a view over the temporary t: %s", got)
	}
	env.failsWith(other, "SELECT * FROM mine", sqlerr.UndefinedTable)
	env.failsWith(s, "CREATE MATERIALIZED VIEW mv AS SELECT count(*) FROM t", sqlerr.FeatureNotSupported, "must not use temporary tables")
	env.failsWith(s, "CREATE TEMP TABLE public.x (a int)", sqlerr.InvalidTableDefinition, "non-temporary schema")
	env.exec(s, "CREATE TEMP TABLE copied AS SELECT k FROM public.t")
	if got := env.query(s, "SELECT * FROM copied"); got != "1" {
		t.Fatalf("CREATE TEMP TABLE AS: %s", got)
	}

	temps := func() int {
		n := 0
		env.e.Catalog(func(c *catalog.Catalog) error {
			for _, o := range c.Objects() {
				if isTempSchema(o.Schema) || o.Kind == catalog.Schema && isTempSchema(o.Name) {
					n++
				}
			}
			return nil
		})
		return n
	}
	env.exec(s, "DISCARD TEMP")
	if n := temps(); n != 0 {
		t.Fatalf("%d temporary objects after DISCARD TEMP", n)
	}
	if got := env.query(s, "SELECT * FROM t"); got != "1" {
		t.Fatalf("t after DISCARD TEMP: %s", got)
	}

	// The session's end drops them.
	env.exec(s, "CREATE TEMP TABLE gone (a int)")
	env.exec(s, "INSERT INTO gone VALUES (1)")
	s.Close()
	if n := temps(); n != 0 {
		t.Fatalf("%d temporary objects after the session closed", n)
	}

	// So does a restart with the session still open.
	s2 := env.session()
	env.exec(s2, "CREATE TEMP TABLE left_open (a int)")
	env.restart()
	if n := temps(); n != 0 {
		t.Fatalf("%d temporary objects after a restart", n)
	}
	env.settled()
}
