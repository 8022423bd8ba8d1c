package dataflow

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"go.uber.org/goleak"
)

// The tests in this file check that an ended dataflow leaves nothing
// behind: no memory, goroutine, map entry or counter, and that its
// external handles (inputs, probes, activators) become inert (I11).

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// cycleState is what one create/drop cycle of
// TestClusterCreateDropCyclesLeakNothing keeps of its dataflow.
type cycleState struct {
	activators [2]*Activator
	ticks      [2]atomic.Int64
	ended      [2]atomic.Bool
}

// TestClusterCreateDropCyclesLeakNothing covers scenario 23 and H8 on the
// real Cluster with two workers: 10,000 create/drop cycles get strictly
// increasing ids; in every cycle the previous dataflow's Activators,
// activated after its drop, schedule nothing (neither their own operator
// nor the newer dataflow's operator of the same index); afterwards the
// live counters are zero, the workers' maps are empty, and the goroutine
// count and the heap are back at their baselines; after Close no
// goroutine is left.
func TestClusterCreateDropCyclesLeakNothing(t *testing.T) {
	const cycles = 10000
	const workers = 2
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := NewCluster(Config{Workers: workers})
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()

	var scheduledAfterEnd atomic.Int64
	build := func(st *cycleState) func(*Builder) {
		return func(b *Builder) {
			w := b.Index()
			_, s := NewInputHandle[uint64](b, "input")
			ob := b.NewOperator("tick")
			NewInput(ob, s, Exchange(mix))
			ob.Build(func(op *Operator, _ []*Capability) Logic {
				st.activators[w] = op.Activator()
				return logicFuncs{
					schedule: func() {
						if st.ended[w].Load() {
							scheduledAfterEnd.Add(1)
						}
						st.ticks[w].Add(1)
					},
					shutdown: func(Reason) { st.ended[w].Store(true) },
				}
			})
		}
	}
	// barrier returns once every worker has finished the step in which it
	// took anything enqueued before the call: a command is applied at the
	// start of a step and a second one only in a later step, after the
	// first step's operators ran. An Exec that finishes at once is such a
	// command on every worker.
	barrier := func(ID) {
		for i := 0; i < 2; i++ {
			if err := c.Exec(ctx, func(int) bool { return true }); err != nil {
				t.Fatal(err)
			}
		}
	}

	baseGoroutines := runtime.NumGoroutine()
	baseHeap := heapAlloc()
	var prev *cycleState
	var prevID ID
	for i := 0; i < cycles; i++ {
		st := &cycleState{}
		id, err := c.Build(ctx, 0, build(st))
		if err != nil {
			t.Fatal(err)
		}
		if id <= prevID {
			t.Fatalf("cycle %d: id %d after %d", i, id, prevID)
		}
		if prev != nil {
			for _, a := range prev.activators {
				a.Activate()
			}
		}
		barrier(prevID)
		for w := range st.ticks {
			// The operator runs once at the start and never again: it has
			// no input traffic, and a stale Activator must not reach it.
			if n := st.ticks[w].Load(); n != 1 {
				t.Fatalf("cycle %d: dataflow %d's operator on worker %d ran %d times, want 1 (a stale activation reached it?)", i, id, w, n)
			}
		}
		if err := c.Drop(ctx, id); err != nil {
			t.Fatal(err)
		}
		prev, prevID = st, id
	}
	for _, a := range prev.activators {
		a.Activate()
	}
	barrier(prevID)
	if n := scheduledAfterEnd.Load(); n != 0 {
		t.Errorf("operators ran %d times after their dataflow ended", n)
	}

	st := c.Stats()
	if st.Building != 0 || st.Running != 0 || st.Operators != 0 || st.Channels != 0 || st.Held != 0 || st.Tombstones != 0 {
		t.Errorf("live counters after %d cycles: %+v", cycles, st)
	}
	if st.Dropped != cycles*workers || st.Completed != 0 || st.Failed != 0 {
		t.Errorf("end counters after %d cycles: %+v", cycles, st)
	}
	// The goroutine that waits for a command's completion exits just after
	// the command's caller returns; wait for it rather than assume.
	waitFor(t, ctx, "goroutine count back at its baseline", func() bool { return runtime.NumGoroutine() <= baseGoroutines })
	const margin = 2 << 20
	if heap := heapAlloc(); heap > baseHeap+margin {
		t.Errorf("heap grew from %d to %d bytes over %d cycles", baseHeap, heap, cycles)
	}

	c.Close()
	closed = true
	for _, w := range c.workers {
		if len(w.live) != 0 || len(w.attention) != 0 || len(w.held) != 0 || len(w.tombstones) != 0 {
			t.Errorf("worker %d: %d live, %d needing attention, %d held, %d tombstones", w.index, len(w.live), len(w.attention), len(w.held), len(w.tombstones))
		}
		if w.hwm != prevID {
			t.Errorf("worker %d: highest id built %d, want %d", w.index, w.hwm, prevID)
		}
	}
	goleak.VerifyNone(t, ignore)
}

// TestHandlesAfterDropReturnErrDropped covers scenario 24, H9 and H10 on
// the Sim and on the Cluster: after a drop, InputHandle.Send, Advance and
// Close return ErrDropped and queue nothing (100,000 records sent after
// the drop leave the heap where it was); Probe.Frontier and Passed return
// ErrDropped; Probe.WaitPast returns ErrDropped, both to callers already
// blocked in it when the drop happens and to later callers.
func TestHandlesAfterDropReturnErrDropped(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 3, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			inputs := make([]*InputHandle[uint64], workers)
			probes := make([]*Probe, workers)
			id := h.Build(0, func(b *Builder) {
				in, s := NewInputHandle[uint64](b, "input")
				inputs[b.Index()] = in
				s = relay(s, "shuffle", Exchange(mix), nil)
				probes[b.Index()] = NewProbe(s)
			})
			h.runUntil(t, "built", func() bool { return allSet(inputs) })
			for w, in := range inputs {
				if err := in.Send(0, uint64(w)); err != nil {
					t.Fatal(err)
				}
				if err := in.Advance(2); err != nil {
					t.Fatal(err)
				}
			}
			h.runQuiet(t)

			// The bound only turns a probe that never wakes into a failure.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			waiting := make(chan error, workers)
			for _, p := range probes {
				go func() { waiting <- p.WaitPast(ctx, 100) }()
			}
			h.Drop(id)
			h.runQuiet(t)
			h.checkEnds(t, id, Dropped)
			checkWaitersDropped(t, waiting, probes)
			checkHandlesDropped(t, ctx, inputs, probes)
			h.runQuiet(t)
			h.checkNoFailures(t)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
	t.Run("cluster", func(t *testing.T) {
		const workers = 2
		c := NewCluster(Config{Workers: workers})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		inputs := make([]*InputHandle[uint64], workers)
		probes := make([]*Probe, workers)
		id, err := c.Build(ctx, 0, func(b *Builder) {
			in, s := NewInputHandle[uint64](b, "input")
			inputs[b.Index()] = in
			s = relay(s, "shuffle", Exchange(mix), nil)
			probes[b.Index()] = NewProbe(s)
		})
		if err != nil {
			t.Fatal(err)
		}
		for w, in := range inputs {
			if err := in.Send(0, uint64(w)); err != nil {
				t.Fatal(err)
			}
			if err := in.Advance(2); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range probes {
			if err := p.WaitPast(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
		waiting := make(chan error, workers)
		for _, p := range probes {
			go func() { waiting <- p.WaitPast(ctx, 100) }()
		}
		if err := c.Drop(ctx, id); err != nil {
			t.Fatal(err)
		}
		checkWaitersDropped(t, waiting, probes)
		checkHandlesDropped(t, ctx, inputs, probes)
		if st := c.Stats(); st.Running != 0 || st.Operators != 0 || st.Channels != 0 {
			t.Errorf("stats after drop: %+v", st)
		}
	})
}

// checkWaitersDropped checks that the probes say their dataflow was
// dropped and that the callers blocked in WaitPast across the drop
// returned ErrDropped.
func checkWaitersDropped(t *testing.T, waiting chan error, probes []*Probe) {
	t.Helper()
	// Checked first, so that a probe that was never told fails the test
	// at once rather than when the waiters' context ends.
	for w, p := range probes {
		if _, err := p.Frontier(); !errors.Is(err, ErrDropped) {
			t.Fatalf("worker %d: Probe.Frontier after drop: %v, want ErrDropped", w, err)
		}
	}
	for range probes {
		if err := <-waiting; !errors.Is(err, ErrDropped) {
			t.Fatalf("WaitPast blocked across the drop returned %v, want ErrDropped", err)
		}
	}
}

// checkHandlesDropped checks every handle of a dropped dataflow.
func checkHandlesDropped(t *testing.T, ctx context.Context, inputs []*InputHandle[uint64], probes []*Probe) {
	t.Helper()
	for w, in := range inputs {
		if err := in.Send(3, 1, 2, 3); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Send after drop: %v, want ErrDropped", w, err)
		}
		if err := in.Advance(4); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Advance after drop: %v, want ErrDropped", w, err)
		}
		if err := in.Close(); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Close after drop: %v, want ErrDropped", w, err)
		}
		if err := in.Send(5, 1); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Send after drop and Close: %v, want ErrDropped", w, err)
		}
	}
	for w, p := range probes {
		if _, err := p.Frontier(); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Probe.Frontier after drop: %v, want ErrDropped", w, err)
		}
		if _, err := p.Passed(0); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Probe.Passed after drop: %v, want ErrDropped", w, err)
		}
		// Past 0 the frontier already was; past 1000 it never will be:
		// either way the caller learns of the drop, not a frontier.
		for _, past := range []uint64{0, 1000} {
			if err := p.WaitPast(ctx, past); !errors.Is(err, ErrDropped) {
				t.Fatalf("worker %d: Probe.WaitPast(%d) after drop: %v, want ErrDropped", w, past, err)
			}
		}
	}

	in := inputs[0]
	before := heapAlloc()
	for i := 0; i < 100000; i++ {
		if err := in.Send(uint64(10+i), uint64(i), uint64(i)+1); !errors.Is(err, ErrDropped) {
			t.Fatalf("Send %d after drop: %v", i, err)
		}
	}
	in.mu.Lock()
	queued := len(in.mu.ops)
	in.mu.Unlock()
	if queued != 0 {
		t.Errorf("%d operations queued on an input handle after its drop", queued)
	}
	const margin = 1 << 20
	if after := heapAlloc(); after > before+margin {
		t.Errorf("heap grew from %d to %d bytes while sending to a dropped input", before, after)
	}
}

// TestClusterCloseReleasesPendingCommands covers H16 and scenario 23's
// goroutine half: Close says it waits for the cluster's goroutines to
// exit. A command still queued when Close stops the workers (here: a
// Build queued behind a build function that is running) must leave no
// goroutine behind, and its caller must get ErrClusterClosed rather than
// wait for its context to end; so must Build and Drop after Close.
func TestClusterCloseReleasesPendingCommands(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	c := NewCluster(Config{Workers: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	entered, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := c.Build(ctx, 0, func(b *Builder) {
			if b.Index() == 0 {
				close(entered)
				<-release
			}
		})
		first <- err
	}()
	<-entered
	// Worker 0 is inside its step, building; queue a second build behind.
	second := make(chan error, 1)
	go func() {
		_, err := c.Build(ctx, 0, func(*Builder) {})
		second <- err
	}()
	w0 := c.workers[0]
	waitFor(t, ctx, "second build queued on worker 0", func() bool {
		w0.remote.Lock()
		defer w0.remote.Unlock()
		return len(w0.remote.commands) > 0
	})
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	<-c.stop
	close(release)
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatalf("Close did not return: %v", ctx.Err())
	}
	// The first build was applied everywhere, perhaps only after Close
	// began; either answer is right.
	if err := <-first; err != nil && !errors.Is(err, ErrClusterClosed) {
		t.Errorf("first build: %v", err)
	}
	// The second was never applied on worker 0.
	if err := <-second; !errors.Is(err, ErrClusterClosed) {
		t.Errorf("build pending at Close: %v, want ErrClusterClosed", err)
	}
	if _, err := c.Build(ctx, 0, func(*Builder) {}); !errors.Is(err, ErrClusterClosed) {
		t.Errorf("Build after Close: %v, want ErrClusterClosed", err)
	}
	if err := c.Drop(ctx, 1); !errors.Is(err, ErrClusterClosed) {
		t.Errorf("Drop after Close: %v, want ErrClusterClosed", err)
	}
	goleak.VerifyNone(t, ignore)
}

// TestEndedDataflowIsUnreachable covers scenario 23's memory half and
// DESIGN's "free the state": once a dataflow ended on a worker (dropped
// while others still run, dropped as the last one, completed, or failed)
// the worker keeps no reference to it, so its operators' state is
// collectable at once, not only after some later build reuses a slot.
// Each operator's state is watched through a weak pointer; the test keeps
// no handle of the dataflow.
func TestEndedDataflowIsUnreachable(t *testing.T) {
	type state struct{ buf [1 << 12]byte }
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 3, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			watched := make(map[ID][]weak.Pointer[state])
			// build returns a build function whose "hold" operator keeps a
			// state watched under the dataflow's id; with total 0 its
			// source never ends, and with boom its operator panics.
			build := func(total int, boom bool) func(*Builder) {
				return func(b *Builder) {
					st := new(state)
					watched[b.ID()] = append(watched[b.ID()], weak.Make(st))
					s := source(b, "gen", 2, total, seed, nil)
					Unary(s, "hold", Exchange(mix), func(_ *Operator, c *Capability, in *Input[uint64], _ *Output[uint64]) func() {
						c.Release()
						return func() {
							for {
								_, data, ok := in.Next()
								if !ok {
									return
								}
								st.buf[data[0]%uint64(len(st.buf))]++
								if boom {
									panic("boom")
								}
							}
						}
					})
				}
			}
			reachable := func(id ID) int {
				runtime.GC()
				n := 0
				for _, p := range watched[id] {
					if p.Value() != nil {
						n++
					}
				}
				return n
			}

			first := h.Build(0, build(0, false))
			middle := h.Build(0, build(0, false))
			last := h.Build(0, build(0, false))
			h.runUntil(t, "all running", func() bool {
				return h.liveEverywhere(first) && h.liveEverywhere(middle) && h.liveEverywhere(last)
			})
			h.Drop(middle)
			h.runUntil(t, "middle dropped", func() bool { return h.endedEverywhere(middle) })
			if n := reachable(middle); n != 0 {
				t.Errorf("dropped while others run: %d of %d workers still reach its state", n, workers)
			}
			h.Drop(last)
			h.runUntil(t, "last dropped", func() bool { return h.endedEverywhere(last) })
			if n := reachable(last); n != 0 {
				t.Errorf("dropped as the newest: %d of %d workers still reach its state", n, workers)
			}
			h.Drop(first)
			h.runQuiet(t)
			if n := reachable(first); n != 0 {
				t.Errorf("dropped as the only one left: %d of %d workers still reach its state", n, workers)
			}

			completed := h.Build(0, build(6, false))
			h.runQuiet(t)
			h.checkEnds(t, completed, Completed)
			if n := reachable(completed); n != 0 {
				t.Errorf("completed: %d of %d workers still reach its state", n, workers)
			}
			failed := h.Build(0, build(6, true))
			h.runCoordinating(t)
			if n := reachable(failed); n != 0 {
				t.Errorf("failed: %d of %d workers still reach its state", n, workers)
			}
			h.checkClean(t)
		})
	})
}

// TestOperatorGoroutinesStopWhenDataflowEnds covers H16 (goroutines of
// async operators are cancelled through a context): goroutines started
// with the builder's and an operator's context all return once the
// dataflow ended on their worker, whether it was dropped, completed or
// failed, and not before.
func TestOperatorGoroutinesStopWhenDataflowEnds(t *testing.T) {
	for _, want := range []Reason{Dropped, Completed, Failed} {
		t.Run(want.String(), func(t *testing.T) {
			forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
				forSeeds(t, 3, func(t *testing.T, seed uint64) {
					h := newHarness(workers, seed)
					var running atomic.Int64
					var wg sync.WaitGroup
					watch := func(ctx context.Context) {
						running.Add(1)
						wg.Add(1)
						go func() {
							defer wg.Done()
							<-ctx.Done()
							running.Add(-1)
						}()
					}
					total := 0
					if want == Completed {
						total = 6
					}
					id := h.Build(0, func(b *Builder) {
						watch(b.Context())
						s := source(b, "gen", 2, total, seed, nil)
						Unary(s, "async", Exchange(mix), func(op *Operator, c *Capability, in *Input[uint64], _ *Output[uint64]) func() {
							c.Release()
							watch(op.Context())
							return func() {
								for {
									if _, _, ok := in.Next(); !ok {
										return
									}
									if want == Failed {
										panic("boom")
									}
								}
							}
						})
					})
					if want == Dropped {
						h.runUntil(t, "running everywhere", func() bool { return h.liveEverywhere(id) })
						if n := running.Load(); n != int64(2*workers) {
							t.Fatalf("%d goroutines running before the drop, want %d", n, 2*workers)
						}
						h.Drop(id)
					}
					h.runCoordinating(t)
					if !h.endedEverywhere(id) {
						t.Fatalf("dataflow did not end everywhere: %v", h.ends[id])
					}
					done := make(chan struct{})
					go func() {
						wg.Wait()
						close(done)
					}()
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					select {
					case <-done:
					case <-ctx.Done():
						t.Fatalf("%d operator goroutines still running after the dataflow ended", running.Load())
					}
				})
			})
		})
	}
}

// TestClusterCloseDropsRunningDataflows covers I11 and H16 at shutdown:
// Close drops the dataflows still running, so their handles become inert
// (a caller blocked in WaitPast gets ErrDropped, an input returns
// ErrDropped), their operators' goroutines stop, and no goroutine is left.
func TestClusterCloseDropsRunningDataflows(t *testing.T) {
	const workers = 2
	ignore := goleak.IgnoreCurrent()
	c := NewCluster(Config{Workers: workers})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inputs := make([]*InputHandle[uint64], workers)
	probes := make([]*Probe, workers)
	var reasons [workers]atomic.Int64
	for i := 0; i < 3; i++ {
		_, err := c.Build(ctx, 0, func(b *Builder) {
			w := b.Index()
			in, s := NewInputHandle[uint64](b, "input")
			ob := b.NewOperator("async")
			NewInput(ob, s, Exchange(mix))
			ob.Build(func(op *Operator, _ []*Capability) Logic {
				go func() { <-op.Context().Done() }()
				return logicFuncs{schedule: func() {}, shutdown: func(r Reason) {
					if r == Dropped {
						reasons[w].Add(1)
					}
				}}
			})
			if i == 0 {
				inputs[w] = in
				probes[w] = NewProbe(s)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	waiting := make(chan error, workers)
	for _, p := range probes {
		go func() { waiting <- p.WaitPast(ctx, 1) }()
	}
	c.Close()
	checkWaitersDropped(t, waiting, probes)
	for w, in := range inputs {
		if err := in.Send(1, 1); !errors.Is(err, ErrDropped) {
			t.Errorf("worker %d: Send after Close: %v, want ErrDropped", w, err)
		}
		if n := reasons[w].Load(); n != 3 {
			t.Errorf("worker %d: %d operators shut down with Dropped, want 3", w, n)
		}
	}
	if st := c.Stats(); st.Running != 0 || st.Dropped != 3*workers || st.Operators != 0 || st.Channels != 0 {
		t.Errorf("stats after Close: %+v", st)
	}
	goleak.VerifyNone(t, ignore)
}
