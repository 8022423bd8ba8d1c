package arrange

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"freshet/dataflow"
)

// sealedBatch is what a test sees of one batch an arrangement sent or
// its trace holds.
type sealedBatch struct {
	time uint64 // the message's time
	desc Description
	upds []update
}

// arrangeRun arranges the given rounds of updates on one hand-stepped
// worker, advancing the input after each round (and closing it after
// the last), and returns the batches sent, the trace's contents at the
// end and the number of steps taken. sliced sets the worker's slice to
// SlicePiece, so that every run of the arrange operator stages at most
// one message or merges one arrangePiece.
func arrangeRun(t *testing.T, rounds [][]update, sliced bool) (sent []sealedBatch, traced []update, steps int) {
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
	if sliced {
		w.SetSlice(dataflow.SlicePiece)
	}
	var in *dataflow.InputHandle[Update]
	var tr *Trace
	var h *Handle
	w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
		ih, s := dataflow.NewInputHandle[Update](b, "input")
		in = ih
		a := Arrange(s, "arrange")
		tr = a.Trace
		var err error
		if h, err = tr.NewHandle(0); err != nil {
			t.Fatal(err)
		}
		dataflow.Inspect(a.Batches, "collect", func(tm uint64, batch *Batch) {
			sent = append(sent, sealedBatch{tm, batch.Description(), contents(batch.Cursor())})
		})
	}})
	settle := func() {
		for w.Step() {
			steps++
		}
	}
	settle()
	for r, round := range rounds {
		for i := 0; i < len(round); i += 1000 {
			var msg []Update
			for _, u := range round[i:min(i+1000, len(round))] {
				msg = append(msg, Update{Key: []byte(u.key), Val: []byte(u.val), Time: u.time, Diff: u.diff})
			}
			if err := in.Send(uint64(r), msg...); err != nil {
				t.Fatal(err)
			}
		}
		if r == len(rounds)-1 {
			in.Close()
		} else {
			in.Advance(uint64(r + 1))
		}
		settle()
	}
	if tr.Upper() != Done {
		t.Fatalf("the trace's upper is %d after the input closed", tr.Upper())
	}
	c, err := h.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	return sent, contents(c), steps
}

// TestArrangeSlicedMatchesWhole arranges the same random updates, several
// chunks' worth a round with many at later rounds' times, on a worker
// with no slice and on one whose every run is cut after one piece
// (SlicePiece), and checks that both send the same batches, at the same
// times, and end with the same trace; and that the sliced one took many
// more steps, so the seals were indeed spread over several runs.
func TestArrangeSlicedMatchesWhole(t *testing.T) {
	defer func(p int) { arrangePiece = p }(arrangePiece)
	arrangePiece = 997
	forSeeds(t, 3, func(t *testing.T, rng *rand.Rand) {
		var rounds [][]update
		for r := range 4 {
			var round []update
			for range rng.IntN(3 * chunkLen) {
				u := randomBatcherUpdate(rng, uint64(r), 20_000)
				round = append(round, u)
			}
			rounds = append(rounds, round)
		}
		wantSent, wantTrace, wholeSteps := arrangeRun(t, rounds, false)
		gotSent, gotTrace, slicedSteps := arrangeRun(t, rounds, true)
		t.Logf("steps: %d whole, %d sliced", wholeSteps, slicedSteps)
		if len(gotSent) != len(wantSent) {
			t.Fatalf("sliced sent %d batches, whole %d", len(gotSent), len(wantSent))
		}
		for i := range wantSent {
			g, w := gotSent[i], wantSent[i]
			if g.time != w.time || g.desc != w.desc || !slices.Equal(g.upds, w.upds) {
				t.Fatalf("batch %d: sliced %d at %d %v, whole %d at %d %v", i, len(g.upds), g.time, g.desc, len(w.upds), w.time, w.desc)
			}
		}
		if !slices.Equal(gotTrace, wantTrace) {
			t.Fatalf("sliced trace holds %d updates, whole %d", len(gotTrace), len(wantTrace))
		}
		if slicedSteps < 2*wholeSteps {
			t.Fatalf("sliced arrangement took %d steps, whole %d: the seals were not cut", slicedSteps, wholeSteps)
		}
	})
}

// TestArrangeFinishesMergesWhenIdle seals two batches of one size class,
// which starts a merge that no insert has paid for yet, and then gives the
// arrangement nothing more. The merge must still finish (so the trace
// keeps one batch, not two inputs and a half-built output), on a worker
// with no slice in the steps that follow, and on a sliced one over
// several runs of the operator.
func TestArrangeFinishesMergesWhenIdle(t *testing.T) {
	for _, sliced := range []bool{false, true} {
		w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
		if sliced {
			w.SetSlice(dataflow.SlicePiece)
		}
		var in *dataflow.InputHandle[Update]
		var tr *Trace
		w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
			ih, s := dataflow.NewInputHandle[Update](b, "input")
			in = ih
			tr = Arrange(s, "arrange").Trace
		}})
		steps := 0
		settle := func() {
			for w.Step() {
				steps++
			}
		}
		settle()
		const n = 3 * 4096
		for r := range 2 {
			for i := 0; i < n; i += 1000 {
				var msg []Update
				for k := i; k < min(i+1000, n); k++ {
					msg = append(msg, Update{Key: []byte(fmt.Sprintf("k%06d-%d", k, r)), Time: uint64(r), Diff: 1})
				}
				if err := in.Send(uint64(r), msg...); err != nil {
					t.Fatal(err)
				}
			}
			in.Advance(uint64(r + 1))
			settle()
		}
		if p := tr.MergePending(); p != 0 {
			t.Fatalf("sliced=%v: %d updates still to merge once the arrangement is idle", sliced, p)
		}
		if got := tr.BatchCount(); got != 1 {
			t.Fatalf("sliced=%v: the idle trace has %d batches, want 1", sliced, got)
		}
		if got := tr.spine.Len(); got != 2*n {
			t.Fatalf("sliced=%v: the trace holds %d updates, want %d", sliced, got, 2*n)
		}
		t.Logf("sliced=%v: %d steps", sliced, steps)
	}
}

// TestArrangeChunksSeeded: an arrangement of chunks seeded with a batch
// built outside the dataflow (a table's log at a restart) sends the
// seed first, at the dataflow's start, and then goes on from the seed's
// upper as an arrangement of the seed's updates and the input's would,
// each chunk's updates and picked rows at the time it is sent at:
// updates that retract the seed's rows cancel them in the trace.
func TestArrangeChunksSeeded(t *testing.T) {
	const start = 4
	seed := []update{{"a", "", start, 1}, {"b", "", start, 2}, {"c", "", start, 1}}
	input := []update{{"b", "", start + 1, -2}, {"d", "", start + 1, 1}, {"e", "", start + 1, 1}, {"a", "", start + 2, -1}}
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
	var in *dataflow.InputHandle[Chunk]
	var h *Handle
	var sent []sealedBatch
	w.Enqueue(dataflow.Command{ID: 1, Start: start, Build: func(b *dataflow.Builder) {
		ih, s := dataflow.NewInputHandle[Chunk](b, "input")
		in = ih
		a := ArrangeChunks(s, "arrange", build(Description{Lower: 0, Upper: start + 1}, seed...))
		var err error
		if h, err = a.Trace.NewHandle(0); err != nil {
			t.Fatal(err)
		}
		dataflow.Inspect(a.Batches, "collect", func(tm uint64, batch *Batch) {
			sent = append(sent, sealedBatch{tm, batch.Description(), contents(batch.Cursor())})
		})
	}})
	for w.Step() {
	}
	// Rows "x", "e", "d" packed; the chunk picks "d" and "e". The
	// updates' own times are not read.
	rows := Rows{Data: []byte("xed"), Ends: []uint32{1, 2, 3}}
	for _, c := range []struct {
		time  uint64
		chunk Chunk
	}{
		{start + 1, Chunk{Updates: []Update{{Key: []byte("b"), Time: 99, Diff: -2}}}},
		{start + 1, Chunk{Rows: rows, Pick: []uint32{2, 1}}},
		{start + 2, Chunk{Updates: []Update{{Key: []byte("a"), Diff: -1}}}},
	} {
		if err := in.Send(c.time, c.chunk); err != nil {
			t.Fatal(err)
		}
	}
	in.Close()
	for w.Step() {
	}
	if len(sent) == 0 || sent[0].time != start || sent[0].desc != (Description{Lower: 0, Upper: start + 1}) || !slices.Equal(sent[0].upds, seed) {
		t.Fatalf("first batch sent %+v, want the seed at %d", sent, start)
	}
	defer h.Close()
	c, err := h.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	want := consolidated(append(slices.Clone(seed), input...))
	if got := contents(c); !slices.Equal(got, want) {
		t.Fatalf("trace holds %v, want %v", got, want)
	}
}
