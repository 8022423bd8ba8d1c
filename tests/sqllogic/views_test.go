package sqllogic

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// viewOutcomes lists the view results of res as "line:outcome".
func viewOutcomes(res FileResult) string {
	var parts []string
	for _, rr := range res.Records {
		if rr.View {
			parts = append(parts, strings.TrimPrefix(rr.Record.Pos(), rr.Record.File+":")+":"+rr.Outcome.String())
		}
	}
	return strings.Join(parts, " ")
}

// TestViewsAfter: each passing query becomes a view right after it; the
// views are checked and dropped at the end, against the query's result
// as a multiset when nothing was written since, else against the query
// run again.
func TestViewsAfter(t *testing.T) {
	const src = `statement ok
CREATE TABLE t(a INTEGER, b TEXT)

query IT rowsort
SELECT a, b FROM t
----
1
x
2
y

query I nosort
SELECT a FROM t ORDER BY a DESC
----
2
1

query I nosort
SELECT 9
----
8

statement ok
INSERT INTO t VALUES (3, 'z')

query I rowsort
SELECT count(*) FROM t
----
3
`
	two := answer{columns: 2, rows: [][]Value{
		{TextValue(pgtype.Int4OID, "2"), TextValue(pgtype.TextOID, "y")},
		{TextValue(pgtype.Int4OID, "1"), TextValue(pgtype.TextOID, "x")},
	}}
	db := &fakeDB{answers: map[string]answer{
		"CREATE TABLE t(a INTEGER, b TEXT)": {},
		"SELECT a, b FROM t":                two,
		"SELECT a FROM t ORDER BY a DESC":   ints(2, 1),
		"SELECT 9":                          ints(9),
		"INSERT INTO t VALUES (3, 'z')":     {},
		"SELECT count(*) FROM t":            ints(3),

		"CREATE MATERIALIZED VIEW slt_view_4 (c1, c2) AS SELECT a, b FROM t":           {},
		"CREATE MATERIALIZED VIEW slt_view_12 (c1) AS SELECT a FROM t ORDER BY a DESC": {},
		"CREATE MATERIALIZED VIEW slt_view_26 (c1) AS SELECT count(*) FROM t":          {},
		// The view of line 4 is stale: it misses the inserted row, which
		// the query run again at the check has.
		"SELECT * FROM slt_view_4": two,
		// The view of line 12 has its rows in another order: a multiset
		// compares equal.
		"SELECT * FROM slt_view_12": ints(1, 2),
		"SELECT * FROM slt_view_26": ints(3),

		"DROP MATERIALIZED VIEW slt_view_4":  {},
		"DROP MATERIALIZED VIEW slt_view_12": {err: errors.New("boom")},
		"DROP MATERIALIZED VIEW slt_view_26": {},
	}}
	// After the insert, line 4's query has three rows.
	three := two
	three.rows = append(slices.Clone(two.rows), []Value{TextValue(pgtype.Int4OID, "3"), TextValue(pgtype.TextOID, "z")})
	s := mustParse(t, "v.slt", src)
	ran := 0
	db.answers["INSERT INTO t VALUES (3, 'z')"] = answer{then: func() {
		ran++
		db.answers["SELECT a, b FROM t"] = three
	}}
	res := RunScript(context.Background(), db, s, Options{Views: ViewsAfter})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if ran != 1 {
		t.Fatalf("insert ran %d times", ran)
	}
	if got, want := outcomes(res), "1:pass 4:pass 12:pass 18:fail 23:pass 26:pass 4:fail 12:fail 26:pass"; got != want {
		t.Errorf("outcomes:\n got %s\nwant %s", got, want)
	}
	if res.Views != (Counts{Passed: 1, Failed: 2}) {
		t.Errorf("view counts %v", res.Views)
	}
	msgs := map[int]string{}
	for _, rr := range res.Records {
		if rr.View && rr.Outcome == Failed {
			msgs[rr.Record.Line] = rr.Message
		}
	}
	if !strings.HasPrefix(msgs[4], "v.slt:4: view: slt_view_4 differs from the query's result now: 4 values, want 6") {
		t.Errorf("line 4: %s", msgs[4])
	}
	if !strings.HasPrefix(msgs[12], "v.slt:12: view: cannot drop slt_view_12: boom") {
		t.Errorf("line 12: %s", msgs[12])
	}
	// The failing query (line 18) got no view; the views were read and
	// dropped at the end, in creation order.
	var tail []string
	for _, sql := range db.ran {
		if strings.HasPrefix(sql, "CREATE MATERIALIZED") || strings.HasPrefix(sql, "SELECT * FROM") || strings.HasPrefix(sql, "DROP MATERIALIZED") {
			tail = append(tail, strings.Fields(sql)[3])
		}
	}
	want := []string{"slt_view_4", "slt_view_12", "slt_view_26", "slt_view_4", "slt_view_4", "slt_view_12", "slt_view_12", "slt_view_26", "slt_view_26"}
	if !slices.Equal(tail, want) {
		t.Errorf("view statements touch\n%q\nwant\n%q", tail, want)
	}
}

// TestViewsBefore: a candidate's view is created at the first point
// where it can be, before the data; views are checked before a
// statement that drops a table, and a query's view is not created across
// such a drop.
func TestViewsBefore(t *testing.T) {
	const src = `statement ok
CREATE TABLE t(a INTEGER)

statement ok
INSERT INTO t VALUES (1)

statement ok
CREATE TABLE u(b INTEGER)

query I rowsort
SELECT a FROM t
----
1

query I rowsort
SELECT a FROM t, u
----

statement ok
DROP TABLE t

statement ok
CREATE TABLE t(a INTEGER)

query I rowsort
SELECT a + 1 FROM t
----

query I rowsort
SELECT 1/0
----
`
	views := map[string]bool{}
	create := func(name string) answer {
		return answer{then: func() { views[name] = true }}
	}
	db := &fakeDB{answers: map[string]answer{
		"CREATE TABLE t(a INTEGER)":          {},
		"INSERT INTO t VALUES (1)":           {},
		"CREATE TABLE u(b INTEGER)":          {},
		"SELECT a FROM t":                    ints(1),
		"SELECT a FROM t, u":                 ints(),
		"DROP TABLE t":                       {},
		"SELECT a + 1 FROM t":                ints(),
		"SELECT 1/0":                         {err: errors.New("division by zero")},
		"SELECT * FROM slt_view_10":          ints(1),
		"SELECT * FROM slt_view_15":          ints(),
		"SELECT * FROM slt_view_25":          ints(),
		"DROP MATERIALIZED VIEW slt_view_10": {},
		"DROP MATERIALIZED VIEW slt_view_15": {},
		"DROP MATERIALIZED VIEW slt_view_25": {},
	}}
	s := mustParse(t, "b.slt", src)
	// Before any table exists no view can be created: the fake knows no
	// CREATE MATERIALIZED VIEW until its table is made.
	db.answers["CREATE TABLE t(a INTEGER)"] = answer{then: func() {
		if !views["t"] {
			views["t"] = true
			db.answers["CREATE MATERIALIZED VIEW slt_view_10 (c1) AS SELECT a FROM t"] = create("slt_view_10")
		} else {
			db.answers["CREATE MATERIALIZED VIEW slt_view_25 (c1) AS SELECT a + 1 FROM t"] = create("slt_view_25")
		}
	}}
	db.answers["CREATE TABLE u(b INTEGER)"] = answer{then: func() {
		db.answers["CREATE MATERIALIZED VIEW slt_view_15 (c1) AS SELECT a FROM t, u"] = create("slt_view_15")
	}}
	// Line 29's query fails; the candidates say it passed before, so its
	// view is attempted and fails.
	cands := map[int]bool{10: true, 15: true, 25: true, 29: true}
	res := RunScript(context.Background(), db, s, Options{Views: ViewsBefore, Candidates: cands})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := viewOutcomes(res), "10:pass 15:pass 29:fail 25:pass"; got != want {
		t.Errorf("views:\n got %s\nwant %s", got, want)
	}
	// Order of the view statements: line 10's view right after the first
	// CREATE TABLE (before the INSERT), line 15's after CREATE TABLE u,
	// both checked before DROP TABLE t; line 25's after the second
	// CREATE TABLE t, not before the drop.
	var seq []string
	for _, sql := range db.ran {
		switch {
		case strings.HasPrefix(sql, "CREATE MATERIALIZED"), strings.HasPrefix(sql, "DROP MATERIALIZED"):
			seq = append(seq, strings.Fields(sql)[0]+" "+strings.Fields(sql)[3])
		case strings.HasPrefix(sql, "SELECT * FROM"):
		default:
			seq = append(seq, sql)
		}
	}
	want := []string{
		"CREATE slt_view_10", "CREATE slt_view_15", // the start: both unknown yet
		"CREATE TABLE t(a INTEGER)",
		"CREATE slt_view_10", "CREATE slt_view_15",
		"INSERT INTO t VALUES (1)",
		"CREATE TABLE u(b INTEGER)",
		"CREATE slt_view_15",
		"SELECT a FROM t", "SELECT a FROM t, u",
		"DROP slt_view_10", "DROP slt_view_15",
		"DROP TABLE t",
		"CREATE slt_view_25", "CREATE slt_view_29",
		"CREATE TABLE t(a INTEGER)",
		"CREATE slt_view_25", "CREATE slt_view_29",
		"SELECT a + 1 FROM t",
		"CREATE slt_view_29",
		"SELECT 1/0",
		"DROP slt_view_25",
	}
	if !slices.Equal(seq, want) {
		t.Errorf("statements:\n%s\nwant\n%s", strings.Join(seq, "\n"), strings.Join(want, "\n"))
	}
}

// TestViewStatementKinds: which statements split, create and write.
func TestViewStatementKinds(t *testing.T) {
	for _, c := range []struct {
		sql                   string
		drops, creates, write bool
	}{
		{"DROP TABLE t1", true, false, true},
		{"drop view if exists v", true, false, true},
		{"DROP INDEX i", false, false, true},
		{"DROP MATERIALIZED VIEW m CASCADE", true, false, true},
		{"ALTER TABLE t ADD COLUMN b int", true, false, true},
		{"alter table t drop column b cascade", true, false, true},
		{"ALTER INDEX i RENAME TO j", false, false, true},
		{"CREATE MATERIALIZED VIEW m AS SELECT 1", false, true, true},
		{"CREATE TABLE t(a INT)", false, true, true},
		{"CREATE VIEW v AS SELECT 1", false, true, true},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", false, true, true},
		{"CREATE UNIQUE INDEX i ON t(a)", false, false, true},
		{"CREATE INDEX i ON t(a)", false, false, true},
		{"SET TIME ZONE 'UTC'", false, false, false},
		{"commit", false, false, false},
		{"INSERT INTO t VALUES (1)", false, false, true},
		{"UPDATE t SET a = 1", false, false, true},
	} {
		if got := dropsRelation(c.sql); got != c.drops {
			t.Errorf("dropsRelation(%q) = %v", c.sql, got)
		}
		if got := createsRelation(c.sql); got != c.creates {
			t.Errorf("createsRelation(%q) = %v", c.sql, got)
		}
		if got := mayWrite(c.sql); got != c.write {
			t.Errorf("mayWrite(%q) = %v", c.sql, got)
		}
	}
}
