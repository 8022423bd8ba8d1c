package arrange

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCursorSeek checks that seeks over one batch and over a list land
// where a linear scan does, for keys present, absent, before the first,
// past the last and sharing prefixes, and that Count is the naive sum.
func TestCursorSeek(t *testing.T) {
	forSeeds(t, 50, func(t *testing.T, rng *rand.Rand) {
		keys := pick(rng, keyPool, 3+rng.IntN(len(keyPool)-3))
		vals := pick(rng, valPool, 1+rng.IntN(len(valPool)-1))
		// Three batches tiling [0, 30), so the list has to merge keys
		// and vals present in some batches only.
		var all []update
		var batches []*Batch
		for i := range 3 {
			lower := uint64(10 * i)
			var ups []update
			for range rng.IntN(40) {
				ups = append(ups, update{
					key:  keys[rng.IntN(len(keys))],
					val:  vals[rng.IntN(len(vals))],
					time: lower + rng.Uint64N(10),
					diff: rng.Int64N(5) - 2,
				})
			}
			ups = consolidated(ups)
			all = append(all, ups...)
			b := build(Description{Lower: lower, Upper: lower + 10}, ups...)
			mustValidate(t, b)
			batches = append(batches, b)
		}
		slices.SortStableFunc(all, compareUpdates)

		cursors := map[string]func() Cursor{
			"batch": func() Cursor { return batches[1].Cursor() },
			"list":  func() Cursor { return NewCursorList(batches) },
		}
		want := map[string][]update{"batch": contents(batches[1].Cursor()), "list": all}
		if got := contents(NewCursorList(batches)); !slices.Equal(got, all) {
			t.Fatalf("list reads %v, want %v", got, all)
		}
		for name, open := range cursors {
			ups := want[name]
			// Seek targets in increasing order, as seeks only move forward.
			targets := slices.Clone(keyPool)
			targets = append(targets, "abcdefgh\x00\x00", "abcdefgg", "abcdefgz")
			slices.Sort(targets)
			c := open()
			checked := "\x00not a key"
			for _, target := range targets {
				if rng.IntN(4) == 0 {
					continue
				}
				c.SeekKey([]byte(target))
				i, _ := slices.BinarySearchFunc(ups, target, func(u update, k string) int { return bytes.Compare([]byte(u.key), []byte(k)) })
				if i == len(ups) {
					if c.KeyValid() {
						t.Fatalf("%s: seek to %q found %q, want the end", name, target, c.Key())
					}
					break
				}
				if !c.KeyValid() || string(c.Key()) != ups[i].key {
					t.Fatalf("%s: seek to %q did not find %q", name, target, ups[i].key)
				}
				// A seek that stays on a key checked already leaves its
				// vals where that check moved them.
				if ups[i].key != checked {
					checkVals(t, name, c, ups[i:], vals, rng)
					checked = ups[i].key
				}
			}
		}
	})
}

// checkVals seeks through the vals of c's current key, whose updates start
// ups, comparing positions and counts with a linear scan.
func checkVals(t *testing.T, name string, c Cursor, ups []update, vals []string, rng *rand.Rand) {
	t.Helper()
	key := ups[0].key
	end := slices.IndexFunc(ups, func(u update) bool { return u.key != key })
	if end < 0 {
		end = len(ups)
	}
	ups = ups[:end]
	targets := slices.Clone(vals)
	slices.Sort(targets)
	for _, target := range targets {
		if rng.IntN(3) == 0 {
			continue
		}
		c.SeekVal([]byte(target))
		i := slices.IndexFunc(ups, func(u update) bool { return u.val >= target })
		if i < 0 {
			if c.ValValid() {
				t.Fatalf("%s: key %q: seek to val %q found %q, want the end", name, key, target, c.Val())
			}
			return
		}
		if !c.ValValid() || string(c.Val()) != ups[i].val {
			t.Fatalf("%s: key %q: seek to val %q did not find %q", name, key, target, ups[i].val)
		}
		for _, q := range []uint64{0, 5, 12, 19, 25, MaxTime} {
			var want int64
			for _, u := range ups[i:] {
				if u.val == ups[i].val && u.time <= q {
					want += u.diff
				}
			}
			if got := c.Count(q); got != want {
				t.Fatalf("%s: (%q, %q): Count(%d) = %d, want %d", name, key, ups[i].val, q, got, want)
			}
		}
	}
}

// TestCursorListSince checks that a list raises presented times to its
// since, and that rewinding restarts it.
func TestCursorListSince(t *testing.T) {
	b1 := build(Description{Lower: 0, Upper: 5}, update{"a", "x", 1, 1}, update{"a", "x", 3, 1}, update{"b", "y", 4, 1})
	b2 := build(Description{Lower: 5, Upper: 9}, update{"a", "x", 6, -1}, update{"c", "z", 8, 2})
	c := newCursorList([]*Batch{b1, b2}, 4)
	want := []update{{"a", "x", 4, 1}, {"a", "x", 4, 1}, {"a", "x", 6, -1}, {"b", "y", 4, 1}, {"c", "z", 8, 2}}
	if got := contents(c); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	c.RewindKeys()
	if !c.KeyValid() || string(c.Key()) != "a" || c.Count(4) != 2 || c.Count(6) != 1 {
		t.Fatalf("after rewind: at %q, counts %d %d", c.Key(), c.Count(4), c.Count(6))
	}
	c.StepVal()
	c.RewindVals()
	if !c.ValValid() || string(c.Val()) != "x" {
		t.Fatal("RewindVals did not return to the first val")
	}
}

// TestCursorListBelowSince checks that a read below a list's since is
// caught under the invariants build tag and otherwise sees nothing.
func TestCursorListBelowSince(t *testing.T) {
	b := build(Description{Lower: 0, Upper: 9}, update{"a", "x", 1, 1})
	c := newCursorList([]*Batch{b}, 5)
	if invariants {
		mustPanicAssertion(t, func() { c.Count(4) })
		return
	}
	if got := c.Count(4); got != 0 {
		t.Fatalf("Count below since = %d, want 0", got)
	}
	if got := c.Count(5); got != 1 {
		t.Fatalf("Count at since = %d, want 1", got)
	}
}
