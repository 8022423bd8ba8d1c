package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestSizeFunctions checks the size functions on a table with an index
// and a materialized view: sizes grow with the rows, a table's total is
// its own size plus its indexes', a view that is not materialized and a
// built-in relation hold nothing, a fork other than main is empty, the
// database holds at least the table, the calls run per row over
// pg_class (as psql's \dt+ makes them), and an unknown database is
// 3D000. Sizes are compared, not fixed: they are the arrangements'
// bytes, which depend on how batches happen to be merged.
func TestSizeFunctions(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE st (id int PRIMARY KEY, name text)")
	env.exec(s, "CREATE VIEW sv AS SELECT id FROM st")
	empty := env.query(s, "SELECT pg_table_size('st')")
	env.exec(s, "INSERT INTO st SELECT g, 'name ' || g FROM generate_series(1, 5000) g")
	env.exec(s, "CREATE INDEX st_name ON st (name)")
	env.exec(s, "CREATE MATERIALIZED VIEW sm AS SELECT name FROM st")
	checks := map[string]string{
		"SELECT pg_table_size('st') > " + empty:                                                                      "t",
		"SELECT pg_relation_size('st') = pg_table_size('st')":                                                        "t",
		"SELECT pg_indexes_size('st') > 0":                                                                           "t",
		"SELECT pg_total_relation_size('st') = pg_table_size('st') + pg_indexes_size('st')":                          "t",
		"SELECT pg_table_size('sm') > 0, pg_indexes_size('sm')":                                                      "t,0",
		"SELECT pg_table_size('sv'), pg_table_size('pg_class'), pg_relation_size('st', 'vm')":                        "0,0,0",
		"SELECT pg_database_size('freshet') >= pg_total_relation_size('st')":                                         "t",
		"SELECT count(*) FROM pg_class WHERE relname IN ('st', 'st_name', 'sm') AND pg_total_relation_size(oid) > 0": "3",
		"SELECT pg_size_pretty(pg_table_size(NULL))":                                                                 "NULL",
	}
	for q, want := range checks {
		if got := env.query(s, q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	env.failsWith(s, "SELECT pg_database_size('nope')", sqlerr.InvalidCatalogName, `database "nope" does not exist`)
	env.failsWith(s, "SELECT pg_relation_size('st', 'heap')", sqlerr.InvalidParameterValue, "invalid fork name")
	env.failsWith(s, "CREATE MATERIALIZED VIEW bad AS SELECT pg_table_size('st')", sqlerr.FeatureNotSupported, "pg_table_size")
}
