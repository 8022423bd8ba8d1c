package storage

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/sqlerr"
)

// quietLogger discards pebble's log lines in tests that open pebble
// directly.
var quietLogger = pebbleLogger{log: slog.New(slog.DiscardHandler), fatal: func(error) {}}

func openMem(t *testing.T, fs vfs.FS) *Store {
	t.Helper()
	s, err := Open("db", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := sqlerr.Code(err); got != code {
		t.Errorf("%s: got %s (%v), want %s", what, got, err, code)
	}
}

// TestDirectoryLock checks that a data directory open in one store cannot
// be opened by another, on disk and in memory, and can once it is
// closed.
func TestDirectoryLock(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  string
		fs   vfs.FS
	}{
		{"disk", t.TempDir(), nil},
		{"mem", "db", vfs.NewMem()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(tc.dir, Options{FS: tc.fs})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Open(tc.dir, Options{FS: tc.fs})
			wantCode(t, "second open", err, sqlerr.LockFileExists)
			if e := sqlerr.From(err); e == nil || e.Hint == "" {
				t.Errorf("second open: want a hint, got %+v", e)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(tc.dir, Options{FS: tc.fs})
			if err != nil {
				t.Fatalf("open after close: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOpenErrors checks that Open refuses what it cannot use with a code
// and without a panic.
func TestOpenErrors(t *testing.T) {
	_, err := Open("", Options{Mem: true})
	wantCode(t, "empty dir", err, sqlerr.InvalidParameterValue)

	// A store of another format version.
	fs := vfs.NewMem()
	db, err := pebble.Open("db", &pebble.Options{FS: fs, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set(internalKey(internalFormat), encodeUint64(99), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open("db", Options{FS: fs})
	wantCode(t, "format 99", err, sqlerr.DataCorrupted)

	// A pebble database that is not a store.
	fs = vfs.NewMem()
	db, err = pebble.Open("db", &pebble.Options{FS: fs, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("foreign"), nil, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open("db", Options{FS: fs})
	wantCode(t, "foreign database", err, sqlerr.DataCorrupted)
	// The failed open released the lock: a second one fails the same way.
	_, err = Open("db", Options{FS: fs})
	wantCode(t, "foreign database again", err, sqlerr.DataCorrupted)
}

// TestClosedStore checks that every method of a closed store fails with
// 57P01 and that Close is idempotent.
func TestClosedStore(t *testing.T) {
	s, err := Open("db", Options{Mem: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ctx := context.Background()
	_, loadErr := s.LoadCatalog()
	_, _, metaErr := s.GetMeta("k")
	_, upperErr := s.LoadTimestampUpper()
	_, compactErr := s.CompactTable(ctx, 1, 5)
	for _, c := range []struct {
		what string
		err  error
	}{
		{"Write", s.Write(ctx, 1, []TableWrite{{Table: 1, Row: []byte("r"), Diff: 1}})},
		{"empty Write", s.Write(ctx, 1, nil)},
		{"Commit", s.Commit(ctx, &Txn{Catalog: []CatalogRecord{{ID: 1}}})},
		{"PutCatalog", s.PutCatalog(ctx, CatalogRecord{ID: 1})},
		{"DeleteCatalog", s.DeleteCatalog(ctx, 1)},
		{"DropTable", s.DropTable(ctx, 1)},
		{"PutMeta", s.PutMeta(ctx, "k", nil)},
		{"CompactTable", compactErr},
		{"AllocateTimestamps", s.AllocateTimestamps(ctx, 0)},
		{"ScanTable", s.ScanTable(1, func(uint64, []byte, int64) error { return nil })},
		{"LoadCatalog", loadErr},
		{"GetMeta", metaErr},
		{"LoadTimestampUpper", upperErr},
	} {
		wantCode(t, c.what, c.err, sqlerr.AdminShutdown)
	}
}

// TestInvalidTxns checks that a Txn that breaks an invariant fails with
// 22023 and changes nothing.
func TestInvalidTxns(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	defer s.Close()
	ctx := context.Background()
	row := []byte("r")
	for _, tc := range []struct {
		name string
		txn  Txn
	}{
		{"zero diff", Txn{Time: 1, Writes: []TableWrite{{Table: 1, Row: row, Diff: 1}, {Table: 2, Row: row}}}},
		{"reserved time", Txn{Time: math.MaxUint64, Writes: []TableWrite{{Table: 1, Row: row, Diff: 1}}}},
		{"zero diff from a source", Txn{Time: 1, Updates: parted{{{Table: 1, Row: row, Diff: 1}}, {{Table: 2, Row: row}}}}},
		{"reserved time from a source", Txn{Time: math.MaxUint64, Updates: parted{{{Table: 1, Row: row, Diff: 1}}}}},
		{"zero diff encoded", Txn{Time: 1, Updates: blocksOf([]TableWrite{{Table: 1, Row: row, Diff: 1}, {Table: 2, Row: row}})}},
		{"reserved time encoded", Txn{Time: math.MaxUint64, Updates: blocksOf([]TableWrite{{Table: 1, Row: row, Diff: 1}})}},
		{"writes and a source", Txn{Time: 1, Writes: []TableWrite{{Table: 1, Row: row, Diff: 1}}, Updates: parted{{{Table: 1, Row: row, Diff: 1}}}}},
		{"put twice", Txn{Catalog: []CatalogRecord{{ID: 4}, {ID: 4}}}},
		{"put and delete", Txn{Catalog: []CatalogRecord{{ID: 4}}, DeleteCatalog: []uint64{4}}},
		{"empty setting name", Txn{Meta: []MetaRecord{{Key: ""}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, "Commit", s.Commit(ctx, &tc.txn), sqlerr.InvalidParameterValue)
		})
	}
	if st := s.Stats(); st.Txns != 0 || st.Syncs != 0 {
		t.Errorf("stats after invalid Txns: %+v, want nothing committed", st)
	}
	checkTxns(t, s, nil)
	if recs, err := s.LoadCatalog(); err != nil || len(recs) != 0 {
		t.Errorf("catalog after invalid Txns: %v, %v", recs, err)
	}
	// A nil or empty Txn is a no-op, not an error.
	if err := s.Commit(ctx, nil); err != nil {
		t.Errorf("nil Txn: %v", err)
	}
	if err := s.Write(ctx, 3, nil); err != nil {
		t.Errorf("empty Write: %v", err)
	}
}

// TestAtomicDDL checks that catalog records, settings and table updates
// of one Txn are committed together, in one sync.
func TestAtomicDDL(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	ctx := context.Background()
	txn := &Txn{
		Catalog: []CatalogRecord{{ID: 1, Value: []byte("table t")}, {ID: 2, Value: []byte("table u")}},
		Meta:    []MetaRecord{{Key: "next-id", Value: []byte("3")}},
		Time:    7,
		Writes:  txnWrites(7),
	}
	if err := s.Commit(ctx, txn); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Txns != 1 || st.Syncs != 1 {
		t.Errorf("stats: %+v, want one Txn in one sync", st)
	}
	// DROP of a table: its catalog record and its log go together.
	if err := s.Commit(ctx, &Txn{DeleteCatalog: []uint64{1}, DropTables: []uint64{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	recs, err := s.LoadCatalog()
	if err != nil || len(recs) != 1 || recs[0].ID != 2 || string(recs[0].Value) != "table u" {
		t.Errorf("catalog: %+v, %v", recs, err)
	}
	if v, _, err := s.GetMeta("next-id"); string(v) != "3" || err != nil {
		t.Errorf("next-id: %q, %v", v, err)
	}
	if present := checkTxns(t, s, nil); len(present) != 0 {
		t.Errorf("dropped tables still hold times %v", present)
	}
}

// TestReplaceLog checks that a Txn that drops a table and writes it
// leaves the table's log holding exactly the Txn's writes, with the
// catalog record beside them, across a reopen: ALTER TABLE's rewrite.
func TestReplaceLog(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	ctx := context.Background()
	if err := s.Write(ctx, 3, []TableWrite{{Table: 5, Row: []byte("a"), Diff: 1}, {Table: 5, Row: []byte("b"), Diff: 2}, {Table: 6, Row: []byte("c"), Diff: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, &Txn{DropTables: []uint64{5}, Catalog: []CatalogRecord{{ID: 5, Value: []byte("wider")}}, Time: 4,
		Writes: []TableWrite{{Table: 5, Row: []byte("a1"), Diff: 1}, {Table: 5, Row: []byte("b1"), Diff: 2}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	var got []string
	for _, id := range []uint64{5, 6} {
		if err := s.ScanTable(id, func(ts uint64, row []byte, diff int64) error {
			got = append(got, fmt.Sprintf("%d:%d:%s:%d", id, ts, row, diff))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if want := "5:4:a1:1 5:4:b1:2 6:3:c:1"; strings.Join(got, " ") != want {
		t.Errorf("logs %q, want %q", strings.Join(got, " "), want)
	}
	if recs, err := s.LoadCatalog(); err != nil || len(recs) != 1 || string(recs[0].Value) != "wider" {
		t.Errorf("catalog: %+v, %v", recs, err)
	}
}

// TestCanceledContext checks that a Txn whose context is done before it
// is queued fails with 57014 and is not written.
func TestCanceledContext(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantCode(t, "Write", s.Write(ctx, 1, txnWrites(1)), sqlerr.QueryCanceled)
	wantCode(t, "AllocateTimestamps", s.AllocateTimestamps(ctx, 10), sqlerr.QueryCanceled)
	if present := checkTxns(t, s, nil); len(present) != 0 {
		t.Errorf("canceled write is present: %v", present)
	}
	if u, _ := s.LoadTimestampUpper(); u != 0 {
		t.Errorf("upper after canceled allocation: %d", u)
	}
}

// TestScanStops checks that an error from the scan's callback stops the
// scan and is returned unchanged.
func TestScanStops(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	defer s.Close()
	ctx := context.Background()
	for ts := uint64(1); ts <= 10; ts++ {
		if err := s.Write(ctx, ts, []TableWrite{{Table: 1, Row: []byte("r"), Diff: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stop")
	n := 0
	err := s.ScanTable(1, func(ts uint64, row []byte, diff int64) error {
		n++
		if ts == 4 {
			return stop
		}
		return nil
	})
	if err != stop || n != 4 {
		t.Errorf("got %v after %d updates, want stop after 4", err, n)
	}
}

// TestTableBoundaries checks that the logs of the tables with the least
// and greatest ids stay apart from their neighbours.
func TestTableBoundaries(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	defer s.Close()
	ctx := context.Background()
	ids := []uint64{0, 1, math.MaxUint64 - 1, math.MaxUint64}
	for _, id := range ids {
		if err := s.Write(ctx, 5, []TableWrite{{Table: id, Row: []byte{byte(id)}, Diff: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DropTable(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompactTable(ctx, math.MaxUint64, 100); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		var got []uint64
		err := s.ScanTable(id, func(ts uint64, row []byte, diff int64) error {
			if len(row) != 1 || row[0] != byte(id) {
				t.Errorf("table %d holds row %x", id, row)
			}
			got = append(got, ts)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []uint64{5}
		switch id {
		case 1:
			want = nil
		case math.MaxUint64:
			want = []uint64{100}
		}
		if len(got) != len(want) || (len(got) == 1 && got[0] != want[0]) {
			t.Errorf("table %d: times %v, want %v", id, got, want)
		}
	}
}

// TestSeqsSurviveRestarts: the seqs that keep update keys apart are
// bounded by a record raised ahead of need, not written with every
// batch; a restart counts on from the bound, so updates written at the
// same time before and after restarts, and across the bound, all stay.
func TestSeqsSurviveRestarts(t *testing.T) {
	fs := vfs.NewMem()
	ctx := context.Background()
	want := 0
	for round := range 3 {
		s := openMem(t, fs)
		for i := range 3 {
			if err := s.Write(ctx, 7, []TableWrite{{Table: 1, Row: fmt.Appendf(nil, "r%d-%d", round, i), Diff: 1}}); err != nil {
				t.Fatal(err)
			}
			want++
		}
		if round == 1 {
			// A batch that needs seqs past the bound raises it.
			big := make([]TableWrite, seqAhead+10)
			for i := range big {
				big[i] = TableWrite{Table: 1, Row: fmt.Appendf(nil, "big-%d", i), Diff: 1}
			}
			if err := s.Write(ctx, 7, big); err != nil {
				t.Fatal(err)
			}
			want += len(big)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s := openMem(t, fs)
	defer s.Close()
	got := 0
	if err := s.ScanTable(1, func(ts uint64, row []byte, diff int64) error {
		got++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("%d updates after restarts, want %d: keys were overwritten", got, want)
	}
	// The bound is written when a batch passes it, not with every batch.
	bound := func() uint64 {
		v, _, err := s.getUint64(internalKey(internalNextSeq))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := bound()
	for range 2 {
		if err := s.Write(ctx, 8, []TableWrite{{Table: 1, Row: []byte("later"), Diff: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if after := bound(); after != before+1+seqAhead {
		t.Fatalf("the bound went from %d to %d over two one-update batches, want %d", before, after, before+1+seqAhead)
	}
}

// TestScanTableParts writes logs of several megabytes on disk, with
// other tables' logs on both sides, one over many times and one all at
// one time (as a compacted log is), and reads each in parts: the parts'
// updates, part 0's first, are the log as ScanTable reads it, each part
// holds a fair share, a log too small to split is one part, and an
// error from one part ends the scan with that error.
func TestScanTableParts(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	defer s.Close()
	ctx := context.Background()
	// Hex digits of a hash: rows that compress to no less than half.
	row := func(ts uint64, i int) []byte {
		return fmt.Appendf(nil, "%d/%d/%x", ts, i, sha256.Sum256(fmt.Appendf(nil, "%d/%d", ts, i)))
	}
	for ts := uint64(1); ts <= 200; ts++ {
		ws := []TableWrite{{Table: 1, Row: []byte("before"), Diff: 1}, {Table: 5, Row: []byte("after"), Diff: 1}}
		for i := range 1000 {
			ws = append(ws, TableWrite{Table: 2, Row: row(ts, i), Diff: []int64{1, -1, 2}[i%3]})
		}
		if err := s.Write(ctx, ts, ws); err != nil {
			t.Fatal(err)
		}
	}
	// Table 4's log is all at one time, as a load in one transaction
	// writes it.
	var load []TableWrite
	for ts := uint64(1); ts <= 200; ts++ {
		for i := range 1000 {
			load = append(load, TableWrite{Table: 4, Row: row(ts, -i), Diff: 1})
		}
	}
	if err := s.Write(ctx, 201, load); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	type upd struct {
		ts   uint64
		row  string
		diff int64
	}
	for _, table := range []uint64{2, 4} {
		var whole []upd
		times := map[uint64]bool{}
		if err := s.ScanTable(table, func(ts uint64, row []byte, diff int64) error {
			whole = append(whole, upd{ts, string(row), diff})
			times[ts] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(whole) != 200*1000 {
			t.Fatalf("table %d: ScanTable read %d updates", table, len(whole))
		}
		got := make([][]upd, 3)
		n, err := s.ScanTableParts(table, 3, func(part int, ts uint64, row []byte, diff int64) error {
			got[part] = append(got[part], upd{ts, string(row), diff})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Fatalf("table %d (%d times): read in %d parts, want 3", table, len(times), n)
		}
		if all := slices.Concat(got...); !slices.Equal(all, whole) {
			t.Fatalf("table %d: the parts read %d updates, not the log's %d in its order", table, len(all), len(whole))
		}
		for i, p := range got {
			if len(p) < len(whole)/6 {
				t.Errorf("table %d (%d times): part %d holds %d of %d updates", table, len(times), i, len(p), len(whole))
			}
		}
	}
	// One small table is read whole.
	if n, err := s.ScanTableParts(1, 3, func(part int, ts uint64, row []byte, diff int64) error { return nil }); err != nil || n != 1 {
		t.Fatalf("a small log read in %d parts, %v", n, err)
	}
	stop := errors.New("stop")
	if _, err := s.ScanTableParts(2, 3, func(part int, ts uint64, row []byte, diff int64) error {
		if part == 1 && ts > 100 {
			return stop
		}
		return nil
	}); err != stop {
		t.Fatalf("a part's error ended the scan with %v", err)
	}
	if _, err := s.ScanTableParts(2, 3, func(part int, ts uint64, row []byte, diff int64) error {
		if part == 2 {
			panic("a bug")
		}
		return nil
	}); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("a part's panic ended the scan with %v", err)
	}
}

// TestStartCommit: a commit started and waited for later is Commit: two
// started before either is waited for both become durable, in one
// batch or two, and their updates scan back; a Txn that breaks an
// invariant or whose context is done before it is queued gives Commit's
// error from wait, every time it is asked, and changes nothing; a drop
// lets the next one run once waited for; once every wait has returned,
// Close finds nothing in flight; and a closed store refuses.
func TestStartCommit(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	ctx := context.Background()
	first := s.StartCommit(ctx, &Txn{Time: 1, Writes: []TableWrite{{Table: 1, Row: []byte("a"), Diff: 1}}})
	second := s.StartCommit(ctx, &Txn{Time: 2, Updates: blocksOf([]TableWrite{{Table: 1, Row: []byte("b"), Diff: 2}})})
	if err := second(); err != nil {
		t.Fatal(err)
	}
	if err := first(); err != nil {
		t.Fatal(err)
	}
	bad := s.StartCommit(ctx, &Txn{Time: 3, Writes: []TableWrite{{Table: 1, Row: []byte("c")}}})
	wantCode(t, "a zero diff", bad(), sqlerr.InvalidParameterValue)
	done, cancel := context.WithCancel(ctx)
	cancel()
	late := s.StartCommit(done, &Txn{Time: 4, Writes: []TableWrite{{Table: 1, Row: []byte("d"), Diff: 1}}})
	wantCode(t, "a canceled context", late(), sqlerr.QueryCanceled)
	wantCode(t, "a canceled context, asked again", late(), sqlerr.QueryCanceled)
	// A drop holds the store's maintenance lock until its wait: a
	// second drop after it completes.
	if err := s.StartCommit(ctx, &Txn{DropTables: []uint64{2}})(); err != nil {
		t.Fatal(err)
	}
	if err := s.DropTable(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "a closed store", s.StartCommit(ctx, &Txn{Time: 5, Writes: txnWrites(5)})(), sqlerr.AdminShutdown)
	s = openMem(t, fs)
	defer s.Close()
	want := []update{{"a", 1, 1}, {"b", 2, 2}}
	if got := scanUpdates(t, s, 1); !slices.Equal(got, want) {
		t.Fatalf("after a reopen: %v, want %v", got, want)
	}
}

// TestStartCommitWaitsForSync: wait returns a started commit's outcome
// only once its sync has: a sync that fails gives wait its 58030.
func TestStartCommitWaitsForSync(t *testing.T) {
	fs := newFaultFS()
	s := openMem(t, fs)
	defer s.Close()
	fs.hold()
	// More updates than a caller commits itself: the committer syncs it.
	wait := s.StartCommit(context.Background(), &Txn{Time: 1, Writes: largeWrites(1)})
	waitFor(t, "the commit to reach its sync", func() bool { return fs.heldSyncs() == 1 })
	outcome := make(chan error, 1)
	go func() { outcome <- wait() }()
	select {
	case err := <-outcome:
		t.Fatalf("wait returned %v while the sync was held", err)
	default:
	}
	fs.fail.Store(true)
	fs.release()
	wantCode(t, "wait after a failed sync", <-outcome, sqlerr.IOError)
}
