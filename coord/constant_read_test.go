package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestConstantReadBuildsNoDataflow: an INSERT … VALUES and a VALUES
// query read their constant rows without building a dataflow, and give
// the rows, duplicates consolidated, as one would.
func TestConstantReadBuildsNoDataflow(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b numeric(4,1))")
	built := func() int64 {
		st := env.e.cluster.Stats()
		return st.Building + st.Running + st.Completed + st.Dropped + st.Failed
	}
	before := built()
	env.exec(s, "INSERT INTO t VALUES (1, 1.25), (2, NULL), (1, 1.25), (3, -0.05)")
	if got := env.query(s, "VALUES (2, 'b'), (1, 'a'), (2, 'b')"); got != "1,a 2,b 2,b" {
		t.Errorf("VALUES gave %q", got)
	}
	// Expressions over a constant fold to one, filters too; casts over
	// VALUES are what an INSERT into a numeric column reads.
	if got := env.query(s, "SELECT 1 + 2, 'a' || 'b', now() IS NOT NULL"); got != "3,ab,t" {
		t.Errorf("SELECT of expressions gave %q", got)
	}
	if got := env.query(s, "SELECT x * 2 FROM (VALUES (1), (2), (3)) v(x) WHERE x > 1"); got != "4 6" {
		t.Errorf("filtered VALUES gave %q", got)
	}
	env.exec(s, "INSERT INTO t VALUES (4, 2.25::float8), (5, '0.5')")
	if n := built() - before; n != 0 {
		t.Errorf("%d dataflows built for constants", n)
	}
	// A step that fails, and one that draws a value per row, are left
	// to a dataflow, which reports and draws them as for any plan.
	env.failsWith(s, "SELECT 1 / 0", sqlerr.DivisionByZero, "division by zero")
	// A statement that cancels itself while it is planned is cancelled,
	// folded or not, as in PostgreSQL.
	env.failsWith(s, "SELECT pg_cancel_backend(pg_backend_pid())", sqlerr.QueryCanceled)
	before = built()
	if got := env.query(s, "SELECT random() < 1"); got != "t" {
		t.Errorf("SELECT random() < 1 gave %q", got)
	}
	if built() == before {
		t.Errorf("no dataflow built for random()")
	}
	if got := env.query(s, "SELECT a, b FROM t"); got != "1,1.3 1,1.3 2,NULL 3,-0.1 4,2.3 5,0.5" {
		t.Errorf("t holds %q", got)
	}
}
