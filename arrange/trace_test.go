package arrange

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// churn returns a batch over [lower, lower+1) in which each of n keys is
// inserted at lower if lower is even and deleted if it is odd, so that two
// consecutive batches cancel once compacted past both.
func churn(lower uint64, n int) *Batch {
	var b Builder
	diff := int64(1)
	if lower%2 == 1 {
		diff = -1
	}
	for i := range n {
		b.Push(fmt.Appendf(nil, "key-%012d", i), []byte("val"), lower, diff)
	}
	return b.Done(Description{Lower: lower, Upper: lower + 1})
}

// TestTraceLeasePinsSince checks that a handle at t0 holds the trace's
// since at t0 while another handle advances, that closing it lets the
// since advance, and that merging then frees batches and bytes.
func TestTraceLeasePinsSince(t *testing.T) {
	tr := NewTrace(1)
	reader, err := tr.NewHandle(0)
	if err != nil {
		t.Fatal(err)
	}
	pin, err := tr.NewHandle(3)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Since() != 0 || tr.Leases() != 2 {
		t.Fatalf("since %d with %d leases, want 0 with 2", tr.Since(), tr.Leases())
	}
	for i := range uint64(40) {
		if err := tr.Insert(churn(i, 200)); err != nil {
			t.Fatal(err)
		}
		if err := reader.SetSince(i + 1); err != nil {
			t.Fatal(err)
		}
		if want := min(i+1, 3); tr.Since() != want {
			t.Fatalf("after insert %d: since %d, want %d", i, tr.Since(), want)
		}
	}
	pinnedBatches := tr.BatchCount()
	tr.MergeAll()
	pinnedBytes := tr.Bytes()

	// The pinned handle still reads exact counts at its since: at 3 the
	// keys were deleted (inserted at 2, deleted at 3), at 4 inserted.
	c, err := pin.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	c.SeekKey([]byte("key-000000000007"))
	if !c.KeyValid() || c.Count(3) != 0 || c.Count(4) != 1 || c.Count(39) != 0 {
		t.Fatalf("pinned reader: counts %d %d %d, want 0 1 0", c.Count(3), c.Count(4), c.Count(39))
	}

	if err := pin.Close(); err != nil {
		t.Fatal(err)
	}
	if tr.Since() != 40 || tr.Leases() != 1 {
		t.Fatalf("after close: since %d with %d leases, want 40 with 1", tr.Since(), tr.Leases())
	}
	tr.MergeAll()
	if tr.BatchCount() >= pinnedBatches {
		t.Fatalf("batches did not fall: %d pinned, %d after", pinnedBatches, tr.BatchCount())
	}
	// Merged while pinned, the trace kept each key's history from 3 on;
	// compacted to 40, everything cancelled and the batch left is empty.
	if tr.Bytes() >= pinnedBytes/10 {
		t.Fatalf("bytes did not fall: %d pinned and merged, %d after", pinnedBytes, tr.Bytes())
	}
	t.Logf("pinned: %d batches, %d bytes merged; released: %d batches, %d bytes", pinnedBatches, pinnedBytes, tr.BatchCount(), tr.Bytes())

	// The cursor taken while pinned is a snapshot: still readable.
	if c.Count(4) != 1 {
		t.Fatal("a cursor taken before the merge changed under its reader")
	}
}

func TestTraceHandleErrors(t *testing.T) {
	tr := NewTrace(1)
	h, err := tr.NewHandle(5)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Since() != 5 {
		t.Fatalf("since %d with one lease at 5", tr.Since())
	}
	if err := h.SetSince(4); !errors.Is(err, ErrSinceBackwards) {
		t.Fatalf("SetSince backwards: %v", err)
	}
	if err := h.SetSince(5); err != nil {
		t.Fatalf("SetSince to the same time: %v", err)
	}
	if _, err := tr.NewHandle(4); !errors.Is(err, ErrCompacted) {
		t.Fatalf("NewHandle below since: %v", err)
	}
	if err := tr.Insert(churn(1, 1)); !errors.Is(err, ErrNotContiguous) {
		t.Fatalf("insert with a gap: %v", err)
	}

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); !errors.Is(err, ErrHandleClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if tr.Leases() != 0 {
		t.Fatalf("%d leases after close", tr.Leases())
	}
	for name, call := range map[string]func() error{
		"Since":    func() error { _, err := h.Since(); return err },
		"Upper":    func() error { _, err := h.Upper(); return err },
		"SetSince": func() error { return h.SetSince(9) },
		"Cursor":   func() error { _, err := h.Cursor(); return err },
	} {
		if err := call(); !errors.Is(err, ErrHandleClosed) {
			t.Errorf("%s after Close: %v", name, err)
		}
	}
}

// TestTraceSinceWithoutLeases checks that with no lease the since follows
// the upper, and that several leases at one time count separately.
func TestTraceSinceWithoutLeases(t *testing.T) {
	tr := NewTrace(1)
	for i := range uint64(4) {
		if err := tr.Insert(churn(i, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if tr.Since() != 4 || tr.Upper() != 4 {
		t.Fatalf("since %d, upper %d; want 4, 4", tr.Since(), tr.Upper())
	}
	a, _ := tr.NewHandle(6)
	b, _ := tr.NewHandle(6)
	for i := range uint64(10) {
		if err := tr.Insert(churn(4+i, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if tr.Since() != 6 {
		t.Fatalf("since %d with one lease left at 6", tr.Since())
	}
	if err := b.SetSince(9); err != nil {
		t.Fatal(err)
	}
	if tr.Since() != 9 {
		t.Fatalf("since %d, want 9", tr.Since())
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if tr.Since() != tr.Upper() {
		t.Fatalf("since %d, upper %d with no lease", tr.Since(), tr.Upper())
	}
}

// TestTraceOracle opens, advances and closes handles at random while
// random updates arrive, and checks after every step that each live
// handle's cursor accumulates exactly what a from-scratch sum does at
// every time at or after that handle's since.
func TestTraceOracle(t *testing.T) {
	forSeeds(t, 30, func(t *testing.T, rng *rand.Rand) {
		keys := pick(rng, keyPool, 2+rng.IntN(6))
		vals := pick(rng, valPool, 1+rng.IntN(3))
		tr := NewTrace(1)
		b := NewBatcher(0)
		o := newOracle()
		var live []*Handle
		for range 80 {
			switch r := rng.IntN(10); {
			case r < 2 || len(live) == 0:
				h, err := tr.NewHandle(tr.Since() + rng.Uint64N(3))
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, h)
			case r < 3:
				i := rng.IntN(len(live))
				if err := live[i].Close(); err != nil {
					t.Fatal(err)
				}
				live = slices.Delete(live, i, i+1)
			case r < 6:
				h := live[rng.IntN(len(live))]
				since, _ := h.Since()
				if err := h.SetSince(since + rng.Uint64N(4)); err != nil {
					t.Fatal(err)
				}
			}
			for range rng.IntN(20) {
				u := update{keys[rng.IntN(len(keys))], vals[rng.IntN(len(vals))], b.Lower() + rng.Uint64N(4), rng.Int64N(5) - 2}
				b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
				o.pending = append(o.pending, u)
			}
			upper := b.Lower() + rng.Uint64N(3)
			if err := tr.Insert(b.Seal(upper)); err != nil {
				t.Fatal(err)
			}
			o.seal(upper)
			if rng.IntN(6) == 0 {
				tr.Exert(rng.Int64N(50))
			}
			for _, h := range live {
				since, _ := h.Since()
				if since < tr.Since() {
					t.Fatalf("trace since %d passed a live lease at %d", tr.Since(), since)
				}
				c, err := h.Cursor()
				if err != nil {
					t.Fatal(err)
				}
				checkCursor(t, c, o, since)
			}
		}
		for _, h := range live {
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if tr.Leases() != 0 || tr.Since() != tr.Upper() {
			t.Fatalf("after closing every handle: %d leases, since %d, upper %d", tr.Leases(), tr.Since(), tr.Upper())
		}
	})
}
