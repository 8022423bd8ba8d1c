package arrange

import (
	"slices"
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
