package compute

import (
	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// mfp renders a chain of Map, Filter, Project and FlatMap as one operator:
// each update's row is decoded once, taken through every step, and
// encoded once; a row whose evaluation fails becomes an error update. A
// chain of filters and projections alone works on the row's bytes
// instead (filterProject): it decodes only what the predicates read.
func (r *renderer) mfp(top expr.Relation) (Collection, error) {
	var chain []expr.Relation
	node := top
	for {
		switch n := node.(type) {
		case expr.Map:
			chain, node = append(chain, n), n.Input
			continue
		case expr.Filter:
			chain, node = append(chain, n), n.Input
			continue
		case expr.Project:
			chain, node = append(chain, n), n.Input
			continue
		case expr.FlatMap:
			chain, node = append(chain, n), n.Input
			continue
		}
		break
	}
	in, err := r.render(node)
	if err != nil {
		return Collection{}, err
	}
	types := reprTypes(node.Typ())
	// Apply bottom-up.
	steps := make([]expr.Relation, len(chain))
	for i := range chain {
		steps[i] = chain[len(chain)-1-i]
	}
	ob := r.b.NewOperator("mfp")
	input := dataflow.NewInput(ob, in.Rows, dataflow.Pipeline[arrange.Update]())
	out, rows := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		var scratch []repr.Datum
		var packer repr.RowPacker
		if fp, ok := newFilterProject(steps, types); ok {
			return dataflow.ScheduleFunc(func() {
				for {
					t, data, ok := input.Next()
					if !ok {
						return
					}
					good := make([]arrange.Update, 0, len(data))
					var bad []arrange.Update
					for _, u := range data {
						row, keep, err := fp.apply(u.Key, &packer)
						switch {
						case err != nil:
							bad = append(bad, errorUpdate(err, u.Time, u.Diff))
						case keep:
							good = append(good, arrange.Update{Key: row, Time: u.Time, Diff: u.Diff})
						}
					}
					out.GiveSlice(t, good)
					errOut.GiveSlice(t, bad)
				}
			})
		}
		return dataflow.ScheduleFunc(func() {
			for {
				t, data, ok := input.Next()
				if !ok {
					return
				}
				// Most rows pass: size the output for all of them once.
				good := make([]arrange.Update, 0, len(data))
				var bad []arrange.Update
				for _, u := range data {
					scratch = decode(u.Key, types, scratch)
					results, err := applySteps(steps, [][]repr.Datum{scratch})
					if err != nil {
						bad = append(bad, errorUpdate(err, u.Time, u.Diff))
						continue
					}
					for _, ds := range results {
						packer.Reset()
						for _, d := range ds {
							packer.Push(d)
						}
						good = append(good, arrange.Update{Key: packer.Finish(), Time: u.Time, Diff: u.Diff})
					}
				}
				out.GiveSlice(t, good)
				errOut.GiveSlice(t, bad)
			}
		})
	})
	return Collection{Rows: rows, Errs: dataflow.Concat(in.Errs, errs, "mfp errors")}, nil
}

// applySteps runs rows through the chain; rows may multiply (FlatMap) or
// vanish (Filter).
func applySteps(steps []expr.Relation, rows [][]repr.Datum) ([][]repr.Datum, error) {
	for _, s := range steps {
		var next [][]repr.Datum
		for _, row := range rows {
			switch n := s.(type) {
			case expr.Map:
				ds := append([]repr.Datum(nil), row...)
				for _, sc := range n.Scalars {
					v, err := sc.Eval(ds)
					if err != nil {
						return nil, err
					}
					ds = append(ds, v)
				}
				next = append(next, ds)
			case expr.Filter:
				keep := true
				for _, p := range n.Predicates {
					v, err := p.Eval(row)
					if err != nil {
						return nil, err
					}
					if v.IsNull() || !v.Bool() {
						keep = false
						break
					}
				}
				if keep {
					next = append(next, row)
				}
			case expr.Project:
				ds := make([]repr.Datum, len(n.Outputs))
				for i, c := range n.Outputs {
					ds[i] = row[c]
				}
				next = append(next, ds)
			case expr.FlatMap:
				args := make([]repr.Datum, len(n.Args))
				for i, a := range n.Args {
					v, err := a.Eval(row)
					if err != nil {
						return nil, err
					}
					args[i] = v
				}
				vals, err := expr.EvalTableFunc(n.Func, args, n.Type)
				if err != nil {
					return nil, err
				}
				for _, v := range vals {
					next = append(next, append(append([]repr.Datum(nil), row...), v))
				}
			}
		}
		rows = next
	}
	return rows, nil
}
