package compute

import (
	"slices"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// join renders a multi-way join as binary joins from left to right. Each
// step arranges the rows so far and the next input by the key scalars of
// the equivalence classes that connect them; classes left over (more than
// two members, or members spanning more inputs) become a final filter
// comparing members NULL-safely, as equivalences require.
//
// An input that an index serves (indexFor) is not arranged: the step
// reads the index's arrangement and takes each matched row through the
// input's filters and projections.
func (r *renderer) join(n expr.Join) (Collection, error) {
	if len(n.Inputs) == 0 {
		return r.constant(expr.Constant{Rows: []expr.Row{{Diff: 1}}}), nil
	}
	steps, rest := joinSteps(n)
	uses := joinIndexes(n, steps, r.indexes)
	var acc Collection
	var la *arrange.Arranged
	if uses[0] != nil {
		var err error
		if la, acc.Errs, err = r.importIndex(uses[0]); err != nil {
			return Collection{}, err
		}
	} else {
		var err error
		if acc, err = r.render(n.Inputs[0]); err != nil {
			return Collection{}, err
		}
	}
	accTypes := n.Inputs[0].Typ()
	for i, input := range n.Inputs[1:] {
		st := steps[i]
		rTypes := input.Typ()
		var lerrs dataflow.Stream[arrange.Update]
		if la == nil {
			la, lerrs = r.arrangeBy(acc, "join left", reprTypes(accTypes), st.lkeys)
			acc.Errs = dataflow.Concat(acc.Errs, lerrs, "join key errors")
		}
		var ra *arrange.Arranged
		var rerrs dataflow.Stream[arrange.Update]
		if u := uses[i+1]; u != nil {
			var err error
			if ra, rerrs, err = r.importIndex(u); err != nil {
				return Collection{}, err
			}
		} else {
			right, err := r.render(input)
			if err != nil {
				return Collection{}, err
			}
			var kerrs dataflow.Stream[arrange.Update]
			ra, kerrs = r.arrangeBy(right, "join right", reprTypes(rTypes), st.rkeys)
			rerrs = dataflow.Concat(right.Errs, kerrs, "join key errors")
		}
		var left, right func([]byte) ([]byte, bool)
		if i == 0 && uses[0] != nil {
			left = matchRow(uses[0])
		}
		if uses[i+1] != nil {
			right = matchRow(uses[i+1])
		}
		rows := arrange.JoinFiltered(la, ra, "join", func(_, va, vb []byte) ([]byte, []byte, bool) {
			if left != nil {
				var ok bool
				if va, ok = left(va); !ok {
					return nil, nil, false
				}
			}
			if right != nil {
				var ok bool
				if vb, ok = right(vb); !ok {
					return nil, nil, false
				}
			}
			return append(append(make([]byte, 0, len(va)+len(vb)), va...), vb...), nil, true
		})
		acc = Collection{Rows: rows, Errs: dataflow.Concat(acc.Errs, rerrs, "join errors")}
		la = nil
		accTypes = append(slices.Clone(accTypes), rTypes...)
	}
	if len(rest) == 0 {
		return acc, nil
	}
	r.locals[joinLocal] = acc
	defer delete(r.locals, joinLocal)
	return r.mfp(expr.Filter{Input: expr.LocalGet{ID: joinLocal, Types: accTypes}, Predicates: rest})
}

// joinStep is the keys of one binary step of a join: lkeys over the
// inputs joined so far, rkeys over the next input.
type joinStep struct {
	lkeys, rkeys []expr.Scalar
}

// joinSteps returns the keys of each binary step of n, left to right,
// and the comparisons left for a final filter.
func joinSteps(n expr.Join) ([]joinStep, []expr.Scalar) {
	var steps []joinStep
	accArity := len(n.Inputs[0].Typ())
	used := make([]bool, len(n.Equivalences))
	for _, input := range n.Inputs[1:] {
		width := len(input.Typ())
		var st joinStep
		for ci, class := range n.Equivalences {
			if used[ci] {
				continue
			}
			l, rr := keyPair(class, accArity, accArity+width)
			if l == nil {
				continue
			}
			st.lkeys = append(st.lkeys, l)
			st.rkeys = append(st.rkeys, rr)
			if len(class) == 2 {
				used[ci] = true
			}
		}
		steps = append(steps, st)
		accArity += width
	}
	var rest []expr.Scalar
	for ci, class := range n.Equivalences {
		if used[ci] {
			continue
		}
		for _, s := range class[1:] {
			rest = append(rest, expr.CallBinary{Func: expr.IsNotDistinctFrom, Left: class[0], Right: s})
		}
	}
	return steps, rest
}

// joinIndexes returns, for each input of n, the index the join reads it
// from, or nil: the first input's for the first step's left keys, every
// other input's for its step's right keys. Only the first input can be
// read from an index on the left: later steps' left side is the join so
// far. A step with both sides from indexes needs both keys in one order.
// It reorders the keys of steps (joinSteps) to the indexes' key order.
func joinIndexes(n expr.Join, steps []joinStep, ix *Indexes) []*indexUse {
	uses := make([]*indexUse, len(n.Inputs))
	for i, input := range n.Inputs[1:] {
		st := &steps[i]
		ordered := false
		if i == 0 {
			if u := ix.indexFor(n.Inputs[0], st.lkeys, false); u != nil {
				uses[0] = u
				st.lkeys, st.rkeys = permute(st.lkeys, u.perm), permute(st.rkeys, u.perm)
				ordered = true
			}
		}
		if u := ix.indexFor(input, st.rkeys, ordered); u != nil {
			uses[i+1] = u
			st.lkeys, st.rkeys = permute(st.lkeys, u.perm), permute(st.rkeys, u.perm)
		}
	}
	return uses
}

// joinLocal is a local id no planner hands out, for the join's own filter.
const joinLocal = expr.LocalID(1<<63 + 1)

// keyPair returns, for one equivalence class, a member over the left
// columns only (below split) and one over the right columns only (from
// split to end), the right one rebased to the right input; nil if the
// class does not connect the two sides.
func keyPair(class []expr.Scalar, split, end int) (expr.Scalar, expr.Scalar) {
	var l, rr expr.Scalar
	for _, s := range class {
		cols := s.Columns(nil)
		switch {
		case len(cols) > 0 && allIn(cols, 0, split) && l == nil:
			l = s
		case len(cols) > 0 && allIn(cols, split, end) && rr == nil:
			rr = shift(s, -split)
		}
	}
	if l == nil || rr == nil {
		return nil, nil
	}
	return l, rr
}

func allIn(cols []int, lo, hi int) bool {
	for _, c := range cols {
		if c < lo || c >= hi {
			return false
		}
	}
	return true
}

// shift rebases a scalar's column references by delta.
func shift(s expr.Scalar, delta int) expr.Scalar {
	switch n := s.(type) {
	case expr.Column:
		return expr.Column{Index: n.Index + delta}
	case expr.Literal:
		return n
	case expr.CallUnary:
		return expr.CallUnary{Func: n.Func, Arg: shift(n.Arg, delta)}
	case expr.CallBinary:
		return expr.CallBinary{Func: n.Func, Left: shift(n.Left, delta), Right: shift(n.Right, delta)}
	case expr.CallVariadic:
		args := make([]expr.Scalar, len(n.Args))
		for i, a := range n.Args {
			args[i] = shift(a, delta)
		}
		return expr.CallVariadic{Func: n.Func, Args: args}
	case expr.If:
		return expr.If{Cond: shift(n.Cond, delta), Then: shift(n.Then, delta), Else: shift(n.Else, delta)}
	case expr.Cast:
		n.Arg = shift(n.Arg, delta)
		return n
	}
	panic(sqlerr.AssertionFailedf("shift of %T", s))
}

// arrangeBy arranges c with Key = the packed key scalars and Val = the
// row. A row whose key fails to evaluate becomes an error update, on the
// stream returned beside the arrangement.
func (r *renderer) arrangeBy(c Collection, name string, types []repr.Type, keys []expr.Scalar) (*arrange.Arranged, dataflow.Stream[arrange.Update]) {
	ob := r.b.NewOperator(name + " key")
	in := dataflow.NewInput(ob, c.Rows, dataflow.Pipeline[arrange.Update]())
	out, keyed := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		var scratch []repr.Datum
		var raw [][]byte
		var p repr.RowPacker
		// Keys that are columns are cut from the row's bytes; other
		// keys decode only the columns they read.
		reader := newColumnReader(types, keys)
		gk := newGroupKeys(keys)
		rawEnd := gk.rawEnd()
		return dataflow.ScheduleFunc(func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					// The scratch views the last row (see
					// filterProject.forget).
					clear(raw)
					clear(scratch)
					return
				}
				res := make([]arrange.Update, 0, len(data))
				var bad []arrange.Update
				for _, u := range data {
					if gk.raw {
						raw = rawColumns(u.Key, rawEnd, raw)
					} else if gk.evaluated() {
						scratch = reader.decode(u.Key, scratch)
					}
					key, _, err := gk.make(raw, scratch, &p, nil)
					if err != nil {
						bad = append(bad, errorUpdate(err, u.Time, u.Diff))
						continue
					}
					res = append(res, arrange.Update{Key: key, Val: u.Key, Time: u.Time, Diff: u.Diff})
				}
				out.GiveSlice(t, res)
				errOut.GiveSlice(t, bad)
			}
		})
	})
	return arrange.Arrange(keyed, name), errs
}
