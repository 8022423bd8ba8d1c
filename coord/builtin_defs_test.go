package coord

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// pg_constraint has a row per PRIMARY KEY and UNIQUE constraint, whose
// index is in pg_class, pg_index and pg_attribute under conindid, as in
// PostgreSQL; information_schema's table_constraints and
// key_column_usage are views of it.
func TestPgConstraint(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, b text, c int, UNIQUE (c, b))")
	env.exec(s, "CREATE TABLE u (x int)")
	const q = `SELECT k.conname || ' ' || k.contype || ' ' || k.conkey::text || ' ' || r.relname || ' ' || i.relname || ' ' || x.indisprimary::text
		FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid JOIN pg_class i ON i.oid = k.conindid
		JOIN pg_index x ON x.indexrelid = k.conindid AND x.indrelid = k.conrelid`
	if got, want := env.query(s, q), "t_c_b_key u {3,2} t t_c_b_key false t_pkey p {1} t t_pkey true"; got != want {
		t.Fatalf("pg_constraint: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT a.attnum || a.attname FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conindid WHERE k.contype = 'u'"), "1c 2b"; got != want {
		t.Fatalf("the unique constraint's index columns: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT relname || relhasindex::text FROM pg_class WHERE relname IN ('t', 'u')"), "ttrue ufalse"; got != want {
		t.Fatalf("relhasindex: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT table_name || ' ' || constraint_name || ' ' || constraint_type FROM information_schema.table_constraints"),
		"t t_c_b_key UNIQUE t t_pkey PRIMARY KEY"; got != want {
		t.Fatalf("table_constraints: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT constraint_name || ' ' || column_name || ' ' || ordinal_position FROM information_schema.key_column_usage"),
		"t_c_b_key b 2 t_c_b_key c 1 t_pkey a 1"; got != want {
		t.Fatalf("key_column_usage: %q, want %q", got, want)
	}
	// A materialized view over pg_constraint follows later DDL.
	env.exec(s, "CREATE MATERIALIZED VIEW mc AS SELECT conname FROM pg_constraint")
	env.exec(s, "CREATE TABLE w (x int UNIQUE)")
	if got, want := env.query(s, "SELECT conname FROM mc"), "t_c_b_key t_pkey w_x_key"; got != want {
		t.Fatalf("materialized view over pg_constraint: %q, want %q", got, want)
	}
}

// The pg_get_*def functions return the definitions of views, indexes
// and constraints by OID, NULL for any other OID; their arguments are
// the caller's, whatever the relation they are read from calls its
// columns.
func TestGetDefFunctions(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, \"B\" text)")
	env.exec(s, "CREATE VIEW v AS SELECT a FROM t WHERE a > 1")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t")
	env.exec(s, `CREATE INDEX t_b ON t ("B", a)`)
	q := func(sql string) string { t.Helper(); return env.query(s, sql) }
	if got, want := q("SELECT relname || ': ' || coalesce(pg_get_viewdef(oid), '-') FROM pg_class WHERE relkind IN ('r', 'v', 'm')"),
		"m: SELECT count(*) AS n FROM t t: - v: SELECT a FROM t WHERE a > 1"; got != want {
		t.Fatalf("pg_get_viewdef: %q, want %q", got, want)
	}
	if got, want := q("SELECT pg_get_viewdef(c.oid, true) FROM pg_class c WHERE c.relname = 'v'"), "SELECT a FROM t WHERE a > 1"; got != want {
		t.Fatalf("pg_get_viewdef(oid, pretty): %q, want %q", got, want)
	}
	if got, want := q("SELECT pg_get_indexdef(oid) FROM pg_class WHERE relname = 't_b'"),
		`CREATE INDEX t_b ON public.t USING btree ("B", a)`; got != want {
		t.Fatalf("pg_get_indexdef: %q, want %q", got, want)
	}
	if got, want := q("SELECT pg_get_indexdef(oid, 2, true) || ' ' || pg_get_indexdef(oid, 1, false) FROM pg_class WHERE relname = 't_b'"),
		`a "B"`; got != want {
		t.Fatalf("pg_get_indexdef(oid, column, pretty): %q, want %q", got, want)
	}
	if got, want := q("SELECT pg_get_indexdef(k.conindid) || ' / ' || pg_get_constraintdef(k.oid) || ' / ' || pg_get_constraintdef(k.oid, true) FROM pg_constraint k"),
		"CREATE UNIQUE INDEX t_pkey ON public.t USING btree (a) / PRIMARY KEY (a) / PRIMARY KEY (a)"; got != want {
		t.Fatalf("the primary key: %q, want %q", got, want)
	}
	if got, want := q("SELECT coalesce(pg_get_viewdef(0), 'null') || ' ' || coalesce(pg_get_constraintdef(NULL), 'null')"), "null null"; got != want {
		t.Fatalf("no such object: %q, want %q", got, want)
	}
	if got, want := q("SELECT matviewname || ' ' || definition FROM pg_matviews"), "m SELECT count(*) AS n FROM t"; got != want {
		t.Fatalf("pg_matviews: %q, want %q", got, want)
	}
	env.failsWith(s, "SELECT pg_get_viewdef(1, true, 3)", "42883")
	env.failsWith(s, "SELECT pg_get_viewdef(no_such_column)", "42703")

	// A prepared statement's parameter is the macro's argument, and the
	// statement follows DDL made after it was prepared.
	ctx := context.Background()
	ps, err := s.Parse(ctx, "SELECT pg_get_viewdef(oid) FROM pg_class WHERE relname = $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string) string {
		t.Helper()
		p, err := ps.Bind(ctx, [][]byte{[]byte(name)})
		if err != nil {
			t.Fatal(err)
		}
		r := &recorder{}
		if _, err := p.Execute(ctx, 0, r); err != nil {
			t.Fatal(err)
		}
		return strings.Join(sortedCopy(r.rows), " ")
	}
	if got, want := run("v"), "SELECT a FROM t WHERE a > 1"; got != want {
		t.Fatalf("prepared pg_get_viewdef: %q, want %q", got, want)
	}
	env.exec(s, "CREATE VIEW w AS SELECT 2 AS two")
	if got, want := run("w"), "SELECT 2 AS two"; got != want {
		t.Fatalf("prepared pg_get_viewdef after CREATE VIEW: %q, want %q", got, want)
	}
}

// pg_settings shows the session's own values, follows SET, and is never
// held past a statement; pg_stat_user_tables exists and is empty;
// pg_proc lists the types' I/O functions that pg_type names.
func TestPgSettings(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	const q = "SELECT setting || ' ' || source || ' ' || context FROM pg_settings WHERE name = 'statement_timeout'"
	if got, want := env.query(s, q), "0 default user"; got != want {
		t.Fatalf("pg_settings: %q, want %q", got, want)
	}
	env.exec(s, "SET statement_timeout = '5s'")
	if got, want := env.query(s, q), "5s session user"; got != want {
		t.Fatalf("pg_settings after SET: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT setting FROM pg_catalog.pg_settings WHERE name='max_index_keys'"), "32"; got != want {
		t.Fatalf("max_index_keys: %q, want %q", got, want)
	}
	if got, want := env.query(env.session(), q), "0 default user"; got != want {
		t.Fatalf("another session's pg_settings: %q, want %q", got, want)
	}
	env.failsWith(s, "CREATE MATERIALIZED VIEW ms AS SELECT name FROM pg_settings", "0A000")
	if got := env.query(s, "SELECT count(*) FROM pg_catalog.pg_stat_user_tables"); got != "0" {
		t.Fatalf("pg_stat_user_tables: %q rows", got)
	}
	// Npgsql tells array types by their receive function's name,
	// pgjdbc by their input function.
	const q2 = `SELECT t.typname || ' ' || p.proname || ' ' || t.typreceive::text FROM pg_type t JOIN pg_proc p ON p.oid = t.typreceive
		WHERE t.typname IN ('_int4', 'int4', 'oid')`
	if got, want := env.query(s, q2), "_int4 array_recv array_recv int4 int4recv int4recv oid oidrecv oidrecv"; got != want {
		t.Fatalf("pg_proc joined with pg_type: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT count(*) FROM pg_type WHERE typinput = 'array_in'::regproc AND typelem = 'int4'::regtype"), "1"; got != want {
		t.Fatalf("typinput = 'array_in'::regproc: %q, want %q", got, want)
	}
	env.failsWith(s, "SELECT 'no_such_function'::regproc", "42883")
}

// The privilege functions are true (there are no privileges to check),
// and the function-description functions NULL (pg_proc lists no
// function); a wrong number of arguments is 42883.
func TestMorePrivilegeAndFunctionFuncs(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int)")
	const q = `SELECT has_any_column_privilege(current_user, 't', 'select')::text || ' ' ||
		has_column_privilege('t', 'a', 'update')::text || ' ' ||
		has_database_privilege(current_database(), 'connect')::text || ' ' ||
		coalesce(pg_get_function_result(0), 'null') || ' ' || coalesce(pg_get_function_arguments(1), 'null')`
	if got, want := env.query(s, q), "true true true null null"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	env.failsWith(s, "SELECT has_column_privilege('t', 'select')", "42883")
}

// pg_depend records what views read (through the views they read too)
// and what indexes index; pg_indexes
// lists indexes with their definitions; information_schema has
// referential_constraints (empty) and routines.
func TestPgDependAndIndexes(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	env.exec(s, "CREATE TABLE u (x int)")
	env.exec(s, "CREATE VIEW v AS SELECT t.a, u.x FROM t, u")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT a FROM v")
	env.exec(s, "CREATE INDEX tb ON t (b)")
	const q = `SELECT o.relname || '>' || r.relname || ':' || d.refobjsubid || d.deptype FROM pg_depend d
		JOIN pg_class o ON o.oid = d.objid JOIN pg_class r ON r.oid = d.refobjid WHERE d.classid = 'pg_class'::regclass`
	if got, want := env.query(s, q), "m>t:0n m>u:0n m>v:0n t_pkey>t:1a tb>t:2a v>t:0n v>u:0n"; got != want {
		t.Fatalf("pg_depend: %q, want %q", got, want)
	}
	if got, want := env.query(s, "SELECT indexname || ': ' || indexdef FROM pg_indexes WHERE tablename = 't'"),
		"t_pkey: CREATE UNIQUE INDEX t_pkey ON public.t USING btree (a) tb: CREATE INDEX tb ON public.t USING btree (b)"; got != want {
		t.Fatalf("pg_indexes: %q, want %q", got, want)
	}
	if got := env.query(s, "SELECT count(*) FROM information_schema.referential_constraints"); got != "0" {
		t.Fatalf("referential_constraints: %q", got)
	}
	if got := env.query(s, "SELECT data_type FROM information_schema.routines WHERE routine_name = 'int4in'"); got != "integer" {
		t.Fatalf("routines: %q", got)
	}
}

// pg_stat_activity has a row per session: its database, user, state and
// last statement; the reading session is active, running the read.
func TestPgStatActivity(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	a, b := env.session(), env.session()
	env.exec(a, "CREATE TABLE t (x int)")
	env.exec(a, "BEGIN")
	env.exec(a, "SELECT count(*) FROM t")
	const q = "SELECT pid::text || ' ' || datname || ' ' || state || ' ' || query || ' ' || (xact_start IS NOT NULL)::text FROM pg_stat_activity"
	rows := []string{fmt.Sprintf("%d freshet active %s true", b.CancelKey().ProcessID, q),
		fmt.Sprintf("%d freshet idle in transaction SELECT count(*) FROM t true", a.CancelKey().ProcessID)}
	if want := strings.Join(sortedCopy(rows), " "); env.query(b, q) != want {
		got := env.query(b, q)
		t.Fatalf("pg_stat_activity:\n got %q\nwant %q", got, want)
	}
	env.exec(a, "COMMIT")
	if got := env.query(b, "SELECT state || ' ' || (xact_start IS NULL)::text FROM pg_stat_activity WHERE pid = "+fmt.Sprint(a.CancelKey().ProcessID)); got != "idle true" {
		t.Fatalf("after COMMIT: %q", got)
	}
	env.failsWith(b, "CREATE MATERIALIZED VIEW act AS SELECT pid FROM pg_stat_activity", "0A000")
}

// pg_get_keywords() lists the parser's keywords with PostgreSQL's
// categories and bare-label rules (these rows as PostgreSQL 15 gives
// them).
func TestPgGetKeywords(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	const q = "SELECT word || ' ' || catcode || ' ' || barelabel::text || ' ' || baredesc FROM pg_get_keywords() WHERE word IN ('select', 'between', 'isnull', 'name', 'all')"
	if got, want := env.query(s, q), "all R true can be bare label between C true can be bare label isnull T false requires AS name U true can be bare label select R true can be bare label"; got != want {
		t.Fatalf("pg_get_keywords:\n got %q\nwant %q", got, want)
	}
	if got := env.query(s, "SELECT count(*) >= 460 FROM pg_catalog.pg_get_keywords() AS k JOIN (SELECT 'select' AS w) x ON true"); got != "t" {
		t.Fatalf("keyword count: %q", got)
	}
}
