package coord

import (
	"fmt"
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
