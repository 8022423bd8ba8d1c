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
func (r *renderer) accumulate(n expr.Reduce, plan accumulation) (Collection, error) {
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	types := reprTypes(n.Input.Typ())
	contributions, keyErrs := r.contributions(in, types, n.GroupKey, plan.accs)
	return Collection{
		Rows: r.accumulateGroups(contributions, plan),
		Errs: dataflow.Concat(in.Errs, keyErrs, "accumulate key errors"),
	}, nil
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

// contributionsPiece is how many rows the contributions operator takes
// between checks of its run's time.
var contributionsPiece = 4096

// accIndexLen is the length of an accumulator index, the val of a
// contribution.
const accIndexLen = 2

// contributions turns each row of c into its contribution to every
// accumulator of its group: the update (packed group key, accumulator
// index as accIndexLen bytes big-endian) with the weight in the diff. A
// row whose key fails to evaluate becomes an error update, as in
// arrangeBy.
func (r *renderer) contributions(c Collection, types []repr.Type, keys []expr.Scalar, accs []accumulator) (dataflow.Stream[arrange.Update], dataflow.Stream[arrange.Update]) {
	// The vals are shared by every update: nothing downstream modifies a
	// val it receives.
	indexes := make([][]byte, len(accs))
	for i := range accs {
		indexes[i] = binary.BigEndian.AppendUint16(nil, uint16(i))
	}
	ob := r.b.NewOperator("accumulate contributions")
	// It reads the frontier only while it holds sums (see below).
	ob.SetNotify(false)
	in := dataflow.NewInput(ob, c.Rows, dataflow.Pipeline[arrange.Update]())
	out, contribs := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		var scratch []repr.Datum
		var raw [][]byte
		var p repr.RowPacker
		vals := limbVals{}
		sums := newPartials(len(accs))
		// Only the key columns and the aggregated ones are decoded;
		// keys that are columns are cut from the row's bytes, and so
		// are the numeric columns summed (rawNum), whose limbs are read
		// from their encoding (with their non-NULL counts).
		rawNum := map[int]bool{}
		for _, a := range accs {
			if a.kind == accDecimal && types[a.col].Kind() == repr.KindNumeric {
				rawNum[a.col] = true
			}
		}
		var accCols []int
		rawEnd := 0
		for _, a := range accs {
			switch {
			case a.kind == accRows:
			case rawNum[a.col]:
				rawEnd = max(rawEnd, a.col+1)
			default:
				accCols = append(accCols, a.col)
			}
		}
		keyCols, rawKeys := columnRefs(keys)
		rawKeys = rawKeys && len(keys) > 0
		keyEnd := 0
		for _, c := range keyCols {
			keyEnd = max(keyEnd, c+1)
		}
		reader := newColumnReader(types, keys, accCols...)
		if rawKeys {
			reader = newColumnReader(types, nil, accCols...)
		}
		// A message is taken a piece at a time: the run ends once it has
		// held the worker for the cluster's slice, and the rest of the
		// message waits, with capabilities at its time, for the next.
		var (
			t    uint64
			rest []arrange.Update
			held []*dataflow.Capability
		)
		// The sums of a time are sent once the input's frontier has
		// passed it, or sooner when too many groups are held. sumCap is
		// a capability at or before every time the sums hold (a row's
		// time is at or after its message's), and while there is one the
		// operator listens to the frontier.
		var sumCap *dataflow.Capability
		send := func(upper uint64) {
			if n := sums.updatesBefore(upper); n > 0 {
				out.GiveSlice(sumCap.Time(), sums.emitBefore(make([]arrange.Update, 0, n), upper, indexes, vals, accs))
			}
			sums.forget(upper)
			if t, ok := sums.least(); ok {
				sumCap.Downgrade(t)
				return
			}
			sumCap = letGo(op, sumCap)
		}
		return dataflow.ScheduleFunc(func() {
			for {
				if len(rest) == 0 {
					releaseAll(held)
					held = nil
					var ok bool
					if t, rest, ok = in.Next(); !ok {
						// The scratch views the last row (see
						// filterProject.forget).
						clear(raw)
						clear(scratch)
						if sumCap != nil {
							send(in.Frontier().Time())
						}
						return
					}
					continue
				}
				piece := rest[:min(len(rest), contributionsPiece)]
				rest = rest[len(piece):]
				sumCap = holdAt(op, sumCap, t)
				var bad []arrange.Update
			rows:
				for i, u := range piece {
					if i > 0 && i%rowsBetweenChecks == 0 && op.OutOfTime() {
						// Costly keys: the rest of the piece waits.
						rest = untake(piece, i, rest)
						break
					}
					scratch = reader.decode(u.Key, scratch)
					var key []byte
					if rawKeys {
						// The row's updates share one view of its key.
						key, raw = rawKey(u.Key, keyCols, max(keyEnd, rawEnd), raw, &p)
					} else {
						if rawEnd > 0 {
							raw = rawColumns(u.Key, rawEnd, raw)
						}
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
					g := sums.group(key, u.Time)
					for i, a := range accs {
						if a.kind != accRows && rawNum[a.col] {
							addRawNumeric(sums, g, i, a.kind, raw[a.col], u.Diff)
							continue
						}
						if a.kind == accDecimal {
							if v := scratch[a.col]; !v.IsNull() {
								eachLimb(v, func(pos int16, w int64) { sums.addLimb(g, i, pos, u.Diff*w) })
							}
							continue
						}
						w := int64(1)
						if a.kind != accRows {
							v := scratch[a.col]
							switch {
							case v.IsNull():
								w = 0
							case a.kind == accSum:
								w = v.Int()
							}
						}
						sums.add(g, i, u.Diff*w)
					}
				}
				if sums.len() > maxPartialGroups {
					send(uint64(dataflow.Done))
				}
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
