package dataflow

import "slices"

// tracker is one worker's view of one dataflow's progress: the
// accumulated counts at every pointstamp, as announced by the progress
// batches this worker has applied (its own included), and the frontier
// each location implies.
//
// Locations are numbered densely in topological order (an operator's
// inputs, then its outputs, operator by operator in build order), so one
// forward pass computes every implied frontier.
type tracker struct {
	// counts[l] holds the nonzero counts at location l, sorted by time.
	// Counts may be negative in a view: a consumer's retirement can
	// arrive before the producer's announcement.
	counts [][]timeCount
	// own[l] is the least time with a positive count at l, or Done.
	own []Frontier
	// implied[l] is min(own[l], implied of every predecessor of l).
	implied []Frontier
	// preds[l] lists the predecessors of l: for an input, the output
	// feeding it; for an output, the connected inputs of its operator.
	// Invariant: every predecessor of l is numbered below l.
	preds [][]int32
	// nonzero counts the (location, time) entries with a nonzero count;
	// the dataflow is complete in this view when it is zero.
	nonzero int
	// dirty reports whether some own[l] changed since the last recompute.
	dirty bool
}

type timeCount struct {
	time  uint64
	count int64
}

func newTracker(preds [][]int32) *tracker {
	n := len(preds)
	t := &tracker{
		counts:  make([][]timeCount, n),
		own:     make([]Frontier, n),
		implied: make([]Frontier, n),
		preds:   preds,
	}
	for i := range t.own {
		t.own[i] = Done
		t.implied[i] = Done
	}
	return t
}

// update adds diff to the count at (loc, time).
func (t *tracker) update(loc int32, time uint64, diff int64) {
	if diff == 0 {
		return
	}
	cs := t.counts[loc]
	i, found := slices.BinarySearchFunc(cs, time, func(c timeCount, t uint64) int {
		switch {
		case c.time < t:
			return -1
		case c.time > t:
			return 1
		}
		return 0
	})
	if found {
		cs[i].count += diff
		if cs[i].count == 0 {
			cs = slices.Delete(cs, i, i+1)
			t.nonzero--
		}
	} else {
		cs = slices.Insert(cs, i, timeCount{time, diff})
		t.nonzero++
	}
	t.counts[loc] = cs
	own := Done
	for _, c := range cs {
		if c.count > 0 {
			own = Frontier(c.time)
			break
		}
	}
	if own != t.own[loc] {
		t.own[loc] = own
		t.dirty = true
	}
}

// recompute refreshes every implied frontier in one topological pass and
// reports whether it ran.
func (t *tracker) recompute() bool {
	if !t.dirty {
		return false
	}
	t.dirty = false
	for l := range t.implied {
		f := t.own[l]
		for _, p := range t.preds[l] {
			f = minFrontier(f, t.implied[p])
		}
		t.implied[l] = f
	}
	return true
}

// complete reports whether every count in this view is zero: no
// capability is held and no message is in flight anywhere.
func (t *tracker) complete() bool { return t.nonzero == 0 }
