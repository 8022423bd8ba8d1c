package expr

import (
	"testing"

	"freshet/repr"
	"freshet/sqlerr"
)

func TestRegexMatch(t *testing.T) {
	for _, tc := range []struct {
		s, p string
		fold bool
		want bool
		code string
	}{
		{s: "orders", p: "^orders$", want: true},
		{s: "Orders", p: "^orders$", want: false},
		{s: "Orders", p: "^orders$", fold: true, want: true},
		{s: "a\nb", p: "a.b", want: true},
		{s: "ab", p: `b\Z`, want: true},
		{s: "ab\nc", p: `b$`, want: false},
		{s: "x", p: "(x", code: sqlerr.InvalidRegularExpression},
		{s: "x", p: `\mx`, code: sqlerr.InvalidRegularExpression},
		{s: "xx", p: `(x)\1`, code: sqlerr.InvalidRegularExpression},
		{s: "x", p: `x\`, code: sqlerr.InvalidRegularExpression},
	} {
		got, err := regexMatch(tc.s, tc.p, tc.fold)
		if tc.code != "" {
			if sqlerr.Code(err) != tc.code {
				t.Errorf("%q ~ %q: error %v, want SQLSTATE %s", tc.s, tc.p, err, tc.code)
			}
			continue
		}
		if err != nil || got.Bool() != tc.want {
			t.Errorf("%q ~ %q (fold %v) = %v, %v; want %v", tc.s, tc.p, tc.fold, got, err, tc.want)
		}
	}
}

func TestStringAgg(t *testing.T) {
	row := func(s string, n int64) Row {
		d := repr.Null
		if s != "" {
			d = repr.NewText(s)
		}
		return Row{Datums: []repr.Datum{d}, Diff: n}
	}
	agg := Aggregate{Func: StringAgg, Expr: Column{0}, Delimiter: ","}
	for _, tc := range []struct {
		rows []Row
		want string // "" for NULL
	}{
		{rows: nil},
		{rows: []Row{row("", 1)}},
		{rows: []Row{row("b", 1), row("a", 2), row("", 3)}, want: "a,a,b"},
		{rows: []Row{row("b", 1), row("a", 0)}, want: "b"},
	} {
		got, err := EvalAggregate(agg, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		if (tc.want == "" && !got.IsNull()) || (tc.want != "" && (got.IsNull() || got.Text() != tc.want)) {
			t.Errorf("string_agg(%v) = %v, want %q", tc.rows, got, tc.want)
		}
	}
}
