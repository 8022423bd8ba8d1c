package arrange

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchKeys holds n random 16-byte keys in one arena, without a slice
// header per key for the collector to scan.
type benchKeys []byte

func newBenchKeys(n int) benchKeys {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make(benchKeys, 16*n)
	for i := 0; i < len(keys); i += 8 {
		binary.LittleEndian.PutUint64(keys[i:], rng.Uint64())
	}
	return keys
}

func (k benchKeys) key(i int) []byte {
	i %= len(k) / 16
	return k[16*i : 16*i+16]
}

// BenchmarkArrange measures the throughput of arranging: pushing updates
// with 16-byte keys and 8-byte vals into a batcher, sealing every seal
// updates, and inserting each batch into a trace, whose spine merges with
// the fuel the inserts pay. One op is one update.
func BenchmarkArrange(b *testing.B) {
	keys := newBenchKeys(1 << 20)
	for _, seal := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprintf("seal=%d", seal), func(b *testing.B) {
			b.ReportAllocs()
			tr := NewTrace(1)
			batcher := NewBatcher(0)
			var val [8]byte
			time := uint64(0)
			for i := 0; b.Loop(); i++ {
				binary.BigEndian.PutUint64(val[:], uint64(i))
				batcher.Push(keys.key(i), val[:], time, 1)
				if (i+1)%seal == 0 {
					time++
					if err := tr.Insert(batcher.Seal(time)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}

// BenchmarkArrangedBytes measures the memory an arranged update costs:
// 1M updates with distinct 16-byte keys and 8-byte vals (24 bytes of
// payload each), arranged in 1K-update seals, then merged into one batch.
// It reports the trace's bytes per update as built (B/update), after
// merging (merged-B/update), and the overhead beyond the payload of the
// merged form (overhead-B/update), which the design aims to hold to 24.
func BenchmarkArrangedBytes(b *testing.B) {
	const n, seal, payload = 1 << 20, 1 << 10, 16 + 8
	keys := newBenchKeys(n)
	var fresh, merged float64
	for b.Loop() {
		tr := NewTrace(1)
		batcher := NewBatcher(0)
		var val [8]byte
		for i := range n {
			binary.BigEndian.PutUint64(val[:], uint64(i))
			batcher.Push(keys.key(i), val[:], uint64(i/seal), 1)
			if (i+1)%seal == 0 {
				if err := tr.Insert(batcher.Seal(uint64(i/seal + 1))); err != nil {
					b.Fatal(err)
				}
			}
		}
		fresh = float64(tr.Bytes()) / n
		tr.MergeAll()
		merged = float64(tr.Bytes()) / n
	}
	b.ReportMetric(fresh, "B/update")
	b.ReportMetric(merged, "merged-B/update")
	b.ReportMetric(merged-payload, "overhead-B/update")
}

// BenchmarkMerge measures one merge of two batches of 1M updates each,
// with 16-byte keys that interleave (each run of keys that one side alone
// holds is a single key, the worst case for copying runs) and 8-byte
// vals. "interleaved" merges without compaction; "compacting" gives each
// key two times that the since collapses into one, which takes the
// per-update path. One op is one input update.
func BenchmarkMerge(b *testing.B) {
	const n = 1 << 20
	build := func(lower uint64, parity, times int) *Batch {
		var bld Builder
		key := make([]byte, 16)
		var val [8]byte
		for i := range n / times {
			binary.BigEndian.PutUint64(key, uint64(2*i+parity))
			binary.BigEndian.PutUint64(key[8:], uint64(i)*0x9e3779b97f4a7c15)
			binary.BigEndian.PutUint64(val[:], uint64(i))
			for t := range times {
				bld.Push(key, val[:], lower+uint64(t), 1)
			}
		}
		return bld.Done(Description{Lower: lower, Upper: lower + uint64(times)})
	}
	for _, tc := range []struct {
		name  string
		times int
		since uint64
	}{
		{"interleaved", 1, 0},
		{"compacting", 2, 4},
	} {
		b.Run(tc.name, func(b *testing.B) {
			older := build(0, 0, tc.times)
			newer := build(uint64(tc.times), 1, tc.times)
			runtime.GC()
			b.ResetTimer()
			for done := 0; done < b.N; done += 2 * n {
				newMerger(older, newer, tc.since).work(int64(b.N - done))
			}
		})
	}
}
