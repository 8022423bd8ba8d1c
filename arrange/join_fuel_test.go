package arrange

import (
	"fmt"
	"testing"

	"freshet/dataflow"
)

// TestJoinYields joins n vals against n vals under one key (a cross join
// of n² records) with fuel F on one worker stepped by hand: no step emits
// more than F records, the join takes at least n²/F steps, and the output
// is every pair exactly once. A retraction afterwards is sliced the same
// way and cancels its pairs exactly.
func TestJoinYields(t *testing.T) { joinYields(t, 1000, false) }

// TestJoinYieldsToTheSlice is TestJoinYields on a worker whose slice
// ends every run after one piece of the fuel (dataflow.SlicePiece): no
// step emits more than a piece, and the output is the same.
func TestJoinYieldsToTheSlice(t *testing.T) {
	defer func(p int) { joinPiece = p }(joinPiece)
	joinPiece = 257
	joinYields(t, 100_000, true)
}

// joinYields runs TestJoinYields with fuel; sliced sets the worker's
// slice to SlicePiece, so that a run spends one joinPiece.
func joinYields(t *testing.T, fuel int, sliced bool) {
	const n = 300
	withJoinFuel(t, fuel)
	limit := fuel
	if sliced {
		limit = joinPiece
	}
	var ina, inb *dataflow.InputHandle[Update]
	var stepOut int
	got := map[string]int64{}
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
	if sliced {
		w.SetSlice(dataflow.SlicePiece)
	}
	w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
		ha, sa := dataflow.NewInputHandle[Update](b, "a")
		hb, sb := dataflow.NewInputHandle[Update](b, "b")
		ina, inb = ha, hb
		out := Join(Arrange(sa, "arrange a"), Arrange(sb, "arrange b"), "join", func(k, va, vb []byte) ([]byte, []byte) {
			stepOut++
			return k, append(append([]byte(nil), va...), vb...)
		})
		dataflow.Inspect(out, "collect", func(_ uint64, u Update) {
			got[fmt.Sprintf("%s@%d", u.Val, u.Time)] += u.Diff
		})
	}})
	settle := func() (steps, most, total int) {
		for {
			stepOut = 0
			more := w.Step()
			total += stepOut
			most = max(most, stepOut)
			if stepOut > 0 {
				steps++
			}
			if !more {
				return
			}
		}
	}
	settle()
	val := func(side byte, i int) []byte { return fmt.Appendf(nil, "%c%04d", side, i) }
	key := []byte("k")
	for i := range n {
		ina.Send(0, Update{Key: key, Val: val('a', i), Time: 0, Diff: 1})
		inb.Send(0, Update{Key: key, Val: val('b', i), Time: 0, Diff: 1})
	}
	ina.Advance(1)
	inb.Advance(1)
	steps, most, total := settle()
	t.Logf("hydration: %d records in %d steps, at most %d in one", total, steps, most)
	if total != n*n || most > limit || steps < n*n/limit {
		t.Fatalf("hydration: %d records (want %d) in %d steps, at most %d in one (limit %d)", total, n*n, steps, most, limit)
	}
	// Retract every a at 1: n² records of -1.
	for i := range n {
		ina.Send(1, Update{Key: key, Val: val('a', i), Time: 1, Diff: -1})
	}
	ina.Close()
	inb.Close()
	steps, most, total = settle()
	if total != n*n || most > limit || steps < n*n/limit {
		t.Fatalf("retraction: %d records (want %d) in %d steps, at most %d in one (limit %d)", total, n*n, steps, most, limit)
	}
	if len(got) != 2*n*n {
		t.Fatalf("%d distinct (pair, time), want %d", len(got), 2*n*n)
	}
	for i := range n {
		for j := range n {
			p := string(val('a', i)) + string(val('b', j))
			if got[p+"@0"] != 1 || got[p+"@1"] != -1 {
				t.Fatalf("pair %s: %d at 0, %d at 1; want 1, -1", p, got[p+"@0"], got[p+"@1"])
			}
		}
	}
}

// TestJoinDropMidWindow drops a view's dataflow while its join is part
// way through a window over imported arrangements: the drop takes effect
// at the next step, between two slices; nothing more is emitted, and the
// leases the join held to keep the rest of its window readable are
// released with it.
func TestJoinDropMidWindow(t *testing.T) {
	const n, fuel = 300, 100
	withJoinFuel(t, fuel)
	reg := NewRegistry(1)
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
	var ina, inb *dataflow.InputHandle[Update]
	w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
		ha, sa := dataflow.NewInputHandle[Update](b, "a")
		hb, sb := dataflow.NewInputHandle[Update](b, "b")
		ina, inb = ha, hb
		for i, s := range []dataflow.Stream[Update]{sa, sb} {
			if err := reg.Export(b, Arrange(s, "arrange"), GlobalID(i+1)); err != nil {
				t.Fatal(err)
			}
		}
	}})
	for w.Step() {
	}
	key := []byte("k")
	for i := range n {
		ina.Send(0, Update{Key: key, Val: fmt.Appendf(nil, "a%04d", i), Time: 0, Diff: 1})
		inb.Send(0, Update{Key: key, Val: fmt.Appendf(nil, "b%04d", i), Time: 0, Diff: 1})
	}
	ina.Advance(1)
	inb.Advance(1)
	for w.Step() {
	}
	traces := make([]*Trace, 2)
	leases := make([]int, 2)
	for i := range traces {
		tr, err := reg.Trace(GlobalID(i+1), 0)
		if err != nil {
			t.Fatal(err)
		}
		traces[i], leases[i] = tr, tr.Leases()
	}
	outputs := 0
	w.Enqueue(dataflow.Command{ID: 2, Build: func(b *dataflow.Builder) {
		a, err := reg.Import(b, 1, "import a")
		if err != nil {
			t.Fatal(err)
		}
		c, err := reg.Import(b, 2, "import b")
		if err != nil {
			t.Fatal(err)
		}
		out := Join(a, c, "join", func(k, va, vb []byte) ([]byte, []byte) { return k, vb })
		dataflow.Inspect(out, "count", func(uint64, Update) { outputs++ })
	}})
	for outputs < 10*fuel {
		if !w.Step() {
			t.Fatalf("join finished early: %d outputs", outputs)
		}
	}
	if outputs >= n*n {
		t.Fatalf("join not part way: %d outputs of %d", outputs, n*n)
	}
	before := outputs
	w.Enqueue(dataflow.Command{ID: 2})
	for w.Step() {
	}
	// At most the slice of the step that applies the drop.
	if outputs-before > fuel {
		t.Fatalf("%d outputs after the drop was enqueued (fuel %d)", outputs-before, fuel)
	}
	stopped := outputs
	for i, tr := range traces {
		if got := tr.Leases(); got != leases[i] {
			t.Fatalf("trace %d: %d leases after the drop, %d before the view", i+1, got, leases[i])
		}
	}
	t.Logf("dropped after %d of %d records", stopped, n*n)
}
