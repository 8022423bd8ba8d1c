package arrange

import (
	"cmp"
	"fmt"
	"slices"

	"freshet/dataflow"
)

// Import makes exported arrangement id readable in the dataflow b builds,
// on this worker. The result's Trace is the exporter's shard, read through
// handles as usual; its Batches stream first carries one batch with the
// whole trace as of now, every time advanced to the importer's start,
// then each batch the exporter adds.
//
// Import takes a lease at the dataflow's start, refused with ErrCompacted
// if the trace has already compacted past it, and registers the importer,
// so that the exporter cannot be dropped while it reads. When the
// importing dataflow ends, the lease is released and the registration
// removed, exactly once. If the exporter goes away without completing,
// the importer fails with ErrSourceGone.
func (r *Registry) Import(b *dataflow.Builder, id GlobalID, name string) (*Arranged, error) {
	return r.importAs(b, id, name, false)
}

// ImportShared is Import for an importer whose operators are linear in
// the snapshot: they read every update of it, sum each row's, and give
// the same result whatever batches the updates come in. Its first
// batches are the trace's own, shared where only their times need raising
// (replayBatches), not one consolidated copy of them: a row's insertion
// and its retraction may both reach it. A view that sums a table's rows
// reads the table so without copying it.
func (r *Registry) ImportShared(b *dataflow.Builder, id GlobalID, name string) (*Arranged, error) {
	return r.importAs(b, id, name, true)
}

func (r *Registry) importAs(b *dataflow.Builder, id GlobalID, name string, shared bool) (*Arranged, error) {
	r.mu.Lock()
	e := r.mu.exports[id]
	var s *shard
	if e != nil {
		s = e.shards[b.Index()]
	}
	if s == nil {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: %d", ErrNoExport, id)
	}
	if s.ended != 0 && s.ended != dataflow.Completed {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: arrangement %d", ErrSourceGone, id)
	}
	if e.retired {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: %d was retired", ErrNoExport, id)
	}
	start := b.Start()
	lease, err := s.trace.NewHandle(start)
	if err != nil {
		r.mu.Unlock()
		return nil, fmt.Errorf("import of arrangement %d at %d: %w", id, start, err)
	}
	e.importers[b.ID()]++
	r.mu.Unlock()

	src := &importSource{shard: s, lease: lease, start: start, importer: b.ID()}
	// Replay and registration happen in the same build step, so the
	// batches that follow start exactly where the replay ends.
	var replay []*Batch
	if shared {
		replay, err = replayBatches(lease, start, s.trace.Upper())
	} else {
		var one *Batch
		one, err = replayBatch(lease, start, s.trace.Upper())
		replay = []*Batch{one}
	}
	if err != nil {
		lease.Close()
		return nil, err
	}
	// The replay is the importer's snapshot as far as the trace has got;
	// if that is short of the start, batches to come bring the rest.
	src.acct = b.Account()
	for i, rb := range replay {
		// Only the last batch brings the importer to the trace's upper:
		// one that were Done would end the forwarding with it.
		upper := start
		if i == len(replay)-1 {
			upper = s.trace.Upper()
		}
		src.pending = append(src.pending, pendingBatch{batch: rb, upper: upper, replay: true})
		src.acct.AddToRead(int64(rb.Len()))
	}
	if s.trace.Upper() <= start {
		src.catchingUp = true
		src.acct.AddCatchingUp(1)
	}
	s.listeners = append(s.listeners, src)

	ob := b.NewOperator(name)
	out, batches := dataflow.NewOutput[*Batch](ob)
	ob.Build(func(op *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		src.out, src.cap = out, caps[0]
		src.activator = op.Activator()
		return src
	})
	importer := b.ID()
	b.OnRelease(func(dataflow.Reason) {
		src.lease.Close()
		// slices.Delete clears the vacated slot: a plain append would
		// leave the last element's old slot pointing at a source, and
		// through it at an ended dataflow's whole graph.
		if i := slices.Index(s.listeners, src); i >= 0 {
			s.listeners = slices.Delete(s.listeners, i, i+1)
		}
		r.mu.Lock()
		idle := false
		if e.importers[importer]--; e.importers[importer] <= 0 {
			delete(e.importers, importer)
			idle = e.retired && r.mu.exports[e.id] == e && r.idleLocked(e.exporter)
		}
		onIdle := r.onIdle
		r.mu.Unlock()
		if idle && onIdle != nil {
			onIdle(e.exporter)
		}
	})
	return &Arranged{Batches: batches, Trace: s.trace}, nil
}

// pendingBatch is a batch waiting to be forwarded, with the trace upper
// it brings the importer to.
type pendingBatch struct {
	batch *Batch
	upper uint64
	// replay marks the batch Import built from the trace.
	replay bool
}

// importSource forwards an exporter's batches into an importing dataflow.
// It holds one capability, at the time up to which it has forwarded.
type importSource struct {
	shard    *shard
	lease    *Handle
	start    uint64
	importer dataflow.ID
	pending  []pendingBatch
	// acct counts the snapshot's records to read; catchingUp says the
	// snapshot is not all forwarded yet (see dataflow.Account).
	acct       *dataflow.Account
	catchingUp bool
	out        *dataflow.Output[*Batch]
	cap        *dataflow.Capability
	activator  *dataflow.Activator
}

func (s *importSource) Schedule() {
	if s.cap == nil {
		return
	}
	for _, p := range s.pending {
		b := p.batch
		if d := b.Description(); d.Lower < s.start && d.Since < s.start && b.Len() > 0 {
			b = advanceBatch(b, s.start)
		}
		if s.catchingUp {
			if !p.replay && p.batch.Description().Lower <= s.start {
				// The rest of the snapshot (Import counted the replay):
				// the batch's updates at or before the start.
				s.acct.AddToRead(p.batch.countThrough(s.start))
			}
			if p.upper > s.start {
				s.catchingUp = false
				s.acct.AddCatchingUp(-1)
			}
		}
		if b.Len() > 0 {
			s.out.Give(s.cap.Time(), b)
		}
		if p.upper == Done {
			s.cap.Release()
			s.cap = nil
			break
		}
		// Everything still to come is at or after the trace's upper and
		// the importer's start.
		if next := max(p.upper, s.start); next > s.cap.Time() {
			s.cap.Downgrade(next)
			// The importer's own readers hold their own leases; this
			// one only keeps the trace readable until they took them.
			s.lease.SetSince(next)
		}
	}
	clear(s.pending)
	s.pending = s.pending[:0]
	switch s.shard.ended {
	case 0, dataflow.Completed:
	default:
		panic(fmt.Errorf("%w: its exporting dataflow %d was %s", ErrSourceGone, s.shard.exp.exporter, s.shard.ended))
	}
}

func (s *importSource) Shutdown(dataflow.Reason) {}

// replayBatch builds one batch of the trace's contents as h reads them
// (times advanced to h's since), covering [0, upper). It is consolidated:
// an importer may read the snapshot in ways that are not linear in it,
// which a row's insertion and retraction in different batches of the
// trace would break (a SUBSCRIBE ends at any error it reads; a plan made
// after ALTER TABLE cannot decode a row of the table's earlier shape,
// which only its retraction cancels). A trace of one batch whose updates
// only need their times raised, as a restarted table's is, is shared
// (advancedShared); any other is merged into a new batch.
func replayBatch(h *Handle, since, upper uint64) (*Batch, error) {
	c, err := h.Cursor()
	if err != nil {
		return nil, err
	}
	// Raised times may lie past the trace's upper: the batch is a delta
	// for the importer's operators, not a part of any trace, so its
	// description only has to contain them.
	desc := Description{Lower: 0, Upper: max(upper, since+1), Since: since}
	if bs := h.trace.spine.Batches(nil); len(bs) == 1 {
		if b, ok := bs[0].advancedShared(since, desc); ok {
			return b, nil
		}
	}
	// Sized once: a replayed table is the largest batch that hydration
	// builds, and growing its columns by append copied them many times.
	var bl Builder
	bl.reserve(c.sizeHint())
	pushAdvanced(&bl, c, since)
	return bl.Done(desc), nil
}

// replayBatches returns the trace's contents as h reads them (times
// advanced to h's since), covering [0, upper), as batches for a shared
// import (ImportShared), at least one: a batch of the trace that only
// needs its times raised is shared (advancedShared), any other is built
// again with them raised. The replay is one delta, not consolidated: a
// row's updates may lie in several of its batches.
func replayBatches(h *Handle, since, upper uint64) ([]*Batch, error) {
	if h.closed {
		return nil, ErrHandleClosed
	}
	desc := Description{Lower: 0, Upper: max(upper, since+1), Since: since}
	var out []*Batch
	for _, b := range h.trace.spine.Batches(nil) {
		if b.Len() == 0 {
			continue
		}
		if a, ok := b.advancedShared(since, desc); ok {
			out = append(out, a)
			continue
		}
		out = append(out, buildAdvanced(b, since, desc))
	}
	if len(out) == 0 {
		// An empty trace still replays, as one empty batch: its upper
		// is where the importer's forwarding starts.
		var bl Builder
		out = append(out, bl.Done(desc))
	}
	return out, nil
}

// advanceBatch returns b with every time advanced to at least since,
// sharing b's keys and vals when it can (advancedShared): a restarted
// table's log reaches a view that imported it before it was read as
// one such batch.
func advanceBatch(b *Batch, since uint64) *Batch {
	d := b.Description()
	d.Since = max(d.Since, since)
	d.Upper = max(d.Upper, since+1)
	if a, ok := b.advancedShared(since, d); ok {
		return a
	}
	return buildAdvanced(b, since, d)
}

// buildAdvanced builds b with every time advanced to at least since,
// described by d.
func buildAdvanced(b *Batch, since uint64, d Description) *Batch {
	var bl Builder
	bl.reserve(b.sizeHint())
	pushAdvanced(&bl, b.Cursor(), since)
	return bl.Done(d)
}

// pushAdvanced writes c's updates to bl in order with times advanced to
// since and consolidated per (key, val).
func pushAdvanced(bl *Builder, c Cursor, since uint64) {
	var hist []historyEntry
	for ; c.KeyValid(); c.StepKey() {
		for ; c.ValValid(); c.StepVal() {
			hist = hist[:0]
			c.History(func(t uint64, d int64) { hist = append(hist, historyEntry{max(t, since), d}) })
			slices.SortFunc(hist, func(a, b historyEntry) int { return cmp.Compare(a.time, b.time) })
			for i := 0; i < len(hist); {
				t, sum := hist[i].time, int64(0)
				for ; i < len(hist) && hist[i].time == t; i++ {
					sum += hist[i].diff
				}
				if sum != 0 {
					bl.Push(c.Key(), c.Val(), t, sum)
				}
			}
		}
	}
}

type historyEntry struct {
	time uint64
	diff int64
}
