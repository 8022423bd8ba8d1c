package storage

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkGroupCommit measures durable Txns per second on disk with 1, 8
// and 64 concurrent writers, each Txn four updates of about 40 bytes. The
// figure that matters is writes/s; txns/sync shows how many Txns shared
// each fsync.
func BenchmarkGroupCommit(b *testing.B) {
	for _, writers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range writers {
				wg.Go(func() {
					for {
						n := next.Add(1)
						if n > int64(b.N) {
							return
						}
						ts := uint64(n)
						ws := make([]TableWrite, 4)
						for i := range ws {
							ws[i] = TableWrite{Table: uint64(i), Row: fmt.Appendf(nil, "row %020d of txn %020d", i, ts), Diff: 1}
						}
						if err := s.Write(ctx, ts, ws); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			st := s.Stats()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
			if st.Syncs > 0 {
				b.ReportMetric(float64(st.Txns)/float64(st.Syncs), "txns/sync")
			}
		})
	}
}

// BenchmarkScanTable measures ScanTable over a log of 100,000 updates of
// about 40 bytes, on disk.
func BenchmarkScanTable(b *testing.B) {
	const txns, perTxn = 100, 1000
	dir := b.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for ts := uint64(1); ts <= txns; ts++ {
		ws := make([]TableWrite, perTxn)
		for i := range ws {
			ws[i] = TableWrite{Table: 1, Row: fmt.Appendf(nil, "row %020d of txn %020d", i, ts), Diff: 1}
		}
		if err := s.Write(ctx, ts, ws); err != nil {
			b.Fatal(err)
		}
	}
	// Reopen, so that the scan reads what recovery left, as at start-up.
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if s, err = Open(dir, Options{}); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	rows := 0
	for b.Loop() {
		err := s.ScanTable(1, func(ts uint64, row []byte, diff int64) error {
			rows++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if rows != b.N*txns*perTxn {
		b.Fatalf("scanned %d rows, want %d", rows, b.N*txns*perTxn)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// openStopped stops b's timer and opens a store on disk in a new
// directory.
func openStopped(b *testing.B) *Store {
	b.Helper()
	b.StopTimer()
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkBulkWrite measures a bulk load on disk: 1M updates of the
// benchmark's orders rows (about 15 bytes) in ten Txns of 100,000, then
// a flush of the memtable to a table file, so that the figure holds
// what pebble does with each key, not only the write-ahead log.
func BenchmarkBulkWrite(b *testing.B) {
	const txns, perTxn = 10, 100000
	rows := make([][]byte, txns*perTxn)
	for i := range rows {
		rows[i] = fmt.Appendf(nil, "\x01%08d\x02%05d\x03%04d", i, i%10000, i%1000)
	}
	ctx := context.Background()
	for b.Loop() {
		s := openStopped(b)
		b.StartTimer()
		for ts := range txns {
			ws := make([]TableWrite, perTxn)
			for i := range ws {
				ws[i] = TableWrite{Table: 1, Row: rows[ts*perTxn+i], Diff: 1}
			}
			if err := s.Write(ctx, uint64(ts+1), ws); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.db.Flush(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*txns*perTxn), "ns/update")
}

// BenchmarkCompactTable measures CompactTable over the log a churned
// table leaves: 1M rows loaded, then twice 1M more inserted and deleted
// (5M updates of 1M rows), on disk, in ten-thousand-update transactions.
func BenchmarkCompactTable(b *testing.B) {
	const rows, per = 1000000, 10000
	ctx := context.Background()
	for b.Loop() {
		s := openStopped(b)
		ts := uint64(0)
		write := func(lo int, diff int64) {
			for i := lo; i < lo+rows; i += per {
				ts++
				ws := make([]TableWrite, per)
				for j := range ws {
					ws[j] = TableWrite{Table: 1, Row: fmt.Appendf(nil, "\x01%08d\x02%05d", i+j, (i+j)%10000), Diff: diff}
				}
				if err := s.Write(ctx, ts, ws); err != nil {
					b.Fatal(err)
				}
			}
		}
		write(0, 1)
		for round := range 2 {
			write((round+1)*rows, 1)
			write((round+1)*rows, -1)
		}
		b.StartTimer()
		kept, err := s.CompactTable(ctx, 1, ts)
		if err != nil || kept != rows {
			b.Fatalf("kept %d, %v; want %d", kept, err, rows)
		}
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*5*rows), "ns/update")
}
