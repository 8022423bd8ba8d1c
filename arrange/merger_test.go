package arrange

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMergerCompaction(t *testing.T) {
	older := build(Description{Lower: 0, Upper: 5},
		update{"a", "x", 1, 1}, update{"a", "x", 3, 1}, update{"a", "y", 2, 1},
		update{"b", "x", 0, 1}, update{"c", "x", 4, 1})
	newer := build(Description{Lower: 5, Upper: 10},
		update{"a", "y", 6, -1}, update{"b", "x", 5, -1}, update{"b", "x", 9, 1}, update{"d", "x", 7, 2})
	for _, tc := range []struct {
		name  string
		since uint64
		want  []update
	}{
		{
			name: "no compaction is a union",
			want: []update{
				{"a", "x", 1, 1}, {"a", "x", 3, 1}, {"a", "y", 2, 1}, {"a", "y", 6, -1},
				{"b", "x", 0, 1}, {"b", "x", 5, -1}, {"b", "x", 9, 1}, {"c", "x", 4, 1}, {"d", "x", 7, 2},
			},
		},
		{
			name:  "since 3 merges the times before it",
			since: 3,
			want: []update{
				{"a", "x", 3, 2}, {"a", "y", 3, 1}, {"a", "y", 6, -1},
				{"b", "x", 3, 1}, {"b", "x", 5, -1}, {"b", "x", 9, 1}, {"c", "x", 4, 1}, {"d", "x", 7, 2},
			},
		},
		{
			name:  "since 7 cancels what came and went",
			since: 7,
			want:  []update{{"a", "x", 7, 2}, {"b", "x", 9, 1}, {"c", "x", 7, 1}, {"d", "x", 7, 2}},
		},
		{
			name:  "a since past the upper clamps to the last time in the batch",
			since: 50,
			want:  []update{{"a", "x", 9, 2}, {"b", "x", 9, 1}, {"c", "x", 9, 1}, {"d", "x", 9, 2}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMerger(older, newer, tc.since)
			if used := m.work(math.MaxInt64); used != int64(older.Len()+newer.Len()) {
				t.Fatalf("used %d fuel, want one per input update", used)
			}
			mustValidate(t, m.result)
			if got := contents(m.result.Cursor()); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if d, want := m.result.Description(), (Description{Lower: 0, Upper: 10, Since: tc.since}); d != want {
				t.Fatalf("description %v, want %v", d, want)
			}
		})
	}
}

// TestMergerSharesColumns checks that merging with an empty batch, with
// nothing to compact, copies nothing.
func TestMergerSharesColumns(t *testing.T) {
	b := build(Description{Lower: 2, Upper: 5}, update{"a", "x", 2, 1}, update{"b", "x", 4, 1})
	empty := &Batch{desc: Description{Lower: 5, Upper: 8}}
	m := newMerger(b, empty, 2)
	if !m.done() || &m.result.keyBytes[0] != &b.keyBytes[0] || m.result.Description() != (Description{Lower: 2, Upper: 8, Since: 2}) {
		t.Fatalf("merge with an empty batch did not share columns: done %v, %v", m.done(), m.result.Description())
	}
	if m := newMerger(b, empty, 3); m.done() {
		t.Fatal("a merge that must advance time 2 to 3 shared columns")
	}
}

// TestMergerResumes checks that a merge stopped and resumed at every
// update gives what one uninterrupted merge gives.
func TestMergerResumes(t *testing.T) {
	forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
		keys := pick(rng, keyPool, 4)
		vals := pick(rng, valPool, 3)
		gen := func(lower uint64) *Batch {
			var ups []update
			for range rng.IntN(60) {
				ups = append(ups, update{keys[rng.IntN(4)], vals[rng.IntN(3)], lower + rng.Uint64N(10), rng.Int64N(3) - 1})
			}
			return build(Description{Lower: lower, Upper: lower + 10}, consolidated(ups)...)
		}
		older, newer := gen(0), gen(10)
		since := rng.Uint64N(25)
		whole := newMerger(older, newer, since)
		whole.work(math.MaxInt64)
		step := newMerger(older, newer, since)
		var used int64
		for !step.done() {
			fuel := rng.Int64N(3)
			n := step.work(fuel)
			if n > fuel {
				t.Fatalf("used %d of %d fuel", n, fuel)
			}
			used += n
		}
		if used != int64(older.Len()+newer.Len()) {
			t.Fatalf("used %d fuel in steps, want %d", used, older.Len()+newer.Len())
		}
		mustValidate(t, step.result)
		if got, want := contents(step.result.Cursor()), contents(whole.result.Cursor()); !slices.Equal(got, want) {
			t.Fatalf("stepwise merge %v, whole merge %v", got, want)
		}
	})
}
