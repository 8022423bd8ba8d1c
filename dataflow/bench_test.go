package dataflow

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkExchange measures records per second through an exchange
// channel on the real cluster: every worker sends batches of 1,024
// records, hashed across all workers, advancing its input after each
// batch; a probe after the exchange waits for every time to complete.
func BenchmarkExchange(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("W=%d", workers), func(b *testing.B) {
			c := NewCluster(Config{Workers: workers})
			defer c.Close()
			ctx := context.Background()
			handles := make([]*InputHandle[uint64], workers)
			probes := make([]*Probe, workers)
			if _, err := c.Build(ctx, 0, func(bl *Builder) {
				h, s := NewInputHandle[uint64](bl, "input")
				handles[bl.Index()] = h
				s = Map(s, "exchange", Exchange(func(x uint64) uint64 { return x * 0x9e3779b97f4a7c15 }), func(x uint64) uint64 { return x })
				probes[bl.Index()] = NewProbe(s)
			}); err != nil {
				b.Fatal(err)
			}
			const batch = 1024
			b.ResetTimer()
			start := time.Now()
			sent := 0
			for tm := uint64(0); sent < b.N; tm++ {
				for _, h := range handles {
					recs := make([]uint64, batch)
					for i := range recs {
						recs[i] = uint64(sent + i)
					}
					h.Send(tm, recs...)
					h.Advance(tm + 1)
				}
				sent += batch * workers
				// Keep a bounded number of times in flight.
				if tm%16 == 15 {
					for _, p := range probes {
						p.WaitPast(ctx, tm)
					}
				}
			}
			for _, h := range handles {
				h.Close()
			}
			for _, p := range probes {
				p.WaitPast(ctx, MaxTime)
			}
			b.ReportMetric(float64(sent)/time.Since(start).Seconds(), "records/s")
		})
	}
}

// BenchmarkProgressStep measures what progress tracking costs a worker
// step: one worker, a chain of ten operators, and an input that only
// advances, so every step's work is progress (a batch published and
// applied, frontiers recomputed, operators activated by the change).
func BenchmarkProgressStep(b *testing.B) {
	// idle is the number of other dataflows on the worker that have
	// nothing to do: a step should not pay for them.
	for _, idle := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("idle=%d", idle), func(b *testing.B) {
			alloc := NewProcessAllocator(1, nil)
			w := NewWorker(0, alloc, func(f Failure) { b.Fatal(f) })
			chain := func(bl *Builder) (*InputHandle[uint64], *Probe) {
				h, s := NewInputHandle[uint64](bl, "input")
				for i := 0; i < 10; i++ {
					s = Map(s, "map", Pipeline[uint64](), func(x uint64) uint64 { return x })
				}
				return h, NewProbe(s)
			}
			for i := 0; i < idle; i++ {
				w.Enqueue(Command{ID: ID(i + 1), Build: func(bl *Builder) { chain(bl) }})
			}
			var h *InputHandle[uint64]
			var p *Probe
			w.Enqueue(Command{ID: ID(idle + 1), Build: func(bl *Builder) { h, p = chain(bl) }})
			for w.Step() {
			}
			steps := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.Advance(uint64(i + 1))
				for w.Step() {
					steps++
				}
			}
			b.StopTimer()
			if ok, _ := p.Passed(uint64(b.N - 1)); !ok {
				b.Fatal("probe did not advance")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/advance")
		})
	}
}

// BenchmarkCreateDrop measures building and dropping a ten-operator
// dataflow on every worker of a running cluster.
func BenchmarkCreateDrop(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("W=%d", workers), func(b *testing.B) {
			c := NewCluster(Config{Workers: workers})
			defer c.Close()
			ctx := context.Background()
			build := func(bl *Builder) {
				_, s := NewInputHandle[uint64](bl, "input")
				for i := 0; i < 8; i++ {
					s = Map(s, "map", Exchange(func(x uint64) uint64 { return x }), func(x uint64) uint64 { return x })
				}
				NewProbe(s)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id, err := c.Build(ctx, 0, build)
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Drop(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/cycle")
		})
	}
}
