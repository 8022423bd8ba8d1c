package arrange

// holds is a counted multiset of the times readers hold, with its least
// element cached: handles come and go far less often than the trace asks
// for the least hold, and several handles often share a time.
//
// The zero value holds nothing.
type holds struct {
	// counts maps each held time to the number of holds at it.
	// Invariant: no count is zero or negative.
	counts map[uint64]int
	// least is the least held time. Invariant: valid when counts is not
	// empty.
	least uint64
	// n is the number of holds. Invariant: the sum of counts.
	n int
}

// add takes one hold at t.
func (h *holds) add(t uint64) {
	if h.counts == nil {
		h.counts = make(map[uint64]int)
	}
	if len(h.counts) == 0 || t < h.least {
		h.least = t
	}
	h.counts[t]++
	h.n++
}

// remove releases one hold at t, which must be held.
func (h *holds) remove(t uint64) {
	n, ok := h.counts[t]
	if !ok {
		panic(assertionFailedf("holds: release of time %d, which is not held", t))
	}
	h.n--
	if n > 1 {
		h.counts[t] = n - 1
		return
	}
	delete(h.counts, t)
	if t != h.least {
		return
	}
	first := true
	for held := range h.counts {
		if first || held < h.least {
			h.least, first = held, false
		}
	}
}

// min returns the least held time, and false if nothing is held.
func (h *holds) min() (uint64, bool) {
	if len(h.counts) == 0 {
		return 0, false
	}
	return h.least, true
}

// len returns the number of holds.
func (h *holds) len() int { return h.n }
