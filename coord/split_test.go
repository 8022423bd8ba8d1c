package coord

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"freshet/arrange"
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
	// Enough rows that the split starts mid-COPY and takes chunks after
	// it, and each worker's rows fill more than one message.
	rows := 5 * splitCopyRows
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
	for _, step := range []struct {
		name  string
		stmts []string
		want  map[string]string
	}{{
		name: "the first write",
		stmts: []string{
			"INSERT INTO a SELECT g, 1 FROM generate_series(1, 300) g",
			"INSERT INTO b SELECT g, 10 FROM generate_series(201, 500) g",
			"INSERT INTO a SELECT g, 2 FROM generate_series(301, 600) g",
			"INSERT INTO b VALUES (1, 20), (2, 20)",
		},
		want: map[string]string{
			"SELECT count(*), sum(v) FROM a": "600,900",
			"SELECT count(*), sum(w) FROM b": "302,3040",
			// Keys 1, 2 (1 + 20 each), 201-300 (1 + 10), 301-500 (2 + 10).
			"SELECT * FROM ab": "302,3542",
		},
	}, {
		name: "the deletes",
		stmts: []string{
			"DELETE FROM b WHERE k <= 250",
			"DELETE FROM a WHERE k > 450",
			"INSERT INTO b VALUES (1000, 5)",
		},
		want: map[string]string{
			"SELECT count(*), sum(v) FROM a": "450,600",
			"SELECT count(*), sum(w) FROM b": "251,2505",
			// Keys 251-300 (1 + 10) and 301-450 (2 + 10).
			"SELECT * FROM ab": "200,2350",
		},
	}} {
		env.exec(s, "BEGIN")
		for _, stmt := range step.stmts {
			env.exec(s, stmt)
		}
		env.exec(s, "COMMIT")
		for q, want := range step.want {
			if got := env.query(s, q); got != want {
				t.Fatalf("after %s, %s: %s, want %s", step.name, q, got, want)
			}
		}
	}
}

// TestSplitPlacesRows: for seeded random writes over three tables, with
// diffs of 0 among them, parts of every size, some packed as a COPY's
// are, and runs of one table long
// enough to fill several messages per worker, the split made during
// a commit and the one made while the parts are read agree, and each
// holds, per run of writes to one table, per worker, exactly the rows
// (diff not 0) that hash to that worker, in the order written, in
// chunks of at most splitMessage updates, or of as many of a packed
// part's rows picked; the one made while read
// also holds them as log blocks, in the order written.
func TestSplitPlacesRows(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 0x5b1))
			const workers = 2
			var writes writeSet
			var all []TableWrite
			table := uint64(1)
			for len(all) < 120000 {
				part := make([]TableWrite, rng.IntN(3000))
				if rng.IntN(4) == 0 {
					part = make([]TableWrite, 20000+rng.IntN(20000))
				}
				if rng.IntN(3) == 0 {
					table = 1 + rng.Uint64N(3)
				}
				if rng.IntN(3) == 0 {
					// A COPY's part: inserts into one table, packed.
					p := newPackedInserts(table, 0, len(part), 0)
					for i := range part {
						p.Data = fmt.Appendf(p.Data, "row %d", rng.IntN(1000))
						p.Ends = append(p.Ends, uint32(len(p.Data)))
						part[i] = TableWrite{Table: table, Row: p.Row(i), Diff: 1}
					}
					writes = append(writes, writePart{packed: p})
					all = append(all, part...)
					continue
				}
				for i := range part {
					if rng.IntN(20000) == 0 {
						table = 1 + rng.Uint64N(3)
					}
					part[i] = TableWrite{Table: table, Row: fmt.Appendf(nil, "row %d", rng.IntN(1000)), Diff: int64(rng.IntN(5)) - 2}
				}
				writes = append(writes, writePart{writes: part})
				all = append(all, part...)
			}

			// What each run should hold, per worker.
			type run struct {
				table uint64
				rows  [workers][]arrange.Update
			}
			var want []run
			n := 0
			for _, w := range all {
				if w.Diff == 0 {
					continue
				}
				if len(want) == 0 || want[len(want)-1].table != w.Table {
					want = append(want, run{table: w.Table})
				}
				k := arrange.KeyHash(w.Row) % workers
				r := &want[len(want)-1]
				r.rows[k] = append(r.rows[k], arrange.Update{Key: w.Row, Diff: w.Diff})
				n++
			}

			read := splitWhileRead(workers)
			for _, part := range writes {
				read.addPart(part)
			}
			if err := read.finish(); err != nil {
				t.Fatal(err)
			}
			for name, sp := range map[string]*splitWrites{"during": splitDuring(writes, workers), "read": read} {
				if sp.rows != n || len(sp.runs) != len(want) {
					t.Fatalf("%s: %d rows in %d runs, want %d in %d", name, sp.rows, len(sp.runs), n, len(want))
				}
				for i, r := range sp.runs {
					if r.table != want[i].table {
						t.Fatalf("%s: run %d is of table %d, want %d", name, i, r.table, want[i].table)
					}
					for k, chunks := range r.chunks {
						var got []arrange.Update
						for _, c := range chunks {
							if c.Pick != nil {
								if len(c.Updates) > 0 || len(c.Pick) == 0 || len(c.Pick) > splitMessage {
									t.Fatalf("%s: run %d, worker %d: a chunk of %d updates and %d picks", name, i, k, len(c.Updates), len(c.Pick))
								}
								for _, p := range c.Pick {
									got = append(got, arrange.Update{Key: c.Rows.Row(int(p)), Diff: 1})
								}
								continue
							}
							if len(c.Updates) == 0 || len(c.Updates) > splitMessage {
								t.Fatalf("%s: run %d, worker %d: a chunk of %d updates", name, i, k, len(c.Updates))
							}
							got = append(got, c.Updates...)
						}
						if !slices.EqualFunc(got, want[i].rows[k], func(a, b arrange.Update) bool {
							return string(a.Key) == string(b.Key) && a.Diff == b.Diff && a.Time == 0 && len(a.Val) == 0
						}) {
							t.Fatalf("%s: run %d, worker %d: %d updates, not the %d rows that hash there, in order", name, i, k, len(got), len(want[i].rows[k]))
						}
					}
				}
			}
			i := 0
			read.blocks.Each(func(table uint64, row []byte, diff int64) {
				for all[i].Diff == 0 {
					i++
				}
				if w := all[i]; w.Table != table || string(w.Row) != string(row) || w.Diff != diff {
					t.Fatalf("a block's update is not write %d", i)
				}
				i++
			})
			if read.blocks.Len() != n {
				t.Fatalf("%d updates in blocks, want %d", read.blocks.Len(), n)
			}
		})
	}
}
