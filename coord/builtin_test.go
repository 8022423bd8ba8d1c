package coord

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"freshet/planner"
	"freshet/repr"
)

// The constant pg_catalog relations resolve qualified and unqualified,
// can be read by views, and cannot be written or dropped.
func TestBuiltinViews(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	if got := env.query(s, "SELECT nspname FROM pg_catalog.pg_namespace WHERE oid = 2200"); got != "public" {
		t.Fatalf("pg_catalog.pg_namespace: %q", got)
	}
	if got := env.query(s, "SELECT count(*) FROM pg_namespace"); got != "3" {
		t.Fatalf("pg_namespace: %q", got)
	}
	if got := env.query(s, "SELECT amname FROM pg_am WHERE oid = 403"); got != "btree" {
		t.Fatalf("pg_am: %q", got)
	}
	env.exec(s, "CREATE VIEW ns AS SELECT nspname FROM pg_namespace")
	if got := env.query(s, "SELECT count(*) FROM ns"); got != "3" {
		t.Fatalf("view over pg_namespace: %q", got)
	}
	env.failsWith(s, "DROP VIEW pg_catalog.pg_namespace", "42501")
	env.failsWith(s, "INSERT INTO pg_namespace VALUES (1, 'x', 10, NULL)", "42501")
	env.failsWith(s, "SELECT * FROM pg_catalog.no_such", "42P01")
	env.failsWith(s, "CREATE TABLE pg_catalog.t (a int)", "42501")
	env.failsWith(s, "CREATE VIEW pg_catalog.v AS SELECT 1", "42501")
	env.failsWith(s, "CREATE INDEX ON pg_am (amname)", "42501")
}

// pg_class follows DDL at once, and its OIDs survive a restart.
func TestPgClassFollowsDDL(t *testing.T) {
	dir := t.TempDir()
	env := openSQL(t, dir)
	defer func() { env.e.Close() }()
	s := env.session()
	const q = "SELECT relname || ' ' || relkind || ' ' || relhasindex::text FROM pg_catalog.pg_class"
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	env.exec(s, "CREATE VIEW v AS SELECT a FROM t")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT b FROM t")
	env.exec(s, "CREATE INDEX ti ON t (b)")
	if got, want := env.query(s, q), "m m false t r true t_pkey i false ti i false v v false"; got != want {
		t.Fatalf("pg_class: %q, want %q", got, want)
	}
	const oidq = "SELECT relname || ' ' || oid::text FROM pg_class WHERE relname <> 'v'"
	oids := env.query(s, oidq)
	env.exec(s, "DROP VIEW v")
	if got, want := env.query(s, q), "m m false t r true t_pkey i false ti i false"; got != want {
		t.Fatalf("pg_class after DROP VIEW: %q, want %q", got, want)
	}
	env.exec(s, "CREATE VIEW v AS SELECT a FROM t")
	env.exec(s, "DROP VIEW v")
	env.restart()
	s = env.session()
	if got := env.query(s, oidq); got != oids {
		t.Fatalf("oids after restart: %q, before: %q", got, oids)
	}
	env.exec(s, "CREATE MATERIALIZED VIEW mc AS SELECT relname FROM pg_class WHERE relkind = 'r'")
	env.exec(s, "DROP TABLE t CASCADE")
	if got, want := env.query(s, "SELECT relname FROM mc"), ""; got != want {
		t.Fatalf("materialized view over pg_class after DROP TABLE: %q, want %q", got, want)
	}
}

// pg_database, pg_roles, pg_user and pg_tables.
func TestBuiltinRolesAndTables(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY)")
	env.exec(s, "CREATE VIEW v AS SELECT a FROM t")
	for _, tc := range []struct{ q, want string }{
		{"SELECT datname FROM pg_database", "freshet postgres"},
		{"SELECT rolname || ' ' || oid::text FROM pg_roles", "freshet 10"},
		{"SELECT usename FROM pg_user", "freshet"},
		{"SELECT schemaname || '.' || tablename || ' ' || tableowner || ' ' || hasindexes::text FROM pg_tables", "public.t freshet true"},
	} {
		if got := env.query(s, tc.q); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.q, got, tc.want)
		}
	}
}

// The catalog functions of psql's describe queries.
func TestCatalogFuncs(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int)")
	const q = "SELECT c.relname || ' ' || pg_catalog.pg_get_userbyid(c.relowner) || ' ' || pg_catalog.pg_table_is_visible(c.oid)::text || ' ' || coalesce(obj_description(c.oid, 'pg_class'), '-') FROM pg_catalog.pg_class c"
	if got, want := env.query(s, q), "t freshet true -"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	env.failsWith(s, "SELECT pg_table_is_visible()", "42883")
}

// pg_views lists the views with their definitions.
func TestPgViews(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int)")
	env.exec(s, "CREATE VIEW v AS SELECT a FROM t")
	if got := env.query(s, "SELECT schemaname || '.' || viewname || ' ' || viewowner FROM pg_views"); got != "public.v freshet" {
		t.Fatalf("pg_views: %q", got)
	}
	if got := env.query(s, "SELECT count(*) FROM pg_views WHERE definition <> ''"); got != "1" {
		t.Fatalf("pg_views definition: %q", got)
	}
	env.exec(s, "CREATE MATERIALIZED VIEW mv AS SELECT viewname FROM pg_views")
	env.exec(s, "CREATE VIEW w AS SELECT 1")
	if got, want := env.query(s, "SELECT viewname FROM mv"), "v w"; got != want {
		t.Fatalf("materialized view over pg_views: %q, want %q", got, want)
	}
}

// A relation over the catalog is never held past the catalog it saw: a
// prepared statement over pg_class sees a table created after it was
// prepared, and an index on a view over pg_class follows later DDL.
func TestGeneratedRelationsNeverGoStale(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	ps, err := s.Parse(ctx, "SELECT relname FROM pg_class WHERE relkind = $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		t.Helper()
		p, err := ps.Bind(ctx, [][]byte{[]byte("r")})
		if err != nil {
			t.Fatal(err)
		}
		r := &recorder{}
		if _, err := p.Execute(ctx, 0, r); err != nil {
			t.Fatal(err)
		}
		return strings.Join(sortedCopy(r.rows), " ")
	}
	if got := run(); got != "" {
		t.Fatalf("tables before any was created: %q", got)
	}
	env.exec(s, "CREATE TABLE later (a int)")
	if got := run(); got != "later" {
		t.Fatalf("the prepared statement after CREATE TABLE: %q, want later", got)
	}
	env.exec(s, "CREATE VIEW rels AS SELECT relname, relkind FROM pg_class")
	if got := env.query(s, "SELECT relname FROM rels WHERE relkind = 'v'"); got != "rels" {
		t.Fatalf("the plain view over pg_class: %q", got)
	}
	env.exec(s, "CREATE INDEX rels_name ON rels (relname)")
	env.exec(s, "CREATE TABLE later2 (a int)")
	if got := env.query(s, "SELECT relkind FROM rels WHERE relname = 'later2'"); got != "r" {
		t.Fatalf("the indexed view over pg_class after CREATE TABLE: %q", got)
	}
	if got := run(); got != "later later2" {
		t.Fatalf("the prepared statement after a second CREATE TABLE: %q", got)
	}
}

// pg_index has a row per CREATE INDEX, with its key columns' numbers.
func TestPgIndex(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b int, c text)")
	env.exec(s, "CREATE INDEX t_cb ON t (c, b)")
	env.exec(s, "CREATE UNIQUE INDEX t_a ON t (a)")
	q := "SELECT c.relname, t.relname, i.indkey, i.indisunique, i.indnatts FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid"
	if got, want := env.query(s, q), "t_a,t,1,t,1 t_cb,t,3 2,f,2"; got != want {
		t.Fatalf("pg_index: %q, want %q", got, want)
	}
	env.exec(s, "DROP INDEX t_cb")
	if got, want := env.query(s, q), "t_a,t,1,t,1"; got != want {
		t.Fatalf("pg_index after DROP INDEX: %q, want %q", got, want)
	}
}

// pg_attribute has a row per column with PostgreSQL's typmods and
// format_type names; pg_type has every type and its array, and answers
// the type probe SQLAlchemy's psycopg2 dialect sends on connecting.
func TestPgAttributeAndType(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int NOT NULL, note varchar(20) DEFAULT 'x', amount numeric(10,2), placed timestamptz)")
	q := "SELECT a.attnum, a.attname, a.attnotnull, a.atthasdef, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'orders'"
	want := "1,id,t,f,integer 2,note,f,t,character varying(20) 3,amount,f,f,numeric(10,2) 4,placed,f,f,timestamp with time zone"
	if got := env.query(s, q); got != want {
		t.Fatalf("pg_attribute:\n got %q\nwant %q", got, want)
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT t.oid, typarray FROM pg_type t JOIN pg_namespace ns ON typnamespace = ns.oid WHERE typname = 'hstore'", ""},
		{"SELECT oid, typarray, typcategory FROM pg_type WHERE typname = 'int4'", "23,1007,N"},
		{"SELECT typname, typelem, typcategory FROM pg_type WHERE oid = 1231", "_numeric,1700,A"},
		{"SELECT count(*) FROM pg_type WHERE typnamespace = 11", "59"},
		{"SELECT oid, typname, typlen, typbyval, typcategory, typarray, typalign, typstorage, typinput, typoutput, typreceive, typsend FROM pg_type WHERE oid IN (1083, 1183) ORDER BY oid",
			"1083,time,8,t,D,1183,d,p,time_in,time_out,time_recv,time_send 1183,_time,-1,f,A,0,d,x,array_in,array_out,array_recv,array_send"},
		{"SELECT oid, typname, typcategory, typarray, typstorage, typinput, typreceive FROM pg_type WHERE typname IN ('json', 'jsonb', '_jsonb') ORDER BY oid",
			"114,json,U,199,x,json_in,json_recv 3802,jsonb,U,3807,x,jsonb_in,jsonb_recv 3807,_jsonb,A,0,x,array_in,array_recv"},
		{"SELECT oid, typname, typlen, typbyval, typcategory, typarray, typalign, typstorage, typinput, typsend FROM pg_type WHERE oid IN (17, 2950) ORDER BY oid",
			"17,bytea,-1,f,U,1001,i,x,byteain,byteasend 2950,uuid,16,f,U,2951,c,p,uuid_in,uuid_send"},
		{"SELECT typname, typelem, typcategory, typalign, typstorage FROM pg_type WHERE oid IN (1001, 2951) ORDER BY oid",
			"_bytea,17,A,i,x _uuid,2950,A,i,x"},
		{"SELECT format_type(1015, 14), format_type(23, NULL), format_type(99999, -1)", "character varying(10)[],integer,???"},
	} {
		if got := env.query(s, tc.q); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.q, got, tc.want)
		}
	}
}

// The relations Freshet has nothing to put in exist with PostgreSQL's
// columns and no rows, so catalog queries that join them run.
func TestEmptyCatalogRelations(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	for name := range emptyRelations {
		want := "0"
		if rows, ok := constRelationRows[name]; ok {
			want = fmt.Sprint(len(rows))
		}
		if got := env.query(s, "SELECT count(*) FROM pg_catalog."+name); got != want {
			t.Errorf("%s: %s rows, want %s", name, got, want)
		}
	}
	env.exec(s, "CREATE TABLE t (a int)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT a FROM t")
	if got := env.query(s, "SELECT schemaname, relname, n_live_tup FROM pg_stat_user_tables"); got != "public,m,0 public,t,0" {
		t.Errorf("pg_stat_user_tables: %q", got)
	}
	if got := env.query(s, "SELECT spcname FROM pg_tablespace WHERE oid = 1663"); got != "pg_default" {
		t.Errorf("pg_tablespace: %q", got)
	}
	q := "SELECT c.relname, d.description FROM pg_class c LEFT JOIN pg_description d ON d.objoid = c.oid AND d.objsubid = 0 WHERE pg_type_is_visible(23) AND pg_function_is_visible(1)"
	if got := env.query(s, q); got != "m,NULL t,NULL" {
		t.Fatalf("a join with pg_description: %q", got)
	}
	env.failsWith(s, "INSERT INTO pg_description VALUES (1, 1, 0, 'x')", "42501")
}

// information_schema's tables, columns, views and schemata follow the
// catalog, with PostgreSQL's types, lengths, precisions and defaults.
func TestInformationSchema(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int NOT NULL, name varchar(50), amount numeric(10,2), placed timestamptz, note text DEFAULT 'none')")
	env.exec(s, "CREATE VIEW big AS SELECT id FROM orders WHERE amount > 100")
	env.exec(s, "CREATE MATERIALIZED VIEW tot AS SELECT count(*) AS n FROM orders")
	for _, tc := range []struct{ q, want string }{
		{"SELECT table_name, table_type FROM information_schema.tables", "big,VIEW orders,BASE TABLE"},
		{"SELECT table_name, view_definition FROM information_schema.views", "big,SELECT id FROM orders WHERE amount > 100"},
		{"SELECT schema_name FROM information_schema.schemata", "information_schema pg_catalog public"},
		{"SELECT ordinal_position, column_name, is_nullable, data_type, character_maximum_length, numeric_precision, numeric_scale, column_default, udt_name FROM information_schema.columns WHERE table_name = 'orders'",
			"1,id,NO,integer,NULL,32,0,NULL,int4 2,name,YES,character varying,50,NULL,NULL,NULL,varchar 3,amount,YES,numeric,NULL,10,2,NULL,numeric 4,placed,YES,timestamp with time zone,NULL,NULL,NULL,NULL,timestamptz 5,note,YES,text,NULL,NULL,NULL,'none'::text,text"},
		{"SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef", "'none'::text"},
	} {
		if got := env.query(s, tc.q); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
	env.failsWith(s, "SELECT * FROM tables", "42P01")
}

// Every built-in and generated relation's SQL gives the columns it
// declares, name and type: the declaration is what the planner resolves
// the relation's columns by, the SQL what runs.
func TestBuiltinRelationsGiveTheirDeclaredTypes(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	check := func(schema, name string, cols []planner.RelationColumn) {
		t.Helper()
		sql := "SELECT * FROM " + schema + "." + name
		st, err := s.Parse(context.Background(), sql, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		got := st.Columns()
		if len(got) != len(cols) {
			t.Errorf("%s: %d columns, declares %d", name, len(got), len(cols))
			return
		}
		for i, c := range cols {
			want := c.Type.Type.OID()
			if k := c.Type.Type.Kind(); k.IsOIDKind() && k != repr.KindOID {
				// A query's reg* columns go to the client as text.
				want = repr.Text.OID()
			}
			if got[i].Name != c.Name || got[i].TypeOID != want {
				t.Errorf("%s column %d: gives %s (type %d), declares %s %s", name, i+1, got[i].Name, got[i].TypeOID, c.Name, c.Type.Type)
			}
		}
	}
	for name, v := range builtinViews {
		check("pg_catalog", name, v.columns)
	}
	for name, v := range generatedViews {
		check("pg_catalog", name, v.columns)
	}
	for name, v := range infoSchemaViews {
		check("information_schema", name, v.columns)
	}
}
