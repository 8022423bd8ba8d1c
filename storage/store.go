package storage

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/sqlerr"
)

// Store is the durable state of one server: catalog records, table update
// logs, settings and the timestamp upper, in one pebble database. Its
// methods may be called concurrently. The zero value is not usable; call
// Open.
type Store struct {
	db   *pebble.DB
	lock *pebble.Lock
	log  *slog.Logger
	// fs and dir are where the store lives, for Probe.
	fs  vfs.FS
	dir string
	// onSync is Options.OnSync.
	onSync func(time.Duration)

	// queue carries Txns from callers to the committer.
	queue chan *request
	// stop is closed by Close once no caller is left, to end the
	// committer; committerDone is closed when it has.
	stop          chan struct{}
	committerDone chan struct{}

	// inflight counts the calls under way, so that Close can wait for
	// them before it closes pebble, which must not be used after.
	inflight sync.WaitGroup

	// maintMu serializes CompactTable with table drops, so that a
	// compaction never rewrites rows into the log of a table dropped
	// while it read.
	maintMu sync.Mutex

	// poison holds the error that poisoned the store, or nil.
	// Invariant: once set, never cleared.
	poison atomic.Pointer[sqlerr.Error]

	// committing is held by whoever commits a group: the committer, or
	// a caller that commits its own request (submit). It guards nextSeq
	// and seqLimit, and the stores of upper.
	committing sync.Mutex

	// upper is the persisted timestamp upper. Only the holder of
	// committing stores it, after the batch that raised it was synced.
	upper atomic.Uint64

	// nextSeq is the least seq no key holds.
	nextSeq uint64
	// seqLimit is the persisted bound on seqs (internalNextSeq): no key
	// holds a seq at or above it.
	seqLimit uint64

	// Counters reported by Stats.
	commits atomic.Uint64
	syncs   atomic.Uint64
	own     atomic.Uint64

	mu struct {
		sync.Mutex
		// closed is set by Close; a closed store starts no new call.
		closed bool
	}
}

// Stats are counters of a Store's activity since Open.
type Stats struct {
	// Txns is the number of Txns acknowledged: made durable.
	Txns uint64
	// Syncs is the number of group commits, each one pebble batch
	// synced once. Txns/Syncs is the mean group size.
	Syncs uint64
	// Own is the number of Txns their callers committed themselves
	// (commitOwn), each a group of one.
	Own uint64
}

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{Txns: s.commits.Load(), Syncs: s.syncs.Load(), Own: s.own.Load()}
}

// enter starts a call: it fails if the store is closed or poisoned, and
// otherwise keeps Close from closing pebble until the matching exit.
func (s *Store) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return errClosed
	}
	if err := s.poison.Load(); err != nil {
		return err
	}
	s.inflight.Add(1)
	return nil
}

// exit ends a call started by enter.
func (s *Store) exit() { s.inflight.Done() }

// poisonWith poisons the store with cause, unless it is already poisoned.
// It may be called from any goroutine, pebble's own among them.
func (s *Store) poisonWith(cause error) {
	err := ioError(cause, "could not make storage durable")
	if errors.Is(cause, syscall.ENOSPC) {
		// PostgreSQL's code for a full disk, so that a client can tell
		// it from a failing one.
		err = sqlerr.Wrapf(cause, sqlerr.DiskFull, "could not make storage durable: no space left on device")
	}
	err = err.WithHint("Once the fault is cleared the server restarts (by itself, or restart it) and recovers every acknowledged write from the write-ahead log.")
	if s.poison.CompareAndSwap(nil, err) {
		s.log.Error("storage poisoned: refusing all further work", "err", cause)
	}
}

// poisonErr returns the error that poisoned the store, or nil. It
// returns a plain error, not a typed nil.
func (s *Store) poisonErr() error {
	if err := s.poison.Load(); err != nil {
		return err
	}
	return nil
}

// Fault returns the error that poisoned the store (53100 disk_full or
// 58030 io_error), or nil while it is healthy.
func (s *Store) Fault() error { return s.poisonErr() }

// flushForClose writes what the memtables hold to sstables before a
// clean close, as PostgreSQL checkpoints at a clean shutdown: the next
// Open then has no write-ahead log to replay. A load that outran
// pebble's flushes leaves several memtables queued, and Open replayed
// and flushed them before anything else (220 ms of a 4M-row restart).
// A poisoned store writes nothing more. pebble retries a flush that
// fails, and the wait for it ends after closeFlushWait: the close goes on
// (pebble's Close still waits for a flush under way, not for a retry),
// and the next Open replays what was not flushed, which is always
// correct.
func (s *Store) flushForClose() {
	if s.poisonErr() != nil {
		return
	}
	done, err := s.db.AsyncFlush()
	if err != nil {
		s.log.Warn("flushing storage before close", "err", err)
		return
	}
	select {
	case <-done:
	case <-time.After(closeFlushWait):
		s.log.Warn("flushing storage before close took too long; the next start replays the log", "waited", closeFlushWait)
	}
}

// closeFlushWait bounds the flush before a clean close.
const closeFlushWait = 10 * time.Second

// probeFile is the file Probe writes in the store's directory.
const probeFile = "PROBE"

// Probe reports whether the store's directory takes a durable write now:
// it creates a small file there, writes it, syncs it and removes it. It
// tells a poisoned store's owner when the fault has cleared; the store
// itself stays poisoned, since nothing is known of what the failed sync
// left, and only a reopen (which replays the write-ahead log) recovers.
func (s *Store) Probe() error {
	name := s.fs.PathJoin(s.dir, probeFile)
	f, err := s.fs.Create(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		return ioError(err, "could not create %q", name)
	}
	_, werr := f.Write(make([]byte, 4096))
	if werr == nil {
		werr = f.Sync()
	}
	err = errors.Join(werr, f.Close(), s.fs.Remove(name))
	if err != nil {
		return ioError(err, "could not write %q", name)
	}
	return nil
}

// Close waits for the calls under way, stops the committer, closes pebble
// and releases the directory lock. A closed store fails every call but
// Close with 57P01 admin_shutdown; Close again returns nil. Close of a
// poisoned store still releases everything, but may return an error.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		return nil
	}
	s.mu.closed = true
	s.mu.Unlock()

	s.inflight.Wait()
	close(s.stop)
	<-s.committerDone

	s.flushForClose()
	err := s.db.Close()
	// The database holds its own reference to the lock and dropped it in
	// Close; this releases Open's.
	err = errors.Join(err, s.lock.Close())
	if err != nil {
		return ioError(err, "could not close storage")
	}
	return nil
}
