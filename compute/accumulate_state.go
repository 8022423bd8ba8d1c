package compute

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unsafe"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/repr"
)

// accumulateGroups maintains an accumulable Reduce's groups from their
// contributions, sharded by group key: each worker keeps, for each group
// it owns, the accumulators' current values and the output row they
// make, and applies a time's contributions once its input's frontier has
// passed that time, in time order. A group whose contributions change at
// a time costs a lookup, the additions and, if its row changed, the
// retraction of the old row and the new one: never a read of the
// group's history, which an arrangement of the contributions and a
// Reduce over it would make at every change. The output is the Reduce's
// rows, the group key's columns then the aggregates', as updates: at a
// time, a changed group retracts its old row and adds its new one, so
// the updates need no arrangement to consolidate them.
//
// The rows are those of a Reduce over the contributions' arrangement: at
// each time, a group's row is made from the sums of its contributions
// at or before that time, none while its row counter is not positive.
func (r *renderer) accumulateGroups(contribs dataflow.Stream[arrange.Update], plan accumulation) dataflow.Stream[arrange.Update] {
	ob := r.b.NewOperator("accumulate")
	// It reads the frontier only while it holds contributions.
	ob.SetNotify(false)
	in := dataflow.NewInput(ob, contribs, dataflow.Exchange(arrange.UpdateHash))
	out, rows := dataflow.NewOutput[arrange.Update](ob)
	account := r.b.Account()
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		caps[0].Release()
		gs := newAccGroups(plan)
		// pending holds the contributions whose time the frontier has not
		// passed; ready those it has, sorted by time, not yet applied;
		// cap is a capability at or before the least time of either.
		var (
			pending, ready []arrange.Update
			cap            *dataflow.Capability
			charged        int64
			// spare is the whole of the slice ready was cut from: once
			// it is applied, the next contributions are gathered in it
			// rather than in a slice new to the heap.
			spare []arrange.Update
		)
		return dataflow.ScheduleFunc(func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					break
				}
				if len(data) == 0 {
					continue
				}
				cap = holdAt(op, cap, t)
				// The queue may reuse its slice; the keys and vals are
				// immutable.
				pending = append(pending, data...)
			}
			if cap == nil {
				return
			}
			// A piece at a time, so that a large time (a hydration of
			// many groups) leaves the worker to others between pieces.
			// A group changed in two pieces of one time retracts the
			// row the first made, at that time: the updates still sum
			// to the change.
			upper := in.Frontier().Time()
			for {
				if len(ready) == 0 {
					if ready, pending = splitBefore(pending, upper); len(ready) == 0 {
						break
					}
					spare = ready
				}
				n := min(len(ready), accumulatePiece)
				out.GiveSlice(cap.Time(), gs.apply(ready[:n], nil))
				ready = ready[n:]
				if len(ready) > 0 && op.OutOfTime() {
					op.Activate()
					break
				}
			}
			if size := gs.size(); size != charged {
				account.Add(size - charged)
				charged = size
			}
			if len(pending) == 0 && len(ready) == 0 {
				cap = letGo(op, cap)
				// The keys and vals of what was applied go.
				clear(spare)
				pending, ready, spare = spare[:0], nil, nil
				return
			}
			least := uint64(dataflow.Done)
			for _, u := range pending {
				least = min(least, u.Time)
			}
			if len(ready) > 0 {
				least = min(least, ready[0].Time)
			}
			cap.Downgrade(least)
		})
	})
	return rows
}

// accumulatePiece is how many contributions accumulateGroups applies
// between checks of its run's time.
var accumulatePiece = 4096

// splitBefore returns the updates of us at times before upper, sorted by
// time (stably), and the others, in a slice of their own.
func splitBefore(us []arrange.Update, upper uint64) (ready, rest []arrange.Update) {
	n := 0
	for _, u := range us {
		if u.Time < upper {
			n++
		}
	}
	switch n {
	case 0:
		return nil, us
	case len(us):
		ready = us
	default:
		ready = make([]arrange.Update, 0, n)
		for _, u := range us {
			if u.Time < upper {
				ready = append(ready, u)
			} else {
				rest = append(rest, u)
			}
		}
	}
	byTime := func(x, y arrange.Update) int {
		switch {
		case x.Time < y.Time:
			return -1
		case x.Time > y.Time:
			return 1
		}
		return 0
	}
	// Most often every update is at one time, a statement's.
	if !slices.IsSortedFunc(ready, byTime) {
		slices.SortStableFunc(ready, byTime)
	}
	return ready, rest
}

// accGroups is one worker's groups of an accumulation.
type accGroups struct {
	plan accumulation
	accs int
	// index maps a group key to its group; free holds the groups whose
	// accumulators all went back to zero, for reuse.
	index map[string]int32
	free  []int32
	// keys[g] is group g's key; values[g*accs+i] accumulator i's value
	// (every kind but accDecimal) and limbs[g*accs+i] its non-zero limbs
	// (accDecimal); rows[g] the group's current output row, nil if it
	// has none. Rows are never written over: a changed row is a new one,
	// since updates sent hold the old.
	keys   [][]byte
	values []int64
	limbs  [][]limb
	rows   [][]byte
	// touched lists the groups changed at the time being applied, and
	// mark[g] reports whether g is in it.
	touched []int32
	mark    []bool
	// bytes is the size of the keys and rows held, and limbCap the
	// limbs' capacity, kept as they change: size reads them every run,
	// which must not cost a pass over every group.
	bytes   int64
	limbCap int64
	p       repr.RowPacker
}

func newAccGroups(plan accumulation) *accGroups {
	return &accGroups{plan: plan, accs: len(plan.accs), index: map[string]int32{}}
}

// size returns about how many heap bytes the groups hold.
func (gs *accGroups) size() int64 {
	const perGroup = 96 // the index's entry, the slices' headers
	return int64(len(gs.keys))*perGroup + int64(cap(gs.values))*8 + gs.limbCap*16 + gs.bytes
}

// group returns key's group, starting one if there is none.
func (gs *accGroups) group(key []byte) int32 {
	if g, ok := gs.index[string(key)]; ok {
		return g
	}
	k := slices.Clone(key)
	// The index's string shares the key's bytes, which never change.
	ks := ""
	if len(k) > 0 {
		ks = unsafe.String(&k[0], len(k))
	}
	var g int32
	if n := len(gs.free); n > 0 {
		g = gs.free[n-1]
		gs.free = gs.free[:n-1]
		gs.keys[g] = k
	} else {
		g = int32(len(gs.keys))
		gs.keys = append(gs.keys, k)
		gs.rows = append(gs.rows, nil)
		gs.mark = append(gs.mark, false)
		for range gs.accs {
			gs.values = append(gs.values, 0)
			gs.limbs = append(gs.limbs, nil)
		}
	}
	gs.index[ks] = g
	gs.bytes += int64(len(k))
	return g
}

// apply applies the contributions us, sorted by time, one time after
// another, and appends to res the changes of the groups' rows.
func (gs *accGroups) apply(us []arrange.Update, res []arrange.Update) []arrange.Update {
	for i := 0; i < len(us); {
		t := us[i].Time
		for ; i < len(us) && us[i].Time == t; i++ {
			u := &us[i]
			g := gs.group(u.Key)
			if !gs.mark[g] {
				gs.mark[g] = true
				gs.touched = append(gs.touched, g)
			}
			at := int(g)*gs.accs + int(binary.BigEndian.Uint16(u.Val))
			if len(u.Val) == accIndexLen {
				gs.values[at] += u.Diff
				continue
			}
			before := cap(gs.limbs[at])
			gs.limbs[at] = addLimb(gs.limbs[at], int16(binary.BigEndian.Uint16(u.Val[accIndexLen:])), u.Diff)
			gs.limbCap += int64(cap(gs.limbs[at]) - before)
		}
		for _, g := range gs.touched {
			gs.mark[g] = false
			res = gs.update(g, t, res)
		}
		gs.touched = gs.touched[:0]
	}
	return res
}

// addLimb adds w to the limb at pos in ls, keeping only non-zero limbs.
func addLimb(ls []limb, pos int16, w int64) []limb {
	for j := range ls {
		if ls[j].pos == pos {
			ls[j].sum += w
			if ls[j].sum == 0 {
				ls = append(ls[:j], ls[j+1:]...)
			}
			return ls
		}
	}
	if w == 0 {
		return ls
	}
	return append(ls, limb{pos: pos, sum: w})
}

// update makes group g's row from its accumulators, appends the change
// from its last row at t to res, and lets the group go once every
// accumulator is back to zero.
func (gs *accGroups) update(g int32, t uint64, res []arrange.Update) []arrange.Update {
	base := int(g) * gs.accs
	values, limbs := gs.values[base:base+gs.accs], gs.limbs[base:base+gs.accs]
	var row []byte
	if values[0] > 0 {
		gs.p.Reset()
		for _, o := range gs.plan.outputs {
			switch {
			case o.nonNull >= 0 && values[o.nonNull] == 0:
				gs.p.PushNull()
			case gs.plan.accs[o.value].kind == accDecimal:
				gs.p.Push(repr.NewNumeric(limbTotal(limbs[o.value])))
			default:
				gs.p.Push(repr.NewInt8(values[o.value]))
			}
		}
		aggs := gs.p.Bytes()
		row = append(append(make([]byte, 0, len(gs.keys[g])+len(aggs)), gs.keys[g]...), aggs...)
	}
	old, key := gs.rows[g], gs.keys[g]
	// A row may be empty (no group key, no aggregates): nil is no row.
	if (old == nil) != (row == nil) || !bytes.Equal(old, row) {
		if old != nil {
			res = append(res, arrange.Update{Key: old, Time: t, Diff: -1})
		}
		if row != nil {
			res = append(res, arrange.Update{Key: row, Time: t, Diff: 1})
		}
		gs.bytes += int64(len(row) - len(old))
		gs.rows[g] = row
	}
	for i := range values {
		// Limbs summed by different routes (a row's own, or a count of
		// many rows' places, partials.addScaled) may cancel in value but
		// not position by position: a sum of no rows is zero.
		if values[i] != 0 || len(limbs[i]) > 0 && !limbTotal(limbs[i]).IsZero() {
			return res
		}
	}
	// Every accumulator is zero: the group has no row and holds nothing.
	delete(gs.index, string(key))
	gs.bytes -= int64(len(key))
	gs.keys[g] = nil
	for i := range limbs {
		gs.limbCap -= int64(cap(limbs[i]))
		limbs[i] = nil
	}
	gs.free = append(gs.free, g)
	return res
}
