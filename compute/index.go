package compute

import (
	"fmt"
	"slices"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// Index is an arrangement of a relation's rows by some of their columns,
// exported under ID by ExportIndex, that a join may read as the
// arrangement of one of its inputs instead of arranging that input
// again.
type Index struct {
	ID expr.GlobalID
	// On is the relation whose Gets the index serves. A Get of the
	// index's own ID, or of another index on On (a view read through
	// its index), is served too.
	On expr.GlobalID
	// Keys are the key columns, in the order the key packs them.
	// Only indexes keyed by plain columns are listed: such a key never
	// fails to evaluate, so the index holds every row of On.
	Keys []int
	// Width is the number of columns of the rows the index holds: a
	// Get of more columns (a table's, after ADD COLUMN) cannot read it.
	Width int
}

// Indexes are the indexes a dataflow's joins may read, fixed before the
// dataflow is built so that every worker makes the same choices.
// The zero value has none.
type Indexes struct {
	List []Index
	// Import makes index id's arrangement (Key = packed key, Val = row)
	// and its errors readable in the dataflow b builds.
	Import func(b *dataflow.Builder, id expr.GlobalID) (*arrange.Arranged, dataflow.Stream[arrange.Update], error)
}

// indexUse is the choice of an index for one join input: the input is a
// chain of Filter, Project and Map steps over a Get that the index
// serves, and the join's key for the input is the index's key.
type indexUse struct {
	index Index
	get   expr.Get
	// steps are the input's chain, bottom-up; the join applies them to
	// each matched row.
	steps []expr.Relation
	// perm orders the join's keys as the index orders its own: key i of
	// the index is the join's key perm[i].
	perm []int
}

// indexFor returns the index that join input can be read from when the
// join arranges it by keys, or nil. With ordered, the index's key must
// be keys in their order (the other side's order is already fixed).
//
// The choice is made whenever it can be: an index is already kept, so
// reading it costs no memory, while arranging the input again would
// hold a second copy of it (of its filtered rows) for as long as the
// join lives. The input's filters are then applied per match instead of
// before the arrangement; see docs/arrangements.md.
func (ix *Indexes) indexFor(input expr.Relation, keys []expr.Scalar, ordered bool) *indexUse {
	if ix == nil || len(ix.List) == 0 || len(keys) == 0 {
		return nil
	}
	get, steps, ok := stepsOverGet(input)
	// A chain that calls a function per row (random(), nextval) gives
	// each copy of a row its own value: it must see rows, not matches.
	if !ok || expr.StepsCallPerRow(steps) {
		return nil
	}
	cols := make([]int, len(keys))
	for i, k := range keys {
		c, ok := k.(expr.Column)
		if !ok {
			return nil
		}
		if cols[i], ok = baseColumn(steps, len(get.Types), c.Index); !ok {
			return nil
		}
	}
	// A Get of an index reads the relation the index is on: every index
	// on that relation serves it.
	on := get.ID
	for _, idx := range ix.List {
		if idx.ID == get.ID {
			on = idx.On
		}
	}
	for _, idx := range ix.List {
		if idx.ID != get.ID && idx.On != on || idx.Width < len(get.Types) || len(idx.Keys) != len(cols) {
			continue
		}
		perm := make([]int, len(cols))
		match := true
		for i, kc := range idx.Keys {
			j := slices.Index(cols, kc)
			// Each join key must be a different key column: two keys on
			// one column would leave another key column unmatched.
			if j < 0 || slices.Contains(perm[:i], j) || ordered && j != i {
				match = false
				break
			}
			perm[i] = j
		}
		if match {
			return &indexUse{index: idx, get: get, steps: steps, perm: perm}
		}
	}
	return nil
}

// baseColumn follows column c of the output of steps (bottom-up, over
// rows of width columns) down to the column of the chain's input it is,
// or reports false if it is computed.
func baseColumn(steps []expr.Relation, width, c int) (int, bool) {
	for i := len(steps) - 1; i >= 0; i-- {
		switch n := steps[i].(type) {
		case expr.Project:
			c = n.Outputs[c]
		case expr.Map:
			in := len(n.Input.Typ())
			// A Map's scalars see its input and the scalars before them.
			for c >= in {
				col, ok := n.Scalars[c-in].(expr.Column)
				if !ok {
					return 0, false
				}
				c = col.Index
			}
		}
	}
	return c, c < width
}

// permute returns keys in the order perm gives.
func permute(keys []expr.Scalar, perm []int) []expr.Scalar {
	out := make([]expr.Scalar, len(perm))
	for i, j := range perm {
		out[i] = keys[j]
	}
	return out
}

// importIndex imports u's index for a join and returns its arrangement
// and the input's errors: those the index holds and those the input's
// chain raises on the index's rows. The chain runs over every row for
// its errors, exactly as it would before an arrangement of its own, so
// that an error does not depend on whether the row found a match.
func (r *renderer) importIndex(u *indexUse) (*arrange.Arranged, dataflow.Stream[arrange.Update], error) {
	var none dataflow.Stream[arrange.Update]
	a, errs, err := r.indexes.Import(r.b, u.index.ID)
	if err != nil {
		return nil, none, err
	}
	if !chainCanFail(u.steps) {
		return a, errs, nil
	}
	width := len(u.get.Types)
	rows := flatten(a, fmt.Sprintf("rows of index %d", u.index.ID), func(_, val []byte) []byte { return repr.Row(val).Prefix(width) })
	r.locals[indexLocal] = Collection{Rows: rows, Errs: errs}
	defer delete(r.locals, indexLocal)
	var top expr.Relation = expr.LocalGet{ID: indexLocal, Types: u.get.Types}
	for _, s := range u.steps {
		top = withInput(s, top)
	}
	c, err := r.mfp(top)
	if err != nil {
		return nil, none, err
	}
	return a, c.Errs, nil
}

// indexLocal is a local id no planner hands out, for an index's rows.
const indexLocal = expr.LocalID(1<<63 + 2)

// chainCanFail reports whether a step of the chain evaluates a scalar
// that may fail (expr.NeverFails). A chain that cannot fail needs no
// pass over the index's rows for its errors: the bounds and equalities
// that views put on a table's columns are of that kind.
func chainCanFail(steps []expr.Relation) bool {
	var scalars []expr.Scalar
	for _, s := range steps {
		switch n := s.(type) {
		case expr.Map:
			scalars = append(scalars, n.Scalars...)
		case expr.Filter:
			scalars = append(scalars, n.Predicates...)
		}
	}
	return slices.ContainsFunc(scalars, func(s expr.Scalar) bool { return !expr.NeverFails(s) })
}

// withInput returns step (a Map, Filter or Project) over input.
func withInput(step, input expr.Relation) expr.Relation {
	switch n := step.(type) {
	case expr.Map:
		n.Input = input
		return n
	case expr.Filter:
		n.Input = input
		return n
	case expr.Project:
		n.Input = input
		return n
	}
	return step
}

// matchRow returns the function that takes a row of u's index, as the
// join matched it, through the input's chain: the row the input would
// have had, and whether it passes. A row whose chain fails does not
// pass; importIndex reports its error.
func matchRow(u *indexUse) func(val []byte) ([]byte, bool) {
	width := len(u.get.Types)
	types := reprTypes(u.get.Types)
	if fp, ok := newFilterProject(u.steps, types); ok {
		var p repr.RowPacker
		return func(val []byte) ([]byte, bool) {
			row, keep, err := fp.apply(repr.Row(val).Prefix(width), &p)
			return row, keep && err == nil
		}
	}
	var scratch []repr.Datum
	var p repr.RowPacker
	return func(val []byte) ([]byte, bool) {
		scratch = decode(repr.Row(val).Prefix(width), types, scratch)
		out, err := applySteps(u.steps, [][]repr.Datum{scratch})
		if err != nil || len(out) == 0 {
			return nil, false
		}
		p.Reset()
		for _, d := range out[0] {
			p.Push(d)
		}
		return p.Finish(), true
	}
}

// Imports returns what a dataflow rendered from plan with ix imports:
// the relations its Gets read, except where a join reads the input from
// an index, and those indexes, in the order the renderer meets them.
func Imports(plan expr.Relation, ix *Indexes) []expr.GlobalID {
	var ids []expr.GlobalID
	add := func(id expr.GlobalID) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	var walk func(expr.Relation)
	walk = func(rel expr.Relation) {
		switch n := rel.(type) {
		case expr.Get:
			add(n.ID)
		case expr.Join:
			if len(n.Inputs) > 0 {
				steps, _ := joinSteps(n)
				uses := joinIndexes(n, steps, ix)
				for i, in := range n.Inputs {
					if uses[i] != nil {
						add(uses[i].index.ID)
						continue
					}
					walk(in)
				}
				return
			}
		}
		for _, c := range rel.Children() {
			walk(c)
		}
	}
	walk(plan)
	return ids
}
