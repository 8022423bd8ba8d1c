package coord

import (
	"fmt"
	"strings"
	"testing"

	"freshet/arrange"
	"freshet/sqlerr"
)

// TestRestartReplaysTablesAtOneTime: at startup a table's log is fed at
// one time, the read time, where its dataflow starts. The rows are those
// of the last write (a row inserted and deleted before the restart is
// not there at all), every update of the table's arrangement is at that
// time, the views over it agree, a write after the restart reaches them,
// and SUBSCRIBE AS OF a time before the restart is refused as compacted
// instead of showing the table empty there.
func TestRestartReplaysTablesAtOneTime(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text)")
	env.exec(s, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	before := env.e.ReadTime()
	env.exec(s, "DELETE FROM t WHERE a = 1")
	env.exec(s, "INSERT INTO t VALUES (3, 'z'), (3, 'z')")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(a) AS s FROM t")
	const rows, sums = "2,y 3,z 3,z", "3,8"
	if got := env.query(s, "SELECT * FROM t ORDER BY a"); got != rows {
		t.Fatalf("before the restart: %s", got)
	}

	env.restart()
	s = env.session()
	start := env.e.ReadTime()
	if got := env.query(s, "SELECT * FROM t ORDER BY a"); got != rows {
		t.Fatalf("after the restart: %s", got)
	}
	if got := env.query(s, "SELECT * FROM m"); got != sums {
		t.Fatalf("view after the restart: %s", got)
	}
	id := env.objectID("t")
	updates := 0
	for w := 0; w < 2; w++ {
		tr, err := env.e.reg.Trace(arrange.GlobalID(id), w)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Since() > start {
			t.Fatalf("worker %d: the table's trace is compacted to %d, past the read time %d", w, tr.Since(), start)
		}
		h, err := tr.NewHandle(tr.Since())
		if err != nil {
			t.Fatal(err)
		}
		c, err := h.Cursor()
		if err != nil {
			t.Fatal(err)
		}
		for ; c.KeyValid(); c.StepKey() {
			for ; c.ValValid(); c.StepVal() {
				c.History(func(tm uint64, d int64) {
					updates++
					if tm != start {
						t.Errorf("worker %d: row %x at %d, want the read time %d", w, c.Key(), tm, start)
					}
				})
			}
		}
		h.Close()
	}
	// (2,'y') and (3,'z') twice: one update each, nothing of (1,'x').
	if updates != 2 {
		t.Fatalf("the table's arrangement holds %d updates, want 2", updates)
	}
	env.failsWith(s, fmt.Sprintf("SUBSCRIBE t AS OF %d", before), sqlerr.InvalidParameterValue, "compacted")
	env.exec(s, "INSERT INTO t VALUES (4, 'w')")
	if got := env.query(s, "SELECT * FROM m"); got != "4,12" {
		t.Fatalf("view after a write: %s", got)
	}
}

// TestImportsAfterRewriteAndCancellingErrors: a SUBSCRIBE reads its
// inputs consolidated, so that the error a row made, which its deletion
// took back before the subscription started (in a later batch of the
// table's trace), does not end it; read as a materialized view reads
// (shared batches, unconsolidated) it would. And views made after ALTER
// TABLE … DROP COLUMN, whose table's trace held rows of the old shape
// until their retractions cancel them, read the table right.
func TestImportsAfterRewriteAndCancellingErrors(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text, c int)")
	env.exec(s, "INSERT INTO t VALUES (0, 'zero', 0)")
	for i := range 6 {
		env.exec(s, fmt.Sprintf("INSERT INTO t SELECT g, 'x' || g, g %% 3 FROM generate_series(%d, %d) g", 100*i+1, 100*i+100))
	}
	env.exec(s, "DELETE FROM t WHERE a = 0")
	env.exec(s, "CREATE MATERIALIZED VIEW before AS SELECT c, count(*) AS n, sum(a) AS s FROM t GROUP BY c")
	const groups = "0,200,60300 1,200,59900 2,200,60100"
	if got := env.query(s, "SELECT * FROM before ORDER BY c"); got != groups {
		t.Fatalf("view over the table: %s", got)
	}
	env.exec(s, "BEGIN")
	env.exec(s, "DECLARE q CURSOR FOR SUBSCRIBE (SELECT 10 / a AS r FROM t WHERE a < 3)")
	if got := env.query(s, "FETCH ALL q WITH (timeout = '1s')"); strings.Count(got, ",1,") != 2 {
		t.Fatalf("subscription over rows whose deleted neighbour failed: %q", got)
	}
	env.exec(s, "COMMIT")
	env.exec(s, "DROP MATERIALIZED VIEW before")
	env.exec(s, "ALTER TABLE t DROP COLUMN b")
	env.exec(s, "CREATE MATERIALIZED VIEW after AS SELECT c, count(*) AS n, sum(a) AS s FROM t GROUP BY c")
	if got := env.query(s, "SELECT * FROM after ORDER BY c"); got != groups {
		t.Fatalf("view made after DROP COLUMN: %s", got)
	}
	env.exec(s, "CREATE MATERIALIZED VIEW rows_after AS SELECT * FROM t WHERE a <= 2")
	if got := env.query(s, "SELECT * FROM rows_after ORDER BY a"); got != "1,1 2,2" {
		t.Fatalf("rows after DROP COLUMN: %s", got)
	}
}
