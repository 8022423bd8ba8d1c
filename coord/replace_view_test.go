package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestCreateOrReplaceView replaces a view with a query that keeps its
// columns and adds one, reads it and a view over it, checks PostgreSQL's
// refusals (dropped, renamed or retyped columns 42P16, a table 42809, a
// view a materialized view reads 0A000) and that the new definition
// survives a restart.
func TestCreateOrReplaceView(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE vt (a int, b text)")
	env.exec(s, "INSERT INTO vt VALUES (1, 'x'), (2, 'y')")
	env.exec(s, "CREATE OR REPLACE VIEW vv AS SELECT a FROM vt")
	env.exec(s, "CREATE VIEW vw AS SELECT a FROM vv")
	env.exec(s, "CREATE OR REPLACE VIEW vv AS SELECT a, b FROM vt WHERE a > 1")
	if got := env.query(s, "SELECT a, b FROM vv"); got != "2,y" {
		t.Fatalf("the replaced view: %s", got)
	}
	if got := env.query(s, "SELECT a FROM vw"); got != "2" {
		t.Fatalf("a view over the replaced view: %s", got)
	}
	env.failsWith(s, "CREATE OR REPLACE VIEW vv AS SELECT b, a FROM vt", sqlerr.InvalidTableDefinition, `cannot change name of view column "a" to "b"`)
	env.failsWith(s, "CREATE OR REPLACE VIEW vv AS SELECT a FROM vt", sqlerr.InvalidTableDefinition, "cannot drop columns from view")
	env.failsWith(s, "CREATE OR REPLACE VIEW vv AS SELECT a::bigint AS a, b FROM vt", sqlerr.InvalidTableDefinition, `cannot change data type of view column "a"`)
	env.failsWith(s, "CREATE OR REPLACE VIEW vt AS SELECT 1 AS a", sqlerr.WrongObjectType, `"vt" is not a view`)
	env.exec(s, "CREATE MATERIALIZED VIEW vm AS SELECT count(*) FROM vv")
	env.failsWith(s, "CREATE OR REPLACE VIEW vv AS SELECT a, b FROM vt", sqlerr.FeatureNotSupported, "a materialized view or index reads it")
	env.exec(s, "DROP MATERIALIZED VIEW vm")
	env.exec(s, "CREATE OR REPLACE VIEW vv AS SELECT a, b, a * 10 AS c FROM vt")
	env.restart()
	s = env.session()
	if got := env.query(s, "SELECT a, b, c FROM vv"); got != "1,x,10 2,y,20" {
		t.Fatalf("the replaced view after a restart: %s", got)
	}
}
