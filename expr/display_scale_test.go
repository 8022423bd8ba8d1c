package expr

import (
	"strings"
	"testing"

	"freshet/repr"
)

// TestDisplayScale checks that the types Typ gives numeric expressions
// carry their display scales: each plan is interpreted, and its rows pass
// through the row encoding decoded with the plan's types, as a
// dataflow's output does, before they are printed. The wants are what
// PostgreSQL 15.18 prints for the query named, over a table
// e (x numeric(10,2)) holding 1.50 and 2.50.
func TestDisplayScale(t *testing.T) {
	num := func(s string) repr.Datum {
		d, err := repr.ParseText(repr.NumericOf(10, 2), s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	lit := func(s string) Literal {
		d, err := repr.ParseText(repr.Numeric, s)
		if err != nil {
			t.Fatal(err)
		}
		return Literal{Value: d, Type: repr.Numeric}
	}
	text := func(s string) Literal { return Literal{Value: repr.NewText(s), Type: repr.Text} }
	ts := func(s string) Literal {
		d, err := repr.ParseText(repr.Timestamp, s)
		if err != nil {
			t.Fatal(err)
		}
		return Literal{Value: d, Type: repr.Timestamp}
	}
	e := Constant{
		Rows:  []Row{{[]repr.Datum{num("1.50")}, 1}, {[]repr.Datum{num("2.50")}, 1}},
		Types: []ColumnType{{Type: repr.NumericOf(10, 2), Nullable: true}},
	}
	x := Cast{Arg: Column{0}, To: repr.Numeric}
	mapE := func(ss ...Scalar) Relation { return Project{Input: Map{Input: e, Scalars: ss}, Outputs: []int{1}} }
	one := Constant{Rows: []Row{{nil, 1}}}
	sums := Reduce{Input: e, Aggregates: []Aggregate{{Func: Sum, Expr: Column{0}}, {Func: Count, Expr: Column{0}}}}
	tests := []struct {
		sql  string
		plan Relation
		want string
	}{
		{"SELECT 1.50", Map{Input: one, Scalars: []Scalar{lit("1.50")}}, "1.50"},
		{"VALUES (1.50), (2.25)", Constant{
			Rows:  []Row{{[]repr.Datum{lit("1.50").Value}, 1}, {[]repr.Datum{lit("2.25").Value}, 1}},
			Types: []ColumnType{{Type: repr.Numeric}},
		}, "1.50 2.25"},
		{"SELECT x * 2 FROM e", mapE(CallBinary{Mul, x, lit("2")}), "3.00 5.00"},
		{"SELECT x / 3 FROM e", mapE(CallBinary{Div, x, lit("3")}), "0.50000000000000000000 0.83333333333333333333"},
		{"SELECT round(x / 3, 4) FROM e", mapE(CallVariadic{Round, []Scalar{CallBinary{Div, x, lit("3")}, i4(4)}}), "0.5000 0.8333"},
		{"SELECT floor(x) FROM e", mapE(CallUnary{Floor, Column{0}}), "1 2"},
		{"SELECT ceil(x) FROM e", mapE(CallUnary{Ceil, Column{0}}), "2 3"},
		{"SELECT -x FROM e", mapE(CallUnary{Neg, Column{0}}), "-2.50 -1.50"},
		{"SELECT coalesce(NULL, 1.50)", Map{Input: one, Scalars: []Scalar{CallVariadic{Coalesce, []Scalar{NullOf(repr.Numeric), lit("1.50")}}}}, "1.50"},
		{"SELECT CASE WHEN true THEN 1.50 END", Map{Input: one, Scalars: []Scalar{If{Cond: tru, Then: lit("1.50"), Else: NullOf(repr.Numeric)}}}, "1.50"},
		{"SELECT extract(second FROM timestamp '2024-01-02 03:04:05')",
			Map{Input: one, Scalars: []Scalar{CallVariadic{Extract, []Scalar{text("second"), ts("2024-01-02 03:04:05")}}}}, "5.000000"},
		{"SELECT extract(milliseconds FROM timestamp '2024-01-02 03:04:05.5')",
			Map{Input: one, Scalars: []Scalar{CallVariadic{Extract, []Scalar{text("milliseconds"), ts("2024-01-02 03:04:05.5")}}}}, "5500.000"},
		{"SELECT extract(epoch FROM timestamp '2024-01-02 03:04:05')",
			Map{Input: one, Scalars: []Scalar{CallVariadic{Extract, []Scalar{text("epoch"), ts("2024-01-02 03:04:05")}}}}, "1704164645.000000"},
		{"SELECT sum(x) FROM e", Project{Input: sums, Outputs: []int{0}}, "4.00"},
		{"SELECT avg(x) FROM e", Project{Input: Map{Input: sums, Scalars: []Scalar{
			CallBinary{Div, Cast{Arg: Column{0}, To: repr.Numeric}, Cast{Arg: Column{1}, To: repr.Numeric}},
		}}, Outputs: []int{2}}, "2.0000000000000000"},
		// The planner's default row for an aggregate without input: a
		// NULL does not lower the sum's display scale.
		{"SELECT sum(x) FROM e", Union{Inputs: []Relation{
			Project{Input: sums, Outputs: []int{0}},
			Map{Input: Constant{}, Scalars: []Scalar{NullOf(repr.Numeric)}},
		}}, "4.00"},
		// A LEFT JOIN's NULL-padded rows likewise.
		{"SELECT f.x FROM e LEFT JOIN e f ON e.x = f.x + 1", Union{Inputs: []Relation{
			Map{Input: Constant{Rows: []Row{{nil, 1}}}, Scalars: []Scalar{NullOf(repr.Numeric)}},
			Project{Input: Filter{Input: e, Predicates: []Scalar{CallBinary{Eq, Column{0}, lit("1.50")}}}, Outputs: []int{0}},
		}}, "1.50 NULL"},
	}
	for _, tt := range tests {
		rows, err := Interpret(tt.plan, nil)
		if err != nil {
			t.Errorf("%s: %v", tt.sql, err)
			continue
		}
		types := make([]repr.Type, 0, 1)
		for _, c := range tt.plan.Typ() {
			types = append(types, c.Type)
		}
		var got []string
		for _, r := range rows {
			ds, err := repr.PackRow(r.Datums...).Datums(types)
			if err != nil {
				t.Fatalf("%s: %v", tt.sql, err)
			}
			for _, d := range ds {
				got = append(got, show(d))
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%s through a row: %s, want %s", tt.sql, g, tt.want)
		}
	}
}
