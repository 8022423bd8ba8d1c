package compute

import (
	"freshet/expr"
	"freshet/repr"
)

// filterProject runs a chain of Filter and Project steps on a row's
// encoding. The predicates see only the columns they read, decoded; a
// row that passes is its input's bytes when the chain keeps every column
// in order, as a bare filter does, and otherwise its kept columns' bytes
// copied, never decoded and encoded again (a row's encoding is
// canonical, so the bytes are the same).
type filterProject struct {
	reader  columnReader
	filters []layoutFilter
	// outputs maps each output column to its input column; nil when the
	// output is the input.
	outputs []int
	// end is one past the last input column the output keeps.
	end int

	scratch, view []repr.Datum
	raw           [][]byte
}

// layoutFilter is one Filter of the chain, whose columns are the input
// columns layout lists (the input's own when layout is nil).
type layoutFilter struct {
	predicates []expr.Scalar
	layout     []int
	// notNull[i], if not negative, is the column predicate i reads when
	// it is `NOT (column IS NULL)`, which a join's key puts on every
	// input row: it is checked without evaluating the scalar.
	notNull []int
}

// notNullColumn returns c if p is NOT (column c IS NULL), else -1.
func notNullColumn(p expr.Scalar) int {
	not, ok := p.(expr.CallUnary)
	if !ok || not.Func != expr.Not {
		return -1
	}
	isNull, ok := not.Arg.(expr.CallUnary)
	if !ok || isNull.Func != expr.IsNull {
		return -1
	}
	if c, ok := isNull.Arg.(expr.Column); ok {
		return c.Index
	}
	return -1
}

// newFilterProject returns the chain steps (bottom-up) over rows of
// types as a filterProject, or false if a step is neither a Filter nor a
// Project.
func newFilterProject(steps []expr.Relation, types []repr.Type) (*filterProject, bool) {
	fp := &filterProject{}
	var layout []int // nil: the input's columns
	var read []int
	for _, s := range steps {
		switch n := s.(type) {
		case expr.Filter:
			notNull := make([]int, len(n.Predicates))
			for i, p := range n.Predicates {
				notNull[i] = notNullColumn(p)
			}
			fp.filters = append(fp.filters, layoutFilter{predicates: n.Predicates, layout: layout, notNull: notNull})
			var cols []int
			for _, p := range n.Predicates {
				cols = p.Columns(cols)
			}
			for _, c := range cols {
				if layout != nil {
					c = layout[c]
				}
				read = append(read, c)
			}
		case expr.Project:
			next := make([]int, len(n.Outputs))
			for i, o := range n.Outputs {
				if layout != nil {
					o = layout[o]
				}
				next[i] = o
			}
			layout = next
		default:
			return nil, false
		}
	}
	fp.reader = newColumnReader(types, nil, read...)
	if layout != nil && !isIdentity(layout, len(types)) {
		fp.outputs = layout
		for _, c := range layout {
			fp.end = max(fp.end, c+1)
		}
	}
	return fp, true
}

// storedColumn returns the input column that output column c is.
func (fp *filterProject) storedColumn(c int) int {
	if fp.outputs != nil {
		return fp.outputs[c]
	}
	return c
}

// isIdentity reports whether layout lists the columns 0..n-1 in order.
func isIdentity(layout []int, n int) bool {
	if len(layout) != n {
		return false
	}
	for i, c := range layout {
		if c != i {
			return false
		}
	}
	return true
}

// forget drops the scratch's views of the last row applied: kept while
// the operator waits for more input, they would hold that row's whole
// backing array alive, which for a row of an imported batch is the
// batch's keys.
func (fp *filterProject) forget() {
	// Filters of other layouts may have left entries past the length.
	clear(fp.scratch[:cap(fp.scratch)])
	clear(fp.view[:cap(fp.view)])
	clear(fp.raw[:cap(fp.raw)])
}

// apply returns the output row of row and true, false if a predicate
// rejects it, or the error a predicate raised.
func (fp *filterProject) apply(row []byte, p *repr.RowPacker) ([]byte, bool, error) {
	if len(fp.filters) > 0 {
		fp.scratch = fp.reader.decode(row, fp.scratch)
	}
	for _, f := range fp.filters {
		cols := fp.scratch
		if f.layout != nil {
			fp.view = fp.view[:0]
			for _, c := range f.layout {
				fp.view = append(fp.view, fp.scratch[c])
			}
			cols = fp.view
		}
		for i, pr := range f.predicates {
			if c := f.notNull[i]; c >= 0 {
				if cols[c].IsNull() {
					return nil, false, nil
				}
				continue
			}
			v, err := pr.Eval(cols)
			if err != nil {
				return nil, false, err
			}
			if v.IsNull() || !v.Bool() {
				return nil, false, nil
			}
		}
	}
	if fp.outputs == nil {
		return row, true, nil
	}
	fp.raw = rawColumns(row, fp.end, fp.raw)
	p.Reset()
	for _, c := range fp.outputs {
		p.PushEncoded(fp.raw[c])
	}
	return p.Finish(), true, nil
}
