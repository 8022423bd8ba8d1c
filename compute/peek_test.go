package compute

import (
	"bytes"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// TestPeekKeyPrefix: the prefix a peek seeks to is the encoding of the
// constants its `column = constant` predicates pin, over the leading
// key columns in key order, up to the first column not pinned; and none
// where a predicate only looks like one (another function, a NULL, a
// constant of another kind, a kind whose `=` is looser than its
// encoding) or where the column is the Project's, not the Get's.
func TestPeekKeyPrefix(t *testing.T) {
	get := expr.Get{ID: 7, Types: []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Text}, {Type: repr.Interval}, {Type: repr.Int8}}}
	eq := func(l, r expr.Scalar) expr.Scalar { return expr.CallBinary{Func: expr.Eq, Left: l, Right: r} }
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	i4 := expr.Literal{Value: repr.NewInt4(5), Type: repr.Int4}
	i8 := expr.Literal{Value: repr.NewInt8(5), Type: repr.Int8}
	txt := expr.Literal{Value: repr.NewText("x"), Type: repr.Text}
	day := expr.Literal{Value: repr.NewInterval(repr.IntervalValue{Days: 1}), Type: repr.Interval}
	null := expr.Literal{Value: repr.Null, Type: repr.Int4}
	enc := func(ds ...repr.Datum) []byte {
		var b []byte
		for _, d := range ds {
			b = repr.AppendDatum(b, d)
		}
		return b
	}
	filter := func(in expr.Relation, ps ...expr.Scalar) expr.Relation {
		return expr.Filter{Input: in, Predicates: ps}
	}
	for _, c := range []struct {
		name string
		plan expr.Relation
		keys []int
		want []byte
	}{
		{"first column", filter(get, eq(col(0), i4)), nil, enc(repr.NewInt4(5))},
		{"constant on the left", filter(get, eq(i4, col(0))), nil, enc(repr.NewInt4(5))},
		{"two leading columns", filter(get, eq(col(1), txt), eq(col(0), i4)), nil, enc(repr.NewInt4(5), repr.NewText("x"))},
		{"a gap ends the prefix", filter(get, eq(col(0), i4), eq(col(3), i8)), nil, enc(repr.NewInt4(5))},
		{"second column alone", filter(get, eq(col(1), txt)), nil, nil},
		{"filters apart, a Map between", filter(expr.Map{Input: filter(get, eq(col(0), i4)), Scalars: []expr.Scalar{col(1)}}, eq(col(1), txt)), nil, enc(repr.NewInt4(5), repr.NewText("x"))},
		{"index keys in their order", filter(get, eq(col(3), i8), eq(col(1), txt)), []int{3, 1}, enc(repr.NewInt8(5), repr.NewText("x"))},
		{"index key not pinned", filter(get, eq(col(0), i4)), []int{3, 0}, nil},
		{"not equality", filter(get, expr.CallBinary{Func: expr.Lt, Left: col(0), Right: i4}), nil, nil},
		{"NULL constant", filter(get, eq(col(0), null)), nil, nil},
		{"constant of another kind", filter(get, eq(col(0), i8)), nil, nil},
		{"column against column", filter(get, eq(col(0), col(3))), nil, nil},
		{"interval: looser than its encoding", filter(get, eq(col(2), day)), []int{2}, nil},
		{"a Project's column", filter(expr.Project{Input: get, Outputs: []int{1, 0}}, eq(col(1), i4)), nil, nil},
	} {
		p, ok := PeekOf(c.plan)
		if !ok {
			t.Fatalf("%s: not a peek", c.name)
		}
		if got := p.KeyPrefix(c.keys); !bytes.Equal(got, c.want) {
			t.Errorf("%s: prefix %x, want %x", c.name, got, c.want)
		}
	}
}
