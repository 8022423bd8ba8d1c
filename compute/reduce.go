package compute

import (
	"slices"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// Tags of a reduction's output vals: a row, or an error the group raised.
const (
	tagRow   = 0
	tagError = 1
)

// reduce maintains, per group, one output row of the key followed by the
// aggregates. Aggregates that are all sums and counts (accumulationOf)
// are kept as accumulations, and ones that are all min, max and count as
// leads (leads.go), at a cost per update independent of the group's
// size; a mix of the two is kept as both, joined on the group key
// (reduceInParts); any others make the generic path: the input arranged by
// the group key and every aggregate recomputed over the changed group. A
// group whose aggregates fail to evaluate outputs an error instead of a
// row.
func (r *renderer) reduce(n expr.Reduce) (Collection, error) {
	n = liftPerRow(n)
	if m, plan, ok := accumulationAs(n); ok {
		return r.accumulate(m, plan)
	}
	if aggs, ok := leadsOf(n); ok {
		return r.leads(n, aggs)
	}
	if parts, ok := splitReduce(n); ok {
		return r.reduceInParts(n, parts)
	}
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	types := reprTypes(n.Input.Typ())
	a, keyErrs := r.arrangeBy(in, "reduce", types, n.GroupKey)
	out := arrange.Reduce(a, "reduce", func(key []byte, input []arrange.ValCount) []arrange.ValCount {
		rows := make([]expr.Row, 0, len(input))
		for _, vc := range input {
			rows = append(rows, expr.Row{Datums: decode(vc.Val, types, nil), Diff: vc.Count})
		}
		var p repr.RowPacker
		for _, ag := range n.Aggregates {
			v, err := expr.EvalAggregate(ag, rows)
			if err != nil {
				e := errorUpdate(err, 0, 1)
				return []arrange.ValCount{{Val: append([]byte{tagError}, e.Key...), Count: 1}}
			}
			p.Push(v)
		}
		total := int64(0)
		for _, row := range rows {
			total += row.Diff
		}
		if total <= 0 {
			return nil
		}
		return []arrange.ValCount{{Val: append([]byte{tagRow}, p.Finish()...), Count: 1}}
	})
	rows, errs := r.flattenTagged(out, "reduce output", flatKeyVal)
	return Collection{Rows: rows, Errs: dataflow.Concat(dataflow.Concat(in.Errs, keyErrs, "reduce key errors"), errs, "reduce errors")}, nil
}

// topK arranges the input by the group columns and keeps each group's
// ranked rows: with a limit, as its first rows (topk.go); without, by
// the generic TopK, which reads the group at every change.
func (r *renderer) topK(n expr.TopK) (Collection, error) {
	if firstsOf(n) {
		return r.topKFirsts(n)
	}
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	types := reprTypes(n.Input.Typ())
	keys := make([]expr.Scalar, len(n.GroupKey))
	for i, c := range n.GroupKey {
		keys[i] = expr.Column{Index: c}
	}
	a, keyErrs := r.arrangeBy(in, "topk", types, keys)
	less := func(v1, v2 []byte) bool {
		return expr.CompareRows(n.Order, decode(v1, types, nil), decode(v2, types, nil)) < 0
	}
	out := arrange.TopK(a, "topk", less, int(n.Offset), int(n.Limit))
	rows, _ := r.flattenTagged(out, "topk output", flatVal)
	return Collection{Rows: rows, Errs: dataflow.Concat(in.Errs, keyErrs, "topk errors")}, nil
}

// threshold arranges the input by its whole row and keeps each row with
// count f(count).
func (r *renderer) threshold(input expr.Relation, name string, f func(int64) int64) (Collection, error) {
	in, err := r.render(input)
	if err != nil {
		return Collection{}, err
	}
	a := arrange.Arrange(in.Rows, name)
	out := arrange.Threshold(a, name, f)
	rows := flatten(out, name+" output", wholeKey)
	return Collection{Rows: rows, Errs: in.Errs}, nil
}

// flattenMode is how flattenTagged makes rows of an output arrangement.
type flattenMode uint8

const (
	// flatVal: the row is the val.
	flatVal flattenMode = iota
	// flatKeyVal: vals are tagged (a reduction's); the row is the key
	// followed by the val's row, and error vals go to the error stream.
	flatKeyVal
	// flatTaggedVal: vals are tagged and hold whole rows (a window's).
	flatTaggedVal
)

// flattenTagged turns a keyed output arrangement back into a collection
// of rows and one of errors, as mode says.
func (r *renderer) flattenTagged(a *arrange.Arranged, name string, mode flattenMode) (dataflow.Stream[arrange.Update], dataflow.Stream[arrange.Update]) {
	b := a.Batches.Builder()
	ob := b.NewOperator(name)
	in := dataflow.NewInput(ob, a.Batches, dataflow.Pipeline[*arrange.Batch]())
	out, rows := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		return dataflow.ScheduleFunc(func() {
			for {
				t, batches, ok := in.Next()
				if !ok {
					return
				}
				var good, bad []arrange.Update
				for _, batch := range batches {
					c := batch.Cursor()
					for ; c.KeyValid(); c.StepKey() {
						for ; c.ValValid(); c.StepVal() {
							key, val := c.Key(), c.Val()
							c.History(func(tm uint64, d int64) {
								switch {
								case mode == flatVal:
									good = append(good, arrange.Update{Key: val, Time: tm, Diff: d})
								case val[0] == tagError:
									bad = append(bad, arrange.Update{Key: val[1:], Time: tm, Diff: d})
								case mode == flatTaggedVal:
									good = append(good, arrange.Update{Key: val[1:], Time: tm, Diff: d})
								default:
									row := append(append(make([]byte, 0, len(key)+len(val)-1), key...), val[1:]...)
									good = append(good, arrange.Update{Key: row, Time: tm, Diff: d})
								}
							})
						}
					}
				}
				out.GiveSlice(t, good)
				errOut.GiveSlice(t, bad)
			}
		})
	})
	return rows, errs
}

// flattenFuel is how many updates flatten gives in one schedule. An
// import's first batch is the whole arrangement it reads; cut into
// slices, it reaches the operators downstream a slice at a time, the
// dataflow's account counts what has been read (the progress of a
// hydration), and other dataflows' operators run in between.
var flattenFuel = 1 << 16

// flattenPiece is how many updates flatten gives between checks of its
// run's time (dataflow.Operator.OutOfTime).
var flattenPiece = 1 << 12

// flatten turns an arrangement into a collection of rows made by row.
func flatten(a *arrange.Arranged, name string, row func(key, val []byte) []byte) dataflow.Stream[arrange.Update] {
	return flattenRanges(a, name, row, nil)
}

// flattenRanges is flatten of the arrangement's keys in runs of keys
// (nil: every key), seeking to each run in every batch.
func flattenRanges(a *arrange.Arranged, name string, row func(key, val []byte) []byte, ranges []KeyRange) dataflow.Stream[arrange.Update] {
	b := a.Batches.Builder()
	acct := b.Account()
	ob := b.NewOperator(name)
	// It reads no frontier: messages and its own Activate run it.
	ob.SetNotify(false)
	in := dataflow.NewInput(ob, a.Batches, dataflow.Pipeline[*arrange.Batch]())
	out, rows := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		caps[0].Release()
		var (
			// The message being flattened: its time, the batches not
			// yet started, and the cursor into the current one; held is
			// a capability at t while the message outlives a schedule.
			t    uint64
			left []*arrange.Batch
			cur  *arrange.BatchCursor
			walk RangeWalk
			size int // the current batch's updates
			// unread is the current batch's updates not yet given: a
			// seek's skipped ones count as read when it is done.
			unread int
			held   *dataflow.Capability
		)
		// A batch read whole steps its cursor itself, not through the
		// walk's interface.
		whole := ranges == nil
		return dataflow.ScheduleFunc(func() {
			gave := false
			for fuel := flattenFuel; fuel > 0; {
				if cur == nil {
					if len(left) == 0 {
						if held != nil {
							held.Release()
							held = nil
						}
						var ok bool
						if t, left, ok = in.Next(); !ok {
							return
						}
						continue
					}
					cur, size, left = left[0].Cursor(), left[0].Len(), left[1:]
					unread = size
					if !whole {
						walk = WalkRanges(cur, ranges)
					}
				}
				// While what it gave waits downstream, it gives more once
				// that has been taken, and a small piece a run meanwhile,
				// so that two flattens never wait on each other.
				crowded := op.Crowded()
				if gave && crowded {
					break
				}
				piece := min(fuel, flattenPiece)
				if crowded {
					piece = min(piece, max(flattenPiece/16, 1))
				}
				res := make([]arrange.Update, 0, min(piece, size))
				for (whole && cur.KeyValid() || !whole && walk.Valid()) && len(res) < piece {
					for ; cur.ValValid() && len(res) < piece; cur.StepVal() {
						r := row(cur.Key(), cur.Val())
						cur.History(func(tm uint64, d int64) {
							res = append(res, arrange.Update{Key: r, Time: tm, Diff: d})
						})
					}
					if cur.ValValid() {
						break // out of fuel within the key: resume at its next val
					}
					if whole {
						cur.StepKey()
					} else {
						walk.Step()
					}
				}
				fuel -= len(res)
				acct.AddRead(int64(len(res)))
				unread -= len(res)
				if whole && !cur.KeyValid() || !whole && !walk.Valid() {
					// The walk holds the cursor, and the cursor its
					// batch: both let go.
					cur, walk = nil, RangeWalk{}
					acct.AddSkipped(int64(unread))
				}
				out.GiveSlice(t, res)
				gave = gave || len(res) > 0
				// Checked after a piece, so that every run gives one.
				if op.OutOfTime() {
					break
				}
			}
			switch {
			case cur != nil || len(left) > 0:
				if held == nil {
					// The input's queue may reuse its slice.
					held, left = op.Retain(0, t), slices.Clone(left)
				}
				op.Activate()
			case held != nil:
				// The message held over is done.
				held.Release()
				held = nil
			}
			if in.Pending() {
				op.Activate() // the run ended with messages still queued
			}
		})
	})
	return rows
}

// window arranges the input by its partition columns and, for every
// partition a change touches, recomputes the partition's rows with their
// window functions (expr.WindowPartition), as the generic reduction
// recomputes a group: the cost of a change is the size of its partition.
func (r *renderer) window(n expr.Window) (Collection, error) {
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	types := reprTypes(n.Input.Typ())
	keys := make([]expr.Scalar, len(n.PartitionBy))
	for i, c := range n.PartitionBy {
		keys[i] = expr.Column{Index: c}
	}
	a, keyErrs := r.arrangeBy(in, "window", types, keys)
	out := arrange.Reduce(a, "window", func(key []byte, input []arrange.ValCount) []arrange.ValCount {
		rows := make([]expr.Row, 0, len(input))
		for _, vc := range input {
			rows = append(rows, expr.Row{Datums: decode(vc.Val, types, nil), Diff: vc.Count})
		}
		out, err := expr.WindowPartition(n, rows)
		if err != nil {
			e := errorUpdate(err, 0, 1)
			return []arrange.ValCount{{Val: append([]byte{tagError}, e.Key...), Count: 1}}
		}
		vals := make([]arrange.ValCount, 0, len(out))
		for _, row := range out {
			vals = append(vals, arrange.ValCount{Val: append([]byte{tagRow}, repr.PackRow(row.Datums...)...), Count: row.Diff})
		}
		return vals
	})
	rows, errs := r.flattenTagged(out, "window output", flatTaggedVal)
	return Collection{Rows: rows, Errs: dataflow.Concat(dataflow.Concat(in.Errs, keyErrs, "window key errors"), errs, "window errors")}, nil
}

// accumulationAs returns n, or n with its arguments lifted, as it is
// kept as an accumulation, and reports whether it can be.
func accumulationAs(n expr.Reduce) (expr.Reduce, accumulation, bool) {
	if plan, ok := accumulationOf(n); ok {
		return n, plan, true
	}
	if m, ok := liftArguments(n); ok {
		if plan, ok := accumulationOf(m); ok {
			return m, plan, true
		}
	}
	return n, accumulation{}, false
}

// reduceParts is a reduction split in two: its aggregates that are kept
// as an accumulation, and those kept as leads.
type reduceParts struct {
	// acc and leads hold the indexes of n's aggregates of each part, in
	// order.
	acc, leads []int
}

// splitReduce reports whether n's aggregates, none of them kept
// generically on their own, are a mix of ones kept as an accumulation
// (sums, counts) and ones kept as leads (min, max), and says which is
// which. count(*) and counts of columns go with the sums.
func splitReduce(n expr.Reduce) (reduceParts, bool) {
	var p reduceParts
	for i, ag := range n.Aggregates {
		one := expr.Reduce{Input: n.Input, GroupKey: n.GroupKey, Aggregates: []expr.Aggregate{ag}}
		if _, _, ok := accumulationAs(one); ok {
			p.acc = append(p.acc, i)
		} else if _, ok := leadsOf(one); ok {
			p.leads = append(p.leads, i)
		} else {
			return reduceParts{}, false
		}
	}
	return p, len(p.acc) > 0 && len(p.leads) > 0
}

// reduceInParts renders n as its two parts over one rendering of its
// input, joined on the group key (NULL equal to NULL, as groups are):
// each group has one row in each part, so the join has one row per
// group. Each part keeps its aggregates at a cost per update independent
// of the group's size, where the generic reduction would read the group.
// A row that fails (in the input, or its group key) fails in both parts,
// so its error comes twice; a read or view reports it the same.
func (r *renderer) reduceInParts(n expr.Reduce, parts reduceParts) (Collection, error) {
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	id := r.freshLocal()
	r.locals[id] = in
	input := expr.LocalGet{ID: id, Types: n.Input.Typ()}
	part := func(idx []int) expr.Reduce {
		aggs := make([]expr.Aggregate, len(idx))
		for j, i := range idx {
			aggs[j] = n.Aggregates[i]
		}
		return expr.Reduce{Input: input, GroupKey: n.GroupKey, Aggregates: aggs}
	}
	k := len(n.GroupKey)
	// The join's columns: the first part's key and aggregates, then the
	// second's.
	second := k + len(parts.acc)
	eqs := make([][]expr.Scalar, k)
	outputs := make([]int, 0, k+len(n.Aggregates))
	for i := range k {
		eqs[i] = []expr.Scalar{expr.Column{Index: i}, expr.Column{Index: second + i}}
		outputs = append(outputs, i)
	}
	outputs = outputs[:k+len(n.Aggregates)]
	for j, i := range parts.acc {
		outputs[k+i] = k + j
	}
	for j, i := range parts.leads {
		outputs[k+i] = second + k + j
	}
	return r.render(expr.Project{
		Input:   expr.Join{Inputs: []expr.Relation{part(parts.acc), part(parts.leads)}, Equivalences: eqs},
		Outputs: outputs,
	})
}

// liftPerRow returns n with each scalar of its group key and aggregates
// that calls a function per row (random(), nextval: expr.CallsPerRow)
// computed by a Map over its input and read as a column instead. The
// mfp evaluates such a Map once per copy of a row that stands for
// several, as PostgreSQL evaluates it once per row; the reduction would
// evaluate it once for all of them, and again at every change of the
// group.
func liftPerRow(n expr.Reduce) expr.Reduce {
	width := len(n.Input.Typ())
	var lifted []expr.Scalar
	lift := func(s expr.Scalar) expr.Scalar {
		if s == nil || !expr.CallsPerRow(s) {
			return s
		}
		lifted = append(lifted, s)
		return expr.Column{Index: width + len(lifted) - 1}
	}
	key := make([]expr.Scalar, len(n.GroupKey))
	for i, k := range n.GroupKey {
		key[i] = lift(k)
	}
	aggs := make([]expr.Aggregate, len(n.Aggregates))
	for i, a := range n.Aggregates {
		a.Expr, a.Filter = lift(a.Expr), lift(a.Filter)
		a.Order = slices.Clone(a.Order)
		for j := range a.Order {
			a.Order[j].Expr = lift(a.Order[j].Expr)
		}
		aggs[i] = a
	}
	if len(lifted) == 0 {
		return n
	}
	return expr.Reduce{Input: expr.Map{Input: n.Input, Scalars: lifted}, GroupKey: key, Aggregates: aggs}
}

// liftArguments returns n with the arguments of its counts and sums that
// are expressions (sum(x * x), count(CASE …), avg's and stddev's casts
// to numeric) computed by a Map over its input and read as columns, and
// reports whether there was any: an accumulation takes only columns. The
// Map evaluates each row's arguments once, as the generic reduction
// would, and an argument that fails fails the read or view as it would
// there.
func liftArguments(n expr.Reduce) (expr.Reduce, bool) {
	width := len(n.Input.Typ())
	var lifted []expr.Scalar
	aggs := make([]expr.Aggregate, len(n.Aggregates))
	for i, a := range n.Aggregates {
		switch a.Expr.(type) {
		case expr.Column, expr.Literal:
		default:
			if (a.Func == expr.Count || a.Func == expr.Sum) && !a.Distinct && a.Filter == nil {
				lifted = append(lifted, a.Expr)
				a.Expr = expr.Column{Index: width + len(lifted) - 1}
			}
		}
		aggs[i] = a
	}
	if len(lifted) == 0 {
		return n, false
	}
	return expr.Reduce{Input: expr.Map{Input: n.Input, Scalars: lifted}, GroupKey: n.GroupKey, Aggregates: aggs}, true
}
