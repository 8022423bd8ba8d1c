package compute

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPartialsMatchSummedUpdates checks partials against the naive sum:
// the updates emitted for pieces of seeded random contributions (keys
// that share bytes and times, limbs, weights of both signs) sum, per
// (key, val, time), to what the contributions sum to, and no emitted
// update has a zero diff.
func TestPartialsMatchSummedUpdates(t *testing.T) {
	kinds := []accumulator{{kind: accRows}, {kind: accNonNull, col: 1}, {kind: accDecimal, col: 2}}
	indexes := [][]byte{{0, 0}, {0, 1}, {0, 2}}
	forSeeds(t, 100, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 91))
		ps := newPartials(len(kinds))
		vals := limbVals{}
		for piece := 0; piece < 4; piece++ {
			want := map[string]int64{}
			for range rng.IntN(50) {
				key := []byte(fmt.Sprintf("k%d", rng.IntN(5)))
				if rng.IntN(4) == 0 {
					key = key[:0]
				}
				time := uint64(rng.IntN(3))
				g := ps.group(key, time)
				i := rng.IntN(len(kinds))
				w := rng.Int64N(7) - 3
				if kinds[i].kind == accDecimal {
					pos := int16(rng.IntN(3) - 1)
					ps.addLimb(g, i, pos, w)
					want[fmt.Sprintf("%q/%q/%d", key, vals.get(uint16(i), pos), time)] += w
					continue
				}
				ps.add(g, i, w)
				want[fmt.Sprintf("%q/%q/%d", key, indexes[i], time)] += w
			}
			max := ps.updates()
			got := map[string]int64{}
			res := ps.emit(nil, indexes, vals, kinds)
			if len(res) > max {
				t.Fatalf("piece %d: %d updates, updates() said at most %d", piece, len(res), max)
			}
			for _, u := range res {
				if u.Diff == 0 {
					t.Fatalf("piece %d: emitted a zero diff: %+v", piece, u)
				}
				got[fmt.Sprintf("%q/%q/%d", u.Key, u.Val, u.Time)] += u.Diff
			}
			for k, w := range want {
				if w == 0 {
					delete(want, k)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("piece %d:\n got %v\nwant %v", piece, got, want)
			}
		}
		if ps.updates() != 0 {
			t.Fatalf("after emit, %d updates left", ps.updates())
		}
	})
}
