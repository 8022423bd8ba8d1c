package arrange

import (
	"bytes"
	"cmp"
	"slices"

	"freshet/dataflow"
)

// ValCount is one val of a group with its count: an input of a reduction
// (the val's accumulated count, never zero) or an output (the number of
// copies of the val the group should hold).
type ValCount struct {
	Val   []byte
	Count int64
}

// Reduce maintains, for every key of a, the group f(key, input) as an
// arrangement with the same keys: input is the key's vals with nonzero
// accumulated counts, sorted by val, and the result is the vals (and
// counts) the output holds for the key. f must depend only on its
// arguments. The input slice and its vals are valid only during the call
// and must not be modified; the returned slice passes to Reduce, which
// may reorder it, and needs no order, and may repeat vals (their counts
// add up). A key whose input is empty is not asked: its output is empty.
//
// The output is kept with retractions: at each time t in a window [fOld,
// fNew) at which a key's input changed, Reduce recomputes f on the input
// accumulated at t, compares it with the output accumulated at t (the
// output trace, which holds every time below fOld, plus what the window
// already emitted), and emits the difference at t. Each window's output
// is sealed into a batch [fOld, fNew), inserted into the output trace and
// sent on the result's Batches. Keys stay on their worker.
//
// The work per window is, for each key with an update in it, the key's
// input and output histories times the number of distinct times: the
// changed keys' groups, never the whole collection.
func Reduce(a *Arranged, name string, f func(key []byte, input []ValCount) []ValCount) *Arranged {
	b := a.Batches.Builder()
	inLease := newLease(b, a.Trace, b.Start(), name)
	return windowOperator(a, name, func(in *dataflow.Input[*Batch], o *arrangedOutput, pending *Batcher) dataflow.Logic {
		return &reduceLogic{fuel: reduceFuel, f: f, in: in, lease: inLease, o: o, pending: pending}
	})
}

// Leads maintains, for every key of a, the group f(key, leads), where
// every val of a begins with a segment byte below segments and leads[s]
// is segment s's lead: its first val in byte order whose accumulated
// count is positive, with that count, or the zero ValCount if it has
// none. f is asked only for a key with some lead; its contract is
// Reduce's, and leads and its vals are valid only during the call.
//
// It is Reduce for reductions that a group's first vals decide: a
// minimum whose vals encode the value so that byte order is the
// value's order, a maximum whose vals encode it reversed, a count whose
// segment has one val. Where Reduce reads a changed key's whole
// history, Leads seeks in the input trace to each segment's first val
// and steps past the vals whose count is not positive at the time. A
// change costs, per time and segment, a seek in each of the trace's
// batches and the vals it steps past, not the group's size.
func Leads(a *Arranged, name string, segments int, f func(key []byte, leads []ValCount) []ValCount) *Arranged {
	if segments < 1 || segments > 256 {
		panic(assertionFailedf("Leads: %d segments", segments))
	}
	b := a.Batches.Builder()
	inLease := newLease(b, a.Trace, b.Start(), name)
	return windowOperator(a, name, func(in *dataflow.Input[*Batch], o *arrangedOutput, pending *Batcher) dataflow.Logic {
		return &reduceLogic{fuel: reduceFuel, lf: f, segments: segments, in: in, lease: inLease, o: o, pending: pending}
	})
}

// FirstN maintains, for every key of a, the group f(key, firsts), where
// firsts is the key's first vals in byte order whose accumulated counts
// are positive, each with its count, as few as make up n copies (all of
// them if there are fewer). f is asked only for a key with such a val;
// its contract is Reduce's.
//
// It is Reduce for reductions that a group's first copies decide, as a
// LIMIT does of rows whose vals encode the ORDER BY before the row: at
// each time a key changed it steps from the key's first val past those
// not live then, until it has n copies. A change costs the n copies and
// the retracted vals among them, not the group's size.
func FirstN(a *Arranged, name string, n int64, f func(key []byte, firsts []ValCount) []ValCount) *Arranged {
	if n < 1 {
		panic(assertionFailedf("FirstN: %d copies", n))
	}
	b := a.Batches.Builder()
	inLease := newLease(b, a.Trace, b.Start(), name)
	return windowOperator(a, name, func(in *dataflow.Input[*Batch], o *arrangedOutput, pending *Batcher) dataflow.Logic {
		return &reduceLogic{fuel: reduceFuel, f: f, firstN: n, in: in, lease: inLease, o: o, pending: pending}
	})
}

// windowOperator adds an operator that reads a's batches, window by
// window, and maintains an arranged output with the same keys (keys stay
// on their worker). logic makes the operator's Logic from its input, its
// output, and a batcher for staging marks from the dataflow's start.
func windowOperator(a *Arranged, name string, logic func(in *dataflow.Input[*Batch], o *arrangedOutput, pending *Batcher) dataflow.Logic) *Arranged {
	b := a.Batches.Builder()
	ob := b.NewOperator(name)
	in := dataflow.NewInput(ob, a.Batches, dataflow.Pipeline[*Batch]())
	o := newArrangedOutput(b, ob, name)
	l := logic(in, o, newAccountedBatcher(b, b.Start()))
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		o.bind(op, caps[0])
		return l
	})
	return o.arr
}

// reduceFuel is the work one Schedule call of a Reduce may do, counted in
// history entries read and vals handed to the reduction, whole keys at a
// time. Like joinFuel it keeps a worker step to tens of milliseconds
// while a big window (hydration) is worked through; tests set it small.
var reduceFuel = 100_000

type reduceLogic struct {
	// fuel is reduceFuel when the operator was built.
	fuel int
	// win is at the next key of the window being worked through, ending
	// at winF; nil between windows. Invariant: while win is live the
	// capability and both leases stay where the window found them, and
	// nothing is inserted into the output trace, so every key of the
	// window reads the same histories whichever call it falls in.
	win  *BatchCursor
	winF dataflow.Frontier

	f func(key []byte, input []ValCount) []ValCount
	// lf, if set, makes the operator a Leads of segments segments, and f
	// is unused. firstN, if positive, makes it a FirstN that hands f
	// the first vals that make up firstN copies.
	lf       func(key []byte, leads []ValCount) []ValCount
	segments int
	firstN   int64

	in    *dataflow.Input[*Batch]
	lease *lease
	o     *arrangedOutput
	// pending stages a mark (key, time) for each update not yet in a
	// window.
	pending *Batcher

	// Scratch, reused from key to key.
	hin, hout history
	counts    []int64
	changes   []valChange
	input     []ValCount
	leads     []ValCount
	cur, next []ValCount
	arena     []byte
}

// Schedule works through windows, whole keys at a time, until it has
// spent its fuel; a window left part done asks to be run again, its
// corrections so far staged in the output's batcher.
func (l *reduceLogic) Schedule() {
	stageMarks(l.in, l.pending)
	o := l.o
	o.applyCompaction()
	fuel := l.fuel
	for o.cap != nil {
		if l.win == nil {
			f := l.in.Frontier()
			if uint64(f) <= o.fOld {
				return
			}
			l.win, l.winF = l.pending.Seal(uint64(f)).Cursor(), f
		}
		fNew := uint64(l.winF)
		var ic, oc *CursorList
		for c, n := l.win, 0; c.KeyValid(); c.StepKey() {
			// The run also ends once it has held the worker for the
			// cluster's slice, checked every 64 keys.
			if n++; fuel <= 0 || n%64 == 0 && o.arr.op.OutOfTime() {
				o.arr.op.Activate()
				return
			}
			if ic == nil {
				ic, oc = l.lease.cursor(), o.lease.cursor()
			}
			if l.lf != nil || l.firstN > 0 {
				fuel -= l.leadKey(c, ic, oc)
			} else {
				fuel -= l.reduceKey(c.Key(), ic, oc, fNew)
			}
		}
		f := l.winF
		l.win = nil
		if f.IsDone() {
			l.lease.close()
		} else {
			l.lease.setSince(max(o.start, fNew-1))
		}
		o.advance(f)
	}
}

func (l *reduceLogic) Shutdown(dataflow.Reason) {}

// reduceKey emits the corrections of key's output in [fOld, fNew). It
// returns the work done, in fuel units.
func (l *reduceLogic) reduceKey(key []byte, ic, oc *CursorList, fNew uint64) (work int) {
	fOld := l.o.fOld
	l.hin.load(ic, key, fNew)
	l.counts, l.changes = l.hin.split(fOld, l.counts, l.changes)
	work = 1 + len(l.hin.upds)
	if len(l.changes) == 0 {
		return work
	}
	work += l.loadOutput(oc, key)
	for i := 0; i < len(l.changes); {
		t := l.changes[i].time
		for ; i < len(l.changes) && l.changes[i].time == t; i++ {
			l.counts[l.changes[i].val] += l.changes[i].diff
		}
		l.input = l.input[:0]
		for j, v := range l.hin.vals {
			if l.counts[j] != 0 {
				l.input = append(l.input, ValCount{Val: v.val, Count: l.counts[j]})
			}
		}
		work += len(l.input)
		var want []ValCount
		if len(l.input) > 0 {
			want = consolidateValCounts(l.f(key, l.input))
		}
		l.emitDiff(key, t, want)
	}
	return work
}

// loadOutput makes cur key's output accumulated below fOld, which is
// what the output trace holds, and empties the arena. It returns the
// work done.
func (l *reduceLogic) loadOutput(oc *CursorList, key []byte) int {
	l.hout.load(oc, key, Done)
	l.cur = l.cur[:0]
	for _, v := range l.hout.vals {
		var c int64
		for _, u := range l.hout.upds[v.lo:v.hi] {
			c += u.diff
		}
		if c != 0 {
			l.cur = append(l.cur, ValCount{Val: v.val, Count: c})
		}
	}
	l.arena = l.arena[:0]
	return len(l.hout.upds)
}

// leadKey emits the corrections of the key at c, the window's cursor,
// for a Leads or a FirstN: at each time the window marks for the key it
// finds each segment's lead in the input trace and asks lf, or a
// FirstN's first vals (firstsAt). It returns the work
// done, in fuel units: a unit per segment and time, and per val looked
// at.
func (l *reduceLogic) leadKey(c *BatchCursor, ic, oc *CursorList) (work int) {
	key := c.Key()
	// Marks have the one empty val; its times are the key's changes.
	times, _ := c.Updates()
	ic.SeekKey(key)
	found := ic.KeyValid() && bytes.Equal(ic.Key(), key)
	work = 1 + l.loadOutput(oc, key)
	fOld := l.o.fOld
	if cap(l.leads) < l.segments {
		l.leads = make([]ValCount, l.segments)
	}
	leads := l.leads[:l.segments]
	var seg [1]byte
	for i, t := range times {
		// Marks are at or after the window's start; a repeat would ask
		// for the same leads again.
		t = max(t, fOld)
		if i > 0 && t == max(times[i-1], fOld) {
			continue
		}
		if l.firstN > 0 {
			work += l.firstsAt(key, ic, found, t)
			continue
		}
		clear(leads)
		some := false
		work += l.segments
		if found {
			ic.RewindVals()
			for s := range l.segments {
				seg[0] = byte(s)
				ic.SeekVal(seg[:])
				for ; ic.ValValid(); ic.StepVal() {
					v := ic.Val()
					if len(v) == 0 || v[0] != byte(s) {
						break
					}
					work++
					// t is at or after fOld, and the lease's since is at
					// most fOld.
					if n := ic.Count(t); n > 0 {
						leads[s] = ValCount{Val: v, Count: n}
						some = true
						break
					}
				}
			}
		}
		var want []ValCount
		if some {
			want = consolidateValCounts(l.lf(key, leads))
		}
		l.emitDiff(key, t, want)
	}
	// The leads view the trace's batches, which a merge may retire.
	clear(leads)
	clear(l.input)
	return work
}

// firstsAt emits the corrections of key's output at t for a FirstN: f
// of the key's first vals live at t, as many as make up firstN copies.
// found says whether ic is at key. It returns the vals looked at.
func (l *reduceLogic) firstsAt(key []byte, ic *CursorList, found bool, t uint64) (work int) {
	l.input = l.input[:0]
	if found {
		ic.RewindVals()
		copies := int64(0)
		for ; ic.ValValid() && copies < l.firstN; ic.StepVal() {
			work++
			if n := ic.Count(t); n > 0 {
				l.input = append(l.input, ValCount{Val: ic.Val(), Count: n})
				copies += n
			}
		}
	}
	var want []ValCount
	if len(l.input) > 0 {
		want = consolidateValCounts(l.f(key, l.input))
	}
	l.emitDiff(key, t, want)
	return 1 + work
}

// emitDiff emits want − cur for key at t and makes want the current
// output, copying its vals, which f may reuse.
func (l *reduceLogic) emitDiff(key []byte, t uint64, want []ValCount) {
	o := l.o
	cur := l.cur
	i, j := 0, 0
	for i < len(cur) || j < len(want) {
		var c int
		switch {
		case i == len(cur):
			c = 1
		case j == len(want):
			c = -1
		default:
			c = bytes.Compare(cur[i].Val, want[j].Val)
		}
		switch {
		case c < 0:
			o.batcher.Push(key, cur[i].Val, t, -cur[i].Count)
			i++
		case c > 0:
			o.batcher.Push(key, want[j].Val, t, want[j].Count)
			j++
		default:
			if d := want[j].Count - cur[i].Count; d != 0 {
				o.batcher.Push(key, want[j].Val, t, d)
			}
			i++
			j++
		}
	}
	// want's vals may be f's own buffers: keep copies. The arena only
	// grows within a key, so earlier copies stay valid.
	l.next = l.next[:0]
	for _, w := range want {
		off := len(l.arena)
		l.arena = append(l.arena, w.Val...)
		l.next = append(l.next, ValCount{Val: l.arena[off:len(l.arena):len(l.arena)], Count: w.Count})
	}
	l.cur, l.next = l.next, l.cur
}

// consolidateValCounts sorts vcs by val in place, sums repeated vals and
// drops zero counts.
func consolidateValCounts(vcs []ValCount) []ValCount {
	slices.SortStableFunc(vcs, func(x, y ValCount) int { return bytes.Compare(x.Val, y.Val) })
	out := vcs[:0]
	for _, vc := range vcs {
		if n := len(out); n > 0 && bytes.Equal(out[n-1].Val, vc.Val) {
			out[n-1].Count += vc.Count
			if out[n-1].Count == 0 {
				out = out[:n-1]
			}
			continue
		}
		if vc.Count != 0 {
			out = append(out, vc)
		}
	}
	return out
}

// arrangedOutput is an arrangement that an operator writes itself, with
// keys that stay on their worker: the output of Reduce and the
// aggregates. The operator stages updates in batcher during a window;
// advance seals them into the window's batch, inserts it into the trace
// and sends it on.
type arrangedOutput struct {
	arr   *Arranged
	start uint64
	out   *dataflow.Output[*Batch]
	// cap is at fOld; nil once the input is done.
	cap *dataflow.Capability
	// fOld is the output trace's upper as far as the operator's windows
	// go: every correction below it is in the trace.
	// Invariant: fOld == cap.Time() while cap is live.
	fOld    uint64
	batcher *Batcher
	// lease is the operator's own read lease on the output trace.
	lease *lease
}

// newArrangedOutput adds the output of the operator ob is building.
func newArrangedOutput(b *dataflow.Builder, ob *dataflow.OperatorBuilder, name string) *arrangedOutput {
	out, batches := dataflow.NewOutput[*Batch](ob)
	tr := newAccountedTrace(b)
	start := b.Start()
	return &arrangedOutput{
		arr:     &Arranged{Batches: batches, Trace: tr},
		start:   start,
		out:     out,
		fOld:    start,
		batcher: newAccountedBatcher(b, 0),
		lease:   newLease(b, tr, start, name),
	}
}

// bind completes the output once the operator exists. Recording the
// operator makes the arrangement exportable, as one made by Arrange.
func (o *arrangedOutput) bind(op *dataflow.Operator, cap *dataflow.Capability) {
	o.arr.op = op
	o.cap = cap
}

// applyCompaction applies the compaction an exporter's owner allowed.
func (o *arrangedOutput) applyCompaction() {
	if o.arr.shard != nil {
		o.arr.shard.applyCompaction()
	}
}

// advance ends the window at f: it seals the staged corrections below f
// into a batch, inserts it into the trace, sends it (if not empty) and
// hands it to importers, then moves the capability and the lease to f.
func (o *arrangedOutput) advance(f dataflow.Frontier) {
	upper := uint64(f)
	batch := o.batcher.Seal(upper)
	if err := o.arr.Trace.Insert(batch); err != nil {
		panic(err)
	}
	if batch.Len() > 0 {
		o.out.Give(o.cap.Time(), batch)
	}
	if o.arr.shard != nil {
		o.arr.shard.publish(batch)
	}
	if f.IsDone() {
		o.cap.Release()
		o.cap = nil
		o.lease.close()
		return
	}
	o.lease.setSince(max(o.start, upper-1))
	o.cap.Downgrade(upper)
	o.fOld = upper
}

// compareValChange orders changes by time, then val.
func compareValChange(x, y valChange) int {
	if c := cmp.Compare(x.time, y.time); c != 0 {
		return c
	}
	return cmp.Compare(x.val, y.val)
}
