package sqllogic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// answer is what fakeDB does for one SQL text.
type answer struct {
	columns int
	rows    [][]Value
	err     error
	// hang makes the call wait for its context to end.
	hang bool
	// then, if not nil, runs after the call (to cancel a context, say).
	then func()
}

// fakeDB answers SQL texts from a table and records what it ran. An SQL
// text it does not know is an error.
type fakeDB struct {
	answers map[string]answer
	ran     []string
}

func (f *fakeDB) answer(ctx context.Context, sql string) (answer, error) {
	f.ran = append(f.ran, sql)
	a, ok := f.answers[sql]
	if !ok {
		return a, fmt.Errorf("fake: unknown SQL %q", sql)
	}
	if a.then != nil {
		defer a.then()
	}
	if a.hang {
		<-ctx.Done()
		return a, ctx.Err()
	}
	return a, a.err
}

func (f *fakeDB) Exec(ctx context.Context, sql string) error {
	_, err := f.answer(ctx, sql)
	return err
}

func (f *fakeDB) Query(ctx context.Context, sql string) (int, [][]Value, error) {
	a, err := f.answer(ctx, sql)
	if err != nil {
		return 0, nil, err
	}
	return a.columns, a.rows, nil
}

// ints returns a one-column result of int4 values.
func ints(vs ...int) answer {
	a := answer{columns: 1}
	for _, v := range vs {
		a.rows = append(a.rows, []Value{TextValue(pgtype.Int4OID, strconv.Itoa(v))})
	}
	return a
}

func mustParse(t *testing.T, name, src string) *Script {
	t.Helper()
	s, err := Parse(name, strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outcomes lists "line:outcome" for every record result.
func outcomes(res FileResult) string {
	var out []string
	for _, rr := range res.Records {
		out = append(out, fmt.Sprintf("%d:%s", rr.Record.Line, rr.Outcome))
	}
	return strings.Join(out, " ")
}

func TestRunOutcomes(t *testing.T) {
	const src = `statement ok
CREATE TABLE t(a INT)

statement ok
BAD

statement error
DROP TABLE t

statement error
DROP TABLE nope

statement error 42P01
DROP TABLE nope2

query I nosort
SELECT a FROM t
----
1
2

query I nosort
SELECT a FROM t ORDER BY a DESC
----
1
2

query I nosort
SELECT err

query II nosort
SELECT one

query I rowsort
SELECT many
----
20 values hashing to ` + "%s" + `

query I rowsort
SELECT many
----
20 values hashing to 00000000000000000000000000000000
`
	many := ints(20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
	manySorted := RenderRows([]ColumnType{Integer}, many.rows)
	Sort(RowSort, 1, manySorted)
	db := &fakeDB{answers: map[string]answer{
		"CREATE TABLE t(a INT)":           {},
		"BAD":                             {err: errors.New(`ERROR: syntax error at or near "BAD" (SQLSTATE 42601)`)},
		"DROP TABLE t":                    {},
		"DROP TABLE nope":                 {err: errors.New(`ERROR: table "nope" does not exist (SQLSTATE 42P01)`)},
		"DROP TABLE nope2":                {err: errors.New(`ERROR: something else (SQLSTATE 42601)`)},
		"SELECT a FROM t":                 ints(1, 2),
		"SELECT a FROM t ORDER BY a DESC": ints(2, 1),
		"SELECT err":                      {err: errors.New("ERROR: boom (SQLSTATE XX000)")},
		"SELECT one":                      ints(1),
		"SELECT many":                     many,
	}}
	s := mustParse(t, "t.slt", fmt.Sprintf(src, Hash(manySorted)))
	res := RunScript(context.Background(), db, s, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	const want = "1:pass 4:fail 7:fail 10:pass 13:fail 16:pass 22:fail 28:fail 31:fail 34:pass 39:fail"
	if got := outcomes(res); got != want {
		t.Errorf("outcomes:\n got %s\nwant %s", got, want)
	}
	if want := (Counts{Passed: 2, Failed: 3}); res.Statements != want {
		t.Errorf("Statements = %v, want %v", res.Statements, want)
	}
	if want := (Counts{Passed: 2, Failed: 4}); res.Queries != want {
		t.Errorf("Queries = %v, want %v", res.Queries, want)
	}
	if got := res.Total(); got != (Counts{Passed: 4, Failed: 7}) || got.Run() != 11 {
		t.Errorf("Total() = %v", got)
	}
	if got := len(res.Failures()); got != 7 {
		t.Errorf("%d failures, want 7", got)
	}

	// Each failure message starts with file:line, shows the SQL and says
	// what went wrong; queries show what was expected and what came.
	msgs := map[int][]string{
		4:  {`t.slt:4: statement failed: ERROR: syntax error at or near "BAD" (SQLSTATE 42601)`, "\n    BAD"},
		7:  {"t.slt:7: statement succeeded, expected an error\n    DROP TABLE t"},
		13: {`t.slt:13: error does not match "42P01": ERROR: something else`},
		22: {"t.slt:22: wrong result: value 1 (row 1, column 1) differs: expected \"1\", got \"2\"",
			"\n    SELECT a FROM t ORDER BY a DESC\n", "expected:\n      1\n      2\n  got:\n      2\n      1"},
		28: {"t.slt:28: query failed: ERROR: boom (SQLSTATE XX000)\n    SELECT err"},
		31: {"t.slt:31: wrong result: expected 2 columns, got 1"},
		39: {"t.slt:39: wrong result: hash differs: expected 00000000000000000000000000000000, got " + Hash(manySorted),
			"expected:\n      20 values hashing to 00000000000000000000000000000000\n  got:\n      20 values hashing to " + Hash(manySorted) + "\n      1\n      10\n",
			"\n      ... 8 more"},
	}
	for _, rr := range res.Records {
		for _, frag := range msgs[rr.Record.Line] {
			if !strings.Contains(rr.Message, frag) {
				t.Errorf("message of line %d:\n%s\nlacks %q", rr.Record.Line, rr.Message, frag)
			}
		}
		if rr.Outcome == Passed && rr.Message != "" {
			t.Errorf("line %d passed with message %q", rr.Record.Line, rr.Message)
		}
	}
}

func TestRunConditionsAndHalt(t *testing.T) {
	const src = `skipif postgresql
statement ok
A

onlyif mysql # comment
statement ok
B

onlyif postgresql
statement ok
C

skipif mysql
skipif sqlite
query I
SELECT 1
----
1

onlyif sqlite
halt

statement ok
D

skipif sqlite
halt

statement ok
E

query I
SELECT 2
`
	answers := map[string]answer{"A": {}, "B": {}, "C": {}, "D": {}, "E": {}, "SELECT 1": ints(1), "SELECT 2": ints(2)}
	for _, tc := range []struct {
		engine   string
		ran      []string
		outcomes string
	}{
		{"", []string{"C", "SELECT 1", "D"}, "1:skip 5:skip 9:pass 13:pass 23:pass 29:skip 32:skip"},
		{"postgresql", []string{"C", "SELECT 1", "D"}, "1:skip 5:skip 9:pass 13:pass 23:pass 29:skip 32:skip"},
		{"mysql", []string{"A", "B", "D"}, "1:pass 5:pass 9:skip 13:skip 23:pass 29:skip 32:skip"},
		// As sqlite, the first halt stops the file and the second never
		// counts.
		{"sqlite", []string{"A"}, "1:pass 5:skip 9:skip 13:skip 23:skip 29:skip 32:skip"},
	} {
		db := &fakeDB{answers: answers}
		res := RunScript(context.Background(), db, mustParse(t, "c.slt", src), Options{Engine: tc.engine})
		if !slices.Equal(db.ran, tc.ran) {
			t.Errorf("engine %q ran %q, want %q", tc.engine, db.ran, tc.ran)
		}
		if got := outcomes(res); got != tc.outcomes {
			t.Errorf("engine %q:\n got %s\nwant %s", tc.engine, got, tc.outcomes)
		}
		wantHalt := 26
		if tc.engine == "sqlite" {
			wantHalt = 20
		}
		if res.HaltLine != wantHalt {
			t.Errorf("engine %q: HaltLine = %d, want %d", tc.engine, res.HaltLine, wantHalt)
		}
	}

	res := RunScript(context.Background(), &fakeDB{answers: answers}, mustParse(t, "c.slt", src), Options{})
	for line, want := range map[int]string{1: "skipif postgresql at c.slt:1", 5: "onlyif mysql at c.slt:5", 29: "after halt at c.slt:26"} {
		for _, rr := range res.Records {
			if rr.Record.Line == line && rr.Message != want {
				t.Errorf("line %d: message %q, want %q", line, rr.Message, want)
			}
		}
	}
	if want := (Counts{Passed: 2, Skipped: 3}); res.Statements != want {
		t.Errorf("Statements = %v, want %v", res.Statements, want)
	}
	if want := (Counts{Passed: 1, Skipped: 1}); res.Queries != want {
		t.Errorf("Queries = %v, want %v", res.Queries, want)
	}
}

func TestRunLabels(t *testing.T) {
	const src = `query I nosort label-1
SELECT x1
----
5

query I nosort label-1
SELECT x2
----
5

query I nosort label-1
SELECT x3
----
6

query I nosort label-2
SELECT y1
----
2

query I nosort label-2
SELECT y2
----
3

onlyif sqlite
query I nosort label-3
SELECT z0
----
0

query I nosort label-3
SELECT z1
----
7

query I rowsort label-3
SELECT z2
----
1 values hashing to ` + "%s" + `

query I nosort label-3
SELECT z3
----
8

query I nosort
SELECT w
----
7
`
	db := &fakeDB{answers: map[string]answer{
		"SELECT x1": ints(5), "SELECT x2": ints(5), "SELECT x3": ints(6),
		"SELECT y1": ints(1), "SELECT y2": ints(3),
		"SELECT z1": ints(7), "SELECT z2": ints(7), "SELECT z3": ints(8),
		"SELECT w": ints(7),
	}}
	res := RunScript(context.Background(), db, mustParse(t, "l.slt", fmt.Sprintf(src, Hash([]string{"7"}))), Options{})
	// x3 matches its own values but not its label; y1 fails and so sets
	// no hash for label-2, which y2 then sets; z0 is skipped and so sets
	// no hash for label-3.
	const want = "1:pass 6:pass 11:fail 16:fail 21:pass 26:skip 32:pass 37:pass 42:fail 47:pass"
	if got := outcomes(res); got != want {
		t.Errorf("outcomes:\n got %s\nwant %s", got, want)
	}
	for _, rr := range res.Records {
		if rr.Record.Line == 11 {
			wantMsg := fmt.Sprintf("l.slt:11: label-1: result hash %s differs from %s of the query at l.slt:1",
				Hash([]string{"6"}), Hash([]string{"5"}))
			if !strings.HasPrefix(rr.Message, wantMsg) {
				t.Errorf("message:\n%s\nwant prefix\n%s", rr.Message, wantMsg)
			}
		}
	}
}

// TestRunTimeout: a record that outlives Options.Timeout fails, and the
// file goes on.
func TestRunTimeout(t *testing.T) {
	const src = "statement ok\nSLOW\n\nquery I\nSLOWQ\n\nstatement ok\nFAST\n"
	db := &fakeDB{answers: map[string]answer{"SLOW": {hang: true}, "SLOWQ": {hang: true}, "FAST": {}}}
	res := RunScript(context.Background(), db, mustParse(t, "t.slt", src), Options{Timeout: time.Millisecond})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := outcomes(res), "1:fail 4:fail 7:pass"; got != want {
		t.Errorf("outcomes: got %s, want %s", got, want)
	}
	for _, rr := range res.Records[:2] {
		if !strings.Contains(rr.Message, "timed out after 1ms") {
			t.Errorf("message %q does not say it timed out", rr.Message)
		}
	}
}

// TestRunCancel: when the caller's context ends, the file stops, and the
// record it interrupted has no outcome.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const src = "statement ok\nA\n\nstatement ok\nB\n\nstatement ok\nC\n"
	db := &fakeDB{answers: map[string]answer{"A": {}, "B": {then: cancel}, "C": {}}}
	res := RunScript(ctx, db, mustParse(t, "x.slt", src), Options{})
	if !errors.Is(res.Err, context.Canceled) {
		t.Errorf("Err = %v, want context.Canceled", res.Err)
	}
	if got := outcomes(res); got != "1:pass" {
		t.Errorf("outcomes %q, want only 1:pass", got)
	}
	if !slices.Equal(db.ran, []string{"A", "B"}) {
		t.Errorf("ran %q", db.ran)
	}
}

// TestRunLog: failures go to Log as they happen, at most MaxFailures of
// them, then one line that says more were left out.
func TestRunLog(t *testing.T) {
	var src strings.Builder
	for i := range 5 {
		fmt.Fprintf(&src, "statement ok\nBAD %d\n\n", i)
	}
	for _, tc := range []struct {
		max, shown int
		more       bool
	}{{0, 5, false}, {2, 2, true}, {5, 5, false}} {
		var log bytes.Buffer
		res := RunScript(context.Background(), &fakeDB{}, mustParse(t, "f.slt", src.String()),
			Options{Log: &log, MaxFailures: tc.max})
		if res.Statements.Failed != 5 || len(res.Failures()) != 5 {
			t.Errorf("max %d: %v", tc.max, res.Statements)
		}
		if got := strings.Count(log.String(), "statement failed"); got != tc.shown {
			t.Errorf("max %d: logged %d failures, want %d:\n%s", tc.max, got, tc.shown, log.String())
		}
		if more := strings.Contains(log.String(), "f.slt: more failures not shown (limit 2)"); more != tc.more {
			t.Errorf("max %d: log:\n%s", tc.max, log.String())
		}
	}
}

// TestRunFileErrors: a file that is missing or does not parse gives a
// result with Err and no records.
func TestRunFileErrors(t *testing.T) {
	res := Run(context.Background(), &fakeDB{}, "testdata/no-such-file.slt", Options{})
	if res.Err == nil || len(res.Records) != 0 {
		t.Errorf("missing file: %+v", res)
	}
	var pe *ParseError
	s := mustParse(t, "ok.slt", "statement ok\nA\n")
	res = RunScript(context.Background(), &fakeDB{answers: map[string]answer{"A": {}}}, s, Options{})
	if res.Err != nil || res.File != "ok.slt" || outcomes(res) != "1:pass" {
		t.Errorf("good script: %+v", res)
	}
	if _, err := Parse("bad.slt", strings.NewReader("query\n")); !errors.As(err, &pe) {
		t.Errorf("bad script: %v", err)
	}
}

// TestRunConstructs runs the parser's testdata file on a fake that knows
// its SQL, as an end-to-end check of parse, render, sort and compare.
func TestRunConstructs(t *testing.T) {
	text := func(s string) Value { return TextValue(pgtype.TextOID, s) }
	i4 := func(s string) Value { return TextValue(pgtype.Int4OID, s) }
	db := &fakeDB{answers: map[string]answer{
		"CREATE TABLE t1(a INTEGER, b TEXT)":        {},
		"INSERT INTO nowhere VALUES(1)":             {err: errors.New("ERROR: no (SQLSTATE 42P01)")},
		"SELECT * FROM nowhere;":                    {err: errors.New(`ERROR: relation "nowhere" does not exist (SQLSTATE 42P01)`)},
		"INSERT INTO t1\nVALUES(1, 'x')":            {},
		"SELECT a FROM t1":                          ints(),
		"SELECT a, b FROM t1":                       {columns: 2, rows: [][]Value{{i4("1"), text("x")}}},
		"SELECT 10, 9\nUNION ALL SELECT 9, 10":      {columns: 2, rows: [][]Value{{i4("9"), i4("10")}, {i4("10"), i4("9")}}},
		"SELECT b FROM t1":                          {columns: 1, rows: [][]Value{{NullValue(pgtype.TextOID)}, {text("")}}},
		"SELECT a FROM t1 WHERE a > 8":              ints(),
		"SELECT a FROM t1 WHERE false":              ints(),
		"SELECT 1":                                  ints(1),
		"DROP TABLE t1":                             {},
		"never run: the file halts before this SQL": {},
	}}
	res := Run(context.Background(), db, "testdata/constructs.slt", Options{})
	// The hashed query at line 45 expects 30 values and gets none; the
	// file halts at line 63, so DROP TABLE is skipped.
	const want = "5:pass 8:pass 11:pass 16:pass 21:pass 24:pass 30:pass 39:pass 45:fail 50:pass 54:fail 66:skip"
	if got := outcomes(res); got != want {
		t.Errorf("outcomes:\n got %s\nwant %s", got, want)
	}
	if res.HaltLine != 63 {
		t.Errorf("HaltLine = %d, want 63", res.HaltLine)
	}
}
