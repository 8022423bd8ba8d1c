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
	// Two int4 columns: a constant for the one fits the other.
	ints := expr.Get{ID: 8, Types: []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}}
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
		cols int
	}{
		{"first column", filter(get, eq(col(0), i4)), nil, enc(repr.NewInt4(5)), 1},
		{"constant on the left", filter(get, eq(i4, col(0))), nil, enc(repr.NewInt4(5)), 1},
		{"two leading columns", filter(get, eq(col(1), txt), eq(col(0), i4)), nil, enc(repr.NewInt4(5), repr.NewText("x")), 2},
		{"a gap ends the prefix", filter(get, eq(col(0), i4), eq(col(3), i8)), nil, enc(repr.NewInt4(5)), 1},
		{"second column alone", filter(get, eq(col(1), txt)), nil, nil, 0},
		{"filters apart, a Map between", filter(expr.Map{Input: filter(get, eq(col(0), i4)), Scalars: []expr.Scalar{col(1)}}, eq(col(1), txt)), nil, enc(repr.NewInt4(5), repr.NewText("x")), 2},
		{"index keys in their order", filter(get, eq(col(3), i8), eq(col(1), txt)), []int{3, 1}, enc(repr.NewInt8(5), repr.NewText("x")), 2},
		{"index key not pinned", filter(get, eq(col(0), i4)), []int{3, 0}, nil, 0},
		{"not equality", filter(get, expr.CallBinary{Func: expr.Lt, Left: col(0), Right: i4}), nil, nil, 0},
		{"NULL constant", filter(get, eq(col(0), null)), nil, nil, 0},
		{"constant of another kind", filter(get, eq(col(0), i8)), nil, nil, 0},
		{"column against column", filter(get, eq(col(0), col(3))), nil, nil, 0},
		{"interval: looser than its encoding", filter(get, eq(col(2), day)), []int{2}, nil, 0},
		{"a Project's column", filter(expr.Project{Input: ints, Outputs: []int{1, 0}}, eq(col(0), i4)), nil, nil, 0},
		{"a Project's column, had it none", filter(ints, eq(col(1), i4)), nil, nil, 0},
		{"the Get's column under a Project", expr.Project{Input: filter(ints, eq(col(0), i4)), Outputs: []int{1, 0}}, nil, enc(repr.NewInt4(5)), 1},
	} {
		p, ok := PeekOf(c.plan)
		if !ok {
			t.Fatalf("%s: not a peek", c.name)
		}
		got, n := p.KeyPrefix(c.keys)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: prefix %x, want %x", c.name, got, c.want)
		}
		if want := c.cols; n != want {
			t.Errorf("%s: %d columns pinned, want %d", c.name, n, want)
		}
	}
}
