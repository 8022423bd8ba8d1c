package compute

import (
	"fmt"
	"testing"

	"freshet/arrange"
	"freshet/dataflow"
)

// TestFlattenYields flattens an arrangement of n updates with fuel F on
// one worker stepped by hand: no step gives more than F updates, the
// whole takes at least n/F steps, every update comes out once at its
// time, the dataflow's account counts them as read, and the output's
// frontier stays at the message's time until the last slice is out.
func TestFlattenYields(t *testing.T) {
	const keys, vals, fuel = 40, 7, 16
	old := flattenFuel
	flattenFuel = fuel
	t.Cleanup(func() { flattenFuel = old })
	var in *dataflow.InputHandle[arrange.Update]
	var acct *dataflow.Account
	var probe *dataflow.Probe
	stepOut := 0
	got := map[string]int64{}
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
	w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
		h, s := dataflow.NewInputHandle[arrange.Update](b, "in")
		in, acct = h, b.Account()
		rows := flatten(arrange.Arrange(s, "arrange"), "flatten", func(key, val []byte) []byte {
			return append(append([]byte(nil), key...), val...)
		})
		rows = dataflow.Inspect(rows, "collect", func(_ uint64, u arrange.Update) {
			stepOut++
			got[fmt.Sprintf("%s@%d", u.Key, u.Time)] += u.Diff
		})
		probe = dataflow.NewProbe(rows)
	}})
	settle := func() (steps, most, total int) {
		for {
			stepOut = 0
			more := w.Step()
			total += stepOut
			most = max(most, stepOut)
			if stepOut > 0 {
				steps++
				if passed, _ := probe.Passed(0); passed && total < keys*vals {
					t.Fatalf("the output's frontier passed 0 with %d of %d updates out", total, keys*vals)
				}
			}
			if !more {
				return
			}
		}
	}
	settle()
	for k := range keys {
		for v := range vals {
			in.Send(0, arrange.Update{Key: fmt.Appendf(nil, "k%03d", k), Val: fmt.Appendf(nil, "v%d", v), Time: 0, Diff: int64(v + 1)})
		}
	}
	in.Advance(1)
	steps, most, total := settle()
	t.Logf("%d updates in %d steps, at most %d in one", total, steps, most)
	if total != keys*vals || most > fuel || steps < keys*vals/fuel {
		t.Fatalf("%d updates (want %d) in %d steps, at most %d in one (fuel %d)", total, keys*vals, steps, most, fuel)
	}
	for k := range keys {
		for v := range vals {
			if d := got[fmt.Sprintf("k%03dv%d@0", k, v)]; d != int64(v+1) {
				t.Fatalf("k%03d v%d: diff %d, want %d", k, v, d, v+1)
			}
		}
	}
	if read, _ := acct.Reading(); read != keys*vals {
		t.Fatalf("the account read %d updates, want %d", read, keys*vals)
	}
	in.Close()
	settle()
	if f, _ := probe.Frontier(); !f.IsDone() {
		t.Fatalf("frontier %v after the input closed", f)
	}
}

// TestFlattenDrainsQueuedBatches: a run that spends its fuel exactly at
// the end of one message, with another queued behind it, asks to run
// again, so the queued one is flattened too and the frontier passes it.
func TestFlattenDrainsQueuedBatches(t *testing.T) {
	const n = 16
	old := flattenFuel
	flattenFuel = n
	t.Cleanup(func() { flattenFuel = old })
	var in *dataflow.InputHandle[*arrange.Batch]
	var probe *dataflow.Probe
	got := 0
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
	w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
		h, s := dataflow.NewInputHandle[*arrange.Batch](b, "batches")
		in = h
		rows := flatten(&arrange.Arranged{Batches: s}, "flatten", wholeKey)
		probe = dataflow.NewProbe(dataflow.Inspect(rows, "count", func(uint64, arrange.Update) { got++ }))
	}})
	for w.Step() {
	}
	batch := func(tm uint64) *arrange.Batch {
		var bl arrange.Builder
		for i := range n {
			bl.Push(fmt.Appendf(nil, "k%02d", i), nil, tm, 1)
		}
		return bl.Done(arrange.Description{Lower: tm, Upper: tm + 1})
	}
	// Both are queued before flatten runs, and nothing else comes to
	// wake it: the input's frontier stays where it is.
	in.Send(1, batch(1))
	in.Send(2, batch(2))
	for w.Step() {
	}
	if got != 2*n {
		t.Fatalf("%d updates of %d flattened", got, 2*n)
	}
	in.Advance(3)
	for w.Step() {
	}
	if passed, _ := probe.Passed(2); !passed {
		t.Fatal("the frontier did not pass 2")
	}
}
