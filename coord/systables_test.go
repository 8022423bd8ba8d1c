package coord

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"freshet/catalog"
	"freshet/sqlerr"
)

var sysSeed = flag.Uint64("systables.seed", 2, "seed of TestSystemTablesFollowTheCatalog's DDL")

// catalogViews are the materialized views TestSystemTablesFollowTheCatalog
// keeps over the catalog's relations, with their queries.
var catalogViews = [][2]string{
	{"mv_rels", "SELECT c.relname, c.relkind, c.relnatts, c.relhasindex, n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"},
	{"mv_cols", "SELECT c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid"},
	{"mv_kinds", "SELECT relkind, count(*) FROM pg_class GROUP BY relkind"},
	{"mv_deps", "SELECT v.relname AS view, r.relname AS reads FROM pg_depend d JOIN pg_class v ON v.oid = d.objid JOIN pg_class r ON r.oid = d.refobjid WHERE d.deptype = 'n'"},
	{"mv_keys", "SELECT c.relname, k.conname, k.contype FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid"},
	{"mv_indexes", "SELECT indexname, tablename, indexdef FROM pg_indexes"},
	{"mv_defaults", "SELECT c.relname, d.adnum, pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid"},
	{"mv_dbs", "SELECT datname FROM pg_database"},
	{"mv_roles", "SELECT rolname, rolsuper, rolcanlogin FROM pg_roles"},
	{"mv_info", "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'"},
}

// TestSystemTablesFollowTheCatalog runs a seeded sequence of DDL
// statements (tables with keys and defaults, views, materialized views,
// indexes, drops, roles, databases, restarts) and checks after each that
//   - every system table holds exactly the rows its generator writes from
//     the catalog at that moment, in every database, read through a
//     dataflow;
//   - materialized views and an indexed view over pg_catalog and
//     information_schema relations equal their queries computed afresh.
//
// Replay a failure with -systables.seed.
func TestSystemTablesFollowTheCatalog(t *testing.T) {
	seed := *sysSeed
	t.Logf("seed %d; replay: go test ./coord -run TestSystemTablesFollowTheCatalog -systables.seed=%d", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	for _, v := range catalogViews {
		env.exec(s, "CREATE MATERIALIZED VIEW "+v[0]+" AS "+v[1])
	}
	env.exec(s, "CREATE VIEW iv AS SELECT relname, relkind FROM pg_class")
	env.exec(s, "CREATE INDEX iv_name ON iv (relname)")

	check := func(step string) {
		t.Helper()
		for _, st := range systemTableList() {
			got := env.query(s, "SELECT * FROM "+systemSchema+"."+st.name)
			if want := env.query(s, generatorSQL(env.e, st)); got != want {
				t.Fatalf("%s: %s.%s holds\n  %s\nand the catalog gives\n  %s", step, systemSchema, st.name, got, want)
			}
		}
		for _, v := range catalogViews {
			if got, want := env.query(s, "SELECT * FROM "+v[0]), env.query(s, v[1]); got != want {
				t.Fatalf("%s: materialized view %s holds\n  %s\nits query gives\n  %s", step, v[0], got, want)
			}
		}
		if got, want := env.query(s, "SELECT * FROM iv WHERE relname >= ''"), env.query(s, "SELECT relname, relkind FROM pg_class"); got != want {
			t.Fatalf("%s: the indexed view over pg_class holds\n  %s\nits query gives\n  %s", step, got, want)
		}
	}
	check("start")

	var tables, objects []string // objects: every view and index created, to drop
	n := 0
	for step := range 60 {
		n++
		var sql string
		switch op := rng.IntN(10); {
		case op < 3 || len(tables) == 0:
			name := fmt.Sprintf("t%d", n)
			// Without a key, a table's relhasindex turns with its
			// first CREATE INDEX and last DROP INDEX.
			cols := []string{"a int"}
			if rng.IntN(2) == 0 {
				cols[0] += " PRIMARY KEY"
			}
			for i := range rng.IntN(3) {
				c := fmt.Sprintf("c%d %s", i, []string{"text", "numeric(8,2)", "bigint NOT NULL", "timestamptz"}[rng.IntN(4)])
				if rng.IntN(3) == 0 {
					c += fmt.Sprintf(" UNIQUE")
				}
				cols = append(cols, c)
			}
			if rng.IntN(2) == 0 {
				cols = append(cols, "d text DEFAULT 'none'")
			}
			sql = fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(cols, ", "))
			tables = append(tables, name)
		case op < 5:
			name := fmt.Sprintf("v%d", n)
			kind := []string{"VIEW", "MATERIALIZED VIEW"}[rng.IntN(2)]
			sql = fmt.Sprintf("CREATE %s %s AS SELECT a FROM %s", kind, name, tables[rng.IntN(len(tables))])
			objects = append(objects, name)
		case op < 6:
			name := fmt.Sprintf("i%d", n)
			sql = fmt.Sprintf("CREATE INDEX %s ON %s (a)", name, tables[rng.IntN(len(tables))])
			objects = append(objects, name)
		case op < 8:
			// DROP … CASCADE takes the views and indexes over a table
			// along; the lists keep names that may be gone, and IF
			// EXISTS drops them quietly later.
			if rng.IntN(2) == 0 || len(objects) == 0 {
				i := rng.IntN(len(tables))
				sql = "DROP TABLE " + tables[i] + " CASCADE"
				tables = slices.Delete(tables, i, i+1)
			} else {
				i := rng.IntN(len(objects))
				kind := "VIEW"
				switch {
				case strings.HasPrefix(objects[i], "i"):
					kind = "INDEX"
				case env.query(s, "SELECT relkind FROM pg_class WHERE relname = '"+objects[i]+"'") == "m":
					kind = "MATERIALIZED VIEW"
				}
				sql = "DROP " + kind + " IF EXISTS " + objects[i] + " CASCADE"
				objects = slices.Delete(objects, i, i+1)
			}
		case op < 9:
			if rng.IntN(2) == 0 {
				sql = fmt.Sprintf("CREATE ROLE r%d LOGIN", n)
			} else {
				sql = fmt.Sprintf("CREATE DATABASE db%d", n)
			}
		default:
			env.restart()
			s = env.session()
			check(fmt.Sprintf("step %d, restart", step))
			continue
		}
		env.exec(s, sql)
		check(fmt.Sprintf("step %d, %s", step, sql))
	}
	env.restart()
	s = env.session()
	check("the last restart")
	if err := env.e.Audit(); err != nil {
		t.Fatal(err)
	}
}

// generatorSQL is system table st's rows as its generator writes them
// from the engine's catalog now, in every database, as a query over
// constant rows: the relation as it was planned before the system
// tables held it.
func generatorSQL(e *Engine, st *systemTable) string {
	var rows [][]string
	_ = e.Catalog(func(c *catalog.Catalog) error {
		rs := newRowSource(c)
		for _, r := range st.view.rows(rs, nil) {
			rows = append(rows, append([]string{sqlText("")}, r...))
		}
		for _, o := range append(c.Objects(), c.Roles()...) {
			db := o.Database
			if st.view.shared {
				db = ""
			}
			for _, r := range st.view.rows(rs, o) {
				rows = append(rows, append([]string{sqlText(db)}, r...))
			}
		}
		return nil
	})
	return constRowsSQL(st.columns, rows)
}

// The system tables are the coordinator's to write: INSERT, UPDATE,
// DELETE, COPY and TRUNCATE of them fail with 42501 and change nothing.
func TestSystemTablesRefuseWrites(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int)")
	before := env.query(s, "SELECT * FROM freshet_catalog.pg_class")
	for _, sql := range []string{
		"INSERT INTO freshet_catalog.pg_class SELECT * FROM freshet_catalog.pg_class",
		"DELETE FROM freshet_catalog.pg_class",
		"UPDATE freshet_catalog.pg_class SET relname = 'x'",
		"TRUNCATE freshet_catalog.pg_class",
	} {
		err := s.Query(t.Context(), sql, &recorder{})
		if code := sqlerr.Code(err); code != sqlerr.InsufficientPrivilege {
			t.Errorf("%s: %v (%s), want 42501", sql, err, code)
		}
	}
	r := &recorder{copyData: "1\n"}
	if err := s.Query(t.Context(), "COPY freshet_catalog.pg_namespace FROM STDIN", r); sqlerr.Code(err) == "" {
		t.Errorf("COPY into a system table: %v, want an error", err)
	}
	if got := env.query(s, "SELECT * FROM freshet_catalog.pg_class"); got != before {
		t.Fatalf("pg_class after refused writes: %q, was %q", got, before)
	}
}

// BenchmarkDDLAmongManyViews measures a CREATE VIEW and a DROP VIEW in a
// database that holds 1,000 views, which every DDL statement's write of
// the system tables visits: with a materialized view over pg_class, which
// makes every DDL statement write them at once, and without one, when
// they are written only when a statement reads them.
func BenchmarkDDLAmongManyViews(b *testing.B) {
	for _, follow := range []bool{true, false} {
		b.Run(fmt.Sprintf("catalog_view=%v", follow), func(b *testing.B) {
			env := openSQL(b, b.TempDir())
			defer env.e.Close()
			s := env.session()
			env.exec(s, "CREATE TABLE t (a int, b text, c numeric)")
			for i := range 1000 {
				env.exec(s, fmt.Sprintf("CREATE VIEW v%d AS SELECT a, b, c FROM t WHERE a > %d", i, i))
			}
			if follow {
				env.exec(s, "CREATE MATERIALIZED VIEW rels AS SELECT relname FROM pg_class")
			}
			for b.Loop() {
				env.exec(s, "CREATE VIEW extra AS SELECT a FROM t")
				env.exec(s, "DROP VIEW extra")
			}
		})
	}
}
