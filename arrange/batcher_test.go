package arrange

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestBatcherSeal(t *testing.T) {
	type seal struct {
		upper    uint64
		want     []update
		frontier uint64 // Frontier() right after the seal
	}
	for _, tc := range []struct {
		name  string
		lower uint64
		push  []update
		seals []seal
	}{
		{
			name:  "nothing staged seals an empty batch",
			seals: []seal{{upper: 5, frontier: Done}, {upper: 5, frontier: Done}},
		},
		{
			name: "unsorted input comes out sorted",
			push: []update{{"b", "x", 2, 1}, {"a", "y", 1, 1}, {"a", "x", 3, 1}, {"a", "x", 1, 1}, {"", "", 0, 1}},
			seals: []seal{{upper: 10, frontier: Done, want: []update{
				{"", "", 0, 1}, {"a", "x", 1, 1}, {"a", "x", 3, 1}, {"a", "y", 1, 1}, {"b", "x", 2, 1},
			}}},
		},
		{
			name:  "duplicates are summed and zeros dropped",
			push:  []update{{"a", "x", 1, 1}, {"b", "x", 1, 1}, {"a", "x", 1, 2}, {"b", "x", 1, -1}, {"c", "x", 1, 0}},
			seals: []seal{{upper: 2, frontier: Done, want: []update{{"a", "x", 1, 3}}}},
		},
		{
			name:  "seal keeps later updates for later seals",
			lower: 3,
			push:  []update{{"a", "x", 7, 1}, {"a", "x", 3, 1}, {"b", "x", 5, 1}, {"b", "x", 5, 1}, {"c", "x", 9, 1}, {"c", "x", 9, -1}},
			seals: []seal{
				{upper: 5, frontier: 5, want: []update{{"a", "x", 3, 1}}},
				{upper: 5, frontier: 5},
				{upper: 7, frontier: 7, want: []update{{"b", "x", 5, 2}}},
				{upper: Done, frontier: Done, want: []update{{"a", "x", 7, 1}}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(tc.lower)
			for _, u := range tc.push {
				b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
			}
			lower := tc.lower
			for _, s := range tc.seals {
				batch := b.Seal(s.upper)
				mustValidate(t, batch)
				if got := contents(batch.Cursor()); !slices.Equal(got, s.want) {
					t.Fatalf("seal at %d: got %v, want %v", s.upper, got, s.want)
				}
				if d := batch.Description(); d != (Description{Lower: lower, Upper: s.upper}) {
					t.Fatalf("seal at %d: description %v", s.upper, d)
				}
				if b.Lower() != s.upper || b.Frontier() != s.frontier {
					t.Fatalf("seal at %d: lower %d, frontier %d; want frontier %d", s.upper, b.Lower(), b.Frontier(), s.frontier)
				}
				lower = s.upper
			}
		})
	}
}

func TestBatcherRejects(t *testing.T) {
	b := NewBatcher(5)
	mustPanicAssertion(t, func() { b.Push([]byte("a"), nil, 4, 1) })
	mustPanicAssertion(t, func() { b.Push([]byte("a"), nil, Done, 1) })
	mustPanicAssertion(t, func() { b.Seal(4) })
	b.Seal(8)
	mustPanicAssertion(t, func() { b.Push([]byte("a"), nil, 7, 1) })
}

// TestBatcherConsolidatesWhileStaging checks that a stream cancelling
// itself between seals holds memory for its net size, not its length.
func TestBatcherConsolidatesWhileStaging(t *testing.T) {
	var b Batcher
	key := []byte("some-key-of-16-b")
	for i := range 3 * consolidateAt {
		b.Push(key, []byte{byte(i % 7)}, 1, 1)
		b.Push(key, []byte{byte(i % 7)}, 1, -1)
	}
	if b.Len() > consolidateAt {
		t.Fatalf("%d updates staged; want at most %d", b.Len(), consolidateAt)
	}
	if batch := b.Seal(2); batch.Len() != 0 {
		t.Fatalf("sealed %d updates, want none", batch.Len())
	}
}

// TestBatcherMatchesModel pushes random updates, many of them at times
// after the next seal, in bursts that cross consolidateAt, and checks
// every sealed batch against a model: what stays staged is sorted, and
// merged with what comes after it, every time.
func TestBatcherMatchesModel(t *testing.T) {
	seed := uint64(5)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	var b Batcher
	model := map[update]int64{}
	lower := uint64(0)
	for round := range 6 {
		n := rng.IntN(3 * consolidateAt)
		if round == 0 {
			n = 3 * consolidateAt // through several consolidations
		}
		for range n {
			u := update{key: fmt.Sprint(rng.IntN(50_000)), val: fmt.Sprint(rng.IntN(3)), time: lower + uint64(rng.IntN(4)), diff: int64(rng.IntN(3) - 1)}
			b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
			model[update{u.key, u.val, u.time, 0}] += u.diff
		}
		upper := lower + 2
		batch := b.Seal(upper)
		mustValidate(t, batch)
		var want []update
		for k, d := range model {
			if k.time < upper && d != 0 {
				want = append(want, update{k.key, k.val, k.time, d})
			}
			if k.time < upper {
				delete(model, k)
			}
		}
		slices.SortFunc(want, func(x, y update) int {
			return cmp.Or(strings.Compare(x.key, y.key), strings.Compare(x.val, y.val), cmp.Compare(x.time, y.time))
		})
		if got := contents(batch.Cursor()); !slices.Equal(got, want) {
			t.Fatalf("round %d: sealed %d updates, want %d", round, len(got), len(want))
		}
		lower = upper
	}
}
