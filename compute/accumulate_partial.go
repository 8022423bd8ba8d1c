package compute

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

	"freshet/arrange"
	"freshet/repr"
)

// partials sums the contributions of rows per group key, time and
// accumulator inside the contributions operator, which holds them until
// its input's frontier passes their time (or they grow past
// maxPartialGroups groups) and then sends the sums. An accumulable
// Reduce's arrangement would consolidate the rows' contributions to the
// same sums; summing them first means the rows of one time cost the
// exchange, the batcher and its sort one update per group, accumulator
// and limb in use instead of one per row and accumulator. A view that
// groups many rows into fewer keys (a join grouped by region, orders
// grouped by customer) sends each key's sums once a time, where it sent
// an update per row.
//
// Sums wrap as int64 arithmetic does, so they equal, modulo 2^64, the
// sum the arrangement would have made of the rows' updates in any order:
// the consolidated diffs are the same.
//
// The zero value is not ready: use newPartials.
type partials struct {
	accs int
	seed maphash.Seed
	// wordSeed is mixed into a short key's hash, from seed, so that
	// keys chosen to collide in the slot table cannot be known ahead.
	wordSeed uint64
	// slots is an open-addressing table of the groups, by the hash of
	// their key and time: 1 + a group's index, or 0 for an empty slot,
	// probed linearly from the hash's slot. Its length is a power of two
	// at least twice the groups', so a probe ends at an empty slot.
	slots  []int32
	groups []partialGroup
	// sums[g*accs+i] is accumulator i's weight in group g (for every
	// kind but accDecimal), and limbs[g*accs+i] its limbs (accDecimal).
	// A decimal accumulator whose scales[i] is not negative also keeps
	// a count of 10^-scales[i] in sums[g*accs+i] (addScaled), which
	// emitBefore adds to its limbs: one word that a row's value is added
	// to, beside the group's counts, where a limb sum is a search of a
	// slice of its own.
	sums   []int64
	limbs  [][]limb
	scales []int
	// arena holds copies of the groups' keys. The updates sent carry
	// views of it, so no byte of it is ever written twice: a full arena
	// is left to them and the collector, and a new one started.
	arena []byte
	// dense[n] finds the groups of one time whose keys are n bytes
	// long and dense as numbers (denseIndex) without the slot table.
	dense [shortKey + 1]denseIndex
	// nextArena is the size of the next arena: partialArena at first,
	// then twice what the last one held when all the groups were sent,
	// or twice the last one's size when it filled before they were, from
	// minPartialArena up to partialArena. A stream of one-row writes
	// started a 16 KB arena for each write's one key.
	nextArena int
}

// maxPartialGroups is how many groups partials holds before the
// contributions operator sends them without waiting for the frontier:
// about 200 bytes a group and accumulator, so a few MB at most.
const maxPartialGroups = 1 << 15

// partialArena is the size of a new arena for the groups' keys.
const partialArena = 16 << 10

type partialGroup struct {
	key  []byte
	time uint64
	hash uint64
	// word is a short key's bytes as one word (shortWord), 0 for a
	// longer key.
	word uint64
}

// A key of at most shortKey bytes (a group by one integer column, say)
// is hashed and compared as one word, without maphash and bytes.Equal:
// a table's rows go through group one at a time.
const shortKey = 8

// shortWord packs a key of at most shortKey bytes into a word that,
// with the key's length, is the key: its first and last four bytes
// (which overlap in a key shorter than eight), or its first, middle and
// last byte. It loads them where they are: a copy into a word's bytes
// first would stall the load behind the copy's stores.
func shortWord(key []byte) uint64 {
	switch n := len(key); {
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(key)) | uint64(binary.LittleEndian.Uint32(key[n-4:]))<<32
	case n > 0:
		return uint64(key[0]) | uint64(key[n/2])<<8 | uint64(key[n-1])<<16
	}
	return 0
}

// minPartialSlots is the size of a new slot table.
const minPartialSlots = 64

func newPartials(accs int) *partials {
	seed := maphash.MakeSeed()
	scales := make([]int, accs)
	for i := range scales {
		scales[i] = -1
	}
	return &partials{accs: accs, seed: seed, wordSeed: maphash.Comparable(seed, uint64(0)), slots: make([]int32, minPartialSlots), nextArena: partialArena, scales: scales}
}

// len returns the number of groups held.
func (ps *partials) len() int { return len(ps.groups) }

// hash returns the hash of (key, time) and, for a short key, its word.
func (ps *partials) hash(key []byte, time uint64) (h, word uint64) {
	if len(key) <= shortKey {
		word = shortWord(key)
		// A 64-bit finalizer (MurmurHash3's) over the word, its length,
		// the time and the seed: every bit of them reaches the slot
		// table's low bits.
		x := (word ^ ps.wordSeed) + uint64(len(key))*0x9e3779b97f4a7c15 + time*0xc2b2ae3d27d4eb4f
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		x *= 0xc4ceb9fe1a85ec53
		x ^= x >> 33
		return x, word
	}
	return maphash.Bytes(ps.seed, key) ^ time*0x9e3779b97f4a7c15, 0
}

// group returns the group of (key, time), starting one if there is none;
// a new group keeps a copy of key.
func (ps *partials) group(key []byte, time uint64) int {
	if g, ok := ps.denseLookup(key, time); ok {
		return g
	}
	g := ps.slotGroup(key, time)
	ps.denseNote(key, time, g)
	return g
}

// slotGroup is group through the slot table.
func (ps *partials) slotGroup(key []byte, time uint64) int {
	h, word := ps.hash(key, time)
	mask := uint64(len(ps.slots) - 1)
	i := h & mask
	short := len(key) <= shortKey
	for ; ps.slots[i] != 0; i = (i + 1) & mask {
		g := ps.slots[i] - 1
		grp := &ps.groups[g]
		if grp.hash != h || grp.time != time || len(grp.key) != len(key) {
			continue
		}
		if short && grp.word == word || !short && bytes.Equal(grp.key, key) {
			return int(g)
		}
	}
	if len(ps.arena)+len(key) > cap(ps.arena) {
		if cap(ps.arena) > 0 {
			ps.resizeArena(2 * cap(ps.arena))
		}
		ps.arena = make([]byte, 0, max(ps.nextArena, len(key)))
	}
	off := len(ps.arena)
	ps.arena = append(ps.arena, key...)
	g := len(ps.groups)
	ps.groups = append(ps.groups, partialGroup{key: ps.arena[off:len(ps.arena):len(ps.arena)], time: time, hash: h, word: word})
	ps.slots[i] = int32(g + 1)
	for range ps.accs {
		ps.sums = append(ps.sums, 0)
	}
	if 2*len(ps.groups) > len(ps.slots) {
		ps.index(2 * len(ps.slots))
	}
	return g
}

// index rebuilds the slot table with n slots, a power of two at least
// twice the number of groups; a table much larger than that is let go.
func (ps *partials) index(n int) {
	if cap(ps.slots) >= n && cap(ps.slots) <= 4*n {
		ps.slots = ps.slots[:n]
		clear(ps.slots)
	} else {
		ps.slots = make([]int32, n)
	}
	mask := uint64(n - 1)
	for g := range ps.groups {
		i := ps.groups[g].hash & mask
		for ps.slots[i] != 0 {
			i = (i + 1) & mask
		}
		ps.slots[i] = int32(g + 1)
	}
}

// add adds w to accumulator i of group g.
func (ps *partials) add(g, i int, w int64) {
	ps.sums[g*ps.accs+i] += w
}

// addLimb adds w to the limb at pos of accumulator i of group g.
func (ps *partials) addLimb(g, i int, pos int16, w int64) {
	at := g*ps.accs + i
	// The limb slices grow as they are first used: a group whose sums
	// are all counts (addScaled) never has any. Those of groups sent
	// earlier are reused, already empty.
	for len(ps.limbs) <= at {
		ps.limbs = append(ps.limbs, nil)
	}
	ls := ps.limbs[at]
	for j := range ls {
		if ls[j].pos == pos {
			ls[j].sum += w
			return
		}
	}
	ps.limbs[at] = append(ls, limb{pos: pos, sum: w})
}

// limbsAt returns the limbs at index at of limbs, none if it has not
// grown that far.
func (ps *partials) limbsAt(at int) []limb {
	if at < len(ps.limbs) {
		return ps.limbs[at]
	}
	return nil
}

// setScale makes decimal accumulator i keep a count of 10^-scale
// (addScaled), a scale from 0 to 18, or none if scale is negative; it
// holds no count yet.
func (ps *partials) setScale(i, scale int) {
	ps.scales[i] = scale
}

// addScaled adds w, a count of 10^-scales[i], to decimal accumulator i
// of group g. A count that would overflow is first moved to the limbs.
func (ps *partials) addScaled(g, i int, w int64) {
	at := g*ps.accs + i
	if sum, ok := repr.AddInt64(ps.sums[at], w); ok {
		ps.sums[at] = sum
		return
	}
	ps.foldScaled(g, i)
	ps.sums[at] = w
}

// foldScaled adds decimal accumulator i of group g's count of
// 10^-scales[i] to its limbs, and zeroes it.
func (ps *partials) foldScaled(g, i int) {
	at := g*ps.accs + i
	v := ps.sums[at]
	if v == 0 {
		return
	}
	ls, n := ps.countLimbs(i, v)
	for _, l := range ls[:n] {
		ps.addLimb(g, i, l.pos, l.sum)
	}
	ps.sums[at] = 0
}

// scaledLimbs is the most limbs a count makes: below 2^63 times at most
// 10^8 (the alignment to a limb), it has 27 digits.
const scaledLimbs = 3

// countLimbs returns the limbs of decimal accumulator i's count v of
// 10^-scales[i], as foldScaled adds them, in a fixed array: n of them.
func (ps *partials) countLimbs(i int, v int64) (ls [scaledLimbs]limb, n int) {
	// The magnitude of the least int64 is its own negation, as a uint64.
	mag := uint64(v)
	if v < 0 {
		mag = uint64(-v)
	}
	eachWordLimb(mag, v < 0, -int64(ps.scales[i]), func(pos int16, w int64) {
		ls[n] = limb{pos: pos, sum: w}
		n++
	})
	return ls, n
}

// updatesBefore returns at most how many updates emitBefore(upper)
// appends.
func (ps *partials) updatesBefore(upper uint64) int {
	n := 0
	for g, grp := range ps.groups {
		if grp.time >= upper {
			continue
		}
		for i := range ps.accs {
			at := g*ps.accs + i
			n += 1 + len(ps.limbsAt(at))
			if v := ps.sums[at]; ps.scales[i] >= 0 && v != 0 {
				_, k := ps.countLimbs(i, v)
				n += k
			}
		}
	}
	return n
}

// emitBefore appends the non-zero sums of the groups at times before
// upper to res as updates, each at its group's time, and zeroes them;
// forget then drops the groups. indexes[i] is accumulator i's val; vals
// gives a limb's.
func (ps *partials) emitBefore(res []arrange.Update, upper uint64, indexes [][]byte, vals limbVals, kinds []accumulator) []arrange.Update {
	for g, grp := range ps.groups {
		if grp.time >= upper {
			continue
		}
		for i, a := range kinds {
			at := g*ps.accs + i
			if a.kind == accDecimal {
				ls := ps.limbsAt(at)
				if v := ps.sums[at]; ps.scales[i] >= 0 && v != 0 {
					// The count's limbs join those at their positions,
					// or are sent as their own: no limb slice is made
					// for a group that has only a count.
					counted, n := ps.countLimbs(i, v)
				count:
					for _, c := range counted[:n] {
						for j := range ls {
							if ls[j].pos == c.pos {
								ls[j].sum += c.sum
								continue count
							}
						}
						res = append(res, arrange.Update{Key: grp.key, Val: vals.get(uint16(i), c.pos), Time: grp.time, Diff: c.sum})
					}
					ps.sums[at] = 0
				}
				for _, l := range ls {
					if l.sum != 0 {
						res = append(res, arrange.Update{Key: grp.key, Val: vals.get(uint16(i), l.pos), Time: grp.time, Diff: l.sum})
					}
				}
				if len(ls) > 0 {
					ps.limbs[at] = ls[:0]
				}
				continue
			}
			if w := ps.sums[at]; w != 0 {
				res = append(res, arrange.Update{Key: grp.key, Val: indexes[i], Time: grp.time, Diff: w})
				ps.sums[at] = 0
			}
		}
	}
	return res
}

// least returns the least time of a group held, or false if none is.
func (ps *partials) least() (uint64, bool) {
	if len(ps.groups) == 0 {
		return 0, false
	}
	t := ps.groups[0].time
	for _, g := range ps.groups[1:] {
		t = min(t, g.time)
	}
	return t, true
}

// forget drops the groups at times before upper, whose sums emitBefore sent,
// and keeps the others.
func (ps *partials) forget(upper uint64) {
	kept := 0
	for g, grp := range ps.groups {
		if grp.time < upper {
			continue
		}
		// Move group g to kept, with its sums and limb slices; the
		// slices swap, so that none is lost or shared.
		for i := range ps.accs {
			from, to := g*ps.accs+i, kept*ps.accs+i
			ps.sums[to] = ps.sums[from]
			if from < len(ps.limbs) {
				ps.limbs[to], ps.limbs[from] = ps.limbs[from], ps.limbs[to]
			}
		}
		ps.groups[kept] = grp
		kept++
	}
	clear(ps.groups[kept:])
	ps.groups = ps.groups[:kept]
	// The groups kept have new indexes.
	ps.denseReset()
	ps.sums = ps.sums[:kept*ps.accs]
	// The table shrinks back to what the kept groups need: a hydration
	// into many groups is not paid for again at every later time.
	n := minPartialSlots
	for n < 2*kept+2 {
		n *= 2
	}
	ps.index(min(n, len(ps.slots)))
	if kept == 0 && ps.arena != nil {
		// The updates sent hold views of the arena: a new one is started.
		ps.resizeArena(2 * len(ps.arena))
		ps.arena = nil
	}
}

// resizeArena sets the next arena's size to n, within minPartialArena
// and partialArena.
func (ps *partials) resizeArena(n int) {
	ps.nextArena = min(partialArena, max(minPartialArena, n))
}

// minPartialArena is the least size of a new arena.
const minPartialArena = 256

// denseIndex is a direct index of the groups of one time whose keys are
// n bytes long (1 to 8) and, read as a big-endian number u, lie within
// a range dense with groups: groups[u-base] is 1 + the group of such a
// key, or 0 if it is not known. An integer column's key is a tag for its
// length and its bytes, big-endian (repr's encoding), so customer ids
// 256 to 10,000 are three-byte keys that number 9,745 in a row. A
// table's rows summed into thousands of such groups (orders by customer)
// find theirs in an array of 4 bytes a number, which stays in the
// cache, where the slot table and the groups it points to miss it for
// every row.
//
// It holds what the slot table holds, for the keys it covers: a group
// found or started through the slot table is noted in it. partials keeps
// one for each key length; each starts at the time of the
// denseMinGroups-th group and covers numbers within denseSpan of the
// groups held, and all are reset when the groups' indexes change
// (partials.forget).
type denseIndex struct {
	on     bool
	time   uint64
	base   uint64
	groups []int32
}

// denseMinGroups is how many groups partials holds before it starts a
// dense index: writes of a few rows never make one.
var denseMinGroups = 1024

// denseSpan returns how many numbers a dense index may cover while
// partials holds the given number of groups: four a group, at least
// 4,096. partials holds at most maxPartialGroups, so an index is at
// most 512 KB.
func denseSpan(groups int) int {
	return max(4*groups, 4096)
}

// denseNumber returns a key of 1 to 8 bytes read as a big-endian number.
func denseNumber(key []byte) uint64 {
	var u uint64
	for _, b := range key {
		u = u<<8 | uint64(b)
	}
	return u
}

// denseLookup returns the group of (key, time) if its dense index knows
// it.
func (ps *partials) denseLookup(key []byte, time uint64) (int, bool) {
	if len(key) == 0 || len(key) > shortKey {
		return 0, false
	}
	d := &ps.dense[len(key)]
	if !d.on || time != d.time {
		return 0, false
	}
	// Below base, the difference wraps past the index's length.
	if i := denseNumber(key) - d.base; i < uint64(len(d.groups)) {
		if g := d.groups[i]; g != 0 {
			return int(g - 1), true
		}
	}
	return 0, false
}

// denseNote records in its dense index that (key, time)'s group is g,
// if the index covers it or can grow to; it starts the index once
// partials holds denseMinGroups groups.
func (ps *partials) denseNote(key []byte, time uint64, g int) {
	if len(key) == 0 || len(key) > shortKey {
		return
	}
	d := &ps.dense[len(key)]
	if !d.on && len(ps.groups) < denseMinGroups {
		return
	}
	u := denseNumber(key)
	if !d.on {
		*d = denseIndex{on: true, time: time, base: u, groups: append(d.groups[:0], 0)}
	}
	if time != d.time {
		return
	}
	switch span := uint64(denseSpan(len(ps.groups))); {
	case u < d.base:
		// Grown at the front: the numbers between u and base first.
		front := d.base - u
		if front > span || front+uint64(len(d.groups)) > span {
			return
		}
		grown := make([]int32, int(front)+len(d.groups), int(front)+cap(d.groups))
		copy(grown[front:], d.groups)
		d.groups, d.base = grown, u
	case u-d.base >= uint64(len(d.groups)):
		if u-d.base >= span {
			return
		}
		n := int(u-d.base) + 1
		if n > cap(d.groups) {
			// Twice as much room, within the span: numbers that come in
			// order grow it a few times, not at every one.
			grown := make([]int32, len(d.groups), min(max(2*cap(d.groups), n), int(span)))
			copy(grown, d.groups)
			d.groups = grown
		}
		// The room past the length may hold an earlier time's groups.
		old := len(d.groups)
		d.groups = d.groups[:n]
		clear(d.groups[old:])
	}
	d.groups[u-d.base] = int32(g + 1)
}

// denseReset empties the dense indexes, keeping each one's array for the
// next time if it is small.
func (ps *partials) denseReset() {
	for i := range ps.dense {
		d := &ps.dense[i]
		if !d.on {
			continue
		}
		keep := d.groups[:0]
		if cap(keep) > 16<<10 {
			keep = nil
		}
		*d = denseIndex{groups: keep}
	}
}
