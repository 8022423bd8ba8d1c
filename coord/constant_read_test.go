package coord

import "testing"

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
	if n := built() - before; n != 0 {
		t.Errorf("%d dataflows built for constants", n)
	}
	if got := env.query(s, "SELECT a, b FROM t"); got != "1,1.3 1,1.3 2,NULL 3,-0.1" {
		t.Errorf("t holds %q", got)
	}
}
