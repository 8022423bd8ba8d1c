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
