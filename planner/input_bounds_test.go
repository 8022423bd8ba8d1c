package planner

import (
	"strings"
	"testing"

	"freshet/sqlerr"
)

// tooDeep are statements whose parse trees are deep enough, at n links
// or levels, that pg_query's C parser overflowed an 8 MiB stack (the
// chains) or that are far beyond MaxNestingDepth (the brackets, which
// bison caps). The first is the reproduction of issue 15: 24,000 terms,
// 48 KB.
var tooDeep = []struct {
	name string
	gen  func(n int) string
	n    int
}{
	{"plus", func(n int) string { return "SELECT 1" + strings.Repeat("+1", n-1) }, 24000},
	{"concat", func(n int) string { return "SELECT 'a'" + strings.Repeat("||'a'", n) }, 24000},
	{"and-of-sums", func(n int) string { return "SELECT 1 = 1" + strings.Repeat("+1", n) + " AND true" }, 24000},
	{"typecast", func(n int) string { return "SELECT 1" + strings.Repeat("::int", n) }, 24000},
	{"is-null", func(n int) string { return "SELECT 1" + strings.Repeat(" IS NULL", n) }, 24000},
	{"collate", func(n int) string { return "SELECT 'a'" + strings.Repeat(` COLLATE "C"`, n) }, 24000},
	{"union", func(n int) string { return "SELECT 1" + strings.Repeat(" UNION SELECT 1", n) }, 48000},
	{"union-of-lists", func(n int) string { return "SELECT 1, 2" + strings.Repeat(" UNION SELECT 1, 2", n) }, 48000},
	{"join", func(n int) string { return "SELECT * FROM t" + strings.Repeat(" JOIN t ON true", n) }, 24000},
	{"unary-minus", func(n int) string { return "SELECT " + strings.Repeat("- ", n) + "1" }, 24000},
	{"not", func(n int) string { return "SELECT " + strings.Repeat("NOT ", n) + "true" }, 24000},
	{"parens", func(n int) string { return "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }, 5000},
	{"parens-plus", func(n int) string { return "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat("+1)", n) }, 5000},
	{"subquery", func(n int) string { return strings.Repeat("SELECT (", n) + "SELECT 1" + strings.Repeat(")", n) }, 3000},
	{"case", func(n int) string {
		return "SELECT " + strings.Repeat("CASE WHEN true THEN ", n) + "1" + strings.Repeat(" ELSE 0 END", n)
	}, 2000},
	// AND resets the chain it ends, but not the chains of the CASEs it is
	// nested in: 300 CASEs of 20 links each nest 6,000 deep.
	{"case-chains", func(n int) string {
		return "SELECT " + strings.Repeat("1"+strings.Repeat("+1", 20)+" + CASE WHEN true AND true THEN ", n) +
			"1" + strings.Repeat(" END", n)
	}, 300},
	{"function", func(n int) string { return "SELECT " + strings.Repeat("abs(", n) + "1" + strings.Repeat(")", n) }, 5000},
	{"array", func(n int) string { return "SELECT " + strings.Repeat("ARRAY[", n) + "1" + strings.Repeat("]", n) }, 5000},
}

// TestTooDeepRefused is the regression test of issue 15's crash: each
// statement is refused with 54001 before the parser sees it, so this
// test process survives.
func TestTooDeepRefused(t *testing.T) {
	cat := newTestCatalog(t)
	for _, tt := range tooDeep {
		t.Run(tt.name, func(t *testing.T) {
			sql := tt.gen(tt.n)
			_, err := Plan(cat, sql)
			if sqlerr.Code(err) != sqlerr.StatementTooComplex {
				t.Fatalf("got %v (%s), want 54001", err, sqlerr.Code(err))
			}
			e := sqlerr.From(err)
			if e.Message != "stack depth limit exceeded" || e.Hint == "" || e.Position < 1 {
				t.Errorf("got %q hint %q position %d", e.Message, e.Hint, e.Position)
			}
		})
	}
}

// TestWithinBoundsParse checks that statements just inside the bounds,
// and big flat ones, still parse: the bounds refuse depth, not size.
func TestWithinBoundsParse(t *testing.T) {
	for _, tt := range []struct {
		name string
		sql  string
	}{
		{"plus", "SELECT 1" + strings.Repeat("+1", MaxNestingDepth-10)},
		{"union", "SELECT 1" + strings.Repeat(" UNION SELECT 1", MaxNestingDepth-10)},
		{"parens", "SELECT " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300)},
		{"in-list", "SELECT 1 IN (-1" + strings.Repeat(", -1", 100000) + ")"},
		{"values", "VALUES (1+1, 'a')" + strings.Repeat(", (1+1, 'a')", 100000)},
		{"or-list", "SELECT 1 FROM t WHERE k = 1" + strings.Repeat(" OR k = 1", 20000)},
		{"and-or", "SELECT 1 FROM t WHERE k = 1" + strings.Repeat(" AND k = 1 OR k = 2", 10000)},
		{"case-arms", "SELECT CASE k" + strings.Repeat(" WHEN 1 THEN -1", 20000) + " END FROM t"},
		{"select-list", "SELECT 1+1" + strings.Repeat(", 1+1", 20000)},
		{"statements", strings.Repeat("SELECT 1+1+1 UNION SELECT 1;", 10000)},
		{"in-string", "SELECT '" + strings.Repeat("(", 100000) + "'"},
		{"in-escape-string", `SELECT E'\'` + strings.Repeat("(", 100000) + "'"},
		{"in-identifier", `SELECT 1 AS "` + strings.Repeat("+", 100) + `"`},
		{"in-dollar-string", "SELECT $x$" + strings.Repeat("+1", 100000) + "$x$"},
		{"in-comments", "SELECT 1 /* /* " + strings.Repeat("+1", 100000) + " */ */ -- " + strings.Repeat("(", 10000)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse(tt.sql); err != nil {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestStatementTooLong(t *testing.T) {
	sql := "SELECT '" + strings.Repeat("x", MaxStatementLength) + "'"
	_, err := Parse(sql)
	if sqlerr.Code(err) != sqlerr.ProgramLimitExceeded {
		t.Fatalf("got %v, want 54000", err)
	}
}

// TestNestingDepth shows the measure on small statements.
func TestNestingDepth(t *testing.T) {
	for _, tt := range []struct {
		sql   string
		depth int
	}{
		{"SELECT 1", 3},
		{"SELECT 1+2*3", 5},
		{"SELECT 1+2, 3+4+5", 5},
		{"SELECT (1+2)", 7},
		{"SELECT 1 + (2 + (3))", 11},
		{"SELECT a AND b+1 OR c+1+1", 5},
		{"SELECT 1 UNION SELECT 2 UNION SELECT 3", 5},
		{"SELECT 1+1 UNION ALL SELECT 2+2", 5},
		{"SELECT * FROM a JOIN b ON x = 1 AND y = 1 JOIN c ON true", 6},
		{"SELECT CASE WHEN a+1 THEN b+1 ELSE c END", 7},
		{"SELECT 1::int::text", 5},
		{"SELECT 'a+b' || $$(+)$$ || \"x+\" || $1", 6},
		{"SELECT 1; SELECT 2+2+2", 5},
		{"SELECT 1 -- +++\n+1", 4},
		{"SELECT e'\\'+' + 1", 4},
	} {
		if got, _ := nestingDepth(tt.sql, 1<<30); got != tt.depth {
			t.Errorf("%s: got %d, want %d", tt.sql, got, tt.depth)
		}
	}
}

// BenchmarkInputBounds measures the check that every statement pays
// before the parser, on a 1.2 MB INSERT of 50,000 rows.
func BenchmarkInputBounds(b *testing.B) {
	sql := "INSERT INTO t VALUES (1, 'some text', -2.5, 'x' || 'y')" +
		strings.Repeat(", (1, 'some text', -2.5, 'x' || 'y')", 50000)
	b.SetBytes(int64(len(sql)))
	for b.Loop() {
		if err := checkInputBounds(sql); err != nil {
			b.Fatal(err)
		}
	}
}
