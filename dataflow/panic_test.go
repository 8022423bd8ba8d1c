package dataflow

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// The tests in this file check that each dataflow is its own failure
// domain (DESIGN.md, "Dataflow lifecycle and drop"): a panic in a build
// function or in an operator fails that dataflow on that worker, is
// reported with enough to find it, and stops nothing else.

// buildBoom is the value a panicking build function panics with.
type buildBoom struct{ worker int }

// operatorBoom is the value the "boom" operator panics with.
type operatorBoom struct{ worker, seen int }

// checkBuildFailures fails the test unless failures are exactly one
// "(build)" failure of dataflow id for each worker in want, each with
// its worker's panic value and a stack.
func checkBuildFailures(t *testing.T, failures []Failure, id ID, want []int) {
	t.Helper()
	if len(failures) != len(want) {
		t.Fatalf("%d failures, want %d: %v", len(failures), len(want), failures)
	}
	seen := make(map[int]bool)
	for _, f := range failures {
		if f.Dataflow != id || f.Operator != "(build)" || f.Value != (buildBoom{f.Worker}) || len(f.Stack) == 0 {
			t.Errorf("failure %+v: want dataflow %d, operator (build), value %v and a stack", f, id, buildBoom{f.Worker})
		}
		seen[f.Worker] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no failure reported by worker %d", w)
		}
	}
}

// checkNextDataflowWorks builds a small exchange dataflow and checks that
// it completes on every worker with the right output.
func checkNextDataflowWorks(t *testing.T, h *harness, salt uint64) {
	t.Helper()
	workers := len(h.Workers)
	col := newCollector(workers)
	id := h.Build(0, func(b *Builder) {
		s := source(b, "gen", 3, 15, salt, nil)
		s = relay(s, "shuffle", Exchange(mix), nil)
		capture(s, "capture", col)
	})
	h.runQuiet(t)
	h.checkEnds(t, id, Completed)
	want := sourceOutput(workers, 3, 15, salt, func(v uint64) (uint64, bool) { return v, true })
	checkSameTimed(t, "next dataflow's output", col.all(), want)
}

// TestBuildPanicFailsDataflowOnEveryWorker covers scenario 7 (a builder
// that fails the same way everywhere): each worker reports a "(build)"
// failure with its panic value and a stack, the dataflow ends Failed
// there, the operators built before the panic are shut down with Failed
// and never run, nothing of it stays live or is sent, late messages for
// it are discarded, and the next dataflow works.
func TestBuildPanicFailsDataflowOnEveryWorker(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 10, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			id := h.Build(0, func(b *Builder) {
				s := source(b, "gen", 2, 10, seed, h.log)
				relay(s, "shuffle", Exchange(mix), h.log)
				panic(buildBoom{b.Index()})
			})
			h.runQuiet(t)

			all := make([]int, workers)
			for w := range all {
				all[w] = w
			}
			checkBuildFailures(t, h.Failures, id, all)
			h.checkEnds(t, id, Failed)
			h.log.checkShutdownOnce(t, id, workers, Failed, "gen", "shuffle")
			for w := 0; w < workers; w++ {
				if n := h.log.schedules(opKey{id, w, "gen"}); n != 0 {
					t.Errorf("worker %d ran an operator of a failed build %d times", w, n)
				}
				if st := h.Workers[w].Stats(); st.Failed != 1 {
					t.Errorf("worker %d: %d failed, want 1", w, st.Failed)
				}
			}
			if n := h.sentTotal(id); n != 0 {
				t.Errorf("%d messages sent for a failed build", n)
			}
			h.checkClean(t)

			discarded := h.Stats().Discarded
			for to := 0; to < workers; to++ {
				h.Net.Send(Message{Channel: ChannelID{id, 1}, From: (to + 1) % workers, To: to, Data: []uint64{1}})
				h.Net.Send(Message{Channel: ChannelID{id, progressChannel}, From: (to + 1) % workers, To: to, Seq: 1, Progress: []Delta{{Loc: 1, Time: 0, Diff: 1}}})
			}
			h.runQuiet(t)
			if got := h.Stats().Discarded - discarded; got != int64(2*workers) {
				t.Errorf("discarded %d messages for the failed dataflow, want %d", got, 2*workers)
			}

			h.Failures = nil
			checkNextDataflowWorks(t, h, seed+1)
			h.checkNoFailures(t)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestBuildPanicOnOneWorkerIsReportedAndCoordinatorDrops covers scenario
// 7's other branch (a build that fails on one worker only): the failure
// is reported, never a silent divergence; the coordinator's drop ends
// the dataflow on the other workers; the failed worker discards its
// peers' traffic for it; and the next dataflow works.
func TestBuildPanicOnOneWorkerIsReportedAndCoordinatorDrops(t *testing.T) {
	forWorkers(t, []int{2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 20, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			bad := int(seed % uint64(workers))
			id := h.Build(0, func(b *Builder) {
				s := source(b, "gen", 2, 0, seed, h.log)
				s = relay(s, "shuffle", Exchange(mix), h.log)
				NewProbe(s)
				if b.Index() == bad {
					panic(buildBoom{bad})
				}
			})
			h.runUntil(t, "the failure and traffic towards the failed worker", func() bool {
				return len(h.Failures) > 0 && h.Workers[bad].Stats().Discarded > 0
			})
			h.runCoordinating(t)

			checkBuildFailures(t, h.Failures, id, []int{bad})
			for w := 0; w < workers; w++ {
				want := Dropped
				if w == bad {
					want = Failed
				}
				if !h.endedOn(w, id) || len(h.ends[id][w]) != 1 || h.ends[id][w][0] != want {
					t.Errorf("worker %d: end events %v, want one %v", w, h.ends[id], want)
				}
				if got := h.log.reasons(opKey{id, w, "shuffle"}); len(got) != 1 || got[0] != want {
					t.Errorf("worker %d: shuffle shut down with %v, want one %v", w, got, want)
				}
			}
			if n := h.sentBy(id, bad); n != 0 {
				t.Errorf("the failed worker sent %d messages for its failed build", n)
			}
			h.checkClean(t)

			h.Failures = nil
			checkNextDataflowWorks(t, h, seed+1)
			h.checkNoFailures(t)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// buildB returns the build function of clean dataflow B: a source, an
// exchange, a map, a capture and a probe.
func buildB(salt uint64, col *collector, probes []*Probe) func(*Builder) {
	return func(b *Builder) {
		s := source(b, "gen", 4, 24, salt, nil)
		s = Map(s, "triple", Exchange(mix), func(x uint64) uint64 { return 3*x + 1 })
		s = capture(s, "capture", col)
		p := NewProbe(s)
		if probes != nil {
			probes[b.Index()] = p
		}
	}
}

// buildC returns the build function of clean dataflow C: a source, a
// broadcast filter, an exchange on another key, a capture and a probe.
func buildC(salt uint64, col *collector, probes []*Probe) func(*Builder) {
	return func(b *Builder) {
		s := source(b, "gen", 3, 15, salt, nil)
		s = Filter(s, "thirds", Broadcast[uint64](), func(x uint64) bool { return x%3 != 0 })
		s = relay(s, "rekey", Exchange(func(x uint64) uint64 { return x >> 3 }), nil)
		s = capture(s, "capture", col)
		p := NewProbe(s)
		if probes != nil {
			probes[b.Index()] = p
		}
	}
}

// buildA returns the build function of dataflow A, whose operator "boom"
// panics on the workers boomOn selects once it has seen after records.
func buildA(salt uint64, boomOn func(w int) bool, after int, probes []*Probe) func(*Builder) {
	return func(b *Builder) {
		s := source(b, "gen", 4, 48, salt, nil)
		w := b.Index()
		seen := 0
		s = Unary(s, "boom", Exchange(mix), func(_ *Operator, c *Capability, in *Input[uint64], out *Output[uint64]) func() {
			c.Release()
			return func() {
				for {
					t, data, ok := in.Next()
					if !ok {
						return
					}
					seen += len(data)
					if boomOn(w) && seen >= after {
						panic(operatorBoom{w, seen})
					}
					out.GiveSlice(t, data)
				}
			}
		})
		p := NewProbe(s)
		if probes != nil {
			probes[b.Index()] = p
		}
	}
}

// referenceRun runs one dataflow alone on a fresh simulation and returns
// what its capture saw.
func referenceRun(t *testing.T, workers int, build func(col *collector) func(*Builder)) *collector {
	t.Helper()
	h := newHarness(workers, 1)
	col := newCollector(workers)
	id := h.Build(0, build(col))
	h.runQuiet(t)
	h.checkNoFailures(t)
	h.checkEnds(t, id, Completed)
	return col
}

// checkOperatorFailure fails the test unless f reports a panic of the
// "boom" operator of dataflow a, with its value and stack.
func checkOperatorFailure(t *testing.T, f Failure, a ID) {
	t.Helper()
	v, ok := f.Value.(operatorBoom)
	if f.Dataflow != a || f.Operator != "boom" || !ok || v.worker != f.Worker {
		t.Errorf("failure %+v: want dataflow %d, operator boom, the worker's panic value", f, a)
	}
	if !bytes.Contains(f.Stack, []byte("panic")) || !bytes.Contains(f.Stack, []byte("buildA")) {
		t.Errorf("failure's stack does not show the panic in the operator:\n%s", f.Stack)
	}
}

// TestOperatorPanicFailsOnlyItsDataflow covers scenario 20 on the Sim:
// of three dataflows, the middle one, A, has an operator that panics
// mid-stream on one worker (or on every worker). Each panic is reported
// with A's id, the worker, the operator, the value and a stack; A is
// failed on that worker and, after the coordinator's drop, dropped on
// the others; the two other dataflows complete with exactly the output
// they produce when run alone.
func TestOperatorPanicFailsOnlyItsDataflow(t *testing.T) {
	// The reference outputs depend on the worker count and the inputs
	// (the seed), not on the variant.
	type refKey struct {
		workers int
		seed    uint64
	}
	refs := make(map[refKey][2]*collector)
	for _, variant := range []string{"one-worker", "every-worker"} {
		t.Run(variant, func(t *testing.T) {
			forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
				forSeeds(t, 20, func(t *testing.T, seed uint64) {
					ref, ok := refs[refKey{workers, seed}]
					if !ok {
						ref[0] = referenceRun(t, workers, func(col *collector) func(*Builder) { return buildB(seed, col, nil) })
						ref[1] = referenceRun(t, workers, func(col *collector) func(*Builder) { return buildC(^seed, col, nil) })
						refs[refKey{workers, seed}] = ref
					}
					refB, refC := ref[0], ref[1]

					h := newHarness(workers, seed)
					victim := int(seed % uint64(workers))
					boomOn := func(w int) bool { return variant == "every-worker" || w == victim }
					colB, colC := newCollector(workers), newCollector(workers)
					b := h.Build(0, buildB(seed, colB, nil))
					a := h.Build(0, buildA(seed>>1, boomOn, 7, nil))
					c := h.Build(0, buildC(^seed, colC, nil))
					h.runCoordinating(t)

					if len(h.Failures) == 0 {
						t.Fatalf("no failure reported")
					}
					failed := make(map[int]bool)
					for _, f := range h.Failures {
						checkOperatorFailure(t, f, a)
						if failed[f.Worker] {
							t.Errorf("worker %d reported A's failure twice", f.Worker)
						}
						failed[f.Worker] = true
					}
					if variant == "one-worker" && (len(h.Failures) != 1 || !failed[victim]) {
						t.Errorf("failures %v, want one from worker %d", h.Failures, victim)
					}
					for w := 0; w < workers; w++ {
						want := Dropped
						if failed[w] {
							want = Failed
						}
						if !h.endedOn(w, a) || len(h.ends[a][w]) != 1 || h.ends[a][w][0] != want {
							t.Errorf("A on worker %d: end events %v, want one %v", w, h.ends[a], want)
						}
						checkSameTimed(t, "B's output on a worker", colB.perWorker(w), refB.perWorker(w))
						checkSameTimed(t, "C's output on a worker", colC.perWorker(w), refC.perWorker(w))
					}
					h.checkEnds(t, b, Completed)
					h.checkEnds(t, c, Completed)
					h.checkClean(t)
					h.checkSilence(t)
				})
			})
		})
	}
}

// TestOperatorPanicFailsOnlyItsDataflowOnCluster covers scenario 20 on
// the real Cluster: the failure arrives on Failures() with A's id, the
// worker, the operator, the value and a stack; the test, as coordinator,
// drops A; A's probes report ErrFailed where it failed and ErrDropped
// elsewhere; B and C complete with their reference output.
func TestOperatorPanicFailsOnlyItsDataflowOnCluster(t *testing.T) {
	const workers = 2
	const seed uint64 = 7
	for _, variant := range []string{"one-worker", "every-worker"} {
		t.Run(variant, func(t *testing.T) {
			t.Logf("inputs drawn from seed %d", seed)
			refB := referenceRun(t, workers, func(col *collector) func(*Builder) { return buildB(seed, col, nil) })
			refC := referenceRun(t, workers, func(col *collector) func(*Builder) { return buildC(^seed, col, nil) })

			c := NewCluster(Config{Workers: workers})
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			const victim = 1
			boomOn := func(w int) bool { return variant == "every-worker" || w == victim }
			colB, colC := newCollector(workers), newCollector(workers)
			probesA, probesB, probesC := make([]*Probe, workers), make([]*Probe, workers), make([]*Probe, workers)
			if _, err := c.Build(ctx, 0, buildB(seed, colB, probesB)); err != nil {
				t.Fatal(err)
			}
			a, err := c.Build(ctx, 0, buildA(seed>>1, boomOn, 7, probesA))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Build(ctx, 0, buildC(^seed, colC, probesC)); err != nil {
				t.Fatal(err)
			}

			var f Failure
			select {
			case f = <-c.Failures():
			case <-ctx.Done():
				t.Fatalf("no failure reported: %v", ctx.Err())
			}
			checkOperatorFailure(t, f, a)
			if variant == "one-worker" && f.Worker != victim {
				t.Errorf("failure from worker %d, want %d", f.Worker, victim)
			}
			if err := c.Drop(ctx, a); err != nil {
				t.Fatal(err)
			}
			for w, p := range probesA {
				_, err := p.Frontier()
				switch {
				case w == f.Worker && !errors.Is(err, ErrFailed):
					t.Fatalf("A's probe on worker %d: %v, want ErrFailed", w, err)
				case variant == "one-worker" && w != f.Worker && !errors.Is(err, ErrDropped):
					t.Fatalf("A's probe on worker %d: %v, want ErrDropped", w, err)
				case !errors.Is(err, ErrFailed) && !errors.Is(err, ErrDropped):
					t.Fatalf("A's probe on worker %d: %v, want ErrFailed or ErrDropped", w, err)
				}
			}
			for w := 0; w < workers; w++ {
				if err := probesB[w].WaitPast(ctx, MaxTime); err != nil {
					t.Fatalf("B on worker %d: %v", w, err)
				}
				if err := probesC[w].WaitPast(ctx, MaxTime); err != nil {
					t.Fatalf("C on worker %d: %v", w, err)
				}
			}
			for w := 0; w < workers; w++ {
				checkSameTimed(t, "B's output on a worker", colB.perWorker(w), refB.perWorker(w))
				checkSameTimed(t, "C's output on a worker", colC.perWorker(w), refC.perWorker(w))
			}
			waitFor(t, ctx, "B and C completed and A ended everywhere", func() bool {
				st := c.Stats()
				return st.Running == 0 && st.Completed == 2*workers && st.Completed+st.Dropped+st.Failed == 3*workers
			})
			st := c.Stats()
			if variant == "one-worker" && st.Failed != 1 {
				t.Errorf("stats %+v: want A failed on one worker", st)
			}
			if st.Operators != 0 || st.Channels != 0 || st.Held != 0 {
				t.Errorf("stats %+v: resources left", st)
			}
		})
	}
}

// TestInjectFaultFailsTheDataflowOnOneWorker checks the fault-injection
// command that tests above the runtime use: the dataflow fails on the
// named worker exactly as an operator panic would (reported, ended there
// with ErrFailed), stays running on the others until it is dropped, and
// a fault for an ended or unknown dataflow changes nothing.
func TestInjectFaultFailsTheDataflowOnOneWorker(t *testing.T) {
	const workers = 2
	c := NewCluster(Config{Workers: workers})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	probes := make([]*Probe, workers)
	id, err := c.Build(ctx, 0, func(b *Builder) {
		_, s := NewInputHandle[int](b, "in")
		probes[b.Index()] = NewProbe(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InjectFault(ctx, id, 1, "boom"); err != nil {
		t.Fatal(err)
	}
	var f Failure
	select {
	case f = <-c.Failures():
	case <-ctx.Done():
		t.Fatal("no failure reported")
	}
	if f.Dataflow != id || f.Worker != 1 || f.Value != "boom" || f.Operator != "(injected fault)" {
		t.Fatalf("failure %+v, want dataflow %d on worker 1 with value boom", f, id)
	}
	// The failure is reported when the fault is applied; the dataflow
	// ends on worker 1 after that step's run phase, so its probe may
	// learn of it a moment later. The input never advances: only the
	// failure can end the wait.
	if err := probes[1].WaitPast(ctx, 0); !errors.Is(err, ErrFailed) {
		t.Fatalf("worker 1's probe: %v, want ErrFailed", err)
	}
	if _, err := probes[0].Frontier(); err != nil {
		t.Fatalf("worker 0's probe: %v, want the dataflow still running there", err)
	}
	if err := c.Drop(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := c.InjectFault(ctx, id, 0, "late"); err != nil {
		t.Fatal(err)
	}
	if err := c.InjectFault(ctx, id+100, 0, "unknown"); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-c.Failures():
		t.Fatalf("a fault for an ended or unknown dataflow was reported: %+v", f)
	default:
	}
	if s := c.Stats(); s.Running != 0 || s.Failed != 1 {
		t.Fatalf("stats %+v, want nothing running and one failure", s)
	}
}
