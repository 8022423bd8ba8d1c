package arrange

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pair names one (key, val) of an oracle.
type pair struct{ key, val string }

// timeDiff is one update of a pair's history.
type timeDiff struct {
	time uint64
	diff int64
}

// oracle is the from-scratch answer: every sealed update, per pair, in
// time order. Each seal's times are at or after the previous seal's
// upper, so appending keeps each history sorted.
type oracle struct {
	sealed  map[pair][]timeDiff
	pending []update
}

func newOracle() *oracle { return &oracle{sealed: make(map[pair][]timeDiff)} }

// seal moves the pending updates before upper into the sealed histories.
func (o *oracle) seal(upper uint64) {
	var now []update
	o.pending = slices.DeleteFunc(o.pending, func(u update) bool {
		if u.time < upper {
			now = append(now, u)
			return true
		}
		return false
	})
	for _, u := range consolidated(now) {
		p := pair{u.key, u.val}
		o.sealed[p] = append(o.sealed[p], timeDiff{u.time, u.diff})
	}
}

// checkCursor checks that c, which presents times raised to since, holds
// every pair's accumulation at every time at or after since, comparing at
// each time where either side changes.
func checkCursor(t *testing.T, c *CursorList, o *oracle, since uint64) {
	t.Helper()
	got := make(map[pair][]timeDiff)
	var last pair
	for ; c.KeyValid(); c.StepKey() {
		for ; c.ValValid(); c.StepVal() {
			p := pair{string(c.Key()), string(c.Val())}
			if len(got) > 0 && (p.key < last.key || p.key == last.key && p.val <= last.val) {
				t.Fatalf("cursor visits %q after %q", p, last)
			}
			last = p
			if _, ok := o.sealed[p]; !ok {
				t.Fatalf("cursor holds %q, which was never updated", p)
			}
			c.History(func(tm uint64, d int64) {
				h := got[p]
				if tm < since || len(h) > 0 && tm < h[len(h)-1].time {
					t.Fatalf("%q: time %d presented after %v with since %d", p, tm, h, since)
				}
				got[p] = append(h, timeDiff{tm, d})
			})
			// Count, the accumulate helper, at since and past every time.
			for _, q := range []uint64{since, MaxTime} {
				var want int64
				for _, u := range o.sealed[p] {
					if u.time <= q {
						want += u.diff
					}
				}
				if got := c.Count(q); got != want {
					t.Fatalf("%q: Count(%d) = %d, want %d", p, q, got, want)
				}
			}
		}
	}
	for p, want := range o.sealed {
		if q, ok := divergence(want, got[p], since); ok {
			t.Fatalf("%q: accumulation at %d differs: oracle %v, cursor %v (since %d)", p, q, want, got[p], since)
		}
	}
}

// divergence returns the first time at or after since at which the
// accumulations of want and got differ.
func divergence(want, got []timeDiff, since uint64) (uint64, bool) {
	var w, g int64
	i, j := 0, 0
	q := since
	for {
		for ; i < len(want) && want[i].time <= q; i++ {
			w += want[i].diff
		}
		for ; j < len(got) && got[j].time <= q; j++ {
			g += got[j].diff
		}
		if w != g {
			return q, true
		}
		switch {
		case i < len(want) && j < len(got):
			q = min(want[i].time, got[j].time)
		case i < len(want):
			q = want[i].time
		case j < len(got):
			q = got[j].time
		default:
			return 0, false
		}
	}
}

// checkSpine checks the spine's structure: batches valid and tiling
// [lower, upper), no batch above its level's size class, at most two
// batches a level.
func checkSpine(t *testing.T, s *Spine) {
	t.Helper()
	batches := s.Batches(nil)
	at := uint64(0)
	for _, b := range batches {
		mustValidate(t, b)
		if b.desc.Lower != at {
			t.Fatalf("batch %v does not start at %d", b.desc, at)
		}
		at = b.desc.Upper
	}
	if at != s.Upper() {
		t.Fatalf("batches end at %d, spine upper is %d", at, s.Upper())
	}
	for i, lv := range s.levels {
		n := len(lv.waiting)
		if lv.merge != nil {
			n += 2
		}
		if n > 3 || lv.merge == nil && n > 1 {
			t.Fatalf("level %d holds %d batches, merging %v", i, n, lv.merge != nil)
		}
	}
	if n := s.BatchCount(); n != len(batches) || n > 3*len(s.levels) {
		t.Fatalf("%d batches over %d levels", n, len(s.levels))
	}
}

// TestSpineOracle pushes random update streams through a batcher into a
// spine, with random since advances and exertion, and checks after every
// insert that the spine's cursor accumulates exactly what a from-scratch
// sum does at every time at or after the since, and that no insert did
// more merge work than it pays for.
func TestSpineOracle(t *testing.T) {
	forSeeds(t, 100, func(t *testing.T, rng *rand.Rand) {
		keys := pick(rng, keyPool, 2+rng.IntN(10))
		vals := pick(rng, valPool, 1+rng.IntN(4))
		// Some runs have only empty vals, or only inserts at each
		// batch's lower, so that batches elide their val offsets, times
		// and diffs, and merges read such batches.
		if rng.IntN(3) == 0 {
			vals = []string{""}
		}
		inserts := rng.IntN(3) == 0
		maxPush := []int{4, 30, 200}[rng.IntN(3)]
		s := NewSpine(1 + rng.IntN(2))
		b := NewBatcher(0)
		o := newOracle()
		for range 100 {
			for range rng.IntN(maxPush + 1) {
				u := update{
					key:  keys[rng.IntN(len(keys))],
					val:  vals[rng.IntN(len(vals))],
					time: b.Lower() + rng.Uint64N(6),
					diff: rng.Int64N(5) - 2,
				}
				if inserts {
					u.time, u.diff = b.Lower(), 1
				}
				b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
				o.pending = append(o.pending, u)
			}
			// An upper equal to the lower seals an empty range.
			upper := b.Lower() + rng.Uint64N(4)
			batch := b.Seal(upper)
			o.seal(upper)

			insertWithinBound(t, s, batch)
			if rng.IntN(3) == 0 {
				s.SetSince(s.Since() + rng.Uint64N(s.Upper()-s.Since()+4))
			}
			switch rng.IntN(8) {
			case 0:
				s.Exert(rng.Int64N(100))
			case 1:
				s.Continue(rng.Int64N(100))
			}
			checkSpine(t, s)
			checkCursor(t, s.Cursor(), o, s.Since())
		}
		s.MergeAll()
		checkSpine(t, s)
		checkCursor(t, s.Cursor(), o, s.Since())
		if n := s.BatchCount(); n != 1 {
			t.Fatalf("MergeAll left %d batches", n)
		}
		// Compacted to since: every time at least since, clamped.
		only := s.Batches(nil)[0]
		if only.desc.Since != s.Since() {
			t.Fatalf("merged batch %v, spine since %d", only.desc, s.Since())
		}
	})
}

// TestSpineWorkBound inserts long streams of batches whose sizes follow
// patterns chosen to stress fuelled merging (all tiny, all empty, spikes,
// ramps, bursts, cancelling streams under advancing since) and checks
// after every insert that it did no more merge work than it paid for, and
// that no level holds more than its merge and one waiting batch.
func TestSpineWorkBound(t *testing.T) {
	patterns := map[string]func(i int, rng *rand.Rand) int{
		"ones":   func(int, *rand.Rand) int { return 1 },
		"empty":  func(int, *rand.Rand) int { return 0 },
		"random": func(_ int, rng *rand.Rand) int { return rng.IntN(300) },
		"spikes": func(i int, _ *rand.Rand) int { return []int{1, 300}[i%2] },
		"ramp":   func(i int, _ *rand.Rand) int { return i % 300 },
		"bursts": func(i int, _ *rand.Rand) int { return 1 << (i % 9) },
		"rare-giants": func(_ int, rng *rand.Rand) int {
			if rng.IntN(150) == 0 {
				return 3000
			}
			return rng.IntN(4)
		},
	}
	names := make([]string, 0, len(patterns))
	for name := range patterns {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		size := patterns[name]
		for _, compact := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/compact=%v", name, compact), func(t *testing.T) {
				forSeeds(t, 1, func(t *testing.T, rng *rand.Rand) {
					spineWorkBound(t, rng, size, compact)
				})
			})
		}
	}
}

func spineWorkBound(t *testing.T, rng *rand.Rand, size func(int, *rand.Rand) int, compact bool) {
	s := NewSpine(1)
	var worst float64
	for i := range 800 {
		n := size(i, rng)
		var b Builder
		for j := range n {
			// Cancelling streams retract at i what i-1 added,
			// so compaction shrinks batches below their class.
			key := []byte{byte(j >> 8), byte(j)}
			diff := int64(1)
			if compact && i%2 == 1 {
				diff = -1
			}
			b.Push(key, nil, uint64(i), diff)
		}
		batch := b.Done(Description{Lower: uint64(i), Upper: uint64(i + 1)})
		worst = max(worst, insertWithinBound(t, s, batch))
		if compact {
			s.SetSince(uint64(i))
		}
	}
	t.Logf("worst insert used %.2f of its bound; %d levels, %d batches", worst, len(s.levels), s.BatchCount())
}

// insertWithinBound inserts b into s and fails unless the insert did at
// most the work it pays for, fuel for each merge in progress plus a
// roll-up of the levels below b's class into b, and left no level with
// more than one batch waiting. It returns the share of the bound used.
func insertWithinBound(t *testing.T, s *Spine, b *Batch) float64 {
	t.Helper()
	merging := 0
	for _, lv := range s.levels {
		if lv.merge != nil {
			merging++
		}
	}
	k := sizeClass(b.Len())
	before, work := dumpSpine(s), s.Work()
	if err := s.Insert(b); err != nil {
		t.Fatal(err)
	}
	w := s.Work() - work
	bound := s.fuelFor(k)*int64(merging) + 8<<k
	if w > bound {
		t.Fatalf("insert of %d updates did %d work; bound %d\nbefore: %s\nafter:  %s", b.Len(), w, bound, before, dumpSpine(s))
	}
	for i, lv := range s.levels {
		if len(lv.waiting) > 1 {
			t.Fatalf("level %d has %d batches waiting\nbefore: %s\nafter:  %s", i, len(lv.waiting), before, dumpSpine(s))
		}
	}
	return float64(w) / float64(bound)
}

// dumpSpine shows each level's merge and waiting batches by size, for
// failure messages.
func dumpSpine(s *Spine) string {
	var sb strings.Builder
	for i, lv := range s.levels {
		fmt.Fprintf(&sb, "L%d:", i)
		if lv.merge != nil {
			fmt.Fprintf(&sb, "merge(%d+%d, %d left)", lv.merge.older.Len(), lv.merge.newer.Len(), lv.merge.remaining())
		}
		for _, b := range lv.waiting {
			fmt.Fprintf(&sb, "batch(%d)", b.Len())
		}
		sb.WriteString(" ")
	}
	return sb.String()
}

// TestSpinePending: the merge work still to do is what the merges in
// progress have not merged: none while batches of different sizes wait
// on their levels, some once Exert starts a merge and spends a little on
// it, less after it spends more, and none once everything is merged.
func TestSpinePending(t *testing.T) {
	s := NewSpine(1)
	for i := range 4 {
		var b Builder
		for j := range 1000 << (2 * (3 - i)) {
			b.Push([]byte{byte(j >> 16), byte(j >> 8), byte(j)}, nil, uint64(i), 1)
		}
		if err := s.Insert(b.Done(Description{Lower: uint64(i), Upper: uint64(i + 1)})); err != nil {
			t.Fatal(err)
		}
	}
	if p := s.Pending(); p != 0 {
		t.Fatalf("pending %d with no merge started", p)
	}
	s.Exert(1)
	started := s.Pending()
	if started <= 0 {
		t.Fatalf("pending %d after Exert started a merge", started)
	}
	s.Exert(started / 2)
	if p := s.Pending(); p <= 0 || p >= started {
		t.Fatalf("pending %d after spending half of %d", p, started)
	}
	s.MergeAll()
	if p := s.Pending(); p != 0 {
		t.Fatalf("pending %d after MergeAll", p)
	}
}

// TestSpineEmptyInsertsExtendNewest inserts one batch of updates and then
// empty batches, as an arrangement does at every time its input moves
// without an update, with the since following the upper, and checks that
// they cost no merge and no batch: the newest batch's upper moves along,
// and the spine still holds exactly its updates.
func TestSpineEmptyInsertsExtendNewest(t *testing.T) {
	s := NewSpine(1)
	b := NewBatcher(0)
	b.Push([]byte("a"), []byte("x"), 0, 1)
	b.Push([]byte("b"), []byte("y"), 0, 2)
	if err := s.Insert(b.Seal(1)); err != nil {
		t.Fatal(err)
	}
	work := s.Work()
	for upper := uint64(2); upper <= 100; upper++ {
		s.SetSince(upper - 1)
		if err := s.Insert(b.Seal(upper)); err != nil {
			t.Fatal(err)
		}
		checkSpine(t, s)
	}
	if n, w := s.BatchCount(), s.Work()-work; n != 1 || w != 0 {
		t.Fatalf("after 99 empty inserts: %d batches, %d merge work; want 1 and 0", n, w)
	}
	if d := s.Batches(nil)[0].desc; d.Lower != 0 || d.Upper != 100 {
		t.Fatalf("the batch is %v, want [0, 100)", d)
	}
	want := []update{{"a", "x", 99, 1}, {"b", "y", 99, 2}}
	if got := contents(s.Cursor()); !slices.Equal(got, want) {
		t.Fatalf("the spine holds %v, want %v", got, want)
	}
}
