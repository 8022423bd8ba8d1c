package compute

import (
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// columnReader decodes only the columns of a row that an operator's
// expressions read; the others are skipped by their encoded length, and
// columns past the last one read are not visited at all. A decoded row
// holds Null in every column it skipped, which no expression reads.
//
// Decoding a datum (a numeric's digits, a string's escapes) costs far
// more than skipping it, and most operators read a column or two of a
// wide row: a join key, a group key, a summed column.
type columnReader struct {
	types []repr.Type
	// need[i] reports whether column i is read.
	// Invariant: len(need) == end, and need[end-1] if end > 0.
	need []bool
	end  int
}

// newColumnReader returns a reader of rows of types that decodes the
// columns that scalars read and the listed columns.
func newColumnReader(types []repr.Type, scalars []expr.Scalar, cols ...int) columnReader {
	for _, s := range scalars {
		cols = s.Columns(cols)
	}
	end := 0
	for _, c := range cols {
		end = max(end, c+1)
	}
	need := make([]bool, end)
	for _, c := range cols {
		need[c] = true
	}
	return columnReader{types: types, need: need, end: end}
}

// decode returns dst resized to the row's width, holding its needed
// columns decoded and Null elsewhere.
func (r *columnReader) decode(row []byte, dst []repr.Datum) []repr.Datum {
	if cap(dst) < len(r.types) {
		dst = make([]repr.Datum, len(r.types))
	}
	dst = dst[:len(r.types)]
	clear(dst)
	it := repr.Row(row).Iter()
	for i := range r.end {
		var err error
		if r.need[i] {
			dst[i], err = it.Next(r.types[i])
		} else {
			_, err = it.NextRaw()
		}
		if err != nil {
			panic(sqlerr.AssertionFailedf("decoding column %d of a row of %v: %v", i, r.types, err))
		}
	}
	return dst
}

// groupKeys makes a row's group key: cut from the row's encoding when
// every key is a column (a view of the row's bytes for one column),
// else evaluated on its decoded columns and packed.
type groupKeys struct {
	keys []expr.Scalar
	// cols are the key's columns when every key is one (raw).
	cols []int
	raw  bool
}

func newGroupKeys(keys []expr.Scalar) groupKeys {
	cols, raw := columnRefs(keys)
	return groupKeys{keys: keys, cols: cols, raw: raw && len(keys) > 0}
}

// rawEnd is one past the last column the key cuts from a row's encoding;
// 0 when it is evaluated.
func (g groupKeys) rawEnd() int {
	end := 0
	if g.raw {
		for _, c := range g.cols {
			end = max(end, c+1)
		}
	}
	return end
}

// evaluated reports whether the key is evaluated on the decoded row.
func (g groupKeys) evaluated() bool { return !g.raw && len(g.keys) > 0 }

// make returns the key of the row whose columns' encodings raw holds (up
// to rawEnd) and whose decoded columns scratch holds (when evaluated),
// or the error its evaluation raised. A key of more than one column's
// bytes is packed by p and appended to arena, which make returns; with
// a nil arena it has memory of its own. The empty key is empty, not nil.
func (g groupKeys) make(raw [][]byte, scratch []repr.Datum, p *repr.RowPacker, arena []byte) (key, _ []byte, err error) {
	switch {
	case len(g.keys) == 0:
		return []byte{}, arena, nil
	case g.raw && len(g.cols) == 1:
		return raw[g.cols[0]], arena, nil
	case g.raw:
		for _, c := range g.cols {
			p.PushEncoded(raw[c])
		}
	default:
		for _, k := range g.keys {
			v, err := k.Eval(scratch)
			if err != nil {
				p.Reset()
				return nil, arena, err
			}
			p.Push(v)
		}
	}
	arena, key = p.AppendTo(arena)
	return key, arena, nil
}

// rawColumns returns dst holding the encodings of row's first n columns,
// views of row's bytes. A row's encoding is canonical, so a column's
// bytes are what encoding its decoded datum again would give.
func rawColumns(row []byte, n int, dst [][]byte) [][]byte {
	dst = dst[:0]
	it := repr.Row(row).Iter()
	for i := range n {
		raw, err := it.NextRaw()
		if err != nil {
			panic(sqlerr.AssertionFailedf("reading column %d of a row: %v", i, err))
		}
		dst = append(dst, raw)
	}
	return dst
}

// columnRefs returns the column each scalar is, and whether every one is
// a plain column reference.
func columnRefs(scalars []expr.Scalar) ([]int, bool) {
	cols := make([]int, len(scalars))
	for i, s := range scalars {
		c, ok := s.(expr.Column)
		if !ok {
			return nil, false
		}
		cols[i] = c.Index
	}
	return cols, true
}
