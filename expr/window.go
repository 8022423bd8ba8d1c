package expr

import (
	"slices"

	"freshet/repr"
)

// WindowFunc is a window function that Window computes.
type WindowFunc uint8

// The window functions: each numbers a row within its partition, in
// the window's order, as an int8.
const (
	// RowNumber is the row's position, from 1; rows that tie in the order
	// are numbered in the order of their encodings, so the numbering is
	// deterministic.
	RowNumber WindowFunc = iota + 1
	// Rank is 1 plus the number of rows ordered strictly before the row:
	// rows that tie share a rank, and the next rank skips.
	Rank
	// DenseRank is 1 plus the number of distinct orderings before the row:
	// ties share a rank and the next rank follows on.
	DenseRank
)

var windowNames = map[WindowFunc]string{RowNumber: "row_number", Rank: "rank", DenseRank: "dense_rank"}

func (f WindowFunc) String() string { return windowNames[f] }

// Window appends to each row of Input one int8 column per function of
// Funcs, computed over the row's partition (the rows equal in the
// PartitionBy columns, NULLs equal) ordered by Order. A row with count n
// is n rows, numbered one after another.
type Window struct {
	Input       Relation
	PartitionBy []int
	Order       []ColumnOrder
	Funcs       []WindowFunc
}

// Typ implements Relation.
func (w Window) Typ() []ColumnType {
	out := append([]ColumnType(nil), w.Input.Typ()...)
	for range w.Funcs {
		out = append(out, ColumnType{Type: repr.Int8})
	}
	return out
}

// Children implements Relation.
func (w Window) Children() []Relation { return []Relation{w.Input} }

// WindowPartition computes a Window's output for the rows of one
// partition (each with its count; counts not above zero are ignored):
// every row, once per count, with the functions' values appended.
func WindowPartition(w Window, rows []Row) []Row {
	var sorted []Row
	for _, r := range rows {
		if r.Diff > 0 {
			sorted = append(sorted, r)
		}
	}
	slices.SortFunc(sorted, func(a, b Row) int { return CompareRows(w.Order, a.Datums, b.Datums) })
	var out []Row
	pos, rank, dense := int64(0), int64(0), int64(0)
	var prev []repr.Datum
	for _, r := range sorted {
		for c := int64(0); c < r.Diff; c++ {
			pos++
			if prev == nil || compareOrder(w.Order, prev, r.Datums) != 0 {
				rank, dense = pos, dense+1
			}
			prev = r.Datums
			d := append(append([]repr.Datum(nil), r.Datums...), make([]repr.Datum, len(w.Funcs))...)
			for i, f := range w.Funcs {
				v := pos
				switch f {
				case Rank:
					v = rank
				case DenseRank:
					v = dense
				}
				d[len(r.Datums)+i] = repr.NewInt8(v)
			}
			out = append(out, Row{Datums: d, Diff: 1})
		}
	}
	return out
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
		out = append(out, WindowPartition(n, groups[k])...)
	}
	return out, nil
}
