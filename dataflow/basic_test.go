package dataflow

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestSimPipelineCompletes(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		for seed := uint64(1); seed <= 20; seed++ {
			sim := NewSim(workers, seed)
			handles := make([]*InputHandle[uint64], workers)
			probes := make([]*Probe, workers)
			got := make([][]uint64, workers)
			sim.Build(0, func(b *Builder) {
				in, s := NewInputHandle[uint64](b, "input")
				handles[b.Index()] = in
				s = Map(s, "double", Exchange(func(x uint64) uint64 { return x }), func(x uint64) uint64 { return 2 * x })
				w := b.Index()
				s = Inspect(s, "capture", func(_ uint64, r uint64) { got[w] = append(got[w], r) })
				probes[w] = NewProbe(s)
			})
			if !sim.RunUntil(100000, func() bool {
				for _, h := range handles {
					if h == nil {
						return false
					}
				}
				return true
			}) {
				t.Fatalf("seed %d: not built", seed)
			}
			for w, h := range handles {
				for i := uint64(0); i < 10; i++ {
					if err := h.Send(i/3, uint64(w)*100+i); err != nil {
						t.Fatal(err)
					}
				}
				if err := h.Advance(5); err != nil {
					t.Fatal(err)
				}
			}
			if !sim.RunUntil(100000, allPassed(probes, 4)) {
				t.Fatalf("seed %d W=%d: frontier never passed 4", seed, workers)
			}
			for _, h := range handles {
				h.Close()
			}
			if !sim.Run(100000) {
				t.Fatalf("seed %d: did not quiesce", seed)
			}
			var all []uint64
			for _, g := range got {
				all = append(all, g...)
			}
			slices.Sort(all)
			var want []uint64
			for w := 0; w < workers; w++ {
				for i := uint64(0); i < 10; i++ {
					want = append(want, 2*(uint64(w)*100+i))
				}
			}
			slices.Sort(want)
			if !slices.Equal(all, want) {
				t.Fatalf("seed %d W=%d: got %v want %v", seed, workers, all, want)
			}
			st := sim.Stats()
			if st.Completed != int64(workers) || st.Running != 0 || len(sim.Failures) != 0 {
				t.Fatalf("seed %d W=%d: stats %+v failures %v", seed, workers, st, sim.Failures)
			}
			for _, p := range probes {
				if f, err := p.Frontier(); err != nil || !f.IsDone() {
					t.Fatalf("probe %v %v", f, err)
				}
			}
		}
	}
}

// allPassed returns a condition for Sim.RunUntil: every probe's frontier
// has passed t.
func allPassed(probes []*Probe, t uint64) func() bool {
	return func() bool {
		for _, p := range probes {
			if ok, _ := p.Passed(t); !ok {
				return false
			}
		}
		return true
	}
}

func TestClusterPipeline(t *testing.T) {
	c := NewCluster(Config{Workers: 2})
	defer c.Close()
	handles := make([]*InputHandle[uint64], 2)
	probes := make([]*Probe, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.Build(ctx, 0, func(b *Builder) {
		in, s := NewInputHandle[uint64](b, "input")
		handles[b.Index()] = in
		s = Map(s, "inc", Exchange(func(x uint64) uint64 { return x }), func(x uint64) uint64 { return x + 1 })
		probes[b.Index()] = NewProbe(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		h.Send(1, 1, 2, 3)
		h.Advance(2)
	}
	for _, p := range probes {
		if err := p.WaitPast(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range handles {
		h.Close()
	}
	for _, p := range probes {
		if err := p.WaitPast(ctx, MaxTime); err != nil {
			t.Fatal(err)
		}
	}
}

// Exec runs a function on every worker between steps, again after each
// step until it reports that it is finished.
func TestClusterExec(t *testing.T) {
	c := NewCluster(Config{Workers: 2})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var runs [2]int
	if err := c.Exec(ctx, func(w int) bool {
		runs[w]++
		return runs[w] == 3
	}); err != nil {
		t.Fatal(err)
	}
	if runs != [2]int{3, 3} {
		t.Fatalf("runs %v, want 3 on each worker", runs)
	}
}

// TestWaitingExecDoesNotSpin: an Exec that is not finished (a peek waiting
// for its trace) waits without keeping its worker busy: the simulation
// goes quiet, and the Exec finishes after the next step once what it
// waits for holds.
func TestWaitingExecDoesNotSpin(t *testing.T) {
	sim := NewSim(2, 11)
	var ready atomic.Bool
	var calls, done atomic.Int64
	sim.Broadcast(Command{
		Exec: func(int) bool {
			calls.Add(1)
			return ready.Load()
		},
		Done: func() { done.Add(1) },
	})
	if !sim.Run(100_000) {
		t.Fatalf("the simulation never went quiet with an Exec waiting (%d calls)", calls.Load())
	}
	if done.Load() != 0 {
		t.Fatal("an unfinished Exec was reported done")
	}
	ready.Store(true)
	// Any step tries the waiting Exec again; a build gives each worker one.
	sim.Build(0, func(b *Builder) { NewInputHandle[int](b, "in") })
	if !sim.Run(100_000) || done.Load() != 2 {
		t.Fatalf("the Exec finished on %d of 2 workers", done.Load())
	}
}

// TestChainAdvancesInOneStep builds a chain of operators on one worker
// and checks that one step carries a record and the input's advance to
// the chain's end: what a step's operators release is published and
// taken in within their dataflow's visit, rather than a step a link.
func TestChainAdvancesInOneStep(t *testing.T) {
	const links = 6
	sim := NewSim(1, 1)
	var in *InputHandle[uint64]
	var probe *Probe
	var got []uint64
	sim.Build(0, func(b *Builder) {
		var s Stream[uint64]
		in, s = NewInputHandle[uint64](b, "input")
		for range links {
			s = Map(s, "inc", Pipeline[uint64](), func(x uint64) uint64 { return x + 1 })
		}
		s = Inspect(s, "capture", func(_ uint64, r uint64) { got = append(got, r) })
		probe = NewProbe(s)
	})
	if !sim.Run(1000) || in == nil {
		t.Fatal("not built")
	}
	if err := in.Send(0, 10); err != nil {
		t.Fatal(err)
	}
	if err := in.Advance(1); err != nil {
		t.Fatal(err)
	}
	sim.Workers[0].Step()
	if !slices.Equal(got, []uint64{10 + links}) {
		t.Fatalf("after one step the chain's end has %v, want [%d]", got, 10+links)
	}
	if ok, err := probe.Passed(0); err != nil || !ok {
		t.Fatalf("after one step the chain's frontier has not passed 0 (%v)", err)
	}
}

// TestDeafOperatorRunsOnlyForMessages: a move of the input frontier alone
// runs an operator that asks for it, and not a map, which reads no
// frontier; the frontier still passes through the map, and a message
// still runs it.
func TestDeafOperatorRunsOnlyForMessages(t *testing.T) {
	sim := NewSim(1, 1)
	var in *InputHandle[uint64]
	var probe *Probe
	var got []uint64
	listens := 0
	sim.Build(0, func(b *Builder) {
		var s Stream[uint64]
		in, s = NewInputHandle[uint64](b, "input")
		s = Map(s, "inc", Pipeline[uint64](), func(x uint64) uint64 { return x + 1 })
		s = Unary(s, "listener", Pipeline[uint64](), func(_ *Operator, cap *Capability, in *Input[uint64], out *Output[uint64]) func() {
			cap.Release()
			return func() {
				listens++
				for {
					t, data, ok := in.Next()
					if !ok {
						return
					}
					got = append(got, data...)
					out.GiveSlice(t, data)
				}
			}
		})
		probe = NewProbe(s)
	})
	if !sim.Run(1000) || in == nil {
		t.Fatal("not built")
	}
	if len(sim.Workers[0].live) != 1 {
		t.Fatalf("%d dataflows live, want 1", len(sim.Workers[0].live))
	}
	var df *dataflow
	for _, d := range sim.Workers[0].live {
		df = d
	}
	schedules := func(name string) int64 {
		for _, op := range df.ops {
			if op.name == name {
				return op.schedules
			}
		}
		t.Fatalf("no operator %q", name)
		return 0
	}
	maps, listens0 := schedules("inc"), listens
	for ts := uint64(1); ts <= 5; ts++ {
		if err := in.Advance(ts); err != nil {
			t.Fatal(err)
		}
		sim.Workers[0].Step()
		if ok, err := probe.Passed(ts - 1); err != nil || !ok {
			t.Fatalf("the frontier has not passed %d through the map (%v)", ts-1, err)
		}
	}
	if n := schedules("inc") - maps; n != 0 {
		t.Errorf("five moves of the frontier ran the map %d times, want 0", n)
	}
	if listens-listens0 < 5 {
		t.Errorf("five moves of the frontier ran the listener %d times, want at least 5", listens-listens0)
	}
	if err := in.Send(5, 10); err != nil {
		t.Fatal(err)
	}
	if err := in.Advance(6); err != nil {
		t.Fatal(err)
	}
	sim.Workers[0].Step()
	if !slices.Equal(got, []uint64{11}) {
		t.Fatalf("after a message the listener has %v, want [11]", got)
	}
	if schedules("inc") == maps {
		t.Error("a message did not run the map")
	}
}

// TestExchangeRoutesEveryRecord: an exchange delivers every record to the
// worker of its hash exactly once, whether a message's records all go to
// one worker, start with a run that does, or are mixed.
func TestExchangeRoutesEveryRecord(t *testing.T) {
	const workers = 3
	for seed := uint64(1); seed <= 10; seed++ {
		sim := NewSim(workers, seed)
		handles := make([]*InputHandle[uint64], workers)
		probes := make([]*Probe, workers)
		got := make([][]uint64, workers)
		sim.Build(0, func(b *Builder) {
			in, s := NewInputHandle[uint64](b, "input")
			w := b.Index()
			handles[w] = in
			s = Map(s, "id", Exchange(func(x uint64) uint64 { return x }), func(x uint64) uint64 { return x })
			s = Inspect(s, "capture", func(_ uint64, r uint64) { got[w] = append(got[w], r) })
			probes[w] = NewProbe(s)
		})
		if !sim.RunUntil(100000, func() bool { return !slices.Contains(handles, nil) }) {
			t.Fatalf("seed %d: not built", seed)
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		var want []uint64
		next := uint64(0)
		// value returns a new value that goes to worker d.
		value := func(d int) uint64 {
			next += workers
			return next + uint64(d)
		}
		for w, h := range handles {
			var one, prefixed, mixed []uint64
			for i := 0; i < 50; i++ {
				one = append(one, value((w+1)%workers))
			}
			for i := 0; i < 50; i++ {
				d := w
				if i >= 20 {
					d = i % workers
				}
				prefixed = append(prefixed, value(d))
			}
			for i := 0; i < 50; i++ {
				mixed = append(mixed, value(rng.IntN(workers)))
			}
			for ts, msg := range [][]uint64{one, prefixed, mixed} {
				want = append(want, msg...)
				if err := h.Send(uint64(ts), msg...); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.Advance(3); err != nil {
				t.Fatal(err)
			}
		}
		if !sim.RunUntil(100000, allPassed(probes, 2)) {
			t.Fatalf("seed %d: the frontier never passed 2", seed)
		}
		var all []uint64
		for w, g := range got {
			for _, x := range g {
				if int(x%workers) != w {
					t.Fatalf("seed %d: %d reached worker %d, want %d", seed, x, w, x%workers)
				}
			}
			all = append(all, g...)
		}
		slices.Sort(all)
		slices.Sort(want)
		if !slices.Equal(all, want) {
			t.Fatalf("seed %d: delivered %d records, want %d (or not the same ones)", seed, len(all), len(want))
		}
	}
}
