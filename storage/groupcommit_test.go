package storage

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/sqlerr"
)

// largeWrites returns more writes at ts than a caller commits itself
// (smallRequest), so that the committer syncs them.
func largeWrites(ts uint64) []TableWrite {
	var ws []TableWrite
	for len(ws) <= smallRequest {
		ws = append(ws, TableWrite{Table: 1, Row: fmt.Appendf(nil, "ts%d-large%d", ts, len(ws)), Diff: 1})
	}
	return ws
}

// largeAt returns the writes of a transaction at ts: largeWrites at the
// times given, txnWrites at the others.
func largeAt(large ...uint64) func(uint64) []TableWrite {
	return func(ts uint64) []TableWrite {
		if slices.Contains(large, ts) {
			return largeWrites(ts)
		}
		return txnWrites(ts)
	}
}

// TestGroupCommitGathers holds the first group's sync at a gate while
// more writers queue, then lets it go: the writers that queued meanwhile
// share the next sync, so 1+n Txns take exactly two syncs, and each
// writer returns only after its own group's sync. The first is large, so
// that the committer syncs it; the others are small, and queue because a
// group is committing.
func TestGroupCommitGathers(t *testing.T) {
	const n = 40
	fs := newFaultFS()
	s := openMem(t, fs)
	ctx := context.Background()
	base := s.Stats()

	fs.hold()
	var returned atomic.Int64
	errs := make(chan error, n+1)
	go func() {
		errs <- s.Write(ctx, 1, largeWrites(1))
		returned.Add(1)
	}()
	waitFor(t, "the first group to reach its sync", func() bool { return fs.heldSyncs() == 1 })
	for i := range n {
		ts := uint64(2 + i)
		go func() {
			errs <- s.Write(ctx, ts, txnWrites(ts))
			returned.Add(1)
		}()
	}
	waitFor(t, "the writers to queue", func() bool { return len(s.queue) == n })
	if got := returned.Load(); got != 0 {
		t.Fatalf("%d writers returned before any sync completed", got)
	}
	fs.release()
	for range n + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if txns, syncs, own := st.Txns-base.Txns, st.Syncs-base.Syncs, st.Own-base.Own; txns != n+1 || syncs != 2 || own != 0 {
		t.Errorf("%d Txns in %d syncs, %d committed by their callers; want %d in 2, none", txns, syncs, own, n+1)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	acked := make([]uint64, n+1)
	for i := range acked {
		acked[i] = uint64(1 + i)
	}
	checkTxnsOf(t, s, acked, largeAt(1))
}

// TestGroupCommitConcurrent runs many writers at once and checks that
// every acknowledged Txn is whole after close and reopen, that Stats
// counts every Txn, and that there were fewer syncs than Txns. One writer
// starts first and its sync is held; the rest start only then, so they
// queue behind it whatever the scheduling. Started together, all of them
// could reach the committer before its first gather, making one group
// that holds every writer and leaves none to queue.
func TestGroupCommitConcurrent(t *testing.T) {
	const writers, perWriter = 32, 40
	fs := newFaultFS()
	s := openMem(t, fs)
	ctx := context.Background()
	base := s.Stats()

	var next atomic.Uint64
	var mu sync.Mutex
	var acked []uint64
	var wg sync.WaitGroup
	write := func() {
		for range perWriter {
			ts := next.Add(1)
			if err := s.Write(ctx, ts, txnWrites(ts)); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			acked = append(acked, ts)
			mu.Unlock()
		}
	}
	fs.hold()
	wg.Go(write)
	// More than one WAL sync may be held (pebble syncs the log it
	// rotates away from as well as the new one), so the condition is at
	// least one.
	waitFor(t, "the first writer's group to reach its sync", func() bool { return fs.heldSyncs() >= 1 })
	for range writers - 1 {
		wg.Go(write)
	}
	// Once two writers queue behind the held sync, the next group has at
	// least two Txns, so syncs < Txns whatever the scheduling after.
	waitFor(t, "writers to queue behind the first sync", func() bool { return len(s.queue) >= 2 })
	fs.release()
	wg.Wait()
	st := s.Stats()
	txns, syncs := st.Txns-base.Txns, st.Syncs-base.Syncs
	t.Logf("%d Txns in %d syncs", txns, syncs)
	if txns != writers*perWriter || syncs >= txns {
		t.Errorf("%d Txns in %d syncs, want %d in fewer syncs", txns, syncs, writers*perWriter)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	checkTxns(t, s, acked)
	if u, _ := s.LoadTimestampUpper(); u != writers*perWriter {
		t.Errorf("timestamp upper %d, want %d: the greatest time written", u, writers*perWriter)
	}
}

// TestCloseWaitsForWriters checks that Close lets the writes under way
// finish, and that writes after it fail cleanly.
func TestCloseWaitsForWriters(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var acked []uint64
	var next atomic.Uint64
	for range 8 {
		wg.Go(func() {
			for {
				ts := next.Add(1)
				err := s.Write(ctx, ts, txnWrites(ts))
				if err != nil {
					wantCode(t, "write during close", err, sqlerr.AdminShutdown)
					return
				}
				mu.Lock()
				acked = append(acked, ts)
				mu.Unlock()
			}
		})
	}
	waitFor(t, "some writes", func() bool { return s.Stats().Txns >= 50 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	s = openMem(t, fs)
	defer s.Close()
	checkTxns(t, s, acked)
}

// TestSmallCommitOwn: a small Txn that finds nothing committing is
// committed by its caller, a group of its own; a large one, or a small
// one behind a group being committed, is queued for the committer. All
// of them are durable.
func TestSmallCommitOwn(t *testing.T) {
	fs := newFaultFS()
	s := openMem(t, fs)
	ctx := context.Background()
	base := s.Stats()
	if err := s.Write(ctx, 1, txnWrites(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, 2, largeWrites(2)); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if txns, syncs, own := st.Txns-base.Txns, st.Syncs-base.Syncs, st.Own-base.Own; txns != 2 || syncs != 2 || own != 1 {
		t.Fatalf("%d Txns in %d syncs, %d committed by their callers; want 2 in 2, 1", txns, syncs, own)
	}

	fs.hold()
	errs := make(chan error, 2)
	go func() { errs <- s.Write(ctx, 3, largeWrites(3)) }()
	waitFor(t, "the large Txn to reach its sync", func() bool { return fs.heldSyncs() == 1 })
	go func() { errs <- s.Write(ctx, 4, txnWrites(4)) }()
	waitFor(t, "the small Txn to queue", func() bool { return len(s.queue) == 1 })
	fs.release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if st := s.Stats(); st.Own-base.Own != 1 || st.Txns-base.Txns != 4 {
		t.Fatalf("after a small Txn behind a group: %d Txns, %d committed by their callers; want 4, 1", st.Txns-base.Txns, st.Own-base.Own)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	checkTxnsOf(t, s, []uint64{1, 2, 3, 4}, largeAt(2, 3))
}
