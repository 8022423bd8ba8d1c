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
