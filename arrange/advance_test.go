package arrange

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
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
