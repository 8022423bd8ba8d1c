package coord

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestCopySplitByWorker copies more rows than a COPY reads before it
// splits them by worker as it reads (splitCopyRows), so that its commit
// writes the blocks it encoded and its feed sends the messages it split:
//   - the rows reach the table, an index and a view over it, all at the
//     COPY's one time, after a subscription's snapshot and before the
//     next write;
//   - a delete of some of them retracts each where it was put, so that
//     point reads by key find none of them;
//   - a COPY that fails past the split leaves nothing;
//   - the same rows copied in a transaction block, which does not
//     split, read the same;
//   - the table's log holds them all across a restart.
func TestCopySplitByWorker(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, sub := env.session(), env.session()
	env.exec(s, "CREATE TABLE big (id int PRIMARY KEY, v int)")
	env.exec(s, "CREATE TABLE blocked (id int PRIMARY KEY, v int)")
	env.exec(s, "CREATE INDEX big_v ON big (v)")
	env.exec(s, "CREATE MATERIALIZED VIEW big_sum AS SELECT count(*) AS n, sum(v) AS s FROM big")
	rows := 3 * splitCopyRows
	data := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "%d\t%d\n", i, i%7)
		}
		return b.String()
	}
	sums := func(keep func(int) bool) string {
		n, sum := 0, 0
		for i := range rows {
			if keep(i) {
				n, sum = n+1, sum+i%7
			}
		}
		return fmt.Sprintf("%d,%d", n, sum)
	}

	out := &lines{ch: make(chan string, 100)}
	done := make(chan error, 1)
	go func() {
		done <- sub.Query(context.Background(), "COPY (SUBSCRIBE (SELECT count(*) FROM big) WITH (PROGRESS)) TO STDOUT", out)
	}()
	snap := []string{out.next(t), out.next(t)}
	if got := changes(snap...); got != "f	1	0 | t	\\N	\\N" {
		t.Fatalf("snapshot: %s", got)
	}
	snapTime, _, _ := strings.Cut(snap[0], "\t")

	if err := env.copyIn(s, "COPY big FROM STDIN", data(0, rows)); err != nil {
		t.Fatal(err)
	}
	if n := env.splitReadFed(); n != 1 {
		t.Fatalf("%d writes fed split, want the COPY's", n)
	}
	got := out.changesThrough(t, 2)
	if c := changes(got...); c != fmt.Sprintf("f	-1	0 | f	1	%d", rows) {
		t.Fatalf("the subscription after the COPY: %s", c)
	}
	copyTime, _, _ := strings.Cut(got[0], "\t")
	if other, _, _ := strings.Cut(got[1], "\t"); other != copyTime || !later(copyTime, snapTime) {
		t.Fatalf("the COPY's changes at %s and %s, want one time after the snapshot's %s", copyTime, other, snapTime)
	}
	env.exec(s, fmt.Sprintf("INSERT INTO big VALUES (%d, 0)", rows))
	got = out.changesThrough(t, 2)
	if next, _, _ := strings.Cut(got[0], "\t"); !later(next, copyTime) {
		t.Fatalf("the next write's time %s is not after the COPY's %s", next, copyTime)
	}
	env.exec(s, fmt.Sprintf("DELETE FROM big WHERE id = %d", rows))

	all := sums(func(int) bool { return true })
	for _, q := range []string{"SELECT * FROM big_sum", "SELECT count(*), sum(v) FROM big"} {
		if got := env.query(s, q); got != all {
			t.Fatalf("%s after the COPY: %s, want %s", q, got, all)
		}
	}
	if got, want := env.query(s, "SELECT count(*) FROM big WHERE v = 3"), sums(func(i int) bool { return i%7 == 3 }); !strings.HasPrefix(want, got+",") {
		t.Fatalf("rows the index finds for v = 3: %s, want %s", got, want)
	}

	env.exec(s, "DELETE FROM big WHERE id % 3 = 0")
	kept := sums(func(i int) bool { return i%3 != 0 })
	check := func(when string) {
		t.Helper()
		for _, q := range []string{"SELECT * FROM big_sum", "SELECT count(*), sum(v) FROM big"} {
			if got := env.query(s, q); got != kept {
				t.Fatalf("%s %s: %s, want %s", q, when, got, kept)
			}
		}
		for _, id := range []int{0, 3, 9999, rows - 1, 1, 10000, rows - 2} {
			want := ""
			if id%3 != 0 {
				want = fmt.Sprint(id % 7)
			}
			if got := env.query(s, fmt.Sprintf("SELECT v FROM big WHERE id = %d", id)); got != want {
				t.Fatalf("row %d %s: %q, want %q", id, when, got, want)
			}
		}
		if got := env.query(s, "SELECT count(*) FROM blocked"); got != fmt.Sprint(rows) {
			t.Fatalf("the block's rows %s: %s, want %d", when, got, rows)
		}
		if got := env.query(s, "SELECT count(*) FROM blocked b JOIN big USING (id)"); got != strings.Split(kept, ",")[0] {
			t.Fatalf("the block's rows joined to the split rows %s: %s, want %s", when, got, kept)
		}
	}

	// A bad last row, read long after the split began.
	err := env.copyIn(s, "COPY big FROM STDIN", data(rows+1, 2*rows)+"x\t1\n")
	if code := sqlerr.Code(err); code != sqlerr.InvalidTextRepresentation {
		t.Fatalf("a COPY with a bad last row: %v, want %s", err, sqlerr.InvalidTextRepresentation)
	}
	env.exec(s, "BEGIN")
	if err := env.copyIn(s, "COPY blocked FROM STDIN", data(0, rows)); err != nil {
		t.Fatal(err)
	}
	env.exec(s, "COMMIT")
	if n := env.splitReadFed(); n != 1 {
		t.Fatalf("%d writes fed split, want only the first COPY's", n)
	}
	check("after the deletes")

	env.b.Cancel(sub.key)
	if err := <-done; sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("the cancelled subscription: %v", err)
	}
	env.restart()
	s = env.session()
	check("after a restart")
}

// splitReadFed returns how many writes were fed split while they were
// read.
func (env *sqlEnv) splitReadFed() int {
	env.e.mu.Lock()
	defer env.e.mu.Unlock()
	return env.e.splitReadFed
}

// later reports whether timestamp a is after b, both in decimal.
func later(a, b string) bool {
	return len(a) > len(b) || (len(a) == len(b) && a > b)
}

// TestWriteSplitAcrossTables commits one write whose runs of rows
// alternate between two tables (a transaction block's statements), so
// that its split for the feed holds several runs, some of one table:
// each table, and a join over both, read the rows written to it and to
// no other, then after a second write that retracts some of each and
// adds to one again.
func TestWriteSplitAcrossTables(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE a (k int, v int)")
	env.exec(s, "CREATE TABLE b (k int, w int)")
	env.exec(s, "CREATE MATERIALIZED VIEW ab AS SELECT count(*) AS n, sum(v + w) AS s FROM a JOIN b USING (k)")
	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO a SELECT g, 1 FROM generate_series(1, 300) g")
	env.exec(s, "INSERT INTO b SELECT g, 10 FROM generate_series(201, 500) g")
	env.exec(s, "INSERT INTO a SELECT g, 2 FROM generate_series(301, 600) g")
	env.exec(s, "INSERT INTO b VALUES (1, 20), (2, 20)")
	env.exec(s, "COMMIT")
	for q, want := range map[string]string{
		"SELECT count(*), sum(v) FROM a": "600,900",
		"SELECT count(*), sum(w) FROM b": "302,3040",
		// Keys 1, 2 (1 + 20 each), 201-300 (1 + 10), 301-500 (2 + 10).
		"SELECT * FROM ab": "302,3542",
	} {
		if got := env.query(s, q); got != want {
			t.Fatalf("%s: %s, want %s", q, got, want)
		}
	}
	env.exec(s, "BEGIN")
	env.exec(s, "DELETE FROM b WHERE k <= 250")
	env.exec(s, "DELETE FROM a WHERE k > 450")
	env.exec(s, "INSERT INTO b VALUES (1000, 5)")
	env.exec(s, "COMMIT")
	for q, want := range map[string]string{
		"SELECT count(*), sum(v) FROM a": "450,600",
		"SELECT count(*), sum(w) FROM b": "251,2505",
		// Keys 251-300 (1 + 10) and 301-450 (2 + 10).
		"SELECT * FROM ab": "200,2350",
	} {
		if got := env.query(s, q); got != want {
			t.Fatalf("after the deletes, %s: %s, want %s", q, got, want)
		}
	}
}
