package arrange

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestAdvancedSharedMatchesBuilt checks Batch.advancedShared against
// buildAdvanced, which builds the advanced batch anew, on seeded random
// batches: vals with one update or several, times below, at and above
// since, inserts and retractions. Where it applies, it gives the same
// updates; it applies exactly when every val has one update at or
// before since; and the shared batch leaves the original as it was.
func TestAdvancedSharedMatchesBuilt(t *testing.T) {
	const seed = 23
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	applied := 0
	for i := range 2000 {
		var ups []update
		for range rng.IntN(12) {
			ups = append(ups, update{
				key:  fmt.Sprint("k", rng.IntN(4)),
				val:  []string{"", "a", "b"}[rng.IntN(3)],
				time: uint64(rng.IntN(6)),
				diff: []int64{1, 1, 1, -1, 2}[rng.IntN(5)],
			})
		}
		ups = consolidated(ups)
		b := build(Description{Lower: 0, Upper: 6}, ups...)
		before := contents(b.Cursor())
		since := uint64(rng.IntN(7))
		desc := Description{Lower: 0, Upper: max(6, since+1), Since: since}
		got, ok := b.advancedShared(since, desc)
		oneEach, allBefore := true, true
		for j, u := range ups {
			if j > 0 && ups[j-1].key == u.key && ups[j-1].val == u.val {
				oneEach = false
			}
			allBefore = allBefore && u.time <= since
		}
		if ok != (oneEach && allBefore) {
			t.Fatalf("case %d: applied %v to %v at since %d", i, ok, ups, since)
		}
		if !ok {
			continue
		}
		applied++
		want := contents(buildAdvanced(b, since, desc).Cursor())
		if g := contents(got.Cursor()); !slices.Equal(g, want) {
			t.Fatalf("case %d: since %d\n got %v\nwant %v", i, since, g, want)
		}
		if got.Description() != desc || got.Len() != b.Len() {
			t.Fatalf("case %d: description %v, %d updates", i, got.Description(), got.Len())
		}
		if after := contents(b.Cursor()); !slices.Equal(after, before) {
			t.Fatalf("case %d: the original changed\n got %v\nwant %v", i, after, before)
		}
	}
	if applied < 100 {
		t.Fatalf("applied to only %d cases", applied)
	}
}

// A replay is the trace's contents as of the lease, every time raised to
// its since, in one consolidated batch: a row inserted and retracted in
// different batches of the trace is not in it. A trace of one batch whose
// updates only need their times raised is shared, not copied; any other
// is merged into a new batch. The trace is left as it was.
func TestReplayBatchConsolidatesOrShares(t *testing.T) {
	const seed = 29
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	shared, built := 0, 0
	for i := range 300 {
		tr, h0, all, upper := randomTrace(t, rng, 4)
		since := uint64(rng.IntN(int(upper) + 1))
		h, err := tr.NewHandle(since)
		if err != nil {
			t.Fatal(err)
		}
		before := contents(tr.spine.cursor(0))
		b, err := replayBatch(h, since, upper)
		if err != nil {
			t.Fatal(err)
		}
		if d := b.Description(); d.Since != since || d.Lower != 0 || d.Upper != max(upper, since+1) {
			t.Fatalf("case %d: replay described %v", i, d)
		}
		var want []update
		for _, u := range all {
			u.time = max(u.time, since)
			want = append(want, u)
		}
		if g, w := contents(b.Cursor()), consolidated(want); !slices.Equal(g, w) {
			t.Fatalf("case %d: since %d\n got %v\nwant %v", i, since, g, w)
		}
		bs := tr.spine.Batches(nil)
		shareable, isShared := false, false
		if len(bs) > 0 {
			_, shareable = bs[0].advancedShared(since, b.Description())
			keys := unsafe.SliceData(b.keyBytes)
			isShared = keys != nil && keys == unsafe.SliceData(bs[0].keyBytes)
		}
		switch {
		case isShared && (len(bs) != 1 || !shareable):
			t.Fatalf("case %d: shared a batch of a trace of %d batches (shareable %v)", i, len(bs), shareable)
		case isShared:
			shared++
		case len(bs) == 1 && shareable && b.Len() > 0:
			t.Fatalf("case %d: copied the one batch it could share", i)
		default:
			built++
		}
		if after := contents(tr.spine.cursor(0)); !slices.Equal(after, before) {
			t.Fatalf("case %d: the trace changed\n got %v\nwant %v", i, after, before)
		}
		h.Close()
		h0.Close()
		if _, err := replayBatch(h, since, upper); !errors.Is(err, ErrHandleClosed) {
			t.Fatalf("replay through a closed handle: %v", err)
		}
	}
	if shared < 20 || built < 50 {
		t.Fatalf("shared %d replays, built %d: too few of one kind", shared, built)
	}
}

// A shared import's replay is the trace's contents as of the lease,
// every time raised to its since, in batches that sum to that: the
// trace's batches whose updates only need their times raised are shared,
// not copied, and the others are built again. The trace is left as it
// was.
func TestReplayBatchesShareTheTrace(t *testing.T) {
	const seed = 29
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	shared, built := 0, 0
	for i := range 300 {
		tr, h0, all, upper := randomTrace(t, rng, 5)
		since := uint64(rng.IntN(int(upper) + 1))
		h, err := tr.NewHandle(since)
		if err != nil {
			t.Fatal(err)
		}
		before := contents(tr.spine.cursor(0))
		replay, err := replayBatches(h, since, upper)
		if err != nil {
			t.Fatal(err)
		}
		if len(replay) == 0 {
			t.Fatalf("case %d: no batch replayed", i)
		}
		var got []update
		for _, b := range replay {
			if d := b.Description(); d.Since != since || d.Lower != 0 || d.Upper < max(upper, since+1) {
				t.Fatalf("case %d: replayed batch described %v", i, d)
			}
			got = append(got, contents(b.Cursor())...)
			keys := unsafe.SliceData(b.keyBytes)
			if keys != nil && slices.ContainsFunc(tr.spine.Batches(nil), func(o *Batch) bool { return unsafe.SliceData(o.keyBytes) == keys }) {
				shared++
			} else {
				built++
			}
		}
		var want []update
		for _, u := range all {
			u.time = max(u.time, since)
			want = append(want, u)
		}
		if g, w := consolidated(got), consolidated(want); !slices.Equal(g, w) {
			t.Fatalf("case %d: since %d\n got %v\nwant %v", i, since, g, w)
		}
		if after := contents(tr.spine.cursor(0)); !slices.Equal(after, before) {
			t.Fatalf("case %d: the trace changed\n got %v\nwant %v", i, after, before)
		}
		h.Close()
		h0.Close()
		if _, err := replayBatches(h, since, upper); !errors.Is(err, ErrHandleClosed) {
			t.Fatalf("replay through a closed handle: %v", err)
		}
	}
	if shared < 50 || built < 50 {
		t.Fatalf("shared %d batches, built %d: too few of one kind", shared, built)
	}
}

// randomTrace returns a trace of up to batches-1 seeded random batches of
// small keys, vals, times and diffs of both signs, each 3 times wide,
// held at 0 by h0 so that it keeps every time as written, with all the
// updates inserted and the trace's upper.
func randomTrace(t *testing.T, rng *rand.Rand, batches int) (tr *Trace, h0 *Handle, all []update, upper uint64) {
	t.Helper()
	tr = NewTrace(1)
	h0, err := tr.NewHandle(0)
	if err != nil {
		t.Fatal(err)
	}
	for range rng.IntN(batches) {
		var ups []update
		for range rng.IntN(10) {
			ups = append(ups, update{
				key:  fmt.Sprint("k", rng.IntN(5)),
				val:  []string{"", "a"}[rng.IntN(2)],
				time: upper + uint64(rng.IntN(3)),
				diff: []int64{1, 1, -1, 2}[rng.IntN(4)],
			})
		}
		ups = consolidated(ups)
		all = append(all, ups...)
		if err := tr.Insert(build(Description{Lower: upper, Upper: upper + 3}, ups...)); err != nil {
			t.Fatal(err)
		}
		upper += 3
	}
	return tr, h0, all, upper
}
