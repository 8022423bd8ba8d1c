package compute

import (
	"encoding/binary"
	"slices"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// An accumulator is one int64 a group keeps for an accumulable reduction:
// the group's rows, one column's non-NULL values, or their sum.
type accumulator struct {
	kind accumulatorKind
	// col is the input column counted or summed; 0 for accRows.
	col int
}

type accumulatorKind uint8

const (
	accRows accumulatorKind = iota
	accNonNull
	accSum
	// accDecimal sums an int8 or numeric column exactly: a value splits
	// into base-10^9 limbs, each limb a contribution of its own (val:
	// the accumulator's index and the limb's position), so that the
	// weights stay int64 whatever the value's size; NaN and the
	// infinities count at positions of their own.
	accDecimal
)

// accumulation is how an accumulable Reduce keeps its aggregates: the
// accumulators every group maintains, and which of them make each
// aggregate.
//
// Invariant: accs[0] is the row counter, which decides whether a group
// exists; every index in outputs is below len(accs).
type accumulation struct {
	accs []accumulator
	// outputs has one entry per aggregate: the accumulator that is its
	// value and, for a sum, the non-NULL counter that says whether it is
	// NULL (-1 for a count, which is never NULL).
	outputs []accOutput
}

type accOutput struct {
	value, nonNull int
}

// accumulationOf returns how n can be maintained as sums, and reports
// whether it can: every aggregate is non-DISTINCT and one of count of a
// non-NULL literal (count(*)), count of a column, or sum of an int2,
// int4, int8 or numeric column. A sum of int2 or int4 is an int8 that an
// int64 cannot overflow in practice; a sum of int8 or numeric is exact
// (accDecimal). Float sums and min/max stay on the generic Reduce, and so
// do aggregates of expressions, whose evaluation could fail for a row
// while the generic path fails the group.
func accumulationOf(n expr.Reduce) (accumulation, bool) {
	acc := accumulation{accs: []accumulator{{kind: accRows}}}
	index := func(a accumulator) int {
		for i, b := range acc.accs {
			if a == b {
				return i
			}
		}
		acc.accs = append(acc.accs, a)
		return len(acc.accs) - 1
	}
	types := n.Input.Typ()
	for _, ag := range n.Aggregates {
		if ag.Distinct || ag.Filter != nil {
			return accumulation{}, false
		}
		switch e := ag.Expr.(type) {
		case expr.Literal:
			if ag.Func != expr.Count || e.Value.IsNull() {
				return accumulation{}, false
			}
			acc.outputs = append(acc.outputs, accOutput{value: 0, nonNull: -1})
		case expr.Column:
			switch ag.Func {
			case expr.Count:
				acc.outputs = append(acc.outputs, accOutput{value: index(accumulator{accNonNull, e.Index}), nonNull: -1})
			case expr.Sum:
				kind := accSum
				switch types[e.Index].Type.Kind() {
				case repr.KindInt2, repr.KindInt4:
				case repr.KindInt8, repr.KindNumeric:
					kind = accDecimal
				default:
					return accumulation{}, false
				}
				nonNull := index(accumulator{accNonNull, e.Index})
				acc.outputs = append(acc.outputs, accOutput{value: index(accumulator{kind, e.Index}), nonNull: nonNull})
			default:
				return accumulation{}, false
			}
		default:
			return accumulation{}, false
		}
	}
	if len(acc.accs) > 1<<(8*accIndexLen) {
		return accumulation{}, false
	}
	return acc, true
}

// accumulate renders an accumulable Reduce (accumulationOf) so that an
// input update costs O(accumulators), whatever the size of its group.
// Each input row becomes, per accumulator, an update (group key,
// accumulator index) whose diff is the row's diff times its contribution
// (1 for the row, 1 for a non-NULL value, the value for a sum); the
// contributions operator sums them per group and time before they leave
// it (partials). Sharded by the group key, they are added to the
// group's accumulators (accumulateGroups), which make its output row:
// none while the row counter is not positive, a count as an int8, a sum
// as an int8, a numeric, or NULL while no value is non-NULL.
//
// Like the generic path it has one exchange, by group key. The output
// rows are those of the generic path (reduce) for inputs that never hold
// a row a negative number of times.
//
// Over a chain of filters and projections of a Get that the source reads
// from an arrangement, as a table's rows are, the contributions are read
// from the arrangement's batches, through the chain, in one operator
// (contributionsOfImport): no update is made for a row on its way.
func (r *renderer) accumulate(n expr.Reduce, plan accumulation) (Collection, error) {
	types := reprTypes(n.Input.Typ())
	imp, fp, ok, err := r.importedChain(n.Input)
	if err != nil {
		return Collection{}, err
	}
	if ok {
		contributions, errs := r.contributionsOfImport(imp, fp, types, n.GroupKey, plan.accs)
		return Collection{
			Rows: r.accumulateGroups(contributions, plan),
			Errs: dataflow.Concat(imp.errs, errs, "accumulate key errors"),
		}, nil
	}
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	contributions, keyErrs := r.contributions(in, types, n.GroupKey, plan.accs)
	return Collection{
		Rows: r.accumulateGroups(contributions, plan),
		Errs: dataflow.Concat(in.Errs, keyErrs, "accumulate key errors"),
	}, nil
}

// importedChain returns, if rel is a chain of Filter and Project steps
// (none of them calling a function per row) over a Get that the source
// reads from an arrangement, the Get's arrangement and the chain as a
// filterProject over its rows; it reports false otherwise. When the
// arrangement is of whole rows (a table's, a materialized view's) and
// the chain's filters bound its leading columns as a peek's would, the
// arrangement comes with the runs of keys that hold every row the chain
// may keep (importedRows.seek).
func (r *renderer) importedChain(rel expr.Relation) (importedRows, *filterProject, bool, error) {
	src, ok := r.source.(arrangedSource)
	if !ok {
		return importedRows{}, nil, false, nil
	}
	steps, node := chainSteps(rel, false)
	get, ok := node.(expr.Get)
	if !ok {
		return importedRows{}, nil, false, nil
	}
	if expr.StepsCallPerRow(steps) {
		return importedRows{}, nil, false, nil
	}
	fp, ok := newFilterProject(steps, reprTypes(get.Types))
	if !ok {
		return importedRows{}, nil, false, nil
	}
	in, err := src.arranged(r.b, get.ID, len(get.Types))
	if err != nil {
		return importedRows{}, nil, false, err
	}
	if !in.keyed {
		in.seek = seekRanges(get, steps)
	}
	return in, fp, true, nil
}

// holdAt returns a capability for output 0 at or before t and at or
// before held's time, taking held's place (nil: none yet), which a
// message at t being consumed justifies. An operator that holds one
// listens to its inputs' frontiers until letGo.
func holdAt(op *dataflow.Operator, held *dataflow.Capability, t uint64) *dataflow.Capability {
	switch {
	case held == nil:
		op.SetNotify(true)
		return op.Retain(0, t)
	case t < held.Time():
		c := op.Retain(0, t)
		held.Release()
		return c
	}
	return held
}

// letGo releases held, a capability from holdAt, and stops the operator
// listening to its inputs' frontiers; it returns nil.
func letGo(op *dataflow.Operator, held *dataflow.Capability) *dataflow.Capability {
	held.Release()
	op.SetNotify(false)
	return nil
}

// addRawNumeric adds to accumulator i of group g, a non-NULL count or a
// decimal sum of a numeric column, the contribution of the column's
// encoding v in a row of diff d.
func addRawNumeric(sums *partials, g, i int, kind accumulatorKind, v []byte, d int64) {
	if repr.IsNullEncoding(v) {
		return
	}
	if kind == accNonNull {
		sums.add(g, i, d)
		return
	}
	scale := sums.scales[i]
	if scale == scaleOfFirst {
		if places, ok := repr.NumericPlaces(v); ok {
			// Past 18 places no count fits (repr.ScaledNumeric): limbs
			// only.
			if places > 18 {
				places = -1
			}
			sums.setScale(i, places)
			scale = places
		}
	}
	if scale >= 0 {
		if c, ok := repr.ScaledNumeric(v, scale); ok {
			if w, ok := mulDiff(c, d); ok {
				sums.addScaled(g, i, w)
				return
			}
		}
	}
	form, err := repr.EachNumericLimb(v, func(pos int, w int64) { sums.addLimb(g, i, int16(pos), d*w) })
	if err != nil {
		panic(sqlerr.AssertionFailedf("summing a numeric column: %v", err))
	}
	switch form {
	case repr.NumericNaN:
		sums.addLimb(g, i, limbNaN, d)
	case repr.NumericPosInf:
		sums.addLimb(g, i, limbPosInf, d)
	case repr.NumericNegInf:
		sums.addLimb(g, i, limbNegInf, d)
	}
}

// scaleOfFirst is the scale of a sum of an unconstrained numeric column
// until its first value, whose places set it (partials.setScale): a
// column's values most often have as many places as each other.
const scaleOfFirst = -2

// mulDiff returns c × d and reports whether it fits an int64; a row's
// diff is most often 1, which costs no division.
func mulDiff(c, d int64) (int64, bool) {
	if d == 1 {
		return c, true
	}
	return repr.MulInt64(c, d)
}

// contributionsPiece is how many rows the contributions operator takes
// between checks of its run's time.
var contributionsPiece = 4096

// accIndexLen is the length of an accumulator index, the val of a
// contribution.
const accIndexLen = 2

// contributor sums rows' contributions to the accumulators of their
// groups (partials) for the contributions operators: the update (packed
// group key, accumulator index as accIndexLen bytes big-endian) with the
// weight in the diff, summed per group and time until they are sent.
//
// It reads a row's columns as their encodings (rawColumns), up to the
// last one it needs: keys that are columns are cut from them, and so are
// the numeric columns summed (rawAcc), whose limbs are read from their
// encoding (with their non-NULL counts); only the columns other keys
// and accumulators read are decoded.
type contributor struct {
	accs  []accumulator
	types []repr.Type
	// indexes are the vals of the contributions, shared by every update:
	// nothing downstream modifies a val it receives.
	indexes [][]byte
	vals    limbVals
	sums    *partials
	// rawAcc[i] reports whether accumulator i sums a numeric column read
	// from its encoding.
	rawAcc []bool
	// decoded are the columns decoded into scratch; end is one past the
	// last column read.
	decoded []int
	end     int
	key     groupKeys

	scratch []repr.Datum
	raw     [][]byte
	p       repr.RowPacker
}

func newContributor(types []repr.Type, keys []expr.Scalar, accs []accumulator) *contributor {
	c := &contributor{accs: accs, types: types, vals: limbVals{}, sums: newPartials(len(accs)), rawAcc: make([]bool, len(accs))}
	c.indexes = make([][]byte, len(accs))
	for i := range accs {
		c.indexes[i] = binary.BigEndian.AppendUint16(nil, uint16(i))
	}
	// The numeric columns a decimal sum reads are read from their
	// encodings by every accumulator of them.
	rawCol := map[int]bool{}
	for i, a := range accs {
		if a.kind != accDecimal {
			continue
		}
		// A decimal sum keeps a count of its column's places where the
		// type gives them: an int8's are none, a numeric(p, s)'s s.
		switch t := types[a.col]; t.Kind() {
		case repr.KindNumeric:
			rawCol[a.col] = true
			c.sums.setScale(i, scaleOfFirst)
			if _, s, ok := t.NumericPrecision(); ok {
				// Counts of 10^-s below 10^18 (repr.ScaledNumeric): a
				// scale past that, or below 0, keeps limbs only.
				if s < 0 || s > 18 {
					s = -1
				}
				c.sums.setScale(i, s)
			}
		case repr.KindInt8:
			c.sums.setScale(i, 0)
		}
	}
	for i, a := range accs {
		c.rawAcc[i] = a.kind != accRows && rawCol[a.col]
	}
	var read []int
	for i, a := range accs {
		switch {
		case a.kind == accRows:
		case c.rawAcc[i]:
			c.end = max(c.end, a.col+1)
		default:
			read = append(read, a.col)
		}
	}
	c.key = newGroupKeys(keys)
	c.end = max(c.end, c.key.rawEnd())
	if c.key.evaluated() {
		for _, k := range keys {
			read = k.Columns(read)
		}
	}
	slices.Sort(read)
	c.decoded = slices.Compact(read)
	for _, col := range c.decoded {
		c.end = max(c.end, col+1)
	}
	return c
}

// add adds the contributions of row at time t with diff d, or returns
// the error its group key's evaluation raised.
func (c *contributor) add(row []byte, t uint64, d int64) error {
	c.raw = rawColumns(row, c.end, c.raw)
	return c.addRaw(c.raw, t, d)
}

// addRaw is add of the row whose columns' encodings raw holds, at least
// up to the last one the contributor reads.
func (c *contributor) addRaw(raw [][]byte, t uint64, d int64) error {
	if len(c.decoded) > 0 {
		if len(c.scratch) < len(c.types) {
			c.scratch = make([]repr.Datum, len(c.types))
		}
		for _, col := range c.decoded {
			it := repr.Row(raw[col]).Iter()
			v, err := it.Next(c.types[col])
			if err != nil {
				panic(sqlerr.AssertionFailedf("decoding column %d of a row of %v: %v", col, c.types, err))
			}
			c.scratch[col] = v
		}
	}
	key, _, err := c.key.make(raw, c.scratch, &c.p, nil)
	if err != nil {
		return err
	}
	sums := c.sums
	g := sums.group(key, t)
	for i, a := range c.accs {
		if c.rawAcc[i] {
			addRawNumeric(sums, g, i, a.kind, raw[a.col], d)
			continue
		}
		if a.kind == accDecimal {
			if v := c.scratch[a.col]; !v.IsNull() {
				if v.Kind() == repr.KindInt8 && sums.scales[i] == 0 {
					if w, ok := mulDiff(v.Int(), d); ok {
						sums.addScaled(g, i, w)
						continue
					}
				}
				eachLimb(v, func(pos int16, w int64) { sums.addLimb(g, i, pos, d*w) })
			}
			continue
		}
		w := int64(1)
		if a.kind != accRows {
			v := c.scratch[a.col]
			switch {
			case v.IsNull():
				w = 0
			case a.kind == accSum:
				w = v.Int()
			}
		}
		sums.add(g, i, d*w)
	}
	return nil
}

// forget drops the scratch's views of the last row (see
// filterProject.forget).
func (c *contributor) forget() {
	clear(c.raw)
	clear(c.scratch)
}

// sender sends a contributor's sums from the operator op, on out, under
// a capability (cap) at or before every time the sums hold: a row's time
// is at or after its message's. The sums of a time are sent once the
// input's frontier has passed it, or sooner when too many groups are
// held; while there is a capability the operator listens to the
// frontier.
type sender struct {
	c   *contributor
	op  *dataflow.Operator
	out *dataflow.Output[arrange.Update]
	cap *dataflow.Capability
}

// hold makes sure the sender holds a capability at or before t, the time
// of a message whose rows are about to be added.
func (s *sender) hold(t uint64) { s.cap = holdAt(s.op, s.cap, t) }

// send sends the sums of the times before upper.
func (s *sender) send(upper uint64) {
	sums := s.c.sums
	if n := sums.updatesBefore(upper); n > 0 {
		s.out.GiveSlice(s.cap.Time(), sums.emitBefore(make([]arrange.Update, 0, n), upper, s.c.indexes, s.c.vals, s.c.accs))
	}
	sums.forget(upper)
	if t, ok := sums.least(); ok {
		s.cap.Downgrade(t)
		return
	}
	s.cap = letGo(s.op, s.cap)
}

// sendFull sends every sum if the contributor holds too many groups.
func (s *sender) sendFull() {
	if s.c.sums.len() > maxPartialGroups {
		s.send(uint64(dataflow.Done))
	}
}

// sendPassed sends the sums the frontier has passed, at the end of the
// input's messages.
func (s *sender) sendPassed(frontier uint64) {
	if s.cap != nil {
		s.send(frontier)
	}
}

// contributions turns each row of c into its contribution to every
// accumulator of its group (contributor). A row whose key fails to
// evaluate becomes an error update, as in arrangeBy.
func (r *renderer) contributions(c Collection, types []repr.Type, keys []expr.Scalar, accs []accumulator) (dataflow.Stream[arrange.Update], dataflow.Stream[arrange.Update]) {
	ob := r.b.NewOperator("accumulate contributions")
	// It reads the frontier only while it holds sums (sender).
	ob.SetNotify(false)
	in := dataflow.NewInput(ob, c.Rows, dataflow.Pipeline[arrange.Update]())
	out, contribs := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		cb := newContributor(types, keys, accs)
		snd := &sender{c: cb, op: op, out: out}
		// A message is taken a piece at a time: the run ends once it has
		// held the worker for the cluster's slice, and the rest of the
		// message waits, with capabilities at its time, for the next.
		var (
			t    uint64
			rest []arrange.Update
			held []*dataflow.Capability
		)
		return dataflow.ScheduleFunc(func() {
			for {
				if len(rest) == 0 {
					releaseAll(held)
					held = nil
					var ok bool
					if t, rest, ok = in.Next(); !ok {
						cb.forget()
						snd.sendPassed(in.Frontier().Time())
						return
					}
					continue
				}
				piece := rest[:min(len(rest), contributionsPiece)]
				rest = rest[len(piece):]
				snd.hold(t)
				var bad []arrange.Update
				for i, u := range piece {
					if i > 0 && i%rowsBetweenChecks == 0 && op.OutOfTime() {
						// Costly keys: the rest of the piece waits.
						rest = untake(piece, i, rest)
						break
					}
					if err := cb.add(u.Key, u.Time, u.Diff); err != nil {
						bad = append(bad, errorUpdate(err, u.Time, u.Diff))
					}
				}
				snd.sendFull()
				errOut.GiveSlice(t, bad)
				// Out of time, the run ends between messages too: the
				// input's queue keeps the messages not yet taken.
				if op.OutOfTime() {
					switch {
					case len(rest) == 0:
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
	return contribs, errs
}

// overStored returns keys, accs and the chain fp's filters in terms of
// the columns of the rows as stored, and reports whether it can: every
// key is a column, and every predicate is NOT (column IS NULL). Then a
// row's columns are read once, as encodings: the chain's checks and the
// contributions both read them there, and no row of the projection is
// made.
func overStored(fp *filterProject, keys []expr.Scalar, accs []accumulator) (notNull []int, skeys []expr.Scalar, saccs []accumulator, ok bool) {
	for _, f := range fp.filters {
		for _, c := range f.notNull {
			if c < 0 {
				return nil, nil, nil, false
			}
			if f.layout != nil {
				c = f.layout[c]
			}
			notNull = append(notNull, c)
		}
	}
	cols, ok := columnRefs(keys)
	if !ok || len(cols) == 0 {
		return nil, nil, nil, false
	}
	for _, c := range cols {
		skeys = append(skeys, expr.Column{Index: fp.storedColumn(c)})
	}
	for _, a := range accs {
		if a.kind != accRows {
			a.col = fp.storedColumn(a.col)
		}
		saccs = append(saccs, a)
	}
	return notNull, skeys, saccs, true
}

// contributionsOfImport is contributions of the rows of in taken through
// fp: it reads the arrangement's batches a piece at a time, as flatten
// does, and adds each row that passes the chain to its group's sums
// without making an update of it. A row that the chain or its key fails
// to evaluate becomes an error update at each of its times.
//
// Where it can (overStored), it reads the stored row's columns up to the
// last it needs, once. Where the chain's filters bound the arrangement's
// leading columns (in.seek), it reads only the runs of keys that can
// pass them, seeking to each in every batch: `count(*) … WHERE id
// BETWEEN a AND b` over a table stored in id order reads the rows
// between, not the table.
func (r *renderer) contributionsOfImport(in importedRows, fp *filterProject, types []repr.Type, keys []expr.Scalar, accs []accumulator) (dataflow.Stream[arrange.Update], dataflow.Stream[arrange.Update]) {
	acct := r.b.Account()
	ob := r.b.NewOperator("accumulate contributions")
	// It reads the frontier only while it holds sums (sender).
	ob.SetNotify(false)
	input := dataflow.NewInput(ob, in.rows.Batches, dataflow.Pipeline[*arrange.Batch]())
	out, contribs := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	notNull, skeys, saccs, direct := overStored(fp, keys, accs)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		var cb *contributor
		need := 0
		if direct {
			// The chain reads the stored row: its types are the Get's.
			cb = newContributor(fp.reader.types, skeys, saccs)
			need = cb.end
			for _, c := range notNull {
				need = max(need, c+1)
			}
		} else {
			cb = newContributor(types, keys, accs)
		}
		snd := &sender{c: cb, op: op, out: out}
		var p repr.RowPacker
		// The message being read: its time, the batches not yet started,
		// and the cursor into the current one; held are capabilities at
		// t while the message outlives a run.
		var (
			t    uint64
			left []*arrange.Batch
			cur  *arrange.BatchCursor
			walk RangeWalk
			held []*dataflow.Capability
			// unread is the current batch's updates not yet read: a
			// seek's skipped ones count as read when it is done.
			unread int64
		)
		var (
			bad  []arrange.Update
			read int64
			// The row being read, or its columns (direct), and the
			// error it raised, given at each of its times by addTime.
			row []byte
			raw [][]byte
			err error
		)
		addTime := func(tm uint64, d int64) {
			read++
			if err == nil {
				if direct {
					err = cb.addRaw(raw, tm, d)
				} else {
					err = cb.add(row, tm, d)
				}
				if err == nil {
					return
				}
				// The key failed: this time and the rest are errors.
			}
			bad = append(bad, errorUpdate(err, tm, d))
		}
		skip := func(uint64, int64) { read++ }
		// passRaw is pass of a stored row, read directly.
		passRaw := func(stored []byte) bool {
			err = nil
			raw = rawColumns(stored, need, raw)
			for _, c := range notNull {
				if repr.IsNullEncoding(raw[c]) {
					return false
				}
			}
			return true
		}
		// pass reads the row at the cursor and reports whether it
		// passes the chain; err is set if the chain failed on it.
		pass := func(key, val []byte) bool {
			if direct {
				return passRaw(in.stored(key, val))
			}
			err = nil
			var ok bool
			row, ok, err = fp.apply(in.row(key, val), &p)
			return ok || err != nil
		}
		return dataflow.ScheduleFunc(func() {
			for {
				if cur == nil {
					if len(left) == 0 {
						releaseAll(held)
						held = nil
						var ok bool
						if t, left, ok = input.Next(); !ok {
							// The scratch views the last row read.
							cb.forget()
							fp.forget()
							clear(raw)
							row = nil
							snd.sendPassed(input.Frontier().Time())
							return
						}
						continue
					}
					cur, unread, left = left[0].Cursor(), int64(left[0].Len()), left[1:]
					walk = WalkRanges(cur, in.seek)
				}
				snd.hold(t)
				bad, read = nil, 0
				// A batch read whole (no seek) steps its cursor itself,
				// not through the walk's interface.
				whole := in.seek == nil
				for n := 0; (whole && cur.KeyValid() || !whole && walk.Valid()) && n < contributionsPiece; {
					if whole && direct && !in.keyed {
						// A flat batch (a table's rows, each once at one
						// time) in runs between checks of the time.
						if keys, ends, tm, d, ok := cur.FlatRun(min(rowsBetweenChecks, contributionsPiece-n)); ok {
							n += len(ends) - 1
							for i := range len(ends) - 1 {
								if passRaw(keys[ends[i]:ends[i+1]]) {
									addTime(tm, d)
								} else {
									skip(tm, d)
								}
							}
							if op.OutOfTime() {
								n = contributionsPiece
							}
							continue
						}
					}
					for ; cur.ValValid() && n < contributionsPiece; cur.StepVal() {
						n++
						if n%rowsBetweenChecks == 0 && op.OutOfTime() {
							// Costly rows: the rest waits.
							n = contributionsPiece
						}
						if pass(cur.Key(), cur.Val()) {
							cur.History(addTime)
						} else {
							cur.History(skip)
						}
					}
					if cur.ValValid() {
						break // the piece ended within the key: resume at its next val
					}
					if whole {
						cur.StepKey()
					} else {
						walk.Step()
					}
				}
				acct.AddRead(read)
				unread -= read
				if whole && !cur.KeyValid() || !whole && !walk.Valid() {
					// The walk holds the cursor, and the cursor its
					// batch: both let go.
					cur, walk = nil, RangeWalk{}
					acct.AddSkipped(unread)
				}
				snd.sendFull()
				errOut.GiveSlice(t, bad)
				if op.OutOfTime() {
					if (cur != nil || len(left) > 0) && held == nil {
						// The input's queue may reuse its slice.
						held, left = []*dataflow.Capability{op.Retain(0, t), op.Retain(1, t)}, slices.Clone(left)
					}
					op.Activate()
					return
				}
			}
		})
	})
	return contribs, errs
}
