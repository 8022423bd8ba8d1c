package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestRename renames a table with a primary key and an index, one of
// its columns, a materialized view and its column, and a sequence, and
// checks reads, writes, the unique key's error, the catalog and every
// name after a restart; and the refusals: a rename under a view (2BP01),
// a taken name (42P07), a missing column (42703), a taken column name
// (42701), the wrong ALTER kind (42809), a non-owner (42501).
func TestRename(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	env.exec(s, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	env.exec(s, "CREATE INDEX t_b ON t (b)")
	env.exec(s, "CREATE SEQUENCE sq")
	env.exec(s, "ALTER TABLE t RENAME TO t2")
	env.failsWith(s, "SELECT * FROM t", sqlerr.UndefinedTable, `"t"`)
	env.exec(s, "ALTER TABLE t2 RENAME COLUMN b TO bb")
	env.exec(s, "ALTER TABLE t2 RENAME a TO aa")
	env.exec(s, "ALTER INDEX t_b RENAME TO t2_bb")
	env.exec(s, "ALTER SEQUENCE sq RENAME TO sq2")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t2")
	env.exec(s, "ALTER MATERIALIZED VIEW m RENAME TO m2")
	env.exec(s, "ALTER MATERIALIZED VIEW m2 RENAME COLUMN n TO total")

	env.fails(s, "INSERT INTO t2 VALUES (2, 'z')", sqlerr.UniqueViolation,
		`duplicate key value violates unique constraint "t_pkey"`, "Key (aa)=(2) already exists.")
	env.failsWith(s, "ALTER TABLE t2 RENAME TO m2", sqlerr.DuplicateTable, `relation "m2" already exists`)
	env.failsWith(s, "ALTER TABLE t2 RENAME COLUMN zz TO y", sqlerr.UndefinedColumn, `column "zz" does not exist`)
	env.failsWith(s, "ALTER TABLE t2 RENAME COLUMN aa TO bb", sqlerr.DuplicateColumn, `column "bb" of relation "t2" already exists`)
	env.failsWith(s, "ALTER VIEW t2 RENAME TO v", sqlerr.WrongObjectType, `"t2" is not a view`)
	env.failsWith(s, "ALTER TABLE t2 RENAME TO t3", sqlerr.DependentObjectsStillExist, "cannot rename table t2 because other objects depend on it")
	env.failsWith(s, "ALTER TABLE t2 RENAME COLUMN bb TO b", sqlerr.DependentObjectsStillExist, "cannot rename table t2")
	env.failsWith(s, "ALTER TABLE nope RENAME TO x", sqlerr.UndefinedTable, `relation "nope" does not exist`)
	env.exec(s, "ALTER TABLE IF EXISTS nope RENAME TO x")
	env.exec(s, "CREATE ROLE other LOGIN")
	env.failsWith(env.sessionAs("other"), "ALTER TABLE t2 RENAME TO t9", sqlerr.InsufficientPrivilege, "must be owner of table t2")

	check := func(when string) {
		t.Helper()
		if got := env.query(s, "SELECT aa, bb FROM t2 WHERE bb = 'y'"); got != "2,y" {
			t.Fatalf("%s: the renamed table and columns: %s", when, got)
		}
		if got := env.query(s, "SELECT total FROM m2"); got != "3" {
			t.Fatalf("%s: the renamed view and column: %s", when, got)
		}
		if got := env.query(s, "SELECT indexname FROM pg_indexes WHERE tablename = 't2' AND indexname = 't2_bb'"); got != "t2_bb" {
			t.Fatalf("%s: the renamed index: %q", when, got)
		}
		if got := env.query(s, "SELECT attname FROM pg_attribute WHERE attrelid = 't2'::regclass AND attnum > 0"); got != "aa bb" {
			t.Fatalf("%s: the renamed columns in the catalog: %s", when, got)
		}
		if got := env.query(s, "SELECT count(*) FROM pg_class WHERE relname IN ('t', 'm', 'sq', 't_b')"); got != "0" {
			t.Fatalf("%s: old names in pg_class: %s", when, got)
		}
	}
	env.exec(s, "INSERT INTO t2 VALUES (3, 'z')")
	if got := env.query(s, "SELECT nextval('sq2')"); got != "1" {
		t.Fatalf("the renamed sequence: %s", got)
	}
	check("before a restart")
	env.restart()
	s = env.session()
	check("after a restart")
	if got := env.query(s, "SELECT nextval('sq2')"); got != "2" {
		t.Fatalf("the renamed sequence after a restart: %s", got)
	}
	env.fails(s, "INSERT INTO t2 VALUES (1, 'q')", sqlerr.UniqueViolation,
		`duplicate key value violates unique constraint "t_pkey"`, "Key (aa)=(1) already exists.")
}
