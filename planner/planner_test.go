package planner

import (
	"strings"
	"testing"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

func TestParse(t *testing.T) {
	stmts, err := Parse("SELECT 1; \n select 2 ;")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 || stmts[0].Text != "SELECT 1" || stmts[1].Text != "select 2" {
		t.Fatalf("got %+v", stmts)
	}
	if stmts, err := Parse("  "); err != nil || len(stmts) != 0 {
		t.Fatalf("empty string: %v %v", stmts, err)
	}
	_, err = Parse("SELECT 1;\nSELEC 2")
	e := sqlerr.From(err)
	if e.Code != sqlerr.SyntaxError || e.Position != 11 {
		t.Fatalf("syntax error: %+v", e)
	}
}

func TestPlanStatements(t *testing.T) {
	cat := newTestCatalog(t)
	stmts, err := Plan(cat, "BEGIN; SELECT k FROM t; INSERT INTO t VALUES (1, 2); COMMIT; SHOW x")
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, s := range stmts {
		tags = append(tags, s.Tag())
	}
	want := []string{"BEGIN", "SELECT", "INSERT", "COMMIT", "SHOW"}
	if len(tags) != len(want) {
		t.Fatalf("tags %v, want %v", tags, want)
	}
	for i := range want {
		if tags[i] != want[i] {
			t.Fatalf("tags %v, want %v", tags, want)
		}
	}
	// A statement with a parameter needs PlanWithParams.
	if _, err := Plan(cat, "SELECT $1"); sqlerr.Code(err) != sqlerr.UndefinedParameter {
		t.Fatalf("parameter without PlanWithParams: %v", err)
	}
}

// TestErrorCodes checks that errors reach the caller as *sqlerr.Error
// with their SQLSTATE and position (testdata/errors.txt has many more).
func TestErrorCodes(t *testing.T) {
	cat := newTestCatalog(t)
	for _, tt := range []struct {
		sql, code string
		pos       int
	}{
		{"SELECT x FROM t", sqlerr.UndefinedColumn, 8},
		{"SELECT k FROM t, u", sqlerr.AmbiguousColumn, 8},
		{"SELECT * FROM nope", sqlerr.UndefinedTable, 15},
		{"SELECT k, v FROM t GROUP BY k", sqlerr.GroupingError, 11},
		{"SELECT 'a'::text = 1", sqlerr.UndefinedFunction, 18},
		{"SELECT CASE WHEN true THEN 1 ELSE true END", sqlerr.DatatypeMismatch, 8},
		{"SELECT 'x'::int", sqlerr.InvalidTextRepresentation, 8},
		{"SELECT 1/0", sqlerr.DivisionByZero, 0},
		{"SELECT k FROM t WHERE a LIKE 'x'", sqlerr.UndefinedColumn, 23},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY k) OVER () FROM t", sqlerr.FeatureNotSupported, 8},
		{"SELEC", sqlerr.SyntaxError, 1},
	} {
		_, err := Plan(cat, tt.sql)
		var e *sqlerr.Error
		if err != nil {
			e, _ = err.(*sqlerr.Error)
		}
		if e == nil || e.Code != tt.code || e.Position != tt.pos {
			t.Errorf("%s: got %#v, want %s at %d", tt.sql, err, tt.code, tt.pos)
		}
	}
}

func TestPlanWithParams(t *testing.T) {
	cat := newTestCatalog(t)
	stmt, types, err := PlanWithParams(cat, "SELECT k FROM t WHERE k = $1 AND $2::text <> ''", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 2 || types[0] != repr.Int4 || types[1] != repr.Text {
		t.Fatalf("inferred %v", types)
	}
	run := func(vals ...repr.Datum) int {
		bound, err := BindParams(stmt, vals)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := expr.Interpret(bound.(*Select).Plan, cat.data)
		if err != nil {
			t.Fatal(err)
		}
		return len(bound.(*Select).Finishing.Apply(rows))
	}
	// Binding leaves the prepared statement as it was, so it can be bound
	// again.
	if n := run(repr.NewInt4(2), repr.NewText("x")); n != 2 {
		t.Fatalf("k = 2: %d rows", n)
	}
	if n := run(repr.NewInt4(3), repr.NewText("x")); n != 1 {
		t.Fatalf("k = 3: %d rows", n)
	}
	if _, err := BindParams(stmt, []repr.Datum{repr.NewInt4(1)}); sqlerr.Code(err) != sqlerr.ProtocolViolation {
		t.Fatalf("too few values: %v", err)
	}
	// A value of another type is cast to the parameter's.
	if n := run(repr.NewText("2"), repr.NewText("x")); n != 2 {
		t.Fatalf("text value: %d rows", n)
	}
	// The client's types win over inference.
	_, types, err = PlanWithParams(cat, "SELECT $1 + 1", []repr.Type{repr.Numeric})
	if err != nil || types[0] != repr.Numeric {
		t.Fatalf("given type: %v %v", types, err)
	}
}

func TestCopyRow(t *testing.T) {
	cat := newTestCatalog(t)
	stmts, err := Plan(cat, "COPY items (price, id) FROM STDIN")
	if err != nil {
		t.Fatal(err)
	}
	c := stmts[0].(*Copy)
	row, err := c.Row([]repr.Datum{repr.NewString(repr.KindText, "1.005"), repr.NewInt4(7)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range row {
		got = append(got, repr.FormatText(d))
	}
	if want := "7 unnamed 1.01 1"; joinFields(got) != want {
		t.Fatalf("row %v, want %s", got, want)
	}
	if _, err := c.Row([]repr.Datum{repr.Null, repr.Null}); sqlerr.Code(err) != sqlerr.NotNullViolation {
		t.Fatalf("NULL id: %v", err)
	}
	if _, err := c.Row([]repr.Datum{repr.Null}); sqlerr.Code(err) != sqlerr.InvalidTextRepresentation {
		t.Fatalf("short row: %v", err)
	}
}

func joinFields(fs []string) string {
	out := ""
	for i, f := range fs {
		if i > 0 {
			out += " "
		}
		out += f
	}
	return out
}

func TestFinishingApply(t *testing.T) {
	row := func(vals ...int32) expr.Row {
		ds := make([]repr.Datum, len(vals))
		for i, v := range vals {
			if v >= 0 {
				ds[i] = repr.NewInt4(v)
			}
		}
		return expr.Row{Datums: ds, Diff: 1}
	}
	rows := expr.Consolidate([]expr.Row{row(1, 10), row(2, -1), row(3, 30), row(2, -1), row(-1, 5)})
	for _, tt := range []struct {
		name string
		f    Finishing
		want string
	}{
		{"all", Finishing{Limit: -1, Project: []int{0, 1}}, "[1 10] [2 NULL] [2 NULL] [3 30] [NULL 5]"},
		{"desc nulls first", Finishing{OrderBy: []expr.ColumnOrder{{Column: 1, Desc: true, NullsFirst: true}}, Limit: -1, Project: []int{1}},
			"[NULL] [NULL] [30] [10] [5]"},
		{"limit offset", Finishing{OrderBy: []expr.ColumnOrder{{Column: 0}}, Limit: 2, Offset: 1, Project: []int{0}}, "[2] [2]"},
		{"offset past end", Finishing{Limit: -1, Offset: 9, Project: []int{0}}, ""},
		{"limit 0", Finishing{Limit: 0, Project: []int{0}}, ""},
	} {
		var got []string
		for _, r := range tt.f.Apply(rows) {
			s := "["
			for i, d := range r {
				if i > 0 {
					s += " "
				}
				if d.IsNull() {
					s += "NULL"
				} else {
					s += repr.FormatText(d)
				}
			}
			got = append(got, s+"]")
		}
		if joinFields(got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, joinFields(got), tt.want)
		}
	}
}

// TestViewCatalogForms checks that a view given by SQL and one given by
// a plan read the same.
func TestViewCatalogForms(t *testing.T) {
	cat := newTestCatalog(t)
	pv := cat.rels["pv"]
	pv.Plan, pv.SQL = nil, "SELECT k, w FROM u WHERE w > 100"
	cat.rels["pv_sql"] = pv
	read := func(name string) string {
		stmts, err := Plan(cat, "SELECT k, w FROM "+name+" ORDER BY w")
		if err != nil {
			t.Fatal(err)
		}
		sel := stmts[0].(*Select)
		rows, err := expr.Interpret(sel.Plan, cat.data)
		if err != nil {
			t.Fatal(err)
		}
		return formatRows(nil, sel.Finishing.Apply(rows), true)
	}
	if a, b := read("pv"), read("pv_sql"); a != b {
		t.Fatalf("plan form:\n%s\nSQL form:\n%s", a, b)
	}
}

// TestMakeObjectName checks generated constraint names against the ones
// PostgreSQL 15 makes: name1_name2_label within 63 bytes, the longer part
// cut first, never inside a character.
func TestMakeObjectName(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tt := range []struct {
		name1, name2, label, want string
	}{
		{"t", "", "pkey", "t_pkey"},
		{"t", "a_b", "key", "t_a_b_key"},
		{"t", "a", "key1", "t_a_key1"},
		{long, "", "pkey", strings.Repeat("x", 58) + "_pkey"},
		{long, "a", "key", strings.Repeat("x", 57) + "_a_key"},
		{"tbl", long, "key", "tbl_" + strings.Repeat("x", 55) + "_key"},
		// é is two bytes: the cut falls inside it, so it goes whole.
		{"t", strings.Repeat("x", 56) + "é", "key", "t_" + strings.Repeat("x", 56) + "_key"},
	} {
		got := makeObjectName(tt.name1, tt.name2, tt.label)
		if got != tt.want || len(got) > nameLimit {
			t.Errorf("makeObjectName(%q, %q, %q) = %q, want %q", tt.name1, tt.name2, tt.label, got, tt.want)
		}
	}
	if got := indexNameAddition([]string{"a", "b", "c"}); got != "a_b_c" {
		t.Errorf("indexNameAddition: %q", got)
	}
}

// TestGroupingMatchesLiteralsByValue: an expression in the select list
// matches the same expression in GROUP BY, and an aggregate written twice
// is one, however their string and numeric literals are held; literals
// of different values or scales do not match.
func TestGroupingMatchesLiteralsByValue(t *testing.T) {
	cat := newTestCatalog(t)
	for _, sql := range []string{
		"SELECT a || 'z' FROM s GROUP BY a || 'z'",
		"SELECT b * 1.50 FROM s GROUP BY b * 1.50",
		"SELECT b + 123456789012345678901234567890.5 FROM s GROUP BY b + 123456789012345678901234567890.5",
		"SELECT count(*) FILTER (WHERE a <> 'q') FROM s HAVING count(*) FILTER (WHERE a <> 'q') > 0",
	} {
		if _, err := Plan(cat, sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT a || 'z' FROM s GROUP BY a || 'y'",
		"SELECT b * 1.5 FROM s GROUP BY b * 1.50",
	} {
		if _, err := Plan(cat, sql); sqlerr.Code(err) != sqlerr.GroupingError {
			t.Errorf("%s: %v, want a grouping error", sql, err)
		}
	}
	aggs := func(sql string) int {
		p, err := Plan(cat, sql)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(expr.Explain(p[0].(*Select).Plan), "max(")
	}
	if once, twice := aggs("SELECT max(a || 'z') FROM s"), aggs("SELECT max(a || 'z'), max(a || 'z') FROM s"); once != 1 || twice != 1 {
		t.Errorf("max(a || 'z') written twice is planned as %d aggregates, once as %d", twice, once)
	}
}
