package compute

import (
	"bytes"
	"hash/maphash"

	"freshet/arrange"
)

// partials sums the contributions of one piece of rows per group key,
// time and accumulator, before they leave the contributions
// operator. An accumulable Reduce's arrangement would consolidate them
// to the same sums; summing them first means a piece of rows costs the
// exchange, the batcher and its sort one update per group, accumulator
// and limb in use instead of one per row and accumulator. A view that
// groups many rows into few keys (a join grouped by region) sends a
// handful of updates a piece where it sent thousands.
//
// Sums wrap as int64 arithmetic does, so they equal, modulo 2^64, the
// sum the arrangement would have made of the rows' updates in any order:
// the consolidated diffs are the same.
//
// The zero value is not ready: use newPartials.
type partials struct {
	accs int
	seed maphash.Seed
	// first maps a key's hash to its most recent group; groups that
	// share a hash are chained through partialGroup.next.
	first  map[uint64]int32
	groups []partialGroup
	// sums[g*accs+i] is accumulator i's weight in group g (for every
	// kind but accDecimal), and limbs[g*accs+i] its limbs (accDecimal).
	sums  []int64
	limbs [][]limb
}

type partialGroup struct {
	key  []byte
	time uint64
	// next is the previous group whose key has the same hash, or -1.
	next int32
}

func newPartials(accs int) *partials {
	return &partials{accs: accs, seed: maphash.MakeSeed(), first: map[uint64]int32{}}
}

// group returns the group of (key, time), starting one if the piece has
// none. The group keeps key (not a copy): it must not change until emit.
func (ps *partials) group(key []byte, time uint64) int {
	h := maphash.Bytes(ps.seed, key) ^ time*0x9e3779b97f4a7c15
	head, ok := ps.first[h]
	if ok {
		for g := head; g >= 0; g = ps.groups[g].next {
			if ps.groups[g].time == time && bytes.Equal(ps.groups[g].key, key) {
				return int(g)
			}
		}
	} else {
		head = -1
	}
	g := len(ps.groups)
	ps.groups = append(ps.groups, partialGroup{key: key, time: time, next: head})
	ps.first[h] = int32(g)
	for range ps.accs {
		ps.sums = append(ps.sums, 0)
	}
	if n := len(ps.groups) * ps.accs; n > len(ps.limbs) {
		// Limb slices of an earlier piece are reused, already empty.
		ps.limbs = append(ps.limbs, make([][]limb, n-len(ps.limbs))...)
	}
	return g
}

// add adds w to accumulator i of group g.
func (ps *partials) add(g, i int, w int64) {
	ps.sums[g*ps.accs+i] += w
}

// addLimb adds w to the limb at pos of accumulator i of group g.
func (ps *partials) addLimb(g, i int, pos int16, w int64) {
	ls := ps.limbs[g*ps.accs+i]
	for j := range ls {
		if ls[j].pos == pos {
			ls[j].sum += w
			return
		}
	}
	ps.limbs[g*ps.accs+i] = append(ls, limb{pos: pos, sum: w})
}

// updates returns at most how many updates emit appends.
func (ps *partials) updates() int {
	n := len(ps.sums)
	for _, ls := range ps.limbs[:len(ps.sums)] {
		n += len(ls)
	}
	return n
}

// emit appends the piece's non-zero sums to res as updates and empties ps
// for the next piece. indexes[i] is accumulator i's val; vals gives a
// limb's.
func (ps *partials) emit(res []arrange.Update, indexes [][]byte, vals limbVals, kinds []accumulator) []arrange.Update {
	for g, grp := range ps.groups {
		for i, a := range kinds {
			at := g*ps.accs + i
			if a.kind == accDecimal {
				for _, l := range ps.limbs[at] {
					if l.sum != 0 {
						res = append(res, arrange.Update{Key: grp.key, Val: vals.get(uint16(i), l.pos), Time: grp.time, Diff: l.sum})
					}
				}
				ps.limbs[at] = ps.limbs[at][:0]
				continue
			}
			if w := ps.sums[at]; w != 0 {
				res = append(res, arrange.Update{Key: grp.key, Val: indexes[i], Time: grp.time, Diff: w})
			}
		}
	}
	clear(ps.first)
	clear(ps.groups)
	ps.groups = ps.groups[:0]
	ps.sums = ps.sums[:0]
	return res
}
