package storage

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"freshet/sqlerr"
)

// TestSyncFailurePoisons fails the WAL sync of a group while a second
// group waits behind it. Every writer of both groups gets a 58030 error
// that wraps the injected one; the store then refuses every call but
// Close; and a crash image of the filesystem, holding only synced data,
// holds every acknowledged Txn and nothing partial.
func TestSyncFailurePoisons(t *testing.T) {
	const queued = 8
	fs := newFaultFS()
	s := openMem(t, fs)
	ctx := context.Background()
	var acked []uint64
	for ts := uint64(1); ts <= 5; ts++ {
		if err := s.Write(ctx, ts, txnWrites(ts)); err != nil {
			t.Fatal(err)
		}
		acked = append(acked, ts)
	}
	base := s.Stats()

	fs.hold()
	errs := make(chan error, queued+1)
	// Large, so that the committer syncs it and the small writes behind
	// it queue for the next group.
	go func() { errs <- s.Write(ctx, 6, largeWrites(6)) }()
	waitFor(t, "the group to reach its sync", func() bool { return fs.heldSyncs() == 1 })
	for i := range queued {
		ts := uint64(7 + i)
		go func() { errs <- s.Write(ctx, ts, txnWrites(ts)) }()
	}
	waitFor(t, "the next group to queue", func() bool { return len(s.queue) == queued })
	fs.fail.Store(true)
	fs.release()
	for range queued + 1 {
		err := <-errs
		wantCode(t, "write of a failed group", err, sqlerr.IOError)
		if !errors.Is(err, errorfs.ErrInjected) {
			t.Errorf("write of a failed group: %v does not wrap the injected error", err)
		}
	}
	if st := s.Stats(); st != base {
		t.Errorf("stats after the failure: %+v, want %+v: nothing acknowledged", st, base)
	}

	// Poisoned: even a sync that would now succeed is not tried.
	fs.fail.Store(false)
	syncs := fs.walSyncs.Load()
	_, loadErr := s.LoadCatalog()
	_, upperErr := s.LoadTimestampUpper()
	_, compactErr := s.CompactTable(ctx, 1, 3)
	for _, c := range []struct {
		what string
		err  error
	}{
		{"Write", s.Write(ctx, 20, txnWrites(20))},
		{"PutCatalog", s.PutCatalog(ctx, CatalogRecord{ID: 1})},
		{"AllocateTimestamps", s.AllocateTimestamps(ctx, 100)},
		{"CompactTable", compactErr},
		{"ScanTable", s.ScanTable(1, func(uint64, []byte, int64) error { return nil })},
		{"LoadCatalog", loadErr},
		{"LoadTimestampUpper", upperErr},
	} {
		wantCode(t, c.what, c.err, sqlerr.IOError)
	}
	if got := fs.walSyncs.Load(); got != syncs {
		t.Errorf("a poisoned store synced the WAL %d more times", got-syncs)
	}

	crashed := fs.mem.CrashClone(vfs.CrashCloneCfg{})
	if err := s.Close(); err != nil {
		t.Logf("close of a poisoned store: %v", err)
	}
	s = openMem(t, crashed)
	defer s.Close()
	present := checkTxnsOf(t, s, acked, largeAt(6))
	for ts := uint64(6); ts < 7+queued; ts++ {
		if present[ts] {
			t.Errorf("Txn at %d, whose sync failed, survived a crash", ts)
		}
	}
}

// TestOwnCommitSyncFailurePoisons fails the sync of a small Txn its
// writer commits itself: the writer gets the 58030 error, nothing is
// counted, and the store is poisoned.
func TestOwnCommitSyncFailurePoisons(t *testing.T) {
	fs := newFaultFS()
	s := openMem(t, fs)
	defer s.Close()
	ctx := context.Background()
	if err := s.Write(ctx, 1, txnWrites(1)); err != nil {
		t.Fatal(err)
	}
	base := s.Stats()
	if base.Own != 1 {
		t.Fatalf("a small Txn on an idle store: %+v, want it committed by its caller", base)
	}
	fs.fail.Store(true)
	err := s.Write(ctx, 2, txnWrites(2))
	wantCode(t, "a small write whose sync failed", err, sqlerr.IOError)
	if !errors.Is(err, errorfs.ErrInjected) {
		t.Errorf("%v does not wrap the injected error", err)
	}
	if st := s.Stats(); st != base {
		t.Errorf("stats after the failure: %+v, want %+v", st, base)
	}
	fs.fail.Store(false)
	wantCode(t, "a write after the failure", s.Write(ctx, 3, txnWrites(3)), sqlerr.IOError)
}

// TestCrashImage runs concurrent writers and, at a seeded moment, takes a
// crash image of the filesystem that keeps all synced data and a seeded
// share of the unsynced. Reopened on the image, the store holds every Txn
// acknowledged before the image was taken, and no Txn in part.
func TestCrashImage(t *testing.T) {
	forSeeds(t, 12, func(t *testing.T, seed uint64, rng *rand.Rand) {
		mem := vfs.NewCrashableMem()
		s := openMem(t, mem)
		ctx := context.Background()
		crashAfter := 20 + rng.IntN(300)
		var next atomic.Uint64
		var mu sync.Mutex
		var acked []uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					ts := next.Add(1)
					if err := s.Write(ctx, ts, txnWrites(ts)); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					acked = append(acked, ts)
					mu.Unlock()
				}
			})
		}
		waitFor(t, "writes before the crash", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(acked) >= crashAfter
		})
		mu.Lock()
		before := append([]uint64(nil), acked...)
		mu.Unlock()
		crashed := mem.CrashClone(vfs.CrashCloneCfg{
			UnsyncedDataPercent: rng.IntN(101),
			RNG:                 rand.New(rand.NewPCG(seed, 1)),
		})
		close(stop)
		wg.Wait()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openMem(t, crashed)
		defer s.Close()
		present := checkTxns(t, s, before)
		t.Logf("%d acknowledged before the crash, %d present after", len(before), len(present))
	})
}
