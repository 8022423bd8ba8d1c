package arrange

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"freshet/dataflow"
)

// opBenchWorker is one worker on its own allocator, stepped by the
// benchmark until quiet, so that a time step's whole cost (input,
// arrange, the operator, progress) is measured on one goroutine.
type opBenchWorker struct {
	w *dataflow.Worker
}

func newOpBenchWorker(b *testing.B, build func(*dataflow.Builder)) *opBenchWorker {
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { b.Fatal(f) })
	w.Enqueue(dataflow.Command{ID: 1, Build: build})
	bw := &opBenchWorker{w: w}
	bw.settle()
	return bw
}

func (bw *opBenchWorker) settle() {
	for bw.w.Step() {
	}
}

func opBenchKey(i int) []byte { return fmt.Appendf(nil, "key-%09d", i) }

// BenchmarkCountUpdate measures one update to a Count over n keys, one
// time step per update: the step's cost should not grow with n, as Count
// reads only the changed key's aggregate from its output trace.
func BenchmarkCountUpdate(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			var in *dataflow.InputHandle[Update]
			var count *Arranged
			bw := newOpBenchWorker(b, func(bl *dataflow.Builder) {
				h, s := dataflow.NewInputHandle[Update](bl, "input")
				in = h
				count = Count(Arrange(s, "arrange"), "count")
				dataflow.NewProbe(count.Batches)
			})
			upds := make([]Update, n)
			for i := range upds {
				upds[i] = Update{Key: opBenchKey(i), Val: []byte("v"), Time: 0, Diff: 1}
			}
			in.Send(0, upds...)
			in.Advance(1)
			bw.settle()
			rng := rand.New(rand.NewPCG(1, 2))
			keys := make([][]byte, 1024)
			for i := range keys {
				keys[i] = opBenchKey(rng.IntN(n))
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				tm := uint64(i + 1)
				in.Send(tm, Update{Key: keys[i%len(keys)], Val: []byte("w"), Time: tm, Diff: 1})
				in.Advance(tm + 1)
				bw.settle()
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/1e3, "µs/update")
			b.ReportMetric(float64(count.Trace.BatchCount()), "batches")
			in.Close()
			bw.settle()
		})
	}
}

// BenchmarkJoinRecord measures one new record joined against an
// arrangement of a million records (a million keys, one record each),
// one time step per record.
func BenchmarkJoinRecord(b *testing.B) {
	const n = 1_000_000
	var ina, inb *dataflow.InputHandle[Update]
	var outputs int
	bw := newOpBenchWorker(b, func(bl *dataflow.Builder) {
		ha, sa := dataflow.NewInputHandle[Update](bl, "a")
		hb, sb := dataflow.NewInputHandle[Update](bl, "b")
		ina, inb = ha, hb
		out := Join(Arrange(sa, "arrange a"), Arrange(sb, "arrange b"), "join", func(k, va, vb []byte) ([]byte, []byte) {
			return k, vb
		})
		dataflow.NewProbe(dataflow.Inspect(out, "count", func(uint64, Update) { outputs++ }))
	})
	upds := make([]Update, n)
	for i := range upds {
		upds[i] = Update{Key: opBenchKey(i), Val: []byte("right-side-val"), Time: 0, Diff: 1}
	}
	inb.Send(0, upds...)
	inb.Advance(1)
	ina.Advance(1)
	bw.settle()
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = opBenchKey(rng.IntN(n))
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		tm := uint64(i + 1)
		ina.Send(tm, Update{Key: keys[i%len(keys)], Val: []byte("left"), Time: tm, Diff: 1})
		ina.Advance(tm + 1)
		inb.Advance(tm + 1)
		bw.settle()
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if outputs != b.N {
		b.Fatalf("%d outputs for %d records", outputs, b.N)
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/1e3, "µs/record")
	ina.Close()
	inb.Close()
	bw.settle()
}
