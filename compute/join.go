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
func (r *renderer) join(n expr.Join) (Collection, error) {
	if len(n.Inputs) == 0 {
		return r.constant(expr.Constant{Rows: []expr.Row{{Diff: 1}}}), nil
	}
	acc, err := r.render(n.Inputs[0])
	if err != nil {
		return Collection{}, err
	}
	accArity := len(n.Inputs[0].Typ())
	accTypes := n.Inputs[0].Typ()
	used := make([]bool, len(n.Equivalences))
	for _, input := range n.Inputs[1:] {
		right, err := r.render(input)
		if err != nil {
			return Collection{}, err
		}
		rTypes := input.Typ()
		var lkeys, rkeys []expr.Scalar
		for ci, class := range n.Equivalences {
			if used[ci] {
				continue
			}
			l, rr := keyPair(class, accArity, accArity+len(rTypes))
			if l == nil {
				continue
			}
			lkeys = append(lkeys, l)
			rkeys = append(rkeys, rr)
			if len(class) == 2 {
				used[ci] = true
			}
		}
		la, lerrs := r.arrangeBy(acc, "join left", reprTypes(accTypes), lkeys)
		ra, rerrs := r.arrangeBy(right, "join right", reprTypes(rTypes), rkeys)
		acc.Errs = dataflow.Concat(acc.Errs, lerrs, "join key errors")
		right.Errs = dataflow.Concat(right.Errs, rerrs, "join key errors")
		rows := arrange.Join(la, ra, "join", func(_, va, vb []byte) ([]byte, []byte) {
			return append(append(make([]byte, 0, len(va)+len(vb)), va...), vb...), nil
		})
		acc = Collection{Rows: rows, Errs: dataflow.Concat(acc.Errs, right.Errs, "join errors")}
		accArity += len(rTypes)
		accTypes = append(slices.Clone(accTypes), rTypes...)
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
	if len(rest) == 0 {
		return acc, nil
	}
	r.locals[joinLocal] = acc
	defer delete(r.locals, joinLocal)
	return r.mfp(expr.Filter{Input: expr.LocalGet{ID: joinLocal, Types: accTypes}, Predicates: rest})
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
		cols, rawKeys := columnRefs(keys)
		return dataflow.ScheduleFunc(func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					return
				}
				res := make([]arrange.Update, 0, len(data))
				var bad []arrange.Update
			rows:
				for _, u := range data {
					key := []byte{}
					if len(keys) > 0 && rawKeys {
						key, raw = rawKey(u.Key, cols, reader.end, raw, &p)
					} else if len(keys) > 0 {
						scratch = reader.decode(u.Key, scratch)
						p.Reset()
						for _, k := range keys {
							v, err := k.Eval(scratch)
							if err != nil {
								bad = append(bad, errorUpdate(err, u.Time, u.Diff))
								continue rows
							}
							p.Push(v)
						}
						key = p.Finish()
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
