package arrange

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"freshet/dataflow"
)

// Join joins two arrangements sharded by the same key hash: for every key
// k, every val va of a and vb of b, it emits f(k, va, vb) with diff da·db
// at max(ta, tb). The result is a plain stream of updates, not arranged:
// the keys f returns may differ from k, so the caller arranges it.
//
// The operator is incremental on both sides and reads only the keys that
// changed. It keeps a lease on each trace at the dataflow's start S and
// works in windows [fOld, fNew), fNew the least of its two input
// frontiers. For each key with an update in the window it reads both
// sides' histories below fNew from the traces and emits
//
//	ΔA ⋈ (B_old + ΔB)  +  A_old ⋈ ΔB
//
// where old is below fOld and Δ is in the window: that is exactly
// (A_old+ΔA)⋈(B_old+ΔB) − A_old⋈B_old, the change of the join, with each
// pair at the later of its two times. Same-time changes on both sides are
// counted once, by the ΔA⋈ΔB term.
//
// After a window both leases move to max(S, fNew−1): compaction may then
// raise times below fNew−1 only to fNew−1, which stays below fNew, so the
// old/new split of the next window is exact. An imported arrangement's
// history (at times raised to S) is the first window's ΔA.
//
// f receives views into immutable batches; it must not modify them, and
// it may return them.
func Join(a, b *Arranged, name string, f func(key, va, vb []byte) (k2, v2 []byte)) dataflow.Stream[Update] {
	bl := a.Batches.Builder()
	start := bl.Start()
	la := newLease(bl, a.Trace, start, name)
	lb := newLease(bl, b.Trace, start, name)
	ob := bl.NewOperator(name)
	ina := dataflow.NewInput(ob, a.Batches, dataflow.Pipeline[*Batch]())
	inb := dataflow.NewInput(ob, b.Batches, dataflow.Pipeline[*Batch]())
	out, s := dataflow.NewOutput[Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		return &joinLogic{
			f: f, start: start, fOld: start,
			ina: ina, inb: inb, out: out, cap: caps[0],
			la: la, lb: lb,
			pendA: NewBatcher(start), pendB: NewBatcher(start),
		}
	})
	return s
}

type joinLogic struct {
	f        func(key, va, vb []byte) (k2, v2 []byte)
	start    uint64
	ina, inb *dataflow.Input[*Batch]
	out      *dataflow.Output[Update]
	// cap is at fOld; nil once both inputs are done.
	cap    *dataflow.Capability
	la, lb *lease
	// fOld is the frontier up to which output is complete.
	// Invariant: fOld == cap.Time() while cap is live; the leases are at
	// max(start, fOld-1).
	fOld uint64
	// pendA and pendB stage a mark (key, time) for every update received
	// and not yet in a window, so that a window finds its keys in order.
	pendA, pendB *Batcher

	// Scratch, reused from key to key.
	ha, hb  history
	oldA    []int64
	oldB    []int64
	deltaA  []valChange
	deltaB  []valChange
	emitted []Update
}

// valChange is an update of one val of a key's history: the val's index in
// the history, and its time and diff.
type valChange struct {
	val  int
	time uint64
	diff int64
}

func (l *joinLogic) Schedule() {
	stageMarks(l.ina, l.pendA)
	stageMarks(l.inb, l.pendB)
	if l.cap == nil {
		return
	}
	f := min(l.ina.Frontier(), l.inb.Frontier())
	fNew := uint64(f)
	if fNew <= l.fOld {
		return
	}
	wa, wb := l.pendA.Seal(fNew), l.pendB.Seal(fNew)
	if wa.Len()+wb.Len() > 0 {
		ca := l.la.cursor()
		cb := l.lb.cursor()
		eachKey2(wa, wb, func(key []byte) { l.joinKey(key, ca, cb, fNew) })
		giveByTime(l.out, l.emitted)
		l.emitted = nil
	}
	if f.IsDone() {
		l.cap.Release()
		l.cap = nil
		l.la.close()
		l.lb.close()
		return
	}
	since := max(l.start, fNew-1)
	l.la.setSince(since)
	l.lb.setSince(since)
	l.cap.Downgrade(fNew)
	l.fOld = fNew
}

func (l *joinLogic) Shutdown(dataflow.Reason) {}

// joinKey emits the change of key's join in the window [fOld, fNew).
func (l *joinLogic) joinKey(key []byte, ca, cb *CursorList, fNew uint64) {
	if l.ha.load(ca, key, fNew); len(l.ha.vals) == 0 {
		return
	}
	if l.hb.load(cb, key, fNew); len(l.hb.vals) == 0 {
		return
	}
	l.oldA, l.deltaA = l.ha.split(l.fOld, l.oldA, l.deltaA)
	l.oldB, l.deltaB = l.hb.split(l.fOld, l.oldB, l.deltaB)
	emit := func(va, vb []byte, t uint64, d int64) {
		if d == 0 {
			return
		}
		k2, v2 := l.f(key, va, vb)
		l.emitted = append(l.emitted, Update{Key: k2, Val: v2, Time: t, Diff: d})
	}
	// ΔA ⋈ B_old, at ta > every old tb.
	for _, da := range l.deltaA {
		va := l.ha.vals[da.val].val
		for j, cb := range l.oldB {
			emit(va, l.hb.vals[j].val, da.time, da.diff*cb)
		}
	}
	// ΔA ⋈ ΔB, at the later time.
	for _, da := range l.deltaA {
		va := l.ha.vals[da.val].val
		for _, db := range l.deltaB {
			emit(va, l.hb.vals[db.val].val, max(da.time, db.time), da.diff*db.diff)
		}
	}
	// A_old ⋈ ΔB, at tb > every old ta.
	for i, ca := range l.oldA {
		va := l.ha.vals[i].val
		for _, db := range l.deltaB {
			emit(va, l.hb.vals[db.val].val, db.time, ca*db.diff)
		}
	}
}

// history is one key's updates as a trace cursor presents them below an
// upper, consolidated per (val, time): the working set of the operators'
// per-key work. Its slices are reused from key to key.
type history struct {
	// vals are the key's vals in order, each with its updates.
	vals []valHistory
	upds []histEntry
}

type valHistory struct {
	// val is a view into an immutable batch.
	val []byte
	// upds[lo:hi] of the history are the val's updates, in strictly
	// increasing time order, none with a zero diff.
	lo, hi int
}

type histEntry struct {
	time uint64
	diff int64
}

// load replaces h with key's updates in c at times below upper. c must
// not be past key: callers visit keys in increasing order.
func (h *history) load(c Cursor, key []byte, upper uint64) {
	h.vals = h.vals[:0]
	h.upds = h.upds[:0]
	c.SeekKey(key)
	if !c.KeyValid() || !bytes.Equal(c.Key(), key) {
		return
	}
	for ; c.ValValid(); c.StepVal() {
		lo := len(h.upds)
		// History repeats a time where batches overlap after raising to
		// the since; times never decrease, so summing into the last entry
		// consolidates.
		c.History(func(t uint64, d int64) {
			if t >= upper {
				return
			}
			if n := len(h.upds); n > lo && h.upds[n-1].time == t {
				h.upds[n-1].diff += d
				if h.upds[n-1].diff == 0 {
					h.upds = h.upds[:n-1]
				}
				return
			}
			h.upds = append(h.upds, histEntry{t, d})
		})
		if len(h.upds) > lo {
			h.vals = append(h.vals, valHistory{val: c.Val(), lo: lo, hi: len(h.upds)})
		}
	}
}

// split returns, per val, the accumulation below fOld, and the updates at
// or after fOld in (time, val) order, reusing the given slices.
func (h *history) split(fOld uint64, old []int64, delta []valChange) ([]int64, []valChange) {
	old, delta = old[:0], delta[:0]
	for i, v := range h.vals {
		var c int64
		for _, u := range h.upds[v.lo:v.hi] {
			if u.time < fOld {
				c += u.diff
			} else {
				delta = append(delta, valChange{val: i, time: u.time, diff: u.diff})
			}
		}
		old = append(old, c)
	}
	slices.SortFunc(delta, compareValChange)
	return old, delta
}

// lease is an operator's lease on a trace, released exactly once: when
// the operator has finished reading, or when its dataflow ends, whichever
// comes first.
type lease struct {
	h *Handle
}

// newLease takes a lease on t at since for the dataflow b builds and
// registers its release. A trace already compacted past since (another
// dataflow's arrangement, not imported) fails the build.
func newLease(b *dataflow.Builder, t *Trace, since uint64, name string) *lease {
	h, err := t.NewHandle(since)
	if err != nil {
		panic(fmt.Errorf("%s: %w", name, err))
	}
	l := &lease{h: h}
	b.OnRelease(func(dataflow.Reason) { l.close() })
	return l
}

// cursor returns a cursor over the trace as it is now, times raised to the
// lease's since.
func (l *lease) cursor() *CursorList {
	c, err := l.h.Cursor()
	if err != nil {
		panic(err)
	}
	return c
}

// setSince moves the lease forward to since; it never moves back.
func (l *lease) setSince(since uint64) {
	if cur, err := l.h.Since(); err == nil && since > cur {
		if err := l.h.SetSince(since); err != nil {
			panic(err)
		}
	}
}

func (l *lease) close() {
	if l.h != nil {
		l.h.Close()
		l.h = nil
	}
}

// stageMarks consumes every batch queued at in and stages a mark (key,
// time) for each of its updates, so that the keys a window must visit come
// out of p sorted. Marks never cancel: a key whose updates cancel is
// visited and finds nothing to do.
func stageMarks(in *dataflow.Input[*Batch], p *Batcher) {
	for {
		_, batches, ok := in.Next()
		if !ok {
			return
		}
		for _, b := range batches {
			c := b.Cursor()
			for ; c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					times, _ := c.Updates()
					for _, t := range times {
						p.Push(c.Key(), nil, t, 1)
					}
				}
			}
		}
	}
}

// eachKey2 calls fn for every key of a or b, in increasing order, once.
func eachKey2(a, b *Batch, fn func(key []byte)) {
	ca, cb := a.Cursor(), b.Cursor()
	for ca.KeyValid() || cb.KeyValid() {
		switch {
		case !cb.KeyValid():
			fn(ca.Key())
			ca.StepKey()
		case !ca.KeyValid():
			fn(cb.Key())
			cb.StepKey()
		default:
			switch c := bytes.Compare(ca.Key(), cb.Key()); {
			case c < 0:
				fn(ca.Key())
				ca.StepKey()
			case c > 0:
				fn(cb.Key())
				cb.StepKey()
			default:
				fn(ca.Key())
				ca.StepKey()
				cb.StepKey()
			}
		}
	}
}

// giveByTime sends updates, each at its own time, one message per time.
// The operator's capability must be at or before every time.
func giveByTime(out *dataflow.Output[Update], upds []Update) {
	slices.SortStableFunc(upds, func(x, y Update) int { return cmp.Compare(x.Time, y.Time) })
	for i := 0; i < len(upds); {
		j := i + 1
		for j < len(upds) && upds[j].Time == upds[i].Time {
			j++
		}
		out.GiveSlice(upds[i].Time, upds[i:j:j])
		i = j
	}
}
