package storage

import (
	"context"
	"math"
	"sync"

	"freshet/sqlerr"
)

// Txn is one atomic, durable change to the store: after a crash it is
// either wholly present or wholly absent. Its parts are applied in field
// order (drops, catalog deletes, catalog puts, settings, updates). The
// zero value changes nothing.
type Txn struct {
	// DropTables are tables whose whole update log is deleted. A table
	// that is also written in Writes has its log replaced: the log holds
	// exactly those writes afterwards (ALTER TABLE rewrites every row so).
	DropTables []uint64
	// DeleteCatalog are catalog records to delete; absent ids are no-ops.
	DeleteCatalog []uint64
	// Catalog are catalog records to write, replacing any with their id.
	// Invariant: no id twice, and none also in DeleteCatalog.
	Catalog []CatalogRecord
	// Meta are settings to write, replacing any with their key.
	Meta []MetaRecord
	// Time is the time of every update in Writes.
	// Invariant: Time < math.MaxUint64 when Writes is not empty; that time
	// is reserved as the empty frontier.
	Time uint64
	// Writes are the updates of one write transaction, all at Time.
	// Invariant: no Diff is zero.
	Writes []TableWrite
	// Updates, if not nil, are the transaction's updates instead of
	// Writes, for a caller that holds them in another form and would
	// otherwise copy them into a []TableWrite. The invariants of Writes
	// hold for them. Invariant: Writes is empty when Updates is set.
	Updates Updates
}

// Updates is a source of a write transaction's updates.
type Updates interface {
	// Len returns the number of updates.
	Len() int
	// Each calls fn for every update, in order, each time it is called.
	// row must not change until the Txn is committed.
	Each(fn func(table uint64, row []byte, diff int64))
}

// tableWrites is Writes as an Updates.
type tableWrites []TableWrite

func (ws tableWrites) Len() int { return len(ws) }

func (ws tableWrites) Each(fn func(table uint64, row []byte, diff int64)) {
	for _, w := range ws {
		fn(w.Table, w.Row, w.Diff)
	}
}

// updates returns the Txn's updates: Updates, or Writes.
func (t *Txn) updates() Updates {
	if t.Updates != nil {
		return t.Updates
	}
	return tableWrites(t.Writes)
}

// hasUpdates reports whether the Txn writes any update.
func (t *Txn) hasUpdates() bool {
	return len(t.Writes) > 0 || (t.Updates != nil && t.Updates.Len() > 0)
}

// CatalogRecord is one catalog object's record. The catalog package
// encodes and decodes Value; storage keeps it as bytes.
type CatalogRecord struct {
	ID    uint64
	Value []byte
}

// MetaRecord is one setting of the server, such as the next object id.
type MetaRecord struct {
	// Key names the setting. Invariant: not empty.
	Key   string
	Value []byte
}

// TableWrite is one update of a table: Diff copies of Row are added (or,
// if Diff is negative, removed) at the Txn's time.
type TableWrite struct {
	Table uint64
	Row   []byte
	// Diff is the signed count. Invariant: not zero.
	Diff int64
}

// empty reports whether t changes nothing.
func (t *Txn) empty() bool {
	return len(t.DropTables) == 0 && len(t.DeleteCatalog) == 0 && len(t.Catalog) == 0 &&
		len(t.Meta) == 0 && !t.hasUpdates()
}

// validate returns a 22023 error if t breaks an invariant of Txn.
func (t *Txn) validate() error {
	if len(t.Writes) > 0 && t.Updates != nil {
		return invalidf("a transaction's updates are given twice, as writes and as a source")
	}
	if t.hasUpdates() && t.Time == math.MaxUint64 {
		return invalidf("time %d is reserved and cannot be written", t.Time)
	}
	if b, ok := t.Updates.(*Blocks); ok {
		if b.zero {
			return invalidf("update of table %d at time %d has diff 0", b.zeroTable, t.Time)
		}
	} else {
		var zero error
		t.updates().Each(func(table uint64, _ []byte, diff int64) {
			if diff == 0 && zero == nil {
				zero = invalidf("update of table %d at time %d has diff 0", table, t.Time)
			}
		})
		if zero != nil {
			return zero
		}
	}
	seen := make(map[uint64]bool, len(t.Catalog)+len(t.DeleteCatalog))
	for _, id := range t.DeleteCatalog {
		seen[id] = true
	}
	for _, rec := range t.Catalog {
		if seen[rec.ID] {
			return invalidf("catalog object %d is changed twice in one transaction", rec.ID)
		}
		seen[rec.ID] = true
	}
	for _, m := range t.Meta {
		if m.Key == "" {
			return invalidf("setting name must not be empty")
		}
	}
	return nil
}

// size estimates the bytes t adds to a batch.
func (t *Txn) size() int {
	n := 0
	for _, rec := range t.Catalog {
		n += 16 + len(rec.Value)
	}
	for _, m := range t.Meta {
		n += 8 + len(m.Key) + len(m.Value)
	}
	if b, ok := t.Updates.(*Blocks); ok {
		n += b.size
	} else {
		t.updates().Each(func(_ uint64, row []byte, _ int64) {
			// Its diff, length and row; a block's key is shared by many.
			n += 12 + len(row)
		})
	}
	return n + 16*(len(t.DropTables)+len(t.DeleteCatalog))
}

// Commit applies txn atomically and durably: it returns nil only once the
// batch holding txn is synced. Commit does not keep txn or its slices
// after it returns, but they must not change while it runs.
//
// A Txn that breaks an invariant fails with 22023 and changes nothing. If
// ctx is done before txn is queued, Commit fails with 57014 and changes
// nothing; once queued, txn is waited for whatever ctx does, so that an
// error never hides a change that was made. A failed sync fails with
// 58030 and poisons the store: then txn may or may not be durable.
func (s *Store) Commit(ctx context.Context, txn *Txn) error {
	return s.StartCommit(ctx, txn)()
}

// StartCommit is Commit in two steps, so that a caller may work on while
// its batch is built and synced: it queues txn, and wait returns
// Commit's outcome when the batch holding txn is synced (at once if txn
// was not queued). A small txn that finds nothing else committing is
// committed before StartCommit returns (commitOwn). The caller must call wait: until it does, the store
// counts the commit as in flight, and Close waits for it. Calls after
// the first return the same outcome. txn must not change until wait
// returns.
func (s *Store) StartCommit(ctx context.Context, txn *Txn) (wait func() error) {
	if txn == nil {
		txn = &Txn{}
	}
	if err := txn.validate(); err != nil {
		return func() error { return err }
	}
	unlock := func() {}
	if len(txn.DropTables) > 0 {
		s.maintMu.Lock()
		unlock = s.maintMu.Unlock
	}
	queued := s.submit(ctx, &request{txn: txn})
	return sync.OnceValue(func() error {
		defer unlock()
		return queued()
	})
}

// Write makes durable every update of one write transaction at time ts.
// It is Commit of a Txn with only Writes.
func (s *Store) Write(ctx context.Context, ts uint64, writes []TableWrite) error {
	return s.Commit(ctx, &Txn{Time: ts, Writes: writes})
}

// WriteUpdates is Write for updates from a source.
func (s *Store) WriteUpdates(ctx context.Context, ts uint64, updates Updates) error {
	return s.Commit(ctx, &Txn{Time: ts, Updates: updates})
}

// PutCatalog writes catalog records, atomically and durably.
func (s *Store) PutCatalog(ctx context.Context, recs ...CatalogRecord) error {
	return s.Commit(ctx, &Txn{Catalog: recs})
}

// DeleteCatalog deletes catalog records, atomically and durably.
func (s *Store) DeleteCatalog(ctx context.Context, ids ...uint64) error {
	return s.Commit(ctx, &Txn{DeleteCatalog: ids})
}

// DropTable deletes the whole update log of table id, durably. A later
// Write to id starts a new log.
func (s *Store) DropTable(ctx context.Context, id uint64) error {
	return s.Commit(ctx, &Txn{DropTables: []uint64{id}})
}

// PutMeta writes one setting, durably.
func (s *Store) PutMeta(ctx context.Context, key string, value []byte) error {
	return s.Commit(ctx, &Txn{Meta: []MetaRecord{{Key: key, Value: value}}})
}

// submit hands r to the committer and returns wait, which waits for its
// group's outcome. A request that changes nothing, or that is not queued,
// has its outcome at once.
func (s *Store) submit(ctx context.Context, r *request) (wait func() error) {
	now := func(err error) func() error { return func() error { return err } }
	if err := s.enter(); err != nil {
		return now(err)
	}
	if r.empty() {
		s.exit()
		return now(nil)
	}
	if err := ctx.Err(); err != nil {
		s.exit()
		return now(canceled(err))
	}
	if own, err := s.commitOwn(r); own {
		s.exit()
		return now(err)
	}
	r.done = make(chan error, 1)
	select {
	case s.queue <- r:
	case <-ctx.Done():
		s.exit()
		return now(canceled(ctx.Err()))
	}
	return func() error {
		defer s.exit()
		return <-r.done
	}
}

func canceled(err error) error {
	return sqlerr.Wrapf(err, sqlerr.QueryCanceled, "canceling statement due to user request")
}
