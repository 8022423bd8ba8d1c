package expr

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"freshet/repr"
	"freshet/sqlerr"
)

var frameSeed = flag.Uint64("frame-seed", 0, "run TestWindowFrameOracle with this seed only")

// The columns of the partitions TestWindowFrameOracle makes: an ordering
// key with NULLs and many ties, an int value with NULLs, a text value and
// nth_value's position and a FILTER.
const (
	frameKey = iota
	frameVal
	frameText
	frameNth
	frameKeep
)

// TestWindowFrameOracle compares WindowPartition's frame functions with
// a reference that decides, for every row and every other row, whether
// the other row is in the row's frame straight from the definitions
// (row distance, peer-group distance, value distance, exclusions), on
// random partitions and random ROWS, RANGE and GROUPS frames with every
// exclusion, in both directions with NULLs first or last.
func TestWindowFrameOracle(t *testing.T) {
	seeds := []uint64{*frameSeed}
	if *frameSeed == 0 {
		seeds = []uint64{1, 2, 3, 4, 5}
	}
	bounds := []FrameBound{UnboundedPreceding, OffsetPreceding, CurrentRow, OffsetFollowing, UnboundedFollowing}
	for _, seed := range seeds {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 0))
		for iter := range 3000 {
			var rows []Row
			for range r.IntN(12) {
				d := []repr.Datum{repr.NewInt4(int32(r.IntN(7) - 3)), repr.NewInt4(int32(r.IntN(100))), repr.NewText(string(rune('a' + r.IntN(26)))), repr.NewInt4(int32(1 + r.IntN(4))), repr.NewBool(r.IntN(3) > 0)}
				if r.IntN(6) == 0 {
					d[frameKeep] = repr.Null
				}
				if r.IntN(5) == 0 {
					d[frameKey] = repr.Null
				}
				if r.IntN(6) == 0 {
					d[frameVal] = repr.Null
				}
				rows = append(rows, Row{Datums: d, Diff: int64(1 + r.IntN(2))})
			}
			f := Frame{Mode: FrameMode(r.IntN(3)), Start: bounds[r.IntN(4)], End: bounds[1+r.IntN(4)], Exclude: FrameExclusion(r.IntN(4))}
			offset := func() repr.Datum {
				if f.Mode == FrameRange {
					return repr.NewInt4(int32(r.IntN(4)))
				}
				return repr.NewInt8(int64(r.IntN(4)))
			}
			f.StartOffset, f.EndOffset = offset(), offset()
			order := []ColumnOrder{{Column: frameKey, Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}}
			aggs := []WindowCall{
				{Func: WindowAgg, Agg: Count, Args: []int{frameVal}, Type: ColumnType{Type: repr.Int8}},
				{Func: WindowAgg, Agg: Sum, Args: []int{frameVal}, Type: ColumnType{Type: repr.Int8, Nullable: true}},
				{Func: WindowAgg, Agg: Min, Args: []int{frameVal}, Type: ColumnType{Type: repr.Int4, Nullable: true}},
				{Func: WindowAgg, Agg: Max, Args: []int{frameText}, Type: ColumnType{Type: repr.Text, Nullable: true}},
				{Func: WindowAgg, Agg: StringAgg, Delimiter: ",", Args: []int{frameText}, Type: ColumnType{Type: repr.Text, Nullable: true}},
				{Func: WindowAgg, Agg: ArrayAgg, Args: []int{frameVal}, Type: ColumnType{Type: repr.ArrayOf(repr.Int4), Nullable: true}},
				{Func: WindowAgg, Agg: ArrayAgg, Args: []int{frameVal, frameKeep}, Type: ColumnType{Type: repr.ArrayOf(repr.Int4), Nullable: true}},
				{Func: WindowAgg, Agg: Sum, Args: []int{frameVal, frameKeep}, Type: ColumnType{Type: repr.Int8, Nullable: true}},
				{Func: FirstValue, Args: []int{frameText}, Type: ColumnType{Type: repr.Text, Nullable: true}},
				{Func: LastValue, Args: []int{frameVal}, Type: ColumnType{Type: repr.Int4, Nullable: true}},
				{Func: NthValue, Args: []int{frameText, frameNth}, Type: ColumnType{Type: repr.Text, Nullable: true}},
			}
			for i := range aggs {
				aggs[i].Frame = f
			}
			w := Window{Order: order, Funcs: aggs}
			got, err := WindowPartition(w, rows)
			if err != nil {
				t.Fatalf("iteration %d: %s: %v\nreplay: go test ./expr -run TestWindowFrameOracle -frame-seed=%d", iter, f, err, seed)
			}
			// The reference reads the partition in the order
			// WindowPartition sorted it; that order is checked here.
			all := make([][]repr.Datum, len(got))
			for i, g := range got {
				all[i] = g.Datums[:5]
				if i > 0 && compareOrder(order, all[i-1], all[i]) > 0 {
					t.Fatalf("rows out of order: %v before %v", all[i-1], all[i])
				}
			}
			for i := range all {
				members := referenceFrame(f, order[0], all, i)
				for k, c := range aggs {
					want := referenceValue(c, all, members, i)
					if g := got[i].Datums[5+k]; repr.Compare(g, want) != 0 || g.IsNull() != want.IsNull() {
						t.Fatalf("iteration %d, %s over %s (%s), row %d of %v:\n got %v\nwant %v (frame rows %v)\nreplay: go test ./expr -run TestWindowFrameOracle -frame-seed=%d",
							iter, c, f, fmtOrder(order[0]), i, all, g, want, members, seed)
					}
				}
			}
		}
	}
}

func fmtOrder(o ColumnOrder) string {
	return fmt.Sprintf("desc=%v nulls_first=%v", o.Desc, o.NullsFirst)
}

// referenceFrame returns the rows of row i's frame, in order.
func referenceFrame(f Frame, o ColumnOrder, all [][]repr.Datum, i int) []int {
	peers := func(a, b int) bool { return compareOrder([]ColumnOrder{o}, all[a], all[b]) == 0 }
	group := func(j int) int {
		g := 0
		for k := 1; k <= j; k++ {
			if !peers(k-1, k) {
				g++
			}
		}
		return g
	}
	// dist is how far row j is from row i along the frame's mode, in
	// the direction of the order; ok is false when RANGE compares a NULL
	// with a value (then only where the NULLs sort decides).
	dist := func(j int) (d int64, ok bool) {
		switch f.Mode {
		case FrameRows:
			return int64(j - i), true
		case FrameGroups:
			return int64(group(j) - group(i)), true
		}
		a, b := all[i][frameKey], all[j][frameKey]
		switch {
		case a.IsNull() && b.IsNull():
			return 0, true
		case a.IsNull() || b.IsNull():
			return 0, false
		}
		d = b.Int() - a.Int()
		if o.Desc {
			d = -d
		}
		return d, true
	}
	in := func(j int, b FrameBound, off repr.Datum, start bool) bool {
		switch b {
		case UnboundedPreceding, UnboundedFollowing:
			return true
		case CurrentRow:
			if f.Mode == FrameRows {
				return (start && j >= i) || (!start && j <= i)
			}
			return (start && group(j) >= group(i)) || (!start && group(j) <= group(i))
		}
		k := off.Int()
		if b == OffsetPreceding {
			k = -k
		}
		d, ok := dist(j)
		if !ok {
			// A NULL row is past every value on its side of the order;
			// from a NULL row, every value is past the NULLs.
			nullJ := all[j][frameKey].IsNull()
			before := nullJ == o.NullsFirst // j sorts before i
			return (start && !before) || (!start && before)
		}
		if f.Mode == FrameRange && all[i][frameKey].IsNull() {
			k = 0 // from a NULL row, an offset bound is the NULL peers' edge
		}
		if start {
			return d >= k
		}
		return d <= k
	}
	var out []int
	for j := range all {
		if !in(j, f.Start, f.StartOffset, true) || !in(j, f.End, f.EndOffset, false) {
			continue
		}
		switch f.Exclude {
		case ExcludeCurrentRow:
			if j == i {
				continue
			}
		case ExcludeGroup:
			if peers(i, j) {
				continue
			}
		case ExcludeTies:
			if peers(i, j) && j != i {
				continue
			}
		}
		out = append(out, j)
	}
	return out
}

// referenceValue computes a call over the frame rows members of row i.
func referenceValue(c WindowCall, all [][]repr.Datum, members []int, i int) repr.Datum {
	a := c.Args[0]
	switch c.Func {
	case FirstValue:
		if len(members) == 0 {
			return repr.Null
		}
		return all[members[0]][a]
	case LastValue:
		if len(members) == 0 {
			return repr.Null
		}
		return all[members[len(members)-1]][a]
	case NthValue:
		k := all[i][c.Args[1]]
		if k.IsNull() || k.Int() > int64(len(members)) {
			return repr.Null
		}
		return all[members[k.Int()-1]][a]
	}
	var vals []repr.Datum
	for _, j := range members {
		if len(c.Args) > 1 && !(!all[j][c.Args[1]].IsNull() && all[j][c.Args[1]].Bool()) {
			continue
		}
		if v := all[j][a]; !v.IsNull() || c.Agg == ArrayAgg {
			vals = append(vals, v)
		}
	}
	switch c.Agg {
	case Count:
		return repr.NewInt8(int64(len(vals)))
	case ArrayAgg:
		if len(vals) == 0 {
			return repr.Null
		}
		return repr.NewArray(repr.Int4, vals)
	}
	if len(vals) == 0 {
		return repr.Null
	}
	switch c.Agg {
	case Sum:
		var s int64
		for _, v := range vals {
			s += v.Int()
		}
		return repr.NewInt8(s)
	case Min:
		m := int64(math.MaxInt64)
		for _, v := range vals {
			m = min(m, v.Int())
		}
		return repr.NewInt4(int32(m))
	case Max:
		m := vals[0]
		for _, v := range vals {
			if v.Text() > m.Text() {
				m = v
			}
		}
		return m
	case StringAgg:
		var ss []string
		for _, v := range vals {
			ss = append(ss, v.Text())
		}
		return repr.NewText(strings.Join(ss, ","))
	}
	panic("unknown aggregate")
}

// TestWindowRangeOffsets checks RANGE offsets over the types that allow
// them at their edges, against results worked out by hand from
// PostgreSQL's in_range rules.
func TestWindowRangeOffsets(t *testing.T) {
	f8 := repr.NewFloat8
	num := func(s string) repr.Datum {
		d, err := repr.Cast(repr.NewText(s), repr.Numeric)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	iv := func(s string) repr.Datum {
		d, err := repr.Cast(repr.NewText(s), repr.Interval)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	date := func(s string) repr.Datum {
		d, err := repr.Cast(repr.NewText(s), repr.Date)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	inf := math.Inf(1)
	for _, tc := range []struct {
		name   string
		keys   []repr.Datum
		off    repr.Datum
		desc   bool
		counts string // count(*) OVER (ORDER BY key RANGE BETWEEN off PRECEDING AND off FOLLOWING), per sorted row
		err    string
	}{
		{name: "int extremes", keys: []repr.Datum{repr.NewInt8(math.MinInt64), repr.NewInt8(0), repr.NewInt8(math.MaxInt64)},
			off: repr.NewInt8(math.MaxInt64), counts: "1 2 2"},
		{name: "float infinities", keys: []repr.Datum{f8(-inf), f8(0), f8(inf), f8(math.NaN())}, off: f8(inf), counts: "3 3 3 1"},
		{name: "float NaN peers", keys: []repr.Datum{f8(1), f8(math.NaN()), f8(math.NaN())}, off: f8(1), counts: "1 2 2"},
		{name: "float desc", keys: []repr.Datum{f8(1), f8(1.5), f8(3)}, off: f8(0.5), desc: true, counts: "1 2 2"},
		{name: "numeric", keys: []repr.Datum{num("1.0"), num("1.25"), num("2"), num("NaN")}, off: num("0.75"), counts: "2 3 2 1"},
		{name: "numeric infinite offset", keys: []repr.Datum{num("-Infinity"), num("5"), num("Infinity")}, off: num("Infinity"), counts: "3 3 3"},
		{name: "dates by interval", keys: []repr.Datum{date("2024-01-31"), date("2024-02-29"), date("2024-03-31")}, off: iv("1 month"), counts: "2 2 2"},
		{name: "intervals", keys: []repr.Datum{iv("1 day"), iv("24 hours"), iv("2 days")}, off: iv("1 day"), counts: "3 3 3"},
		{name: "negative int", keys: []repr.Datum{repr.NewInt4(1)}, off: repr.NewInt4(-1), err: "22013"},
		{name: "negative int, only NULLs", keys: []repr.Datum{repr.Null, repr.Null}, off: repr.NewInt4(-1), counts: "2 2"},
		{name: "NaN float", keys: []repr.Datum{f8(1)}, off: f8(math.NaN()), err: "22013"},
		{name: "NaN numeric", keys: []repr.Datum{num("1")}, off: num("NaN"), err: "22013"},
		{name: "offset of another type", keys: []repr.Datum{repr.NewInt4(1)}, off: iv("1 day"), err: "XX000"},
		{name: "negative interval", keys: []repr.Datum{date("2024-01-01")}, off: iv("-1 day"), err: "22013"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rows []Row
			for _, k := range tc.keys {
				rows = append(rows, Row{Datums: []repr.Datum{k}, Diff: 1})
			}
			f := Frame{Start: OffsetPreceding, StartOffset: tc.off, End: OffsetFollowing, EndOffset: tc.off}
			w := Window{Order: []ColumnOrder{{Column: 0, Desc: tc.desc, NullsFirst: tc.desc}},
				Funcs: []WindowCall{{Func: WindowAgg, Agg: Count, Args: []int{0}, Frame: f, Type: ColumnType{Type: repr.Int8}}}}
			// count(key) skips NULLs; count the rows through a TRUE.
			for i := range rows {
				rows[i].Datums = append(rows[i].Datums, repr.NewBool(true))
			}
			w.Funcs[0].Args = []int{1}
			out, err := WindowPartition(w, rows)
			if tc.err != "" {
				if sqlerr.Code(err) != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var counts []string
			for _, r := range out {
				counts = append(counts, repr.FormatText(r.Datums[2]))
			}
			if got := strings.Join(counts, " "); got != tc.counts {
				t.Fatalf("counts %s, want %s (rows %v)", got, tc.counts, out)
			}
		})
	}
}

// BenchmarkWindowFrames computes sum over a partition of 10,000 rows
// with frames that keep their start (one step a row), slide (the
// frame's size a row) and exclude rows (recomputed every row).
func BenchmarkWindowFrames(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 0))
	rows := make([]Row, 10000)
	for i := range rows {
		rows[i] = Row{Datums: []repr.Datum{repr.NewInt4(int32(r.IntN(5000))), repr.NewInt4(int32(r.IntN(100)))}, Diff: 1}
	}
	ten := repr.NewInt8(10)
	for _, bc := range []struct {
		name string
		f    Frame
	}{
		{"default", DefaultFrame},
		{"rows_10_preceding", Frame{Mode: FrameRows, Start: OffsetPreceding, StartOffset: ten, End: CurrentRow}},
		{"range_10_preceding", Frame{Start: OffsetPreceding, StartOffset: repr.NewInt4(10), End: CurrentRow}},
		{"groups_10_preceding", Frame{Mode: FrameGroups, Start: OffsetPreceding, StartOffset: ten, End: CurrentRow}},
		{"rows_10_preceding_exclude_current_row", Frame{Mode: FrameRows, Start: OffsetPreceding, StartOffset: ten, End: CurrentRow, Exclude: ExcludeCurrentRow}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := Window{Order: []ColumnOrder{{Column: 0}}, Funcs: []WindowCall{
				{Func: WindowAgg, Agg: Sum, Args: []int{1}, Frame: bc.f, Type: ColumnType{Type: repr.Int8, Nullable: true}}}}
			for b.Loop() {
				if _, err := WindowPartition(w, rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
