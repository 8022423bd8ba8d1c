package dataflow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// attentionViolation describes how worker w breaks the attention list's
// invariant at a step boundary, or returns "": every dataflow on the list
// is live and listed once, and every live dataflow off it is quiescent,
// so a step that skips it misses nothing a full scan would have done.
func attentionViolation(w *Worker) string {
	listed := make(map[*dataflow]bool, len(w.attention))
	for _, df := range w.attention {
		switch {
		case listed[df]:
			return fmt.Sprintf("worker %d: dataflow %d listed twice", w.index, df.id)
		case !df.queued:
			return fmt.Sprintf("worker %d: dataflow %d listed but not marked queued", w.index, df.id)
		case df.state != Running || w.live[df.id] != df:
			return fmt.Sprintf("worker %d: dataflow %d listed but not live", w.index, df.id)
		}
		listed[df] = true
	}
	for _, id := range slices.Sorted(maps.Keys(w.live)) {
		df := w.live[id]
		if df.queued {
			if !listed[df] {
				return fmt.Sprintf("worker %d: dataflow %d marked queued but not listed", w.index, id)
			}
			continue
		}
		var why string
		switch {
		case df.hot:
			why = "an operator may need to run"
		case df.tracker.dirty:
			why = "its frontiers need a refresh"
		case len(df.pending) > 0:
			why = "it has deltas to publish"
		case df.failed:
			why = "it failed"
		case df.tracker.complete():
			why = "it is complete"
		}
		for _, op := range df.ops {
			if why == "" && (op.activated || op.again) {
				why = fmt.Sprintf("operator %s is activated", op.name)
			}
		}
		if why != "" {
			return fmt.Sprintf("worker %d: dataflow %d is off the attention list but %s", w.index, id, why)
		}
	}
	return ""
}

// TestStepVisitsOnlyDataflowsWithWork builds 300 idle dataflows and one
// busy one on two workers and gives the busy one work by every path:
// records and an advance from input handles, crossing an exchange (data
// and progress messages), an Activator used from another goroutine, an
// operator that asks to run again, and closing the inputs, which
// completes it. After every step it checks that the step visited at most
// the busy dataflow (Stats.Visits) and that the attention list's
// invariant holds; after each poke, that the work was done and that no
// idle operator ran. A scan of every live dataflow visits 301 per step; a
// mark that went missing leaves work undone.
func TestStepVisitsOnlyDataflowsWithWork(t *testing.T) {
	const workers, idle = 2, 300
	alloc := NewProcessAllocator(workers, nil)
	ws := make([]*Worker, workers)
	var failures []Failure
	for i := range ws {
		ws[i] = NewWorker(i, alloc, func(f Failure) { failures = append(failures, f) })
	}
	enqueueAll := func(c Command) {
		for _, w := range ws {
			w.Enqueue(c)
		}
	}
	// settle steps the workers in turn until a whole round does nothing.
	// Once checking, a step may visit at most one dataflow.
	checking := false
	settle := func(what string) {
		t.Helper()
		for round := 0; ; round++ {
			if round == 1000 {
				t.Fatalf("%s: workers still busy after %d rounds", what, round)
			}
			busy := false
			for _, w := range ws {
				before := w.Stats().Visits
				if w.Step() {
					busy = true
				}
				if n := w.Stats().Visits - before; checking && n > 1 {
					t.Fatalf("%s: a step of worker %d visited %d dataflows, want at most the busy one", what, w.index, n)
				}
				if msg := attentionViolation(w); msg != "" {
					t.Fatalf("%s: %s", what, msg)
				}
			}
			if !busy {
				break
			}
		}
		if len(failures) > 0 {
			t.Fatalf("%s: failures %v", what, failures)
		}
	}

	idleRuns := 0
	for i := 0; i < idle; i++ {
		enqueueAll(Command{ID: ID(i + 1), Build: func(b *Builder) {
			_, s := NewInputHandle[uint64](b, "input")
			Unary(s, "idle", Exchange(mix), func(_ *Operator, c *Capability, in *Input[uint64], _ *Output[uint64]) func() {
				c.Release()
				return func() {
					idleRuns++
					for {
						if _, _, ok := in.Next(); !ok {
							return
						}
					}
				}
			})
		}})
	}
	var (
		handles  [workers]*InputHandle[uint64]
		acts     [workers]*Activator
		probes   [workers]*Probe
		runs     [workers]int
		again    [workers]int
		received [workers][]uint64
	)
	busy := ID(idle + 1)
	enqueueAll(Command{ID: busy, Build: func(b *Builder) {
		w := b.Index()
		h, s := NewInputHandle[uint64](b, "input")
		handles[w] = h
		s = Map(s, "shuffle", Exchange(func(x uint64) uint64 { return x }), func(x uint64) uint64 { return x })
		s = Unary(s, "busy", Pipeline[uint64](), func(op *Operator, c *Capability, in *Input[uint64], out *Output[uint64]) func() {
			c.Release()
			acts[w] = op.Activator()
			return func() {
				runs[w]++
				for {
					tm, data, ok := in.Next()
					if !ok {
						break
					}
					received[w] = append(received[w], data...)
					out.GiveSlice(tm, data)
				}
				if again[w] > 0 {
					again[w]--
					op.Activate()
				}
			}
		})
		probes[w] = NewProbe(s)
	}})
	settle("build")
	if st := ws[0].Stats().Add(ws[1].Stats()); st.Running != workers*(idle+1) {
		t.Fatalf("after the builds: %+v", st)
	}
	baseIdleRuns := idleRuns
	checking = true

	// Records and an advance from input handles, across an exchange.
	if err := handles[0].Send(1, 10, 11, 12, 13); err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		if err := h.Advance(2); err != nil {
			t.Fatal(err)
		}
	}
	settle("input")
	for w := range ws {
		slices.Sort(received[w])
	}
	if !slices.Equal(received[0], []uint64{10, 12}) || !slices.Equal(received[1], []uint64{11, 13}) {
		t.Fatalf("records after the exchange: worker 0 %v, worker 1 %v", received[0], received[1])
	}
	for w, p := range probes {
		if f, err := p.Frontier(); err != nil || f != 2 {
			t.Fatalf("worker %d: probe at %s (%v), want 2", w, f, err)
		}
	}

	// An Activator used from another goroutine.
	before := runs
	var wg sync.WaitGroup
	wg.Go(func() { acts[1].Activate() })
	wg.Wait()
	settle("activator")
	if runs[0] != before[0] || runs[1] != before[1]+1 {
		t.Fatalf("after activating worker 1's operator: runs %v, were %v", runs, before)
	}

	// An operator that asks to run again, five times.
	before = runs
	again[0] = 5
	acts[0].Activate()
	settle("again")
	if runs[0] != before[0]+6 || runs[1] != before[1] {
		t.Fatalf("after five requests to run again: runs %v, were %v", runs, before)
	}

	// Closing the inputs completes the busy dataflow and empties the lists.
	for _, h := range handles {
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
	settle("close")
	for w, worker := range ws {
		if st := worker.Stats(); st.Completed != 1 || st.Running != idle {
			t.Fatalf("worker %d after close: %+v", w, st)
		}
		if len(worker.attention) != 0 {
			t.Fatalf("worker %d: %d dataflows still need attention", w, len(worker.attention))
		}
		if worker.Step() {
			t.Fatalf("worker %d: a step with only idle dataflows reported work", w)
		}
	}
	if idleRuns != baseIdleRuns {
		t.Fatalf("idle operators ran %d times after the builds", idleRuns-baseIdleRuns)
	}
}

// TestConcurrentInputPushesReachTheirDataflows feeds 40 dataflows on a
// two-worker cluster from 80 goroutines at once, one per input handle,
// each sending and advancing 200 times. Every push must reach its
// dataflow's input operator through the worker's remote queue: every
// record arrives and every probe passes the last time. A lost
// notification leaves a probe short of it (the context bound only turns
// that hang into a failure).
func TestConcurrentInputPushesReachTheirDataflows(t *testing.T) {
	const workers, flows, times = 2, 40, 200
	c := NewCluster(Config{Workers: workers})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	handles := make([][workers]*InputHandle[uint64], flows)
	probes := make([][workers]*Probe, flows)
	counts := make([]atomic.Int64, flows)
	for f := 0; f < flows; f++ {
		if _, err := c.Build(ctx, 0, func(b *Builder) {
			h, s := NewInputHandle[uint64](b, "input")
			handles[f][b.Index()] = h
			s = Map(s, "shuffle", Exchange(mix), func(x uint64) uint64 { return x })
			s = Inspect(s, "count", func(uint64, uint64) { counts[f].Add(1) })
			probes[f][b.Index()] = NewProbe(s)
		}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, flows*workers)
	for f := range handles {
		for w, h := range handles[f] {
			wg.Go(func() {
				for tm := uint64(0); tm < times; tm++ {
					// Two sends at one time, then the advance: pushes
					// both with and without an activation outstanding.
					if err := h.Send(tm, uint64(f*workers+w)); err != nil {
						errs <- err
						return
					}
					if err := h.Send(tm, tm); err != nil {
						errs <- err
						return
					}
					if err := h.Advance(tm + 1); err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for f := range probes {
		for w, p := range probes[f] {
			if err := p.WaitPast(ctx, times-1); err != nil {
				t.Fatalf("dataflow %d, worker %d: probe never passed %d: %v", f, w, times-1, err)
			}
		}
		if n := counts[f].Load(); n != workers*times*2 {
			t.Fatalf("dataflow %d: %d records arrived, want %d", f, n, workers*times*2)
		}
	}
}
