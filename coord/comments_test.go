package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestComments sets comments on a table, a column, a view and an
// index, reads them through pg_description, obj_description and
// col_description, removes one with NULL and one with ”, and checks
// that they survive a restart; and the refusals: the wrong kind (42809),
// a missing column (42703) or relation (42P01), a non-owner (42501).
func TestComments(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE ct (id int PRIMARY KEY, name text, note text)")
	env.exec(s, "CREATE VIEW cv AS SELECT id FROM ct")
	env.exec(s, "CREATE INDEX ct_name ON ct (name)")
	env.exec(s, "COMMENT ON TABLE ct IS 'The customers'")
	env.exec(s, "COMMENT ON COLUMN ct.name IS 'Full name'")
	env.exec(s, "COMMENT ON COLUMN public.ct.note IS 'gone soon'")
	env.exec(s, "COMMENT ON VIEW cv IS 'Ids only'")
	env.exec(s, "COMMENT ON INDEX ct_name IS 'by name'")
	env.exec(s, "COMMENT ON COLUMN ct.note IS NULL")
	env.failsWith(s, "COMMENT ON VIEW ct IS 'x'", sqlerr.WrongObjectType, `"ct" is not a view`)
	env.failsWith(s, "COMMENT ON COLUMN ct.nope IS 'x'", sqlerr.UndefinedColumn, `column "nope" of relation "ct" does not exist`)
	env.failsWith(s, "COMMENT ON TABLE nope IS 'x'", sqlerr.UndefinedTable, `relation "nope" does not exist`)
	env.exec(s, "CREATE ROLE other LOGIN")
	env.failsWith(env.sessionAs("other"), "COMMENT ON TABLE ct IS 'mine'", sqlerr.InsufficientPrivilege, "must be owner of table ct")

	check := func(when string) {
		t.Helper()
		q := "SELECT obj_description('ct'::regclass, 'pg_class') || '|' || obj_description('cv'::regclass) || '|' || col_description('ct'::regclass, 2) || '|' || obj_description('ct_name'::regclass, 'pg_class')"
		if got := env.query(s, q); got != "The customers|Ids only|Full name|by name" {
			t.Fatalf("%s: the comments: %s", when, got)
		}
		if got := env.query(s, "SELECT count(*) FROM pg_description WHERE objoid = 'ct'::regclass"); got != "2" {
			t.Fatalf("%s: ct's rows of pg_description: %s", when, got)
		}
	}
	check("before a restart")
	env.restart()
	s = env.session()
	check("after a restart")
	env.exec(s, "COMMENT ON TABLE ct IS ''")
	if got := env.query(s, "SELECT count(*) FROM pg_description WHERE objoid = 'ct'::regclass AND objsubid = 0"); got != "0" {
		t.Fatalf("a comment removed with '': %s", got)
	}
}
