package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestRenameViewColumn renames a column of a plain view, one with an
// index on it: reads, the index, the catalog and CREATE OR REPLACE VIEW
// (which must keep the new name, as in PostgreSQL 15) see the new name,
// before and after a restart; a view that another reads is 2BP01.
func TestRenameViewColumn(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text)")
	env.exec(s, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	env.exec(s, "CREATE VIEW v AS SELECT a, b FROM t")
	env.exec(s, "CREATE INDEX v_b ON v (b)")
	env.exec(s, "ALTER VIEW v RENAME COLUMN b TO bb")
	env.exec(s, "ALTER TABLE v RENAME COLUMN a TO aa")
	env.failsWith(s, "ALTER VIEW v RENAME COLUMN zz TO q", sqlerr.UndefinedColumn, `column "zz" does not exist`)
	env.failsWith(s, "ALTER VIEW v RENAME COLUMN aa TO bb", sqlerr.DuplicateColumn, `column "bb" of relation "v" already exists`)
	env.failsWith(s, "SELECT b FROM v", sqlerr.UndefinedColumn, `column "b" does not exist`)
	env.failsWith(s, "CREATE OR REPLACE VIEW v AS SELECT a, b FROM t", sqlerr.InvalidTableDefinition, `cannot change name of view column "aa" to "a"`)
	check := func(when string) {
		t.Helper()
		if got := env.query(s, "SELECT aa, bb FROM v WHERE bb = 'y'"); got != "2,y" {
			t.Fatalf("%s: the renamed columns: %s", when, got)
		}
		if got := env.query(s, "SELECT attname FROM pg_attribute a JOIN pg_class c ON a.attrelid = c.oid WHERE c.relname = 'v' AND attnum > 0"); got != "aa bb" {
			t.Fatalf("%s: the renamed columns in the catalog: %s", when, got)
		}
		if got := env.query(s, "SELECT column_name FROM information_schema.columns WHERE table_name = 'v'"); got != "aa bb" {
			t.Fatalf("%s: information_schema.columns: %s", when, got)
		}
	}
	check("before a restart")
	env.restart()
	s = env.session()
	check("after a restart")
	env.exec(s, "INSERT INTO t VALUES (3, 'z')")
	if got := env.query(s, "SELECT aa FROM v WHERE bb = 'z'"); got != "3" {
		t.Fatalf("a write after a restart: %s", got)
	}
	env.exec(s, "DROP INDEX v_b")
	env.exec(s, "CREATE OR REPLACE VIEW v AS SELECT a AS aa, b AS bb, a + 1 AS c FROM t")
	if got := env.query(s, "SELECT aa, bb, c FROM v WHERE aa = 1"); got != "1,x,2" {
		t.Fatalf("the replaced view: %s", got)
	}
	env.exec(s, "CREATE VIEW w AS SELECT aa FROM v")
	env.failsWith(s, "ALTER VIEW v RENAME COLUMN c TO cc", sqlerr.DependentObjectsStillExist, "cannot rename view v because other objects depend on it")
}

// TestIndexedViewOID: a view with an index is read from the index's
// arrangement, but its name is still the view's: 'v'::regclass is the
// view's OID, as pg_class gives it, and pg_attribute by it lists the
// view's columns.
func TestIndexedViewOID(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text)")
	env.exec(s, "CREATE VIEW v AS SELECT a, b FROM t")
	env.exec(s, "CREATE INDEX v_b ON v (b)")
	if got := env.query(s, "SELECT 'v'::regclass::oid = oid, 'v_b'::regclass::oid <> oid FROM pg_class WHERE relname = 'v'"); got != "t,t" {
		t.Errorf("'v'::regclass against pg_class: %s", got)
	}
	if got := env.query(s, "SELECT attname FROM pg_attribute WHERE attrelid = 'v'::regclass AND attnum > 0"); got != "a b" {
		t.Errorf("pg_attribute of 'v'::regclass: %s", got)
	}
}
