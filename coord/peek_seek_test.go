package coord

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"freshet/compute"
	"freshet/expr"
	"freshet/repr"
)

// TestPeekSeeksPinnedColumns: a read that pins the leading columns of
// what it reads to constants (`WHERE k = 5`), to a list of them (`IN`)
// or to a range seeks to them and reads only their rows, and answers
// what the same predicate evaluated on every row answers, for values whose equality is not spelling: numerics
// of different scales, -0 and NaN among floats, instants written in
// other zones, text with trailing spaces. Kinds whose `=` is looser than
// their encoding (bpchar, interval) are read whole, with the same
// answers, streamed or read whole (ORDER BY). The oracle is `k = constant` as a column of the whole read,
// which no seek can shorten. A column that does not lead is compared by
// its encoding, with the same answers.
func TestPeekSeeksPinnedColumns(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "SET TIME ZONE 'UTC'")
	// rows are a query's rows, sorted (values may hold spaces).
	rows := func(q string) []string {
		t.Helper()
		r := &recorder{}
		if err := s.Query(context.Background(), q, r); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return sortedCopy(r.rows)
	}
	for i, c := range []struct {
		typ    string
		values []string
		probes []string
		seeks  bool
	}{
		{"int", []string{"0", "1", "-1", "5", "2147483647"}, []string{"5", "-1", "7"}, true},
		{"bigint", []string{"0", "5", "-9000000000"}, []string{"5", "-9000000000"}, true},
		{"numeric", []string{"1", "1.0", "1.00", "-0.5", "0", "-0", "1e3", "NaN", "10"}, []string{"1.000", "0", "-0.0", "NaN", "1000", "0.1"}, true},
		{"float8", []string{"0", "-0", "NaN", "Infinity", "-Infinity", "1.5"}, []string{"-0", "0", "NaN", "Infinity", "1.5", "2"}, true},
		{"text", []string{"", "a", "a ", "ab", "b"}, []string{"", "a", "a ", "ab", "c"}, true},
		{"bool", []string{"true", "false"}, []string{"true", "false"}, true},
		{"date", []string{"2024-01-01", "2024-01-02", "infinity"}, []string{"2024-01-02", "infinity"}, true},
		{"timestamptz", []string{"2024-01-01 00:00:00+00", "2024-01-01 01:00:00+01", "2024-01-01 00:00:01+00"}, []string{"2024-01-01 02:00:00+02", "2024-01-01 00:00:01+00"}, true},
		{"bytea", []string{`\x00`, `\x0000`, `\x`}, []string{`\x00`, `\x`}, true},
		{"uuid", []string{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "00000000-0000-0000-0000-000000000000"}, []string{"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"}, true},
		{"char(3)", []string{"a", "a  ", "ab"}, []string{"a", "a ", "ab "}, false},
		{"interval", []string{"1 day", "24 hours", "1 mon", "30 days"}, []string{"1 day", "30 days"}, false},
	} {
		// k leads in name's rows and follows v in second's: a read of
		// name seeks, and one of second compares each row's k with the
		// constant's encoding (Peek.Rejects).
		name, second := fmt.Sprintf("k%d", i), fmt.Sprintf("k%db", i)
		env.exec(s, fmt.Sprintf("CREATE TABLE %s (k %s, v int)", name, c.typ))
		env.exec(s, fmt.Sprintf("CREATE TABLE %s (v int, k %s)", second, c.typ))
		total := 0
		for j, v := range c.values {
			// Each value in three rows, one of them twice.
			env.exec(s, fmt.Sprintf("INSERT INTO %s VALUES ('%s', %d), ('%s', %d), ('%s', %d), ('%s', %d)", name, v, j, v, j+100, v, j+200, v, j+200))
			env.exec(s, fmt.Sprintf("INSERT INTO %s SELECT v, k FROM %s WHERE v %% 100 = %d", second, name, j))
			total += 4
		}
		env.exec(s, fmt.Sprintf("INSERT INTO %s VALUES (NULL, -1)", name))
		env.exec(s, fmt.Sprintf("INSERT INTO %s VALUES (-1, NULL)", second))
		total++
		for pi, probe := range c.probes {
			other := c.probes[(pi+1)%len(c.probes)]
			for _, w := range []struct {
				where string
				// reads is what a seek reads: the rows kept, but for a
				// strict lower bound also the rows at it, and for a run
				// with no upper bound the NULLs, which sort last.
				reads string
			}{
				{fmt.Sprintf("k = '%s'", probe), ""},
				{fmt.Sprintf("k IN ('%s', '%s')", probe, other), ""},
				{fmt.Sprintf("k < '%s'", probe), ""},
				{fmt.Sprintf("k >= '%s' AND k <= '%s'", probe, other), ""},
				{fmt.Sprintf("k > '%s'", probe), fmt.Sprintf("k >= '%s' OR k IS NULL", probe)},
				{fmt.Sprintf("'%s' >= k AND k > '%s'", probe, other), fmt.Sprintf("k <= '%s' AND k >= '%s'", probe, other)},
			} {
				q := fmt.Sprintf("SELECT k::text, v FROM %s WHERE %s", name, w.where)
				before := env.e.streamedRows.Load()
				got := rows(q)
				taken := env.e.streamedRows.Load() - before
				// The oracle: every row read, the predicate a column.
				want := kept(rows(fmt.Sprintf("SELECT k::text, v, (%s)::text FROM %s", w.where, name)))
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s WHERE %s: got %q, want %q", c.typ, name, w.where, got, want)
				}
				// ORDER BY reads the same runs whole, then sorts (Engine.peek).
				if sorted := rows(q + " ORDER BY 2"); !slices.Equal(sorted, want) {
					t.Errorf("%s: %s WHERE %s with ORDER BY: got %q, want %q", c.typ, name, w.where, sorted, want)
				}
				if scanned := rows(fmt.Sprintf("SELECT k::text, v FROM %s WHERE %s", second, w.where)); !slices.Equal(scanned, want) {
					t.Errorf("%s: %s WHERE %s: got %q, want %q", c.typ, second, w.where, scanned, want)
				}
				// A row read twice is one entry with a count of two.
				entries := func(rows []string) int64 {
					n := int64(0)
					for j, r := range rows {
						if j == 0 || r != rows[j-1] {
							n++
						}
					}
					return n
				}
				read := entries(want)
				if w.reads != "" {
					read = entries(kept(rows(fmt.Sprintf("SELECT k::text, v, (%s)::text FROM %s", w.reads, name))))
				}
				switch {
				case c.seeks && taken != read:
					t.Errorf("%s: %s read %d rows of the table's arrangement, want %d", c.typ, w.where, taken, read)
				case !c.seeks && taken != int64(total-len(c.values)):
					t.Errorf("%s: %s read %d rows of the table's arrangement, want all %d", c.typ, w.where, taken, total-len(c.values))
				}
			}
		}
	}
}

// kept returns the rows whose last column is true, without it, sorted:
// the rows of `SELECT …, (predicate)::text` the predicate keeps.
func kept(rows []string) []string {
	var out []string
	for _, row := range rows {
		if cut, ok := strings.CutSuffix(row, ",true"); ok {
			out = append(out, cut)
		}
	}
	slices.Sort(out)
	return out
}

// TestPeekSeeksIndexKey: through an index on a view, a read that pins
// the index's leading key columns seeks to them in the index's key
// order, and one that pins only a later key column reads every row.
func TestPeekSeeksIndexKey(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text, c int)")
	env.exec(s, "INSERT INTO t SELECT g % 10, 'b' || (g % 7), g FROM generate_series(1, 700) g")
	env.exec(s, "CREATE VIEW w AS SELECT a, b, c FROM t WHERE c > 0")
	env.exec(s, "CREATE INDEX w_ba ON w (b, a)")
	for _, c := range []struct {
		where string
		read  int64
	}{
		{"b = 'b3'", 100},
		{"b = 'b3' AND a = 4", 10},
		{"a = 4 AND b = 'b3'", 10},
		{"a = 4", 700},
		{"b = 'none'", 0},
	} {
		before := env.e.streamedRows.Load()
		got := env.query(s, "SELECT a, b, c FROM w WHERE "+c.where)
		taken := env.e.streamedRows.Load() - before
		want := env.query(s, "SELECT a, b, c FROM t WHERE "+c.where)
		if got != want {
			t.Errorf("%s: through the index %q, from the table %q", c.where, got, want)
		}
		if taken != c.read {
			t.Errorf("%s: read %d rows of the index, want %d", c.where, taken, c.read)
		}
	}
}

// TestPeekReadsIndexOfRelation: a read of a table or materialized view
// that pins the leading key columns of an index on it seeks in the index
// (the one whose key it bounds most of), and one
// that pins more of the relation's own key, or of no index, reads the
// relation. An index that holds fewer columns than the relation (after
// ADD COLUMN) or is gone is not read. The answers are those of the
// predicate evaluated on every row.
func TestPeekReadsIndexOfRelation(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text, c int)")
	env.exec(s, "INSERT INTO t SELECT g % 10, 'b' || (g % 7), g FROM generate_series(1, 700) g")
	env.exec(s, "CREATE INDEX t_b ON t (b)")
	env.exec(s, "CREATE INDEX t_ba ON t (b, a)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT a, b, count(*) AS n FROM t GROUP BY a, b")
	env.exec(s, "CREATE INDEX m_n ON m (n, b)")
	check := func(from, cols, where string, read int64) {
		t.Helper()
		before := env.e.streamedRows.Load()
		got := env.query(s, "SELECT "+cols+" FROM "+from+" WHERE "+where)
		taken := env.e.streamedRows.Load() - before
		want := kept(strings.Split(env.query(s, "SELECT "+cols+", ("+where+")::text FROM "+from), " "))
		if got != strings.Join(want, " ") {
			t.Errorf("%s WHERE %s: got %q, want %q", from, where, got, strings.Join(want, " "))
		}
		if taken != read {
			t.Errorf("%s WHERE %s: read %d rows, want %d", from, where, taken, read)
		}
	}
	check("t", "a, b, c", "b = 'b3'", 100)          // t_b or t_ba
	check("t", "a, b, c", "b = 'b3' AND a = 3", 10) // t_ba: g % 70 = 3
	check("t", "a, b, c", "a = 3 AND b = 'b3'", 10)
	check("t", "a, b, c", "a = 4", 70)                 // the table's own key leads with a
	check("t", "a, b, c", "c = 5", 700)                // no index on c
	check("t", "a, b, c", "b = 'b3' AND c > 600", 100) // a filter besides the key
	check("m", "a, b, n", "n = 10 AND b = 'b1'", 10)   // m_n: 70 groups of 10
	env.exec(s, "ALTER TABLE t ADD COLUMN d int")
	check("t", "a, b, c, d", "b = 'b3'", 700) // the indexes hold three columns of four
	env.exec(s, "DROP INDEX t_b")
	env.exec(s, "DROP INDEX t_ba")
	env.exec(s, "DROP INDEX m_n")
	check("m", "a, b, n", "n = 10 AND b = 'b1'", 70)
}

// TestPeekOfIndexThatCannotBeRead: an index chosen for a read that
// cannot be read when the read takes its cursors, dropped meanwhile or
// built after the read's time, leaves the read to the arrangement the
// peek gets, streamed or whole, with the same rows; and an index built
// after a read's time is not chosen for it.
func TestPeekOfIndexThatCannotBeRead(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text)")
	env.exec(s, "INSERT INTO t SELECT g, 'b' || (g % 7) FROM generate_series(1, 700) g")
	id := env.objectID("t")
	get := expr.Get{ID: expr.GlobalID(id), Name: "t", Types: []expr.ColumnType{{Type: repr.Int4, Nullable: true}, {Type: repr.Text, Nullable: true}}}
	p, ok := compute.PeekOf(expr.Filter{Input: get, Predicates: []expr.Scalar{
		expr.CallBinary{Func: expr.Eq, Left: expr.Column{Index: 1}, Right: expr.Literal{Value: repr.NewText("b3"), Type: repr.Text}},
	}})
	if !ok {
		t.Fatal("not a peek")
	}
	ctx := context.Background()
	read := func(what string, src, own peekSource, ts uint64, want int) {
		t.Helper()
		streamed := 0
		if err := env.e.streamPeekVia(ctx, p, src, own, []uint64{id}, ts, func([]repr.Datum) error {
			streamed++
			return nil
		}); err != nil {
			t.Fatalf("%s, streamed: %v", what, err)
		}
		rows, err := env.e.peekVia(ctx, p, src, own, ts)
		if err != nil {
			t.Fatalf("%s, read whole: %v", what, err)
		}
		n := 0
		for _, r := range rows {
			n += int(r.Diff)
		}
		if streamed != want || n != want {
			t.Errorf("%s: %d rows streamed and %d read whole, want %d", what, streamed, n, want)
		}
	}

	// A read's time, held, before the index and 70 more rows of b3.
	old, release := env.e.AcquireRead()
	defer release()
	env.exec(s, "INSERT INTO t SELECT g, 'b3' FROM generate_series(701, 770) g")
	env.exec(s, "CREATE INDEX t_b ON t (b)")
	now, releaseNow := env.e.AcquireRead()
	defer releaseNow()
	src, own := env.e.peekSource(p, now)
	if !src.index || src.id != env.objectID("t_b") || own.id != id {
		t.Fatalf("a read now would not seek in t_b: %+v, %+v", src, own)
	}
	if early, _ := env.e.peekSource(p, old); early.index {
		t.Errorf("a read before the index was built would read it: %+v", early)
	}
	// Forced: the net under the choice.
	read("an index built after the read's time", src, own, old, 100)
	read("the index", src, own, now, 170)
	env.exec(s, "DROP INDEX t_b")
	read("a dropped index", src, own, now, 170)
}

// TestPeekIndexInATransaction: a transaction block reads at its first
// statement's time; an index built after it, and rows written, do not
// change what a later read of the block sees or make it fail.
func TestPeekIndexInATransaction(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (a int, b text)")
	env.exec(s, "INSERT INTO t SELECT g, 'b' || (g % 7) FROM generate_series(1, 700) g")
	env.exec(s, "BEGIN")
	if got := env.query(s, "SELECT count(*) FROM t"); got != "700" {
		t.Fatalf("count: %s", got)
	}
	env.exec(other, "INSERT INTO t SELECT g, 'b3' FROM generate_series(701, 770) g")
	env.exec(other, "CREATE INDEX t_b ON t (b)")
	for _, q := range []string{"SELECT count(*) FROM (SELECT a FROM t WHERE b = 'b3') x", "SELECT a FROM t WHERE b = 'b3'", "SELECT a FROM t WHERE b = 'b3' ORDER BY a"} {
		r := &recorder{}
		if err := s.Query(context.Background(), q, r); err != nil {
			t.Fatalf("%s in the block: %v", q, err)
		}
		if n := len(r.rows); n != 100 && !(n == 1 && r.rows[0] == "100") {
			t.Errorf("%s in the block: %d rows (%v), want 100", q, n, r.rows[:min(n, 3)])
		}
	}
	env.exec(s, "COMMIT")
	if got := env.query(s, "SELECT count(*) FROM (SELECT a FROM t WHERE b = 'b3') x"); got != "170" {
		t.Errorf("after the block: %s rows of b3, want 170", got)
	}
}

// TestPeekChoosesByColumnsPinned: a read is served by the arrangement
// whose leading key columns it bounds the most of, counted in columns
// (KeyRanges' score), not in bytes (a text constant encodes longer than
// an integer), the one it gets on a tie; a read of a view through its first index may seek in
// another index on the view.
func TestPeekChoosesByColumnsPinned(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE o (id int, amount int, status text)")
	env.exec(s, "INSERT INTO o SELECT g, g % 100, CASE WHEN g % 2 = 0 THEN 'delivered' ELSE 'open' END FROM generate_series(1, 1000) g")
	env.exec(s, "CREATE INDEX o_status ON o (status)")
	env.exec(s, "CREATE VIEW w AS SELECT id, amount, status FROM o WHERE amount >= 0")
	env.exec(s, "CREATE INDEX w_id ON w (id)")
	env.exec(s, "CREATE INDEX w_status ON w (status, amount)")
	for _, c := range []struct {
		q    string
		rows int
		read int64
	}{
		{"SELECT id FROM o WHERE id = 500 AND status = 'delivered'", 1, 1},
		{"SELECT id FROM o WHERE status = 'open'", 500, 500},
		{"SELECT id FROM w WHERE id = 500", 1, 1},
		{"SELECT id FROM w WHERE status = 'open' AND amount = 7", 10, 10},
	} {
		before := env.e.streamedRows.Load()
		r := &recorder{}
		if err := s.Query(context.Background(), c.q, r); err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		taken := env.e.streamedRows.Load() - before
		if len(r.rows) != c.rows || taken != c.read {
			t.Errorf("%s: %d rows, reading %d; want %d, reading %d", c.q, len(r.rows), taken, c.rows, c.read)
		}
	}
}
