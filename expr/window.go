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
	// WindowAgg is Agg of Args[0] over the row's frame, the frame's
	// rows taken in the window's order: Count, Sum, Min, Max,
	// StringAgg (joined with Delimiter) or ArrayAgg. The planner builds
	// the other aggregates from these, as it does for a Reduce. Args[1],
	// when there is one, is a FILTER: rows where it is not TRUE are
	// left out (array_agg would keep a NULL in their place).
	WindowAgg
)

var windowNames = map[WindowFunc]string{RowNumber: "row_number", Rank: "rank", DenseRank: "dense_rank",
	PercentRank: "percent_rank", CumeDist: "cume_dist", Ntile: "ntile", Lag: "lag", Lead: "lead",
	FirstValue: "first_value", LastValue: "last_value", NthValue: "nth_value", WindowAgg: "aggregate"}

func (f WindowFunc) String() string { return windowNames[f] }

// WindowCall is one function call of a Window.
type WindowCall struct {
	Func WindowFunc
	// Args are columns of the Window's input, as each function above
	// reads them.
	Args []int
	// Agg is the aggregate of a WindowAgg call.
	Agg AggregateFunc
	// Delimiter separates the values of a StringAgg; unused otherwise.
	Delimiter string
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
		if !c.Frame.IsDefault() {
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
// A frame aggregate costs a step per row while its frame keeps its first
// row and grows or keeps its last (UNBOUNDED PRECEDING, the default), and
// otherwise the frame's size per row: it is recomputed over the frame
// when the frame's start moves or rows are excluded from it (EXCLUDE).
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
		vs, err := windowValues(c, w.Order, all, peerStart, peerEnd, dense)
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
func windowValues(c WindowCall, order []ColumnOrder, all [][]repr.Datum, peerStart, peerEnd []int, dense []int64) ([]repr.Datum, error) {
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
		if n == 0 {
			return out, nil
		}
		fr, err := newFramer(c.Frame, order, all, peerStart, peerEnd)
		if err != nil {
			return nil, err
		}
		acc := newWindowAcc(c)
		addRow := func(k int) error {
			if len(c.Args) > 1 {
				if keep := all[k][c.Args[1]]; keep.IsNull() || !keep.Bool() {
					return nil
				}
			}
			return acc.add(all[k][c.Args[0]])
		}
		// held is the run of rows acc holds, when holds.
		var held run
		holds := false
		var runs []run
		for i := range all {
			if runs, err = fr.frame(i, runs); err != nil {
				return nil, err
			}
			out[i] = repr.Null
			switch c.Func {
			case FirstValue:
				if len(runs) > 0 {
					out[i] = all[runs[0].lo][c.Args[0]]
				}
			case LastValue:
				if len(runs) > 0 {
					out[i] = all[runs[len(runs)-1].hi][c.Args[0]]
				}
			case NthValue:
				k := arg(i, 1)
				if k.IsNull() {
					continue
				}
				if k.Int() <= 0 {
					return nil, sqlerr.New(sqlerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
				}
				// The k-th row of the frame, counting across its runs.
				left := k.Int() - 1
				for _, r := range runs {
					if size := int64(r.hi - r.lo + 1); left >= size {
						left -= size
						continue
					}
					out[i] = all[r.lo+int(left)][c.Args[0]]
					break
				}
			case WindowAgg:
				// The accumulation goes on while the frame is one run
				// that starts where acc's does and does not end before
				// it; otherwise it starts over over the frame's rows.
				switch {
				case len(runs) == 1 && holds && runs[0].lo == held.lo && runs[0].hi >= held.hi:
				case len(runs) == 1:
					acc, held, holds = newWindowAcc(c), run{runs[0].lo, runs[0].lo - 1}, true
				default:
					acc, holds = newWindowAcc(c), false
					for _, r := range runs {
						for k := r.lo; k <= r.hi; k++ {
							if err := addRow(k); err != nil {
								return nil, err
							}
						}
					}
				}
				if holds {
					for ; held.hi < runs[0].hi; held.hi++ {
						if err := addRow(held.hi + 1); err != nil {
							return nil, err
						}
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
