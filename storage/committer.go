package storage

import (
	"encoding/binary"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"freshet/internal/prefault"
	"freshet/sqlerr"
)

// request is one unit of work for the committer: a Txn, or a compaction's
// rewrite of a table log, or a raise of the timestamp upper, or several.
type request struct {
	// txn is the change to apply, or nil.
	txn *Txn
	// deletes are raw keys deleted before txn's updates are written:
	// the updates a compaction consolidated.
	deletes [][]byte
	// upper is a timestamp upper to persist; 0 asks for nothing.
	upper uint64
	// done receives the outcome of the group that held the request.
	// Buffered, so that the committer never waits for a caller.
	done chan error
}

func (r *request) empty() bool {
	return (r.txn == nil || r.txn.empty()) && len(r.deletes) == 0 && r.upper == 0
}

func (r *request) size() int {
	n := 32 * len(r.deletes)
	if r.txn != nil {
		n += r.txn.size()
	}
	return n
}

// runCommitter is the committer goroutine: it takes the requests queued,
// as many as are waiting up to the group bounds, commits them in one
// synced batch and tells every caller the outcome. While one group syncs,
// the next one gathers in the queue; that is what makes a group.
func (s *Store) runCommitter() {
	defer close(s.committerDone)
	var group []*request
	for {
		var first *request
		select {
		case first = <-s.queue:
		case <-s.stop:
			return
		}
		s.committing.Lock()
		group = append(group[:0], first)
		size := first.size()
	gather:
		for len(group) < maxGroupTxns && size < maxGroupBytes {
			select {
			case r := <-s.queue:
				group = append(group, r)
				size += r.size()
			default:
				break gather
			}
		}
		err := s.commitGroup(group)
		if err == nil {
			s.commits.Add(uint64(len(group)))
		}
		s.committing.Unlock()
		for i, r := range group {
			r.done <- err
			group[i] = nil
		}
	}
}

// commitOwn commits r, a small request, on its caller's goroutine when
// nothing is queued and no group is being committed, and reports whether
// it did (with the outcome). Handing r to the committer and its outcome
// back are two wake-ups of a goroutine on another core, tens of
// microseconds each beside a sync of a few hundred; a write of a row
// waits for both. A request that finds a group committing is queued
// instead, to be grouped with whatever comes while that group syncs.
// It may commit ahead of a request the committer has taken from the
// queue but not yet locked for: requests are not committed in the order
// they were submitted, only each one whole (the engine feeds writes in
// timestamp order whatever order they become durable in).
func (s *Store) commitOwn(r *request) (bool, error) {
	if !r.small() || !s.committing.TryLock() {
		return false, nil
	}
	defer s.committing.Unlock()
	if len(s.queue) > 0 {
		return false, nil
	}
	group := [1]*request{r}
	err := s.commitGroup(group[:])
	if err == nil {
		s.commits.Add(1)
		s.own.Add(1)
	}
	return true, err
}

// smallRequest bounds the updates of a request its caller commits
// itself (commitOwn); a larger one is split for the dataflows while the
// committer syncs it (coord's commitSplitting).
const smallRequest = 64

// small reports whether r is a transaction of at most smallRequest
// updates and nothing else but catalog records: not a compaction's
// rewrite, nor a drop.
func (r *request) small() bool {
	t := r.txn
	return t != nil && len(r.deletes) == 0 && len(t.DropTables) == 0 && t.updates().Len() <= smallRequest
}

// commitGroup writes group as one batch and syncs it. On failure it
// poisons the store and returns the poison error: after a failed sync
// nothing is known about what reached the disk.
func (s *Store) commitGroup(group []*request) error {
	if err := s.poisonErr(); err != nil {
		return err
	}
	// The batch starts at about its final size: grown from pebble's
	// default, a bulk load's batch of tens of megabytes would be copied
	// over and over.
	b := s.db.NewBatchWithSize(batchSize(group))
	defer b.Close()
	// The batch's buffer is written whole: it is mapped in at once, not
	// a page fault at a time. Repr is that buffer, at its full capacity,
	// and mapping it in changes none of it.
	prefault.Slice(b.Repr())
	seq, upper := s.nextSeq, s.upper.Load()
	var key, value []byte
	for _, r := range group {
		if err := r.apply(b, &seq, &upper, &key, &value); err != nil {
			return sqlerr.AssertionFailedf("could not build storage batch: %v", err)
		}
	}
	limit := s.seqLimit
	if seq > limit {
		// The batch uses seqs past the durable bound: raise it, some way
		// ahead, so that most batches hold only their own keys. A record
		// written with every batch would put a key of the store's own
		// beside every batch of updates, every flushed file would span
		// the whole key space, and compactions would rewrite the tables'
		// logs instead of moving them down.
		limit = seq + seqAhead
		if err := b.Set(internalKey(internalNextSeq), encodeUint64(limit), nil); err != nil {
			return sqlerr.AssertionFailedf("could not build storage batch: %v", err)
		}
	}
	if upper != s.upper.Load() {
		if err := b.Set(internalKey(internalTimestampUpper), encodeUint64(upper), nil); err != nil {
			return sqlerr.AssertionFailedf("could not build storage batch: %v", err)
		}
	}
	if b.Empty() {
		// Every request asked for an upper that is already durable.
		return nil
	}
	start := time.Now()
	err := b.Commit(pebble.Sync)
	if err != nil {
		s.poisonWith(err)
	}
	if s.onSync != nil {
		s.onSync(time.Since(start))
	}
	// A failed sync reaches pebbleLogger.Fatalf, which poisons the store,
	// while Commit returns nil: check poison, not only err.
	if err := s.poisonErr(); err != nil {
		return err
	}
	s.syncs.Add(1)
	s.nextSeq, s.seqLimit = seq, limit
	s.upper.Store(upper)
	return nil
}

// batchSize returns at most the bytes of a batch of group's table
// writes: per block, its key, its value, and the record's kind and
// lengths. The other records are small and left to the batch to grow
// for.
func batchSize(group []*request) int {
	n := batchHeaderLen
	for _, r := range group {
		if r.txn == nil {
			continue
		}
		if b, ok := r.txn.Updates.(*Blocks); ok {
			for _, bl := range b.blocks {
				n += bl.end - bl.start + 2*binary.MaxVarintLen32 + updateKeyLen + 1
			}
			continue
		}
		eachBlock(r.txn.updates(), func(_ uint64, row []byte, _ int64) {
			n += binary.MaxVarintLen64 + binary.MaxVarintLen32 + len(row)
		}, func() {
			n += 1 + 2*binary.MaxVarintLen32 + updateKeyLen + 1
		})
	}
	return n
}

// batchHeaderLen is the size of a pebble batch's header (sequence number
// and count).
const batchHeaderLen = 12

// apply adds r to batch b. It takes seqs from *seq and raises *upper to
// cover every update time and r's requested upper. key and value are
// scratch buffers; pebble copies what it is given.
func (r *request) apply(b *pebble.Batch, seq, upper *uint64, key, value *[]byte) error {
	if r.upper > *upper {
		*upper = r.upper
	}
	for _, k := range r.deletes {
		if err := b.Delete(k, nil); err != nil {
			return err
		}
	}
	t := r.txn
	if t == nil {
		return nil
	}
	for _, id := range t.DropTables {
		lo, hi := tableBounds(id)
		if err := b.DeleteRange(lo, hi, nil); err != nil {
			return err
		}
	}
	for _, id := range t.DeleteCatalog {
		if err := b.Delete(catalogKey(id), nil); err != nil {
			return err
		}
	}
	for _, rec := range t.Catalog {
		if err := b.Set(catalogKey(rec.ID), rec.Value, nil); err != nil {
			return err
		}
	}
	for _, m := range t.Meta {
		if err := b.Set(metaKey(m.Key), m.Value, nil); err != nil {
			return err
		}
	}
	if enc, ok := t.Updates.(*Blocks); ok {
		for _, bl := range enc.blocks {
			*key = appendUpdateKey((*key)[:0], bl.table, t.Time, *seq)
			*seq++
			if err := b.Set(*key, enc.value(bl), nil); err != nil {
				return err
			}
		}
	} else if err := applyUpdates(b, t, seq, key, value); err != nil {
		return err
	}
	if t.hasUpdates() && t.Time > *upper {
		*upper = t.Time
	}
	return nil
}

// applyUpdates adds t's updates to batch b in blocks.
func applyUpdates(b *pebble.Batch, t *Txn, seq *uint64, key, value *[]byte) error {
	var (
		block []byte
		table uint64
		err   error
	)
	eachBlock(t.updates(), func(tb uint64, row []byte, diff int64) {
		if len(block) == 0 {
			table, block = tb, append((*value)[:0], blockMark)
		}
		block = appendBlockUpdate(block, diff, row)
	}, func() {
		*key = appendUpdateKey((*key)[:0], table, t.Time, *seq)
		*seq++
		if err == nil {
			err = b.Set(*key, block, nil)
		}
		*value, block = block, nil
	})
	return err
}
