package compute

import (
	"fmt"
	"slices"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/internal/prefault"
	"freshet/repr"
	"freshet/sqlerr"
)

// mfp renders a chain of Map, Filter, Project and FlatMap as one operator:
// each update's row is decoded once, taken through every step, and
// encoded once; a row whose evaluation fails becomes an error update. A
// chain of filters and projections alone works on the row's bytes
// instead (filterProject): it decodes only what the predicates read.
func (r *renderer) mfp(top expr.Relation) (Collection, error) {
	steps, node := chainSteps(top, true)
	// A chain that calls a function per row (nextval, random()) evaluates
	// an update that stands for n equal rows n times, a row each, so that
	// each gets its own value, as in PostgreSQL.
	perRow := expr.StepsCallPerRow(steps)
	// Over a constant, every worker evaluates the chain, and the first
	// FlatMap's expansion is shared among them (share): split is that
	// step, or -1. Not so for a chain with per-row calls, whose values
	// depend on the order of evaluation.
	split := -1
	c, isConstant := node.(expr.Constant)
	if isConstant && !perRow {
		split = slices.IndexFunc(steps, isFlatMap)
	}
	var in Collection
	if split >= 0 {
		in = r.constantOnEveryWorker(c)
	} else if seek, ok, err := r.seekingImport(node, steps, perRow); err != nil {
		return Collection{}, err
	} else if ok {
		in = seek
	} else if in, err = r.render(node); err != nil {
		return Collection{}, err
	}
	types := reprTypes(node.Typ())
	worker, peers := r.b.Index(), r.b.Workers()
	ob := r.b.NewOperator("mfp")
	// It reads no frontier: messages and its own Activate run it.
	ob.SetNotify(false)
	input := dataflow.NewInput(ob, in.Rows, dataflow.Pipeline[arrange.Update]())
	out, rows := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		var scratch []repr.Datum
		var packer repr.RowPacker
		steps := steps
		// copies numbers the copies of one row, from 0: the random calls
		// of this operator's steps read it (expr.CountCopies).
		var copies copyCounter
		if perRow {
			steps = expr.CountCopies(steps, &copies.n)
		}
		if fp, ok := newFilterProject(steps, types); ok && !perRow {
			return dataflow.ScheduleFunc(func() {
				for {
					t, data, ok := input.Next()
					if !ok {
						fp.forget()
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
		// A message is taken a piece at a time, and so are the rows one
		// update expands to (a FlatMap such as generate_series): the run
		// ends once it has held the worker for the cluster's slice, and
		// the rest waits, with capabilities at its time, for the next.
		// Pieces are cut by count, never by time, so an update and its
		// retraction give the same rows and errors.
		var (
			t    uint64
			rest []arrange.Update
			held []*dataflow.Capability
			// pending are rows of one update (pu) that have been through
			// steps[:from] and wait for the rest of the chain. They are
			// the output of a FlatMap, so none is scratch.
			pending [][]repr.Datum
			from    int
			pu      arrange.Update
			// puCopy is pu's copy ordinal.
			puCopy int64
			// sh is this worker's share of the expansion of pu at split,
			// taken into pending a piece at a time; nil: none.
			sh *share
		)
		// bufs hold a row between two steps of a chain run a row at a
		// time (packSteps); row is an expanded row before the first,
		// and expanded a piece of an expansion's values.
		var bufs [2][]repr.Datum
		var row, expanded []repr.Datum
		// rowAtATime: a chain with no FlatMap and no call drawn per row
		// takes each update's row through its steps a row at a time.
		rowAtATime := !perRow && !slices.ContainsFunc(steps, isFlatMap)
		// restByRow: the chain past an expansion (steps[from:]) runs a
		// row at a time likewise.
		restByRow := func() bool { return !perRow && !slices.ContainsFunc(steps[from:], isFlatMap) }
		pack := func(good []arrange.Update, results [][]repr.Datum, u arrange.Update) []arrange.Update {
			good = slices.Grow(good, len(results))
			for _, ds := range results {
				packer.Reset()
				for _, d := range ds {
					packer.Push(d)
				}
				good = append(good, arrange.Update{Key: packer.Finish(), Time: u.Time, Diff: u.Diff})
			}
			return good
		}
		return dataflow.ScheduleFunc(func() {
			for {
				if len(pending) == 0 && sh == nil && len(rest) == 0 {
					releaseAll(held)
					held = nil
					var ok bool
					if t, rest, ok = input.Next(); !ok {
						// The scratch, the last expanded update and the
						// emptied pending view the last rows (see
						// filterProject.forget).
						clear(scratch)
						pu, pending = arrange.Update{}, nil
						return
					}
					if perRow {
						rest = unitUpdates(rest)
					}
					continue
				}
				var good, bad []arrange.Update
				// fromValues is set when this run's piece was a share's,
				// taken from its values: the piece is the run's output.
				fromValues := false
				if len(pending) == 0 && sh != nil && restByRow() {
					fromValues = true
					// The share's next piece goes through the rest of the
					// chain from its values, a row at a time: no row of
					// datums is made for it (expansionRows).
					vals, err := sh.takeValues(expanded[:0])
					if err == nil {
						expanded = vals
						good, err = packSteps(steps[from:], len(vals), func(i int) []repr.Datum {
							row = append(append(row[:0], sh.row...), vals[i])
							return row
						}, &bufs, &packer, good, pu)
						if err != nil {
							good = good[:0]
						}
					}
					if err != nil {
						bad = append(bad, errorUpdate(err, pu.Time, pu.Diff))
					}
					clear(vals)
					if sh.done() {
						sh = nil
					}
				} else if len(pending) == 0 && sh != nil {
					var err error
					if pending, err = sh.take(); err != nil {
						bad = append(bad, errorUpdate(err, pu.Time, pu.Diff))
					}
					if sh.done() {
						sh = nil
					}
				}
				if len(pending) > 0 {
					piece := pending[:min(len(pending), mfpPiece)]
					pending = pending[len(piece):]
					copies.n = puCopy
					if restByRow() {
						// The rows pass through the steps one at a time,
						// in two buffers, and are packed as they leave:
						// no row of datums is made for each step.
						var err error
						if good, err = packSteps(steps[from:], len(piece), func(i int) []repr.Datum { return piece[i] }, &bufs, &packer, good, pu); err != nil {
							good = good[:0]
							bad = append(bad, errorUpdate(err, pu.Time, pu.Diff))
						}
					} else if results, err := applySteps(steps[from:], piece); err != nil {
						bad = append(bad, errorUpdate(err, pu.Time, pu.Diff))
					} else {
						good = pack(good, results, pu)
					}
				} else if sh == nil && !fromValues {
					piece := rest[:min(len(rest), mfpPiece)]
					rest = rest[len(piece):]
					// Most rows pass: size the output for all of them once.
					good = make([]arrange.Update, 0, len(piece))
					for i, u := range piece {
						if i > 0 && i%rowsBetweenChecks == 0 && op.OutOfTime() {
							// Costly rows: the rest of the piece waits.
							rest = untake(piece, i, rest)
							break
						}
						if perRow {
							copies.next(u)
						}
						scratch = decode(u.Key, types, scratch)
						if rowAtATime {
							// One row in, at most one out: it goes
							// through the steps in two buffers and is
							// packed as it leaves (packSteps). A failure
							// packs nothing of it.
							var err error
							if good, err = packSteps(steps, 1, func(int) []repr.Datum { return scratch }, &bufs, &packer, good, u); err != nil {
								bad = append(bad, errorUpdate(err, u.Time, u.Diff))
							}
							continue
						}
						results := [][]repr.Datum{scratch}
						k := 0
						var err error
						// mine is false if the update's rows are another
						// worker's; shared is set if the workers share them.
						mine, shared := true, (*share)(nil)
						for ; k < len(steps) && len(results) <= mfpPiece; k++ {
							if k == split && len(results) == 1 {
								var x expr.Expansion
								if x, err = expand(steps[k].(expr.FlatMap), results[0]); err != nil {
									break
								}
								if x.Len() > mfpPiece {
									shared = newShare(x, results[0], worker, peers)
									break
								}
								// One piece, worker 0's.
								if worker != 0 {
									mine = false
									break
								}
								if results, err = expansionRows(x, results[0], 0, x.Len()); err != nil {
									break
								}
								continue
							}
							if results, err = applySteps(steps[k:k+1], results); err != nil {
								break
							}
						}
						if err != nil {
							// Up to split, every worker evaluates the
							// update, and worker 0 reports its error.
							if split < 0 || worker == 0 {
								bad = append(bad, errorUpdate(err, u.Time, u.Diff))
							}
							continue
						}
						if !mine || shared != nil && shared.done() {
							continue
						}
						if shared != nil {
							// The rest of the chain takes the share a piece
							// at a time, as below.
							sh, from, pu = shared, k+1, u
							rest = append(piece[i+1:len(piece):len(piece)], rest...)
							break
						}
						if k < len(steps) {
							// The update expanded past a piece: the rest of
							// the chain takes its rows a piece at a time, and
							// the message's other updates wait for them.
							pending, from, pu, puCopy = results, k, u, copies.n
							rest = append(piece[i+1:len(piece):len(piece)], rest...)
							break
						}
						good = pack(good, results, u)
					}
				}
				out.GiveSlice(t, good)
				errOut.GiveSlice(t, bad)
				// Out of time, the run ends between messages too: the
				// input's queue keeps the messages not yet taken.
				if op.OutOfTime() {
					switch {
					case len(pending) == 0 && sh == nil && len(rest) == 0:
						releaseAll(held)
						held = nil
					case held == nil:
						// The input's queue may reuse its slice.
						held = []*dataflow.Capability{op.Retain(0, t), op.Retain(1, t)}
						rest = slices.Clone(rest)
					}
					op.Activate()
					return
				}
			}
		})
	})
	return Collection{Rows: rows, Errs: dataflow.Concat(in.Errs, errs, "mfp errors")}, nil
}

// seekingImport returns, when node is a Get that the source reads from
// an arrangement of whole rows and the chain's steps (with no call per
// row) bound its leading columns, the Get's rows read from only the runs
// of keys that hold every row the steps may keep: the steps still run
// on each, and a row they would drop is not read. It reports false
// otherwise, and the Get is rendered as it is.
func (r *renderer) seekingImport(node expr.Relation, steps []expr.Relation, perRow bool) (Collection, bool, error) {
	get, ok := node.(expr.Get)
	src, isArranged := r.source.(arrangedSource)
	if !ok || !isArranged || perRow || src.keyed(get.ID) {
		// An index's arrangement (keyed) is sorted by its key columns,
		// not by the rows' leading ones.
		return Collection{}, false, nil
	}
	ranges := seekRanges(get, steps)
	if ranges == nil {
		return Collection{}, false, nil
	}
	in, err := src.arranged(r.b, get.ID, len(get.Types))
	if err != nil {
		return Collection{}, false, err
	}
	return Collection{Rows: flattenRanges(in.rows, fmt.Sprintf("rows of %d in runs", get.ID), in.row, ranges), Errs: in.errs}, true, nil
}

// chainSteps returns the chain of Filter and Project steps at the top of
// rel, and of Map and FlatMap steps too if maps, bottom-up, and the
// relation under them.
func chainSteps(rel expr.Relation, maps bool) ([]expr.Relation, expr.Relation) {
	var chain []expr.Relation
	node := rel
	for {
		var input expr.Relation
		switch n := node.(type) {
		case expr.Filter:
			input = n.Input
		case expr.Project:
			input = n.Input
		case expr.Map:
			if maps {
				input = n.Input
			}
		case expr.FlatMap:
			if maps {
				input = n.Input
			}
		}
		if input == nil {
			break
		}
		chain, node = append(chain, node), input
	}
	slices.Reverse(chain)
	return chain, node
}

// releaseAll releases the capabilities an operator retained for a
// message it held over.
func releaseAll(caps []*dataflow.Capability) {
	for _, c := range caps {
		c.Release()
	}
}

// copyCounter numbers the copies of a row in the unit updates that
// unitUpdates makes of one update: they are adjacent, so a run of equal
// updates (row, time and sign) are the copies of one row. Runs that do
// not meet (the same row at one time in two messages) number from 0
// each, which gives their rows equal random values, as before they were
// counted, and keeps a retraction of what they added exact.
type copyCounter struct {
	n    int64
	key  []byte
	time uint64
	diff int64
	seen bool
}

// next sets n to u's ordinal in its run.
func (c *copyCounter) next(u arrange.Update) {
	if c.seen && u.Time == c.time && u.Diff == c.diff && string(u.Key) == string(c.key) {
		c.n++
		return
	}
	c.n, c.time, c.diff, c.seen = 0, u.Time, u.Diff, true
	c.key = append(c.key[:0], u.Key...)
}

// unitUpdates returns us with every update of a diff other than 1 or -1
// split into updates of diff 1 or -1: us itself if there is none.
func unitUpdates(us []arrange.Update) []arrange.Update {
	if !slices.ContainsFunc(us, func(u arrange.Update) bool { return u.Diff > 1 || u.Diff < -1 }) {
		return us
	}
	var out []arrange.Update
	for _, u := range us {
		n, unit := u.Diff, int64(1)
		if n < 0 {
			n, unit = -n, -1
		}
		for range n {
			out = append(out, arrange.Update{Key: u.Key, Val: u.Val, Time: u.Time, Diff: unit})
		}
	}
	return out
}

// mfpPiece is how many rows the mfp operator takes between checks of its
// run's time: updates of a message, or rows one update expanded to.
var mfpPiece = 4096

// rowsBetweenChecks is how often, in rows, the operators that evaluate
// expressions over a piece check their run's time within it: a piece
// of rows whose expressions are costly (a long text through md5 or a
// regex) still ends the run close to its slice, and a cancel or drop
// waits for at most that many rows.
var rowsBetweenChecks = 64

// untake returns the updates from piece[i] on, followed by rest, where
// piece and rest were cut one after the other from one message: the
// same memory, so nothing is copied.
func untake(piece []arrange.Update, i int, rest []arrange.Update) []arrange.Update {
	return piece[i : len(piece)+len(rest)]
}

func isFlatMap(s expr.Relation) bool {
	_, ok := s.(expr.FlatMap)
	return ok
}

// packSteps runs each of n rows, row(0) to row(n-1), through steps, none
// of them a FlatMap, and appends each row that passes, packed with p, to
// good as an update at u's time and diff. A row between two steps is held
// in one of bufs, reused from row to row, where applySteps makes a new
// row of datums at each step. On an error, good is returned with the
// rows packed before it, for the caller to drop.
func packSteps(steps []expr.Relation, n int, row func(i int) []repr.Datum, bufs *[2][]repr.Datum, p *repr.RowPacker, good []arrange.Update, u arrange.Update) ([]arrange.Update, error) {
	if cap(good)-len(good) < n {
		good = slices.Grow(good, n)
		// An expansion's pieces can be many rows: the new room for
		// their updates is mapped in at once, not a page fault at a
		// time.
		prefault.Slice(good[len(good):])
	}
rows:
	for i := range n {
		cur, next := row(i), 0
		for _, s := range steps {
			switch n := s.(type) {
			case expr.Map:
				b := append(bufs[next][:0], cur...)
				for _, sc := range n.Scalars {
					v, err := sc.Eval(b)
					if err != nil {
						return good, err
					}
					b = append(b, v)
				}
				bufs[next], cur, next = b, b, 1-next
			case expr.Filter:
				for _, pr := range n.Predicates {
					v, err := pr.Eval(cur)
					if err != nil {
						return good, err
					}
					if v.IsNull() || !v.Bool() {
						continue rows
					}
				}
			case expr.Project:
				b := bufs[next][:0]
				for _, c := range n.Outputs {
					b = append(b, cur[c])
				}
				bufs[next], cur, next = b, b, 1-next
			default:
				return good, sqlerr.AssertionFailedf("mfp: %T in a chain evaluated a row at a time", s)
			}
		}
		p.Reset()
		for _, d := range cur {
			p.Push(d)
		}
		good = append(good, arrange.Update{Key: p.Finish(), Time: u.Time, Diff: u.Diff})
	}
	// The buffers' datums may hold the last row's strings and numbers:
	// they are let go with the piece.
	clear(bufs[0][:cap(bufs[0])])
	clear(bufs[1][:cap(bufs[1])])
	return good, nil
}

// applySteps runs rows through the chain; rows may multiply (FlatMap) or
// vanish (Filter).
func applySteps(steps []expr.Relation, rows [][]repr.Datum) ([][]repr.Datum, error) {
	for _, s := range steps {
		next := make([][]repr.Datum, 0, len(rows))
		for _, row := range rows {
			switch n := s.(type) {
			case expr.Map:
				ds := make([]repr.Datum, len(row), len(row)+len(n.Scalars))
				copy(ds, row)
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
				next = slices.Grow(next, len(vals))
				for _, v := range vals {
					ds := make([]repr.Datum, len(row)+1)
					copy(ds, row)
					ds[len(row)] = v
					next = append(next, ds)
				}
			}
		}
		rows = next
	}
	return rows, nil
}
