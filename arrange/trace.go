package arrange

import (
	"fmt"
	"sync/atomic"

	"freshet/dataflow"
)

// Trace is a spine shared by readers: each reader holds a lease, at its
// handle's since, and the trace compacts only up to the least of them.
//
// The trace's since is the least live lease, or its upper when no lease
// is held: with no reader, nothing before the upper will ever be read at
// its own time again. It never decreases. A new lease below it is
// refused, since the updates there may already be compacted.
//
// A trace belongs to one goroutine and takes no locks. The zero value is
// an empty trace at time 0 with effort 1.
type Trace struct {
	spine Spine
	holds holds
	// since is the trace's since, the spine's since with it.
	// Invariant: since <= every live lease, and never decreases.
	since uint64
	// bytes mirrors the spine's Bytes after every change the trace
	// makes, for readers on other goroutines (SharedBytes).
	bytes atomic.Int64
	// account, if set, is charged the change of bytes at each change:
	// the memory account of the dataflow the trace belongs to.
	account *dataflow.Account
}

// NewTrace returns an empty trace at time 0 whose spine merges with the
// given effort (see NewSpine).
func NewTrace(effort int) *Trace {
	return &Trace{spine: Spine{effort: int64(max(effort, 1))}}
}

// newAccountedTrace returns an empty trace of the dataflow b builds, whose
// bytes are charged to the dataflow's memory account.
func newAccountedTrace(b *dataflow.Builder) *Trace {
	t := NewTrace(1)
	t.account = b.Account()
	return t
}

// updateBytes records the spine's bytes after a change.
func (t *Trace) updateBytes() {
	n := t.spine.Bytes()
	if old := t.bytes.Swap(n); t.account != nil {
		t.account.Add(n - old)
	}
}

// Insert adds a batch, whose Lower must be the trace's upper, and does the
// merge work it pays for (see Spine.Insert).
func (t *Trace) Insert(b *Batch) error {
	if err := t.spine.Insert(b); err != nil {
		return err
	}
	t.advanceSince()
	t.updateBytes()
	return nil
}

// SharedBytes returns Bytes as of the trace's last insert, merge or
// compaction. Unlike the other methods it may be called from any
// goroutine: the size functions read it while the worker goes on.
func (t *Trace) SharedBytes() int64 { return t.bytes.Load() }

// NewHandle takes a lease at since and returns the handle that holds it.
// It fails with ErrCompacted if since is below the trace's since.
func (t *Trace) NewHandle(since uint64) (*Handle, error) {
	if since < t.since {
		return nil, fmt.Errorf("%w: requested since %s, trace since %s", ErrCompacted, timeString(since), timeString(t.since))
	}
	t.holds.add(since)
	t.advanceSince()
	return &Handle{trace: t, since: since}, nil
}

// Since returns the trace's since: accumulations are exact at every time
// at or after it.
func (t *Trace) Since() uint64 { return t.since }

// Upper returns the first time not yet in the trace.
func (t *Trace) Upper() uint64 { return t.spine.Upper() }

// Leases returns the number of live handles.
func (t *Trace) Leases() int { return t.holds.len() }

// Len returns the number of updates in the trace's batches.
func (t *Trace) Len() int { return t.spine.Len() }

// BatchCount returns the number of batches a reader sees.
func (t *Trace) BatchCount() int { return t.spine.BatchCount() }

// MergePending returns the merge work the trace's spine has still to do,
// in input updates (Spine.Pending).
func (t *Trace) MergePending() int64 { return t.spine.Pending() }

// Bytes returns the heap bytes the trace's batches and merges hold.
func (t *Trace) Bytes() int64 { return t.spine.Bytes() }

// Exert spends up to fuel on merging and returns the fuel spent (see
// Spine.Exert). A worker with time to spare calls it so that compaction
// continues when inserts stop.
func (t *Trace) Exert(fuel int64) int64 {
	spent := t.spine.Exert(fuel)
	if spent > 0 {
		t.updateBytes()
	}
	return spent
}

// Continue spends up to fuel on the merges in progress and returns the
// fuel spent (see Spine.Continue). The arrange operator calls it when it
// has nothing else to do.
func (t *Trace) Continue(fuel int64) int64 {
	spent := t.spine.Continue(fuel)
	if spent > 0 {
		t.updateBytes()
	}
	return spent
}

// MergeAll merges the trace into one batch compacted to its since. It is
// for tests and shutdown.
func (t *Trace) MergeAll() {
	t.spine.MergeAll()
	t.updateBytes()
}

// advanceSince moves the since to the least lease, or to the upper when
// there is none.
func (t *Trace) advanceSince() {
	target, ok := t.holds.min()
	if !ok {
		target = t.spine.Upper()
	}
	if target > t.since {
		t.since = target
		t.spine.SetSince(target)
	}
}
