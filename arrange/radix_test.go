package arrange

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomSortKey returns a byte string that stresses a sort on an
// eight-byte prefix: empty, short with 0x00 and 0xFF bytes, equal to
// another but for trailing zeros, or sharing its first eight bytes (or
// more) with many others.
func randomSortKey(rng *rand.Rand) []byte {
	edge := []byte{0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff}
	b := func() byte {
		if rng.IntN(2) == 0 {
			return edge[rng.IntN(len(edge))]
		}
		return byte(rng.IntN(256))
	}
	var k []byte
	switch rng.IntN(5) {
	case 0:
		// empty
	case 1:
		for range rng.IntN(8) + 1 {
			k = append(k, b())
		}
	case 2:
		k = append(k, "a"...)
		for range rng.IntN(10) {
			k = append(k, 0)
		}
	case 3:
		k = append(k, "shared-p"...)
		for range rng.IntN(4) {
			k = append(k, b())
		}
	default:
		k = append(k, 0x2a+byte(rng.IntN(3)))
		for range rng.IntN(3) {
			k = append(k, b())
		}
	}
	return k
}

// TestSortStagedMatchesComparisonSort checks the batcher's radix sort
// against slices.SortFunc on (key, val, time) by bytes.Compare, over
// random staged updates of many sizes, some all of one key: its output
// must be sorted, a permutation of the input, and every update's prefix
// its key's.
func TestSortStagedMatchesComparisonSort(t *testing.T) {
	forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
		for round := range 8 {
			n := []int{0, 1, 2, radixMin - 1, radixMin, 1000, 5000, 40_000}[rng.IntN(8)]
			keys := make([][]byte, []int{1, 2, 8, 300, 5000}[rng.IntN(5)])
			for i := range keys {
				keys[i] = randomSortKey(rng)
			}
			vals := make([][]byte, []int{1, 3, 100}[rng.IntN(3)])
			for i := range vals {
				vals[i] = randomSortKey(rng)
			}
			c := &chunk{least: Done}
			var want []update
			for range n {
				k, v := keys[rng.IntN(len(keys))], vals[rng.IntN(len(vals))]
				tm, d := uint64(rng.IntN(4)), int64(rng.IntN(4)-2)
				if d >= 0 {
					d++
				}
				c.push(k, v, keyPrefix(k), tm, d)
				want = append(want, update{string(k), string(v), tm, d})
			}
			sortStaged(c.recs, c.arena)
			got := make([]update, n)
			for i, s := range c.recs {
				got[i] = update{string(s.keyIn(c.arena)), string(s.valIn(c.arena)), s.time, s.diff}
				if s.prefix != keyPrefix(s.keyIn(c.arena)) {
					t.Fatalf("round %d (n %d): update %d has prefix %x, not its key's", round, n, i, s.prefix)
				}
				if i > 0 && compareUpdates(got[i-1], got[i]) > 0 {
					t.Fatalf("round %d (n %d): out of order at %d: %v before %v", round, n, i, got[i-1], got[i])
				}
			}
			// The sort need not be stable: order each run of equal
			// (key, val, time) by diff on both sides before comparing.
			byDiff := func(x, y update) int { return cmp.Or(compareUpdates(x, y), cmp.Compare(x.diff, y.diff)) }
			slices.SortFunc(want, byDiff)
			slices.SortStableFunc(got, byDiff)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d (n %d): sorted updates are not a permutation of the input", round, n)
			}
		}
	})
}
