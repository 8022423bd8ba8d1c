package compute

import (
	"fmt"
	"reflect"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// TestPeekKeyRanges: the runs of keys a peek reads begin with the
// encodings of the constants its `column = constant` predicates pin,
// over the leading key columns in key order, up to the first column not
// pinned, which a list (`IN`) splits into a run per constant, in key
// order, and bounds (`<`, `>=`, …) cut to a range; there are none where a
// predicate only looks like one (another function, a NULL, a constant of
// another kind, a kind whose `=` is looser than its encoding) or where
// the column is the Project's, not the Get's.
func TestPeekKeyRanges(t *testing.T) {
	get := expr.Get{ID: 7, Types: []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Text}, {Type: repr.Interval}, {Type: repr.Int8}}}
	// Two int4 columns: a constant for the one fits the other.
	ints := expr.Get{ID: 8, Types: []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}}
	bin := func(f expr.BinaryFunc, l, r expr.Scalar) expr.Scalar {
		return expr.CallBinary{Func: f, Left: l, Right: r}
	}
	eq := func(l, r expr.Scalar) expr.Scalar { return bin(expr.Eq, l, r) }
	or := func(l, r expr.Scalar) expr.Scalar { return bin(expr.Or, l, r) }
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	i4 := func(v int32) expr.Scalar { return expr.Literal{Value: repr.NewInt4(v), Type: repr.Int4} }
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
	five := enc(repr.NewInt4(5))
	prefix := func(b []byte) []KeyRange { return []KeyRange{{Prefix: b}} }
	filter := func(in expr.Relation, ps ...expr.Scalar) expr.Relation {
		return expr.Filter{Input: in, Predicates: ps}
	}
	for _, c := range []struct {
		name  string
		plan  expr.Relation
		keys  []int
		want  []KeyRange
		score int
	}{
		{"first column", filter(get, eq(col(0), i4(5))), nil, prefix(five), 2},
		{"constant on the left", filter(get, eq(i4(5), col(0))), nil, prefix(five), 2},
		{"two leading columns", filter(get, eq(col(1), txt), eq(col(0), i4(5))), nil, prefix(enc(repr.NewInt4(5), repr.NewText("x"))), 4},
		{"a gap ends the prefix", filter(get, eq(col(0), i4(5)), eq(col(3), i8)), nil, prefix(five), 2},
		{"second column alone", filter(get, eq(col(1), txt)), nil, nil, 0},
		{"filters apart, a Map between", filter(expr.Map{Input: filter(get, eq(col(0), i4(5))), Scalars: []expr.Scalar{col(1)}}, eq(col(1), txt)), nil, prefix(enc(repr.NewInt4(5), repr.NewText("x"))), 4},
		{"index keys in their order", filter(get, eq(col(3), i8), eq(col(1), txt)), []int{3, 1}, prefix(enc(repr.NewInt8(5), repr.NewText("x"))), 4},
		{"index key not pinned", filter(get, eq(col(0), i4(5))), []int{3, 0}, nil, 0},
		{"NULL constant", filter(get, eq(col(0), null)), nil, nil, 0},
		{"constant of another kind", filter(get, eq(col(0), i8)), nil, nil, 0},
		{"column against column", filter(get, eq(col(0), col(3))), nil, nil, 0},
		{"interval: looser than its encoding", filter(get, eq(col(2), day)), []int{2}, nil, 0},
		{"a Project's column", filter(expr.Project{Input: ints, Outputs: []int{1, 0}}, eq(col(0), i4(5))), nil, nil, 0},
		{"a Project's column, had it none", filter(ints, eq(col(1), i4(5))), nil, nil, 0},
		{"the Get's column under a Project", expr.Project{Input: filter(ints, eq(col(0), i4(5))), Outputs: []int{1, 0}}, nil, prefix(five), 2},
		{"a list, in key order, once each", filter(get, or(or(eq(col(0), i4(7)), eq(i4(5), col(0))), eq(col(0), i4(7)))), nil,
			[]KeyRange{{Prefix: five}, {Prefix: enc(repr.NewInt4(7))}}, 1},
		{"a list after a pinned column", filter(ints, eq(col(0), i4(1)), or(eq(col(1), i4(2)), eq(col(1), i4(3)))), nil,
			[]KeyRange{{Prefix: enc(repr.NewInt4(1), repr.NewInt4(2))}, {Prefix: enc(repr.NewInt4(1), repr.NewInt4(3))}}, 3},
		{"a list of two columns", filter(ints, or(eq(col(0), i4(2)), eq(col(1), i4(3)))), nil, nil, 0},
		{"a list with another test", filter(ints, or(eq(col(0), i4(2)), bin(expr.Lt, col(0), i4(3)))), nil, nil, 0},
		{"a range", filter(get, bin(expr.Gte, col(0), i4(5)), bin(expr.Lt, col(0), i4(9))), nil,
			[]KeyRange{{Lo: five, Hi: enc(repr.NewInt4(9))}}, 1},
		{"the tightest bounds; the strict one of two alike", filter(get, bin(expr.Gt, col(0), i4(2)), bin(expr.Lt, i4(5), col(0)), bin(expr.Lte, col(0), i4(9)), bin(expr.Lt, col(0), i4(9)), bin(expr.Lte, col(0), i4(12))), nil,
			[]KeyRange{{Lo: five, Hi: enc(repr.NewInt4(9))}}, 1},
		{"an inclusive upper bound", filter(get, bin(expr.Lte, col(0), i4(9))), nil, []KeyRange{{Hi: enc(repr.NewInt4(9)), HiIncl: true}}, 1},
		{"bounds that hold nothing", filter(get, bin(expr.Gt, col(0), i4(9)), bin(expr.Lt, col(0), i4(5))), nil, []KeyRange{}, 1},
		{"a range after a pinned column", filter(ints, bin(expr.Gte, col(1), i4(5)), eq(col(0), i4(1))), nil,
			[]KeyRange{{Prefix: enc(repr.NewInt4(1)), Lo: five}}, 3},
		{"a range of a kind that orders otherwise", filter(get, bin(expr.Gt, col(2), day)), []int{2}, nil, 0},
		{"not a comparison", filter(get, bin(expr.NotEq, col(0), i4(5))), nil, nil, 0},
		{"pinned and bounded: the pin", filter(get, bin(expr.Lt, col(0), i4(9)), eq(col(0), i4(5))), nil, prefix(five), 2},
		{"a list and bounds: the list", filter(get, bin(expr.Lt, col(0), i4(6)), or(eq(col(0), i4(5)), eq(col(0), i4(7)))), nil,
			[]KeyRange{{Prefix: five}, {Prefix: enc(repr.NewInt4(7))}}, 1},
		{"constants on the left", filter(get, bin(expr.Lte, i4(5), col(0)), bin(expr.Gte, i4(9), col(0))), nil,
			[]KeyRange{{Lo: five, Hi: enc(repr.NewInt4(9)), HiIncl: true}}, 1},
		{"a strict bound at the lower: nothing, read", filter(get, bin(expr.Gte, col(0), i4(5)), bin(expr.Lt, col(0), i4(5))), nil,
			[]KeyRange{{Lo: five, Hi: five}}, 1},
	} {
		p, ok := PeekOf(c.plan)
		if !ok {
			t.Fatalf("%s: not a peek", c.name)
		}
		got, score := p.KeyRanges(c.keys)
		if !reflect.DeepEqual(normalize(got), normalize(c.want)) {
			t.Errorf("%s: runs %s, want %s", c.name, fmt.Sprint(got), fmt.Sprint(c.want))
		}
		if score != c.score {
			t.Errorf("%s: score %d, want %d", c.name, score, c.score)
		}
	}
}

// normalize makes empty byte slices nil, for comparing runs.
func normalize(rs []KeyRange) []KeyRange {
	if rs == nil {
		return nil
	}
	out := make([]KeyRange, len(rs))
	for i, r := range rs {
		for _, b := range []*[]byte{&r.Prefix, &r.Lo, &r.Hi} {
			if len(*b) == 0 {
				*b = nil
			}
		}
		out[i] = r
	}
	return out
}

// TestKeyRangePast: a run ends at the first key that does not begin with
// its prefix or whose next column is past its upper bound, itself
// included or not.
func TestKeyRangePast(t *testing.T) {
	enc := func(vs ...int32) []byte {
		var b []byte
		for _, v := range vs {
			b = repr.AppendDatum(b, repr.NewInt4(v))
		}
		return b
	}
	r := KeyRange{Prefix: enc(1), Lo: enc(3), Hi: enc(7)}
	incl := r
	incl.HiIncl = true
	for _, c := range []struct {
		key            []byte
		past, pastIncl bool
	}{
		{enc(1, 3), false, false},
		{enc(1, 6, 100), false, false},
		{enc(1, 7), true, false},
		{enc(1, 7, 0), true, false},
		{enc(1, 8), true, true},
		{enc(2, 0), true, true},
		{append(enc(1), repr.AppendDatum(nil, repr.Null)...), true, true},
	} {
		if got := r.Past(c.key); got != c.past {
			t.Errorf("%x: past %v, want %v", c.key, got, c.past)
		}
		if got := incl.Past(c.key); got != c.pastIncl {
			t.Errorf("%x, inclusive: past %v, want %v", c.key, got, c.pastIncl)
		}
	}
	if s := r.Start(); string(s) != string(enc(1, 3)) {
		t.Errorf("start %x", s)
	}
	// Text: 'a' is not a prefix of 'ab' in their encodings, nor is an
	// empty bytea of one holding a zero byte.
	text := func(v string) []byte { return repr.AppendDatum(nil, repr.NewText(v)) }
	bytea := func(v string) []byte { return repr.AppendDatum(nil, repr.NewBytea(v)) }
	for _, c := range []struct {
		r    KeyRange
		key  []byte
		past bool
	}{
		{KeyRange{Hi: text("a"), HiIncl: true}, text("a"), false},
		{KeyRange{Hi: text("a"), HiIncl: true}, text("ab"), true},
		{KeyRange{Hi: text("a")}, text("a"), true},
		{KeyRange{Hi: text("a")}, text(""), false},
		{KeyRange{Prefix: text("a")}, text("ab"), true},
		{KeyRange{Hi: bytea("")}, bytea("\x00"), true},
		{KeyRange{Hi: bytea("\x00"), HiIncl: true}, bytea(""), false},
	} {
		if got := c.r.Past(c.key); got != c.past {
			t.Errorf("%+v: key %x past %v, want %v", c.r, c.key, got, c.past)
		}
	}
}
