package arrange

import "fmt"

// Handle is one reader's lease on a trace. While it is open, the trace
// keeps every accumulation at or after the handle's since exact.
//
// Close releases the lease exactly once; afterwards every method returns
// ErrHandleClosed, so a reader that outlives its lease fails loudly
// instead of reading compacted data.
type Handle struct {
	trace *Trace
	// since is the time the lease holds.
	// Invariant: never decreases; held in trace.holds while open.
	since  uint64
	closed bool
}

// Since returns the time the handle holds.
func (h *Handle) Since() (uint64, error) {
	if h.closed {
		return 0, ErrHandleClosed
	}
	return h.since, nil
}

// Upper returns the trace's upper: the first time not yet readable.
func (h *Handle) Upper() (uint64, error) {
	if h.closed {
		return 0, ErrHandleClosed
	}
	return h.trace.Upper(), nil
}

// SetSince moves the lease forward to since, which lets the trace compact
// further. Moving it back fails with ErrSinceBackwards.
func (h *Handle) SetSince(since uint64) error {
	if h.closed {
		return ErrHandleClosed
	}
	if since < h.since {
		return fmt.Errorf("%w: handle since %s, requested %s", ErrSinceBackwards, timeString(h.since), timeString(since))
	}
	if since == h.since {
		return nil
	}
	h.trace.holds.add(since)
	h.trace.holds.remove(h.since)
	h.since = since
	h.trace.advanceSince()
	return nil
}

// Cursor returns a cursor over the trace's batches as they are now,
// presenting times raised to the handle's since; it is exact at every
// time at or after that since, and later inserts and merges do not
// affect it.
func (h *Handle) Cursor() (*CursorList, error) {
	if h.closed {
		return nil, ErrHandleClosed
	}
	return h.trace.spine.cursor(h.since), nil
}

// CursorFrom is Cursor over only the trace's batches that may hold times
// at or after lower: a reader that wants only those updates (a join side
// whose other side did not change at a key) skips the rest of the trace.
// Times below lower may still show, from batches that span it.
func (h *Handle) CursorFrom(lower uint64) (*CursorList, error) {
	if h.closed {
		return nil, ErrHandleClosed
	}
	return h.trace.spine.cursorFrom(h.since, lower), nil
}

// Close releases the lease. A second Close returns ErrHandleClosed.
func (h *Handle) Close() error {
	if h.closed {
		return ErrHandleClosed
	}
	h.closed = true
	h.trace.holds.remove(h.since)
	h.trace.advanceSince()
	return nil
}
