package expr

import (
	"strings"
	"testing"

	"freshet/repr"
	"freshet/sqlerr"
)

var (
	tru  = Bool(true)
	fals = Bool(false)
	null = NullOf(repr.Bool)
)

func i4(v int32) Literal { return Literal{Value: repr.NewInt4(v), Type: repr.Int4} }

func nullInt() Literal { return NullOf(repr.Int4) }

func show(d repr.Datum) string {
	if d.IsNull() {
		return "NULL"
	}
	return repr.FormatText(d)
}

func TestScalarEval(t *testing.T) {
	divZero := CallBinary{Func: Div, Left: i4(1), Right: i4(0)}
	tests := []struct {
		name string
		expr Scalar
		want string
		code string
	}{
		{"true and null", CallBinary{And, tru, null}, "NULL", ""},
		{"false and null", CallBinary{And, fals, null}, "f", ""},
		{"null and false", CallBinary{And, null, fals}, "f", ""},
		{"true or null", CallBinary{Or, tru, null}, "t", ""},
		{"null or true", CallBinary{Or, null, tru}, "t", ""},
		{"false or null", CallBinary{Or, fals, null}, "NULL", ""},
		{"not null", CallUnary{Not, null}, "NULL", ""},
		{"null is null", CallUnary{IsNull, null}, "t", ""},
		{"null is true", CallUnary{IsTrue, null}, "f", ""},
		{"1 = null", CallBinary{Eq, i4(1), nullInt()}, "NULL", ""},
		{"null = null", CallBinary{Eq, nullInt(), nullInt()}, "NULL", ""},
		{"null is not distinct from null", CallBinary{IsNotDistinctFrom, nullInt(), nullInt()}, "t", ""},
		{"1 is distinct from null", CallBinary{IsDistinctFrom, i4(1), nullInt()}, "t", ""},
		{"2 < 10", CallBinary{Lt, i4(2), i4(10)}, "t", ""},
		{"-7 / 2", CallBinary{Div, i4(-7), i4(2)}, "-3", ""},
		{"-7 % 2", CallBinary{Mod, i4(-7), i4(2)}, "-1", ""},
		{"1 / 0", divZero, "", sqlerr.DivisionByZero},
		{"1 + null", CallBinary{Add, i4(1), nullInt()}, "NULL", ""},
		{"null / 0", CallBinary{Div, nullInt(), i4(0)}, "NULL", ""},
		{"int4 overflow", CallBinary{Mul, i4(1 << 30), i4(4)}, "", sqlerr.NumericValueOutOfRange},
		{"coalesce", CallVariadic{Coalesce, []Scalar{nullInt(), i4(2), divZero}}, "2", ""},
		{"coalesce all null", CallVariadic{Coalesce, []Scalar{nullInt(), nullInt()}}, "NULL", ""},
		{"greatest skips null", CallVariadic{Greatest, []Scalar{i4(1), nullInt(), i4(3)}}, "3", ""},
		{"least", CallVariadic{Least, []Scalar{i4(5), i4(-1)}}, "-1", ""},
		{"case is lazy", If{Cond: fals, Then: divZero, Else: i4(7)}, "7", ""},
		{"case null cond", If{Cond: null, Then: i4(1), Else: i4(2)}, "2", ""},
		{"or ignores the other side's error", CallBinary{Or, tru, CallBinary{Eq, divZero, i4(1)}}, "t", ""},
		{"and raises the error it needs", CallBinary{And, tru, CallBinary{Eq, divZero, i4(1)}}, "", sqlerr.DivisionByZero},
		{"abs", CallUnary{Abs, i4(-4)}, "4", ""},
		{"neg", CallUnary{Neg, i4(4)}, "-4", ""},
		{"cast text to int", Cast{Arg: Literal{repr.NewText("42"), repr.Text}, To: repr.Int4}, "42", ""},
		{"bad cast", Cast{Arg: Literal{repr.NewText("x"), repr.Text}, To: repr.Int4}, "", sqlerr.InvalidTextRepresentation},
		{"concat", CallBinary{Concat, Literal{repr.NewText("a"), repr.Text}, i4(1)}, "a1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.expr.Eval(nil)
			if tt.code != "" {
				if sqlerr.Code(err) != tt.code {
					t.Fatalf("%s: error %v (code %s), want code %s", tt.expr, err, sqlerr.Code(err), tt.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.expr, err)
			}
			if show(got) != tt.want {
				t.Fatalf("%s = %s, want %s", tt.expr, show(got), tt.want)
			}
		})
	}
}

func ints(vals ...any) []repr.Datum {
	ds := make([]repr.Datum, len(vals))
	for i, v := range vals {
		if v == nil {
			ds[i] = repr.Null
		} else {
			ds[i] = repr.NewInt4(int32(v.(int)))
		}
	}
	return ds
}

func intCols(n int, nullable bool) []ColumnType {
	ts := make([]ColumnType, n)
	for i := range ts {
		ts[i] = ColumnType{Type: repr.Int4, Nullable: nullable}
	}
	return ts
}

// The tables of research/sql-planning.md §7.
var (
	tTable = Constant{Types: intCols(2, true), Rows: []Row{
		{ints(1, 10), 1}, {ints(2, 20), 1}, {ints(2, nil), 1}, {ints(3, nil), 1}, {ints(nil, 5), 1}}}
	uTable = Constant{Types: intCols(2, true), Rows: []Row{
		{ints(1, 100), 1}, {ints(1, 101), 1}, {ints(2, 200), 1}, {ints(nil, 300), 1}}}
	eTable = Constant{Types: intCols(1, true)}
)

func render(c Collection) string {
	var rows []string
	for _, r := range c {
		rows = append(rows, formatRow(r))
	}
	return strings.Join(rows, " ")
}

func TestInterpret(t *testing.T) {
	tests := []struct {
		name string
		plan Relation
		want string
	}{
		{
			// Join equivalences match NULL with NULL (IS NOT DISTINCT FROM).
			"equivalence matches nulls",
			Project{Join{Inputs: []Relation{tTable, uTable}, Equivalences: [][]Scalar{{Column{0}, Column{2}}}}, []int{1, 3}},
			"(5, 300) (10, 100) (10, 101) (20, 200) (null, 200)",
		},
		{
			// SQL = in a filter never matches NULL.
			"filter equality drops nulls",
			Project{Filter{Join{Inputs: []Relation{tTable, uTable}}, []Scalar{CallBinary{Eq, Column{0}, Column{2}}}}, []int{1, 3}},
			"(10, 100) (10, 101) (20, 200) (null, 200)",
		},
		{
			// An empty global aggregate has no rows by itself…
			"reduce over empty input",
			Reduce{Input: eTable, Aggregates: []Aggregate{{Func: Count, Expr: Column{0}}}},
			"",
		},
		{
			// …and the planner's default-row pattern gives count 0, max NULL.
			"global aggregate default row",
			func() Relation {
				r := Reduce{Input: eTable, Aggregates: []Aggregate{{Func: Count, Expr: tru}, {Func: Max, Expr: Column{0}}}}
				unit := Constant{Rows: []Row{{nil, 1}}}
				defaults := Map{Input: Union{[]Relation{unit, Negate{Project{r, nil}}}}, Scalars: []Scalar{
					Literal{repr.NewInt8(0), repr.Int8}, nullInt()}}
				return Union{[]Relation{r, defaults}}
			}(),
			"(0, null)",
		},
		{
			"aggregates skip nulls",
			Reduce{Input: tTable, GroupKey: []Scalar{Column{0}}, Aggregates: []Aggregate{
				{Func: Count, Expr: Column{1}}, {Func: Sum, Expr: Column{1}}, {Func: Count, Expr: tru}}},
			"(1, 1, 10, 1) (2, 1, 20, 2) (3, 0, null, 1) (null, 1, 5, 1)",
		},
		{
			"distinct aggregate",
			Reduce{Input: Constant{Types: intCols(1, false), Rows: []Row{{ints(1), 2}, {ints(2), 1}}},
				Aggregates: []Aggregate{{Func: Count, Expr: Column{0}, Distinct: true}, {Func: Sum, Expr: Column{0}}}},
			"(2, 4)",
		},
		{
			"topk nulls last ascending, offset and limit",
			TopK{Input: tTable, Order: []ColumnOrder{{Column: 1}}, Limit: 2, Offset: 1},
			"(1, 10) (2, 20)",
		},
		{
			"topk desc nulls first",
			TopK{Input: tTable, Order: []ColumnOrder{{Column: 1, Desc: true, NullsFirst: true}}, Limit: 3},
			"(2, null) (3, null) (2, 20)",
		},
		{
			"except all is threshold of a difference",
			Threshold{Union{[]Relation{Project{tTable, []int{0}}, Negate{Project{uTable, []int{0}}}}}},
			"(2) (3)",
		},
		{
			"generate_series",
			FlatMap{Input: Constant{Rows: []Row{{nil, 1}}}, Func: GenerateSeries, Args: []Scalar{i4(1), i4(7), i4(3)}, Type: repr.Int4},
			"(1) (4) (7)",
		},
		{
			"let",
			Let{ID: 1, Value: Project{uTable, []int{0}}, Body: Distinct{LocalGet{ID: 1, Types: intCols(1, true)}}},
			"(1) (2) (null)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Check(tt.plan); err != nil {
				t.Fatal(err)
			}
			got, err := Interpret(tt.plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Render in sorted text order, independent of encoding order.
			if g := sortedRender(got); g != sortedWords(tt.want) {
				t.Fatalf("got %s\nwant %s\nplan:\n%s", g, sortedWords(tt.want), Explain(tt.plan))
			}
		})
	}
}

func sortedRender(c Collection) string { return sortedWords(render(c)) }

func sortedWords(s string) string {
	if s == "" {
		return ""
	}
	parts := strings.Split(strings.ReplaceAll(s, ") (", ")|("), "|")
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && parts[j] < parts[j-1]; j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
	return strings.Join(parts, " ")
}

func TestInterpretErrors(t *testing.T) {
	plan := Map{Input: tTable, Scalars: []Scalar{CallBinary{Div, Column{0}, CallBinary{Sub, Column{0}, i4(3)}}}}
	if _, err := Interpret(plan, nil); sqlerr.Code(err) != sqlerr.DivisionByZero {
		t.Fatalf("got %v, want division by zero", err)
	}
	if _, err := Interpret(FlatMap{Input: Constant{Rows: []Row{{nil, 1}}}, Func: GenerateSeries, Args: []Scalar{i4(1), i4(2), i4(0)}, Type: repr.Int4}, nil); sqlerr.Code(err) != sqlerr.InvalidParameterValue {
		t.Fatalf("step 0: %v", err)
	}
}

func TestCheck(t *testing.T) {
	bad := []Relation{
		Filter{tTable, []Scalar{Column{2}}},
		Project{tTable, []int{5}},
		Map{tTable, []Scalar{Column{2}, Column{4}}},
		Union{[]Relation{tTable, eTable}},
		Join{Inputs: []Relation{tTable, eTable}, Equivalences: [][]Scalar{{Column{0}, Column{3}}}},
	}
	for _, r := range bad {
		if err := Check(r); sqlerr.Code(err) != sqlerr.InternalError {
			t.Errorf("Check(%s) = %v, want an internal error", strings.TrimSpace(Explain(r)), err)
		}
	}
	if err := Check(Map{tTable, []Scalar{Column{1}, Column{2}}}); err != nil {
		t.Errorf("a map may read the columns it appended: %v", err)
	}
}

func TestTypes(t *testing.T) {
	r := Reduce{Input: tTable, GroupKey: []Scalar{Column{0}}, Aggregates: []Aggregate{
		{Func: Count, Expr: Column{1}}, {Func: Sum, Expr: Column{1}}, {Func: Max, Expr: Column{1}}}}
	got := []string{}
	for _, c := range r.Typ() {
		got = append(got, c.String())
	}
	want := "integer? bigint bigint? integer?"
	if strings.Join(got, " ") != want {
		t.Fatalf("types %v, want %s", got, want)
	}
	f := Filter{tTable, []Scalar{CallUnary{Not, CallUnary{IsNull, Column{0}}}}}
	if f.Typ()[0].Nullable {
		t.Fatal("IS NOT NULL filter leaves the column nullable")
	}
}

func TestExplain(t *testing.T) {
	plan := Filter{Join{Inputs: []Relation{Get{ID: 1, Name: "t", Types: intCols(2, true)}, Get{ID: 2, Name: "u", Types: intCols(2, true)}},
		Equivalences: [][]Scalar{{Column{0}, Column{2}}}}, []Scalar{CallBinary{Gt, Column{1}, i4(5)}}}
	want := `Filter (#1 > 5)
  Join on=(#0 = #2)
    Get g1 (t)
    Get g2 (u)
`
	if got := Explain(plan); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLike(t *testing.T) {
	tests := []struct {
		s, p string
		fold bool
		want bool
	}{
		{"abc", "abc", false, true},
		{"abc", "a%", false, true},
		{"abc", "%c", false, true},
		{"abc", "%b%", false, true},
		{"abc", "a_c", false, true},
		{"abc", "a__c", false, false},
		{"abc", "%%%", false, true},
		{"", "%", false, true},
		{"", "_", false, false},
		{"a%c", `a\%c`, false, true},
		{"abc", `a\%c`, false, false},
		{"a_c", `a\_c`, false, true},
		{"ABC", "a%", false, false},
		{"ABC", "a%", true, true},
		{"héllo", "h_llo", false, true},
		{"aXbXc", "%X%X%", false, true},
	}
	for _, tt := range tests {
		got, err := like(tt.s, tt.p, tt.fold)
		if err != nil || got.Bool() != tt.want {
			t.Errorf("like(%q, %q, %v) = %v, %v; want %v", tt.s, tt.p, tt.fold, got, err, tt.want)
		}
	}
	if _, err := like("a", `a\`, false); sqlerr.Code(err) != sqlerr.InvalidEscapeSequence {
		t.Errorf("trailing escape: %v", err)
	}
}

func TestNeverFails(t *testing.T) {
	c0, c1 := Column{Index: 0}, Column{Index: 1}
	lit := Literal{Value: repr.NewInt4(10), Type: repr.Int4}
	for _, tc := range []struct {
		s    Scalar
		want bool
	}{
		{c0, true},
		{CallBinary{Func: And, Left: CallBinary{Func: Gte, Left: c0, Right: lit}, Right: CallBinary{Func: Lt, Left: c0, Right: lit}}, true},
		{CallUnary{Func: Not, Arg: CallUnary{Func: IsNull, Arg: c1}}, true},
		{If{Cond: CallBinary{Func: Eq, Left: c0, Right: c1}, Then: c0, Else: lit}, true},
		{CallBinary{Func: Gt, Left: CallBinary{Func: Div, Left: lit, Right: c0}, Right: lit}, false},
		{CallBinary{Func: Regex, Left: c0, Right: c1}, false},
		{Cast{Arg: c0, To: repr.Int2}, false},
	} {
		if got := NeverFails(tc.s); got != tc.want {
			t.Errorf("NeverFails(%s) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
