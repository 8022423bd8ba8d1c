package expr

import (
	"fmt"
	"slices"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// WindowFunc is a window function that Window computes.
type WindowFunc uint8

// The window functions.
const (
	// RowNumber is the row's position, from 1; rows that tie in the order
	// are numbered in the order of their encodings, so the numbering is
	// deterministic. int8.
	RowNumber WindowFunc = iota + 1
	// Rank is 1 plus the number of rows ordered strictly before the row:
	// rows that tie share a rank, and the next rank skips. int8.
	Rank
	// DenseRank is 1 plus the number of distinct orderings before the row:
	// ties share a rank and the next rank follows on. int8.
	DenseRank
	// PercentRank is (rank - 1) / (rows - 1), 0 for a partition of one
	// row. float8.
	PercentRank
	// CumeDist is the number of rows ordered before the row or tied with
	// it, over the partition's rows. float8.
	CumeDist
	// Ntile is the bucket, from 1, of the row when the partition is cut
	// into Args[0] buckets as equal as they can be, the first ones one row
	// larger. The bucket count is read from the partition's first row.
	// int4.
	Ntile
	// Lag is Args[0] of the row Args[1] rows before this one in the
	// partition, Args[2] (or NULL) when there is none. Lead looks after.
	Lag
	Lead
	// FirstValue, LastValue and NthValue are Args[0] of the first, the
	// last and the Args[1]th row of the row's frame; NULL when the frame
	// has no such row.
	FirstValue
	LastValue
	NthValue
	// WindowAgg is Agg (count, sum, min or max) of Args[0] over the
	// row's frame.
	WindowAgg
)

var windowNames = map[WindowFunc]string{RowNumber: "row_number", Rank: "rank", DenseRank: "dense_rank",
	PercentRank: "percent_rank", CumeDist: "cume_dist", Ntile: "ntile", Lag: "lag", Lead: "lead",
	FirstValue: "first_value", LastValue: "last_value", NthValue: "nth_value", WindowAgg: "aggregate"}

func (f WindowFunc) String() string { return windowNames[f] }

// FrameBound is one end of a window frame.
type FrameBound uint8

// The frame bounds. Offsets count rows (ROWS frames only).
const (
	UnboundedPreceding FrameBound = iota + 1
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// Frame is the rows of its partition a window function of the frame
// family (FirstValue, LastValue, NthValue, WindowAgg) sees from a row.
// In RANGE mode (Rows false) CURRENT ROW takes in the row's peers, the
// rows that tie with it in the order; without an order every row of the
// partition is a peer. The default, RANGE BETWEEN UNBOUNDED PRECEDING AND
// CURRENT ROW, is DefaultFrame.
type Frame struct {
	Rows                   bool
	Start, End             FrameBound
	StartOffset, EndOffset int64
}

// DefaultFrame is the frame of a window definition that names none.
var DefaultFrame = Frame{Start: UnboundedPreceding, End: CurrentRow}

func (f Frame) String() string {
	bound := func(b FrameBound, off int64) string {
		switch b {
		case UnboundedPreceding:
			return "UNBOUNDED PRECEDING"
		case OffsetPreceding:
			return fmt.Sprintf("%d PRECEDING", off)
		case CurrentRow:
			return "CURRENT ROW"
		case OffsetFollowing:
			return fmt.Sprintf("%d FOLLOWING", off)
		}
		return "UNBOUNDED FOLLOWING"
	}
	mode := "RANGE"
	if f.Rows {
		mode = "ROWS"
	}
	return fmt.Sprintf("%s BETWEEN %s AND %s", mode, bound(f.Start, f.StartOffset), bound(f.End, f.EndOffset))
}

// WindowCall is one function call of a Window.
type WindowCall struct {
	Func WindowFunc
	// Args are columns of the Window's input, as each function above
	// reads them.
	Args []int
	// Agg is the aggregate of a WindowAgg call: Count, Sum, Min or Max.
	Agg AggregateFunc
	// Frame is the frame of the frame family; others ignore it.
	Frame Frame
	// Type is the call's result type.
	Type ColumnType
}

func (c WindowCall) String() string {
	name := c.Func.String()
	if c.Func == WindowAgg {
		name = c.Agg.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", name)
	for i, a := range c.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "#%d", a)
	}
	b.WriteString(")")
	switch c.Func {
	case FirstValue, LastValue, NthValue, WindowAgg:
		if c.Frame != DefaultFrame {
			fmt.Fprintf(&b, " %s", c.Frame)
		}
	}
	return b.String()
}

// Window appends to each row of Input one column per call of Funcs,
// computed over the row's partition (the rows equal in the PartitionBy
// columns, NULLs equal) ordered by Order. A row with count n is n rows,
// numbered one after another.
type Window struct {
	Input       Relation
	PartitionBy []int
	Order       []ColumnOrder
	Funcs       []WindowCall
}

// Typ implements Relation.
func (w Window) Typ() []ColumnType {
	out := append([]ColumnType(nil), w.Input.Typ()...)
	for _, c := range w.Funcs {
		out = append(out, c.Type)
	}
	return out
}

// Children implements Relation.
func (w Window) Children() []Relation { return []Relation{w.Input} }

// WindowPartition computes a Window's output for the rows of one
// partition (each with its count; counts not above zero are ignored):
// every row, once per count, with the calls' values appended. A call
// whose arguments are out of range (ntile's or nth_value's count not
// above zero) fails the partition.
//
// Frame aggregates cost a step per row while the frame's start stays
// put (UNBOUNDED PRECEDING, the default) and the frame's width per row
// when it slides.
func WindowPartition(w Window, rows []Row) ([]Row, error) {
	var sorted []Row
	for _, r := range rows {
		if r.Diff > 0 {
			sorted = append(sorted, r)
		}
	}
	slices.SortFunc(sorted, func(a, b Row) int { return CompareRows(w.Order, a.Datums, b.Datums) })
	// The partition's rows, one per count, in order.
	var all [][]repr.Datum
	for _, r := range sorted {
		for range r.Diff {
			all = append(all, r.Datums)
		}
	}
	n := len(all)
	// peerStart[i] and peerEnd[i] bound the rows that tie with row i;
	// dense[i] is its dense rank.
	peerStart, peerEnd, dense := make([]int, n), make([]int, n), make([]int64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && compareOrder(w.Order, all[i], all[j]) == 0 {
			j++
		}
		d := int64(1)
		if i > 0 {
			d = dense[i-1] + 1
		}
		for k := i; k < j; k++ {
			peerStart[k], peerEnd[k], dense[k] = i, j-1, d
		}
		i = j
	}
	values := make([][]repr.Datum, len(w.Funcs))
	for f, c := range w.Funcs {
		vs, err := windowValues(c, all, peerStart, peerEnd, dense)
		if err != nil {
			return nil, err
		}
		values[f] = vs
	}
	out := make([]Row, n)
	for i, r := range all {
		d := append(append(make([]repr.Datum, 0, len(r)+len(w.Funcs)), r...), make([]repr.Datum, len(w.Funcs))...)
		for f := range w.Funcs {
			d[len(r)+f] = values[f][i]
		}
		out[i] = Row{Datums: d, Diff: 1}
	}
	return out, nil
}

// windowValues computes one call's value for every row of a partition.
func windowValues(c WindowCall, all [][]repr.Datum, peerStart, peerEnd []int, dense []int64) ([]repr.Datum, error) {
	n := len(all)
	out := make([]repr.Datum, n)
	arg := func(i, a int) repr.Datum {
		if a >= len(c.Args) {
			return repr.Null
		}
		return all[i][c.Args[a]]
	}
	switch c.Func {
	case RowNumber, Rank, DenseRank, PercentRank, CumeDist:
		for i := range all {
			switch c.Func {
			case RowNumber:
				out[i] = repr.NewInt8(int64(i + 1))
			case Rank:
				out[i] = repr.NewInt8(int64(peerStart[i] + 1))
			case DenseRank:
				out[i] = repr.NewInt8(dense[i])
			case PercentRank:
				v := 0.0
				if n > 1 {
					v = float64(peerStart[i]) / float64(n-1)
				}
				out[i] = repr.NewFloat8(v)
			case CumeDist:
				out[i] = repr.NewFloat8(float64(peerEnd[i]+1) / float64(n))
			}
		}
	case Ntile:
		if n == 0 {
			return out, nil
		}
		k := arg(0, 0)
		if k.IsNull() {
			for i := range out {
				out[i] = repr.Null
			}
			return out, nil
		}
		buckets := k.Int()
		if buckets <= 0 {
			return nil, sqlerr.New(sqlerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
		}
		per, extra := int64(n)/buckets, int64(n)%buckets
		bucket, left := int64(1), per
		if extra > 0 {
			left++
		}
		for i := range out {
			if left == 0 {
				bucket++
				left = per
				if bucket <= extra {
					left++
				}
			}
			out[i] = repr.NewInt4(int32(bucket))
			left--
		}
	case Lag, Lead:
		for i := range all {
			off := int64(1)
			if len(c.Args) > 1 {
				o := arg(i, 1)
				if o.IsNull() {
					out[i] = repr.Null
					continue
				}
				off = o.Int()
			}
			j := int64(i) - off
			if c.Func == Lead {
				j = int64(i) + off
			}
			if j >= 0 && j < int64(n) {
				out[i] = all[j][c.Args[0]]
			} else {
				out[i] = arg(i, 2)
			}
		}
	case FirstValue, LastValue, NthValue, WindowAgg:
		acc := windowAcc{agg: c.Agg, t: c.Type.Type}
		accLo, accHi := 0, -1 // the rows acc holds
		for i := range all {
			lo, hi := frameOf(c.Frame, i, n, peerStart[i], peerEnd[i])
			switch c.Func {
			case FirstValue:
				out[i] = repr.Null
				if lo <= hi {
					out[i] = all[lo][c.Args[0]]
				}
			case LastValue:
				out[i] = repr.Null
				if lo <= hi {
					out[i] = all[hi][c.Args[0]]
				}
			case NthValue:
				k := arg(i, 1)
				out[i] = repr.Null
				if k.IsNull() {
					continue
				}
				if k.Int() <= 0 {
					return nil, sqlerr.New(sqlerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
				}
				if j := int64(lo) + k.Int() - 1; j <= int64(hi) {
					out[i] = all[j][c.Args[0]]
				}
			case WindowAgg:
				// The accumulation goes on while the frame's start
				// stays and its end does not go back; otherwise it
				// starts over at the frame.
				if lo != accLo || hi < accHi {
					acc = windowAcc{agg: c.Agg, t: c.Type.Type}
					accLo, accHi = lo, lo-1
				}
				for ; accHi < hi; accHi++ {
					if err := acc.add(all[accHi+1][c.Args[0]]); err != nil {
						return nil, err
					}
				}
				out[i] = acc.value()
			}
		}
	default:
		return nil, sqlerr.AssertionFailedf("unknown window function %d", c.Func)
	}
	return out, nil
}

// frameOf returns the first and last row of row i's frame in a partition
// of n rows; the frame is empty when the first is after the last.
func frameOf(f Frame, i, n, peerStart, peerEnd int) (lo, hi int) {
	bound := func(b FrameBound, off int64, start bool) int {
		switch b {
		case UnboundedPreceding:
			return 0
		case OffsetPreceding:
			return int(max(int64(i)-off, -1))
		case OffsetFollowing:
			return int(min(int64(i)+off, int64(n)))
		case UnboundedFollowing:
			return n - 1
		}
		switch {
		case f.Rows:
			return i
		case start:
			return peerStart
		}
		return peerEnd
	}
	lo, hi = bound(f.Start, f.StartOffset, true), bound(f.End, f.EndOffset, false)
	return max(lo, 0), min(hi, n-1)
}

// windowAcc accumulates an aggregate over a frame's rows in order.
type windowAcc struct {
	agg   AggregateFunc
	t     repr.Type
	count int64
	v     repr.Datum
}

func (a *windowAcc) add(v repr.Datum) error {
	if v.IsNull() {
		return nil
	}
	a.count++
	switch a.agg {
	case Sum:
		x, err := repr.Cast(v, a.t)
		if err != nil {
			return err
		}
		if a.count == 1 {
			a.v = x
			return nil
		}
		a.v, err = repr.Add(a.v, x)
		return err
	case Min, Max:
		if a.count == 1 {
			a.v = v
			return nil
		}
		if c := sqlCompare(v, a.v); (a.agg == Min && c < 0) || (a.agg == Max && c > 0) {
			a.v = v
		}
	}
	return nil
}

func (a *windowAcc) value() repr.Datum {
	if a.agg == Count {
		return repr.NewInt8(a.count)
	}
	if a.count == 0 {
		return repr.Null
	}
	return a.v
}

// window interprets a Window.
func (in *interpreter) window(n Window) ([]Row, error) {
	rows, err := in.eval(n.Input)
	if err != nil {
		return nil, err
	}
	groups := map[string][]Row{}
	var keys []string
	for _, row := range Consolidate(rows) {
		key := make([]repr.Datum, len(n.PartitionBy))
		for i, c := range n.PartitionBy {
			key[i] = row.Datums[c]
		}
		enc := string(repr.PackRow(key...))
		if _, ok := groups[enc]; !ok {
			keys = append(keys, enc)
		}
		groups[enc] = append(groups[enc], row)
	}
	var out []Row
	for _, k := range keys {
		rows, err := WindowPartition(n, groups[k])
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}
