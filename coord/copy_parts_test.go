package coord

import (
	"fmt"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestCopyInParts copies more rows than one part of a COPY's writes holds
// (they grow from 64), so that the write, its unique key check, its
// storage and its feeding each see many parts: the rows, a view over
// them, a duplicate key whose two rows lie in different parts, the same
// inside a transaction block, and the rows after a restart.
func TestCopyInParts(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE big (id int PRIMARY KEY, v int)")
	env.exec(s, "CREATE MATERIALIZED VIEW big_sum AS SELECT count(*) AS n, sum(v) AS s FROM big")
	const rows = 5000
	data := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "%d\t%d\n", i, i%7)
		}
		return b.String()
	}
	sum := func(from, to int) int {
		n := 0
		for i := from; i < to; i++ {
			n += i % 7
		}
		return n
	}
	if err := env.copyIn(s, "COPY big FROM STDIN", data(0, rows)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d,%d", rows, sum(0, rows))
	if got := env.query(s, "SELECT * FROM big_sum"); got != want {
		t.Fatalf("view after the COPY: %s, want %s", got, want)
	}
	if got := env.query(s, "SELECT count(*), sum(v) FROM big"); got != want {
		t.Fatalf("table after the COPY: %s, want %s", got, want)
	}

	// Row 10 again as the last row: the first part holds it already.
	dup := data(rows, 2*rows) + "10\t0\n"
	err := env.copyIn(s, "COPY big FROM STDIN", dup)
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.UniqueViolation {
		t.Fatalf("a duplicate across parts: %v, want %s", err, sqlerr.UniqueViolation)
	}
	// A duplicate within the COPY, in two of its parts.
	err = env.copyIn(s, "COPY big FROM STDIN", data(rows, 2*rows)+fmt.Sprintf("%d\t0\n", rows+1))
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.UniqueViolation {
		t.Fatalf("a duplicate inside one COPY: %v, want %s", err, sqlerr.UniqueViolation)
	}
	if got := env.query(s, "SELECT * FROM big_sum"); got != want {
		t.Fatalf("view after failed COPYs: %s, want %s", got, want)
	}

	env.exec(s, "BEGIN")
	if err := env.copyIn(s, "COPY big FROM STDIN", data(rows, 2*rows)); err != nil {
		t.Fatal(err)
	}
	if err := env.copyIn(s, "COPY big FROM STDIN", data(2*rows, 3*rows)); err != nil {
		t.Fatal(err)
	}
	err = env.copyIn(s, "COPY big FROM STDIN", data(3*rows, 4*rows)+fmt.Sprintf("%d\t0\n", rows+3))
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.UniqueViolation {
		t.Fatalf("a duplicate of the block's own rows: %v, want %s", err, sqlerr.UniqueViolation)
	}
	env.exec(s, "ROLLBACK")
	env.exec(s, "BEGIN")
	if err := env.copyIn(s, "COPY big FROM STDIN", data(rows, 2*rows)); err != nil {
		t.Fatal(err)
	}
	if err := env.copyIn(s, "COPY big FROM STDIN", data(2*rows, 3*rows)); err != nil {
		t.Fatal(err)
	}
	env.exec(s, "COMMIT")
	want = fmt.Sprintf("%d,%d", 3*rows, sum(0, 3*rows))
	if got := env.query(s, "SELECT * FROM big_sum"); got != want {
		t.Fatalf("view after the block: %s, want %s", got, want)
	}

	env.restart()
	s = env.session()
	if got := env.query(s, "SELECT * FROM big_sum"); got != want {
		t.Fatalf("view after a restart: %s, want %s", got, want)
	}
	if got := env.query(s, "SELECT count(*) FROM big WHERE id >= 4990 AND id < 5010"); got != "20" {
		t.Fatalf("rows around the first COPY's end after a restart: %s, want 20", got)
	}
}

// TestInsertSelectMultiplicities: an INSERT … SELECT whose read gives
// rows with a multiplicity: the table, a view over it, a unique key, a
// transaction block rolled back and one committed, and a restart all
// see each row as many times as the read gave it.
func TestInsertSelectMultiplicities(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE src (v int)")
	env.exec(s, "INSERT INTO src VALUES (1), (2), (3)")
	env.exec(s, "CREATE TABLE dst (v int)")
	env.exec(s, "CREATE MATERIALIZED VIEW dst_counts AS SELECT v, count(*) AS n FROM dst GROUP BY v")
	// Each of src's rows three times: a read's row with diff 3.
	env.exec(s, "INSERT INTO dst SELECT a.v FROM src a, src b")
	const three = "1,3 2,3 3,3"
	check := func(when, want string) {
		t.Helper()
		if got := env.query(s, "SELECT * FROM dst_counts ORDER BY v"); got != want {
			t.Fatalf("view %s: %s, want %s", when, got, want)
		}
		if got := env.query(s, "SELECT v, count(*) FROM dst GROUP BY v ORDER BY v"); got != want {
			t.Fatalf("table %s: %s, want %s", when, got, want)
		}
	}
	check("after the insert", three)

	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO dst SELECT a.v FROM src a, src b WHERE a.v = 1")
	env.exec(s, "ROLLBACK")
	check("after a rollback", three)
	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO dst SELECT a.v FROM src a, src b WHERE a.v = 1")
	env.exec(s, "COMMIT")
	const six = "1,6 2,3 3,3"
	check("after a commit", six)

	env.exec(s, "CREATE TABLE uniq (v int PRIMARY KEY)")
	env.fails(s, "INSERT INTO uniq SELECT a.v FROM src a, src b WHERE a.v = 2", sqlerr.UniqueViolation,
		`duplicate key value violates unique constraint "uniq_pkey"`, "Key (v)=(2) already exists.")
	env.exec(s, "INSERT INTO uniq SELECT v FROM src")
	if got := env.query(s, "SELECT count(*) FROM uniq"); got != "3" {
		t.Fatalf("uniq: %s rows, want 3", got)
	}

	env.restart()
	s = env.session()
	check("after a restart", six)
}
