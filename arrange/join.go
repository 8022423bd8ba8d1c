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
// A window is worked through in slices of joinFuel units of work (pairs
// considered, history entries read) per Schedule call, so that a large
// join (hydrating over a big table, a cross join) never holds its worker
// for long: the operator keeps its place (the window's next key, the
// position within the key's three products), keeps its capability at
// fOld and its leases where they are, and asks to be run again. The
// output is the same multiset whatever the fuel; only how it is cut into
// messages differs.
//
// f receives views into immutable batches; it must not modify them, and
// it may return them.
func Join(a, b *Arranged, name string, f func(key, va, vb []byte) (k2, v2 []byte)) dataflow.Stream[Update] {
	return JoinFiltered(a, b, name, func(key, va, vb []byte) ([]byte, []byte, bool) {
		k2, v2 := f(key, va, vb)
		return k2, v2, true
	})
}

// JoinFiltered is Join whose f may also drop a pair: it emits f's record
// only where f reports true. A join whose input is read from an index
// applies that input's filter per pair this way, after the match, rather
// than arranging the filtered input again.
func JoinFiltered(a, b *Arranged, name string, f func(key, va, vb []byte) (k2, v2 []byte, ok bool)) dataflow.Stream[Update] {
	bl := a.Batches.Builder()
	start := bl.Start()
	la := newLease(bl, a.Trace, start, name)
	lb := newLease(bl, b.Trace, start, name)
	ob := bl.NewOperator(name)
	ina := dataflow.NewInput(ob, a.Batches, dataflow.Pipeline[*Batch]())
	inb := dataflow.NewInput(ob, b.Batches, dataflow.Pipeline[*Batch]())
	out, s := dataflow.NewOutput[Update](ob)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		return &joinLogic{
			op: op, fuel: joinFuel,
			f: f, start: start, fOld: start,
			ina: ina, inb: inb, out: out, cap: caps[0],
			la: la, lb: lb,
			pendA: newAccountedBatcher(bl, start), pendB: newAccountedBatcher(bl, start),
		}
	})
	return s
}

// joinFuel is the work one Schedule call of a join may do: pairs
// considered (each emits at most one record) plus history entries loaded.
// At a few hundred nanoseconds per unit this keeps a call, and so the
// worker step that runs it, to a few tens of milliseconds, however large
// the join; the rest waits for the next step, so other dataflows, drops
// and cancels on the worker are not held behind one big window. Tests set
// it small so that every slicing boundary is crossed.
var joinFuel = 100_000

type joinLogic struct {
	op *dataflow.Operator
	// fuel is joinFuel when the operator was built.
	fuel int
	// win is the window being worked through, or nil between windows.
	// Invariant: while win is live, cap stays at fOld and the leases at
	// max(start, fOld-1), so the histories below win.fNew that the rest
	// of the window reads are exactly those its first slice read.
	win *joinWindow

	f        func(key, va, vb []byte) (k2, v2 []byte, ok bool)
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

// joinWindow is a window [fOld, fNew) part done: the window's keys not
// yet visited, and the position within the key being joined.
type joinWindow struct {
	fNew uint64
	// last reports whether fNew is the empty frontier: both inputs done.
	last bool
	// ka and kb are at the next keys to visit of the sealed marks.
	ka, kb *BatchCursor
	// inKey reports whether a key's histories are loaded (in ha, hb,
	// oldA, deltaA, oldB, deltaB) with pairs still to consider; phase
	// (0: ΔA⋈B_old, 1: ΔA⋈ΔB, 2: A_old⋈ΔB), i and j are the next pair.
	inKey       bool
	key         []byte
	phase, i, j int
}

// Schedule works through windows until it has spent its fuel. A window
// left part done keeps the capability at fOld and asks to be run again.
func (l *joinLogic) Schedule() {
	stageMarks(l.ina, l.pendA)
	stageMarks(l.inb, l.pendB)
	fuel := l.fuel
	for l.cap != nil {
		if l.win == nil && !l.openWindow() {
			return
		}
		// The fuel is spent a piece at a time, and the run also ends
		// once it has held the worker for the cluster's slice.
		var done bool
		for {
			piece := min(fuel, joinPiece)
			left, d := l.work(piece)
			fuel -= piece - left
			// Each piece's output leaves as it is made: at most one
			// piece of pairs waits in emitted, so a run's output never
			// grows (and is copied and cleared) as one large slice.
			l.flush()
			if done = d; done || fuel <= 0 || l.op.OutOfTime() {
				break
			}
		}
		if !done {
			l.op.Activate()
			return
		}
		l.closeWindow()
	}
}

// joinPiece is how much of its fuel a join spends between checks of
// its run's time.
var joinPiece = 4096

// openWindow seals the marks below the inputs' frontier, if it passed
// fOld, into a new window, and reports whether it did.
func (l *joinLogic) openWindow() bool {
	f := min(l.ina.Frontier(), l.inb.Frontier())
	fNew := uint64(f)
	if fNew <= l.fOld {
		return false
	}
	wa, wb := l.pendA.Seal(fNew), l.pendB.Seal(fNew)
	l.win = &joinWindow{fNew: fNew, last: f.IsDone(), ka: wa.Cursor(), kb: wb.Cursor()}
	return true
}

// closeWindow moves fOld to the finished window's fNew: the capability and
// leases follow, or are released if it was the last.
func (l *joinLogic) closeWindow() {
	w := l.win
	l.win = nil
	// A window that took a burst of marks (a hydration) leaves the
	// batchers' spare chunks behind: nothing may arrive to seal again.
	l.pendA.Rest()
	l.pendB.Rest()
	if w.last {
		l.cap.Release()
		l.cap = nil
		l.la.close()
		l.lb.close()
		return
	}
	since := max(l.start, w.fNew-1)
	l.la.setSince(since)
	l.lb.setSince(since)
	l.cap.Downgrade(w.fNew)
	l.fOld = w.fNew
}

// flush sends what the last piece of work emitted. The slice is given
// away. The next one is sized by it, twice its length up to a piece's
// size, which a piece of pairs does not outgrow (loading a key's
// histories emits nothing): a large join's pieces fill it again, and a
// one-row write's few pairs no longer take a whole piece's room, 256 KB,
// each, which made the collector run every few hundred writes.
func (l *joinLogic) flush() {
	if n := len(l.emitted); n > 0 {
		giveByTime(l.out, l.emitted)
		l.emitted = make([]Update, 0, min(joinPiece, max(16, 2*n)))
	}
}

// work joins the window's keys until fuel runs out. It returns the fuel
// left and whether the window is done. Trace cursors are taken afresh in
// each call: keys are visited in increasing order, so a new cursor seeks
// forward to the next one, and a key's loaded histories are kept across
// calls, so the vals a position refers to cannot change under it.
func (l *joinLogic) work(fuel int) (int, bool) {
	w := l.win
	var ca, cb, na, nb *CursorList
	for {
		if !w.inKey && !w.ka.KeyValid() && !w.kb.KeyValid() {
			return fuel, true
		}
		if fuel <= 0 {
			return fuel, false
		}
		if w.inKey {
			fuel = l.pairs(fuel)
			continue
		}
		if ca == nil {
			ca, cb = l.la.cursor(), l.lb.cursor()
			na, nb = l.la.cursorFrom(l.fOld), l.lb.cursorFrom(l.fOld)
		}
		key, inA, inB := w.nextKey()
		switch {
		case !inB:
			// Only A changed at key: the change is ΔA ⋈ B_old, which
			// needs no A_old, so A's history is read from its recent
			// batches alone. A side that grows by small writes beside a
			// large history (a fact table) then costs per write what the
			// write holds, not what the key holds.
			fuel -= 1 + l.loadKey(key, na, cb)
		case !inA:
			fuel -= 1 + l.loadKey(key, ca, nb)
		default:
			fuel -= 1 + l.loadKey(key, ca, cb)
		}
	}
}

// nextKey returns the window's next key, of either side's marks, once,
// and which sides changed at it.
func (w *joinWindow) nextKey() (key []byte, inA, inB bool) {
	ka, kb := w.ka, w.kb
	switch {
	case !kb.KeyValid():
		k := ka.Key()
		ka.StepKey()
		return k, true, false
	case !ka.KeyValid():
		k := kb.Key()
		kb.StepKey()
		return k, false, true
	}
	k := ka.Key()
	switch c := bytes.Compare(k, kb.Key()); {
	case c < 0:
		ka.StepKey()
		return k, true, false
	case c > 0:
		k = kb.Key()
		kb.StepKey()
		return k, false, true
	default:
		ka.StepKey()
		kb.StepKey()
	}
	return k, true, true
}

// loadKey loads key's histories below fNew and, if both sides have any,
// starts its pairs. It returns the number of history entries loaded.
func (l *joinLogic) loadKey(key []byte, ca, cb *CursorList) int {
	w := l.win
	if l.ha.load(ca, key, w.fNew); len(l.ha.vals) == 0 {
		return len(l.ha.upds)
	}
	if l.hb.load(cb, key, w.fNew); len(l.hb.vals) == 0 {
		return len(l.ha.upds) + len(l.hb.upds)
	}
	l.oldA, l.deltaA = l.ha.split(l.fOld, l.oldA, l.deltaA)
	l.oldB, l.deltaB = l.hb.split(l.fOld, l.oldB, l.deltaB)
	w.inKey, w.key, w.phase, w.i, w.j = true, key, 0, 0, 0
	return len(l.ha.upds) + len(l.hb.upds)
}

// pairs emits the change of the current key's join in the window
// [fOld, fNew), from its saved position, one fuel unit per pair
// considered. It returns the fuel left; the key is done when inKey is
// false.
func (l *joinLogic) pairs(fuel int) int {
	w := l.win
	for ; w.phase < 3; w.phase, w.i, w.j = w.phase+1, 0, 0 {
		n, m := len(l.deltaA), len(l.oldB)
		switch w.phase {
		case 1:
			m = len(l.deltaB)
		case 2:
			n, m = len(l.oldA), len(l.deltaB)
		}
		if m == 0 {
			continue
		}
		for ; w.i < n; w.i, w.j = w.i+1, 0 {
			for ; w.j < m; w.j++ {
				if fuel <= 0 {
					return fuel
				}
				fuel--
				l.pair(w.key, w.phase, w.i, w.j)
			}
		}
	}
	w.inKey, w.key = false, nil
	return fuel
}

// pair emits pair (i, j) of a phase of the key's join:
//   - phase 0, ΔA ⋈ B_old, at ta > every old tb;
//   - phase 1, ΔA ⋈ ΔB, at the later time;
//   - phase 2, A_old ⋈ ΔB, at tb > every old ta.
func (l *joinLogic) pair(key []byte, phase, i, j int) {
	var va, vb []byte
	var t uint64
	var d int64
	switch phase {
	case 0:
		da := l.deltaA[i]
		va, vb, t, d = l.ha.vals[da.val].val, l.hb.vals[j].val, da.time, da.diff*l.oldB[j]
	case 1:
		da, db := l.deltaA[i], l.deltaB[j]
		va, vb, t, d = l.ha.vals[da.val].val, l.hb.vals[db.val].val, max(da.time, db.time), da.diff*db.diff
	default:
		db := l.deltaB[j]
		va, vb, t, d = l.ha.vals[i].val, l.hb.vals[db.val].val, db.time, l.oldA[i]*db.diff
	}
	if d == 0 {
		return
	}
	k2, v2, ok := l.f(key, va, vb)
	if !ok {
		return
	}
	l.emitted = append(l.emitted, Update{Key: k2, Val: v2, Time: t, Diff: d})
}

func (l *joinLogic) Shutdown(dataflow.Reason) {}

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

// cursorFrom is a cursor over the batches that may hold times at or
// after lower.
func (l *lease) cursorFrom(lower uint64) *CursorList {
	c, err := l.h.CursorFrom(lower)
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

// giveByTime sends updates, each at its own time, one message per time.
// The operator's capability must be at or before every time.
func giveByTime(out *dataflow.Output[Update], upds []Update) {
	byTime := func(x, y Update) int { return cmp.Compare(x.Time, y.Time) }
	// Most often every update is at one time: a join's output of one
	// statement's changes.
	if !slices.IsSortedFunc(upds, byTime) {
		slices.SortStableFunc(upds, byTime)
	}
	for i := 0; i < len(upds); {
		j := i + 1
		for j < len(upds) && upds[j].Time == upds[i].Time {
			j++
		}
		out.GiveSlice(upds[i].Time, upds[i:j:j])
		i = j
	}
}
