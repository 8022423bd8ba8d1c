package compute

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPartialsMatchSummedUpdates checks partials against the naive sum:
// over rounds of seeded random contributions (keys that share bytes,
// short keys and long, keys that differ only in a trailing zero byte,
// times, limbs, weights of both signs; few groups or more than the
// slot table first holds), the updates emitted for the times
// before a random upper sum, per (key, val, time), to what the
// contributions at those times sum to, including contributions held over
// from earlier rounds; no emitted update has a zero diff; the groups at
// later times are kept for the next round; and a group's key is its own
// copy, unchanged when the caller's buffer is written over.
func TestPartialsMatchSummedUpdates(t *testing.T) {
	kinds := []accumulator{{kind: accRows}, {kind: accNonNull, col: 1}, {kind: accDecimal, col: 2}}
	indexes := [][]byte{{0, 0}, {0, 1}, {0, 2}}
	forSeeds(t, 100, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 91))
		ps := newPartials(len(kinds))
		vals := limbVals{}
		// want[time][key/val] is what is held at time.
		want := map[uint64]map[string]int64{}
		base := uint64(0)
		buf := make([]byte, 0, 8)
		// Keys from a small domain share groups; from a large one, the
		// groups outgrow the slot table, which grows and is rebuilt.
		keys, rows := 5, 50
		if seed%2 == 0 {
			keys, rows = 400, 300
		}
		for round := 0; round < 6; round++ {
			for range rng.IntN(rows) {
				buf = fmt.Appendf(buf[:0], "k%d", rng.IntN(keys))
				switch rng.IntN(8) {
				case 0, 1:
					buf = buf[:0]
				case 2:
					// A key ending in a zero byte, beside the same
					// without it.
					buf = append(buf, 0)
				case 5:
					// Eight bytes, the longest a word holds.
					buf = fmt.Appendf(buf[:0], "key%05d", rng.IntN(keys))
				case 3, 4:
					// Past a word: hashed and compared as bytes.
					buf = fmt.Appendf(buf[:0], "a key past a word %d", rng.IntN(keys))
				}
				time := base + uint64(rng.IntN(3))
				g := ps.group(buf, time)
				key := string(buf)
				// The caller's buffer is reused for the next row.
				for i := range buf {
					buf[i] = '!'
				}
				if want[time] == nil {
					want[time] = map[string]int64{}
				}
				i := rng.IntN(len(kinds))
				w := rng.Int64N(7) - 3
				if kinds[i].kind == accDecimal {
					pos := int16(rng.IntN(3) - 1)
					ps.addLimb(g, i, pos, w)
					want[time][fmt.Sprintf("%q/%q", key, vals.get(uint16(i), pos))] += w
					continue
				}
				ps.add(g, i, w)
				want[time][fmt.Sprintf("%q/%q", key, indexes[i])] += w
			}
			upper := base + uint64(rng.IntN(4))
			if round == 5 {
				upper = base + 3
			}
			max := ps.updatesBefore(upper)
			res := ps.emitBefore(nil, upper, indexes, vals, kinds)
			if len(res) > max {
				t.Fatalf("round %d: %d updates, updatesBefore said at most %d", round, len(res), max)
			}
			got := map[uint64]map[string]int64{}
			for _, u := range res {
				if u.Diff == 0 {
					t.Fatalf("round %d: emitted a zero diff: %+v", round, u)
				}
				if u.Time >= upper {
					t.Fatalf("round %d: emitted %+v, at or past upper %d", round, u, upper)
				}
				if got[u.Time] == nil {
					got[u.Time] = map[string]int64{}
				}
				got[u.Time][fmt.Sprintf("%q/%q", u.Key, u.Val)] += u.Diff
			}
			for time, ws := range want {
				if time >= upper {
					continue
				}
				for k, w := range ws {
					if w == 0 {
						delete(ws, k)
					}
				}
				if fmt.Sprint(got[time]) != fmt.Sprint(ws) && len(got[time])+len(ws) > 0 {
					t.Fatalf("round %d, time %d:\n got %v\nwant %v", round, time, got[time], ws)
				}
				delete(got, time)
				delete(want, time)
			}
			if len(got) > 0 {
				t.Fatalf("round %d: emitted at times nothing was held: %v", round, got)
			}
			ps.forget(upper)
			for _, g := range ps.groups {
				if g.time < upper {
					t.Fatalf("round %d: group at %d kept past upper %d", round, g.time, upper)
				}
			}
			if least, ok := ps.least(); ok != (len(want) > 0) || ok && least < upper {
				t.Fatalf("round %d: least %d, %v with %d times wanted", round, least, ok, len(want))
			}
			base = upper
		}
		if ps.len() != 0 || len(want) != 0 {
			t.Fatalf("at the end, %d groups held, %d times wanted", ps.len(), len(want))
		}
	})
}

// BenchmarkPartialsGroup finds the groups of rows whose keys are one
// int4 column among 10,000 values (a table's rows grouped by customer),
// in no order.
func BenchmarkPartialsGroup(b *testing.B) {
	ps := newPartials(1)
	keys := make([][]byte, 10000)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint32([]byte{3}, uint32(i))
	}
	i := 0
	for b.Loop() {
		ps.add(ps.group(keys[i], 5), 0, 1)
		i = (i + 7919) % len(keys)
	}
}

// BenchmarkPartialsHydrate sums three accumulators of rows as a view's
// hydration over a table does: the rows, 4M of them, stream by in the
// table's order, and their group keys, one int4 column among 10,000
// values, come in no order of their own, so that the groups are read
// from memory the rows' stream keeps evicting from the caches.
func BenchmarkPartialsHydrate(b *testing.B) {
	const rows, groups = 4 << 20, 10000
	keys := make([]byte, 0, rows*5)
	for g := range rows {
		keys = binary.BigEndian.AppendUint32(append(keys, 3), uint32(g*37%groups))
	}
	b.SetBytes(5)
	var ps *partials
	for i := 0; b.Loop(); i++ {
		if i%rows == 0 {
			ps = newPartials(3)
		}
		k := keys[i%rows*5 : i%rows*5+5]
		g := ps.group(k, 5)
		ps.add(g, 0, 1)
		ps.add(g, 1, 1)
		ps.add(g, 2, int64(i%1000))
	}
}

// TestShortWord checks that a short key's word and its length are the
// key: no two keys of one length, over a small alphabet at every length
// up to a word and random ones at the longer lengths, share a word. Keys
// of different lengths may ("k1" and "k11" do): the groups tell them
// apart by length.
func TestShortWord(t *testing.T) {
	seen := map[[2]uint64]string{}
	check := func(key []byte) {
		id := [2]uint64{uint64(len(key)), shortWord(key)}
		if other, ok := seen[id]; ok && other != string(key) {
			t.Fatalf("%q and %q pack into one word, %#x", other, key, id[1])
		}
		seen[id] = string(key)
	}
	var all func(key []byte, n int)
	all = func(key []byte, n int) {
		if len(key) == n {
			check(key)
			return
		}
		for _, c := range []byte{0, 1, 'k', 0xff} {
			all(append(key, c), n)
		}
	}
	for n := 0; n <= 6; n++ {
		all(nil, n)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200_000 {
		key := make([]byte, 4+rng.IntN(shortKey-3))
		for i := range key {
			key[i] = byte(rng.IntN(3))
		}
		check(key)
	}
	if shortWord([]byte("k1")) != shortWord([]byte("k11")) {
		t.Fatal(`"k1" and "k11" were expected to share a word`)
	}
}

// TestDenseGroupsMatchSlots checks the dense indexes against what they
// cache: over seeded rounds of keys of every length they take and none
// they do not (one byte, and two of the same number; an integer column's
// keys of two and three bytes, five
// bytes under two leading bytes, eight bytes, text, numbers below,
// within and far past the ones an index covers, keys past a word), at several times, with the groups of some times sent and
// forgotten between rounds (the others kept, at new indexes), a key and
// time always find a group of that key and time, the one they started,
// and two never share one.
func TestDenseGroupsMatchSlots(t *testing.T) {
	defer func(n int) { denseMinGroups = n }(denseMinGroups)
	forSeeds(t, 100, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 93))
		denseMinGroups = 1 + rng.IntN(64)
		ps := newPartials(1)
		base := uint64(0)
		for round := 0; round < 6; round++ {
			want := map[string]int{}
			owner := map[int]string{}
			for range 2000 {
				var key []byte
				n := uint32(rng.IntN(3000))
				if rng.IntN(4) == 0 {
					n += uint32(rng.IntN(3)) << 30
				}
				switch rng.IntN(8) {
				case 7:
					// One byte, and two whose number is the same: one
					// length's index never answers for another's.
					key = []byte{byte(n)}
					if rng.IntN(2) == 0 {
						key = []byte{0, byte(n)}
					}
				case 0, 1:
					key = binary.BigEndian.AppendUint32([]byte{byte(3 + rng.IntN(2))}, n)
				case 2:
					// An integer column's key: a tag for its length, then
					// its bytes.
					if n < 256 {
						key = []byte{0x2a, byte(n)}
					} else {
						key = binary.BigEndian.AppendUint16([]byte{0x2b}, uint16(n))
					}
				case 3:
					key = binary.BigEndian.AppendUint32([]byte{5, 0, 0, byte(rng.IntN(2))}, n)
				case 4:
					key = fmt.Appendf(nil, "k%d", rng.IntN(50))
				default:
					key = binary.BigEndian.AppendUint32([]byte{3, 3, 3, 3, 3, 3}, n)
				}
				time := base + uint64(rng.IntN(3))
				id := fmt.Sprintf("%x@%d", key, time)
				g := ps.group(key, time)
				if grp := ps.groups[g]; !bytes.Equal(grp.key, key) || grp.time != time {
					t.Fatalf("round %d: %s found the group of %x@%d", round, id, grp.key, grp.time)
				}
				if w, ok := want[id]; ok && w != g {
					t.Fatalf("round %d: %s found group %d, started as %d", round, id, g, w)
				}
				if o, ok := owner[g]; ok && o != id {
					t.Fatalf("round %d: %s and %s share group %d", round, id, o, g)
				}
				want[id], owner[g] = g, id
			}
			// Send and forget the times before upper: the groups kept
			// move to new indexes.
			upper := base + uint64(rng.IntN(4))
			ps.emitBefore(nil, upper, [][]byte{{0, 0}}, limbVals{}, []accumulator{{kind: accRows}})
			ps.forget(upper)
			base = upper
		}
	})
}
