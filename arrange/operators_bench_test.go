package arrange

import (
	"fmt"
	"math"
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

// BenchmarkJoinFactRecord measures one new record on the side of a join
// that holds many records a key (a fact table: orders by customer),
// joined against a dimension of one record a key, one time step per
// record, at 100 and 1,000 records a key. Only the fact side changes, so
// the step reads the fact side's recent batches and the dimension's
// record: its cost should not grow with the records a key holds.
func BenchmarkJoinFactRecord(b *testing.B) {
	const keys = 1000
	for _, per := range []int{100, 1000} {
		b.Run(fmt.Sprintf("per-key=%d", per), func(b *testing.B) {
			var ina, inb *dataflow.InputHandle[Update]
			var outputs int
			bw := newOpBenchWorker(b, func(bl *dataflow.Builder) {
				ha, sa := dataflow.NewInputHandle[Update](bl, "facts")
				hb, sb := dataflow.NewInputHandle[Update](bl, "dimension")
				ina, inb = ha, hb
				out := Join(Arrange(sa, "arrange facts"), Arrange(sb, "arrange dimension"), "join", func(k, va, vb []byte) ([]byte, []byte) {
					return va, vb
				})
				dataflow.NewProbe(dataflow.Inspect(out, "count", func(uint64, Update) { outputs++ }))
			})
			facts := make([]Update, 0, keys*per)
			dims := make([]Update, 0, keys)
			for k := range keys {
				dims = append(dims, Update{Key: opBenchKey(k), Val: []byte("region"), Time: 0, Diff: 1})
				for j := range per {
					facts = append(facts, Update{Key: opBenchKey(k), Val: fmt.Appendf(nil, "order-%09d", k*per+j), Time: 0, Diff: 1})
				}
			}
			ina.Send(0, facts...)
			inb.Send(0, dims...)
			ina.Advance(1)
			inb.Advance(1)
			bw.settle()
			outputs = 0
			rng := rand.New(rand.NewPCG(5, 6))
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				tm := uint64(i + 1)
				ina.Send(tm, Update{Key: opBenchKey(rng.IntN(keys)), Val: fmt.Appendf(nil, "new-%09d", i), Time: tm, Diff: 1})
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
		})
	}
}

// BenchmarkJoinLongestStep hydrates a join over two arrangements that
// another dataflow already built and exported, as a view over existing
// tables does, and reports the longest single worker step (max-step-ms)
// beside the whole hydration (total-ms): with the fuel unbounded, as
// before joins were sliced, one step does the whole join; with the
// default fuel the longest step is one slice. Two shapes: a cross join
// (one key, 1000 × 1000 vals, a million records) and a one-to-one join of
// 200,000 keys.
func BenchmarkJoinLongestStep(b *testing.B) {
	shapes := []struct {
		name       string
		keys, vals int
	}{
		{"cross=1000x1000", 1, 1000},
		{"keys=200000", 200_000, 1},
	}
	for _, sh := range shapes {
		for _, fuel := range []struct {
			name string
			fuel int
		}{{"fuel=unbounded", math.MaxInt}, {"fuel=default", joinFuel}, {"fuel=10000", 10_000}} {
			b.Run(sh.name+"/"+fuel.name, func(b *testing.B) {
				old := joinFuel
				joinFuel = fuel.fuel
				defer func() { joinFuel = old }()
				var longest, total time.Duration
				var steps int
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					reg := NewRegistry(1)
					var ina, inb *dataflow.InputHandle[Update]
					bw := newOpBenchWorker(b, func(bl *dataflow.Builder) {
						ha, sa := dataflow.NewInputHandle[Update](bl, "a")
						hb, sb := dataflow.NewInputHandle[Update](bl, "b")
						ina, inb = ha, hb
						if err := reg.Export(bl, Arrange(sa, "arrange a"), 1); err != nil {
							b.Fatal(err)
						}
						if err := reg.Export(bl, Arrange(sb, "arrange b"), 2); err != nil {
							b.Fatal(err)
						}
					})
					for k := range sh.keys {
						upds := make([]Update, sh.vals)
						for v := range upds {
							upds[v] = Update{Key: opBenchKey(k), Val: opBenchKey(v), Time: 0, Diff: 1}
						}
						ina.Send(0, upds...)
						inb.Send(0, upds...)
					}
					ina.Advance(1)
					inb.Advance(1)
					bw.settle()
					outputs := 0
					bw.w.Enqueue(dataflow.Command{ID: 2, Build: func(bl *dataflow.Builder) {
						a, err := reg.Import(bl, 1, "import a")
						if err != nil {
							b.Fatal(err)
						}
						c, err := reg.Import(bl, 2, "import b")
						if err != nil {
							b.Fatal(err)
						}
						out := Join(a, c, "join", func(k, va, vb []byte) ([]byte, []byte) {
							return k, vb
						})
						dataflow.NewProbe(dataflow.Inspect(out, "count", func(uint64, Update) { outputs++ }))
					}})
					b.StartTimer()
					start := time.Now()
					for {
						s := time.Now()
						more := bw.w.Step()
						longest = max(longest, time.Since(s))
						steps++
						if !more {
							break
						}
					}
					total += time.Since(start)
					b.StopTimer()
					if want := sh.keys * sh.vals * sh.vals; outputs != want {
						b.Fatalf("%d outputs, want %d", outputs, want)
					}
				}
				b.ReportMetric(float64(longest.Microseconds())/1e3, "max-step-ms")
				b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "total-ms")
				b.ReportMetric(float64(steps)/float64(b.N), "steps")
			})
		}
	}
}
