package arrange

import (
	"bytes"
	"slices"
)

// radixMin is the least number of staged updates that sortStaged splits
// by a byte of their prefix; smaller runs are sorted by comparison, which
// is cheaper than a byte histogram and a permutation pass over them.
const radixMin = 64

// sortStaged sorts s, whose bytes are in arena, in the order
// compareStaged gives: (key, val, time).
//
// The prefix orders staged updates as bytes.Compare orders their keys,
// except that keys which share their first eight bytes (or are equal
// but for trailing zeros) tie on it. So s is sorted by prefix with an
// in-place most-significant-byte radix sort (American flag sort): one
// histogram of the byte at hand, a permutation that moves each update
// into its byte's bucket, then each bucket by the next byte. A byte on
// which every update agrees costs one histogram and no permutation, as
// the leading bytes of row-encoded keys often do. A bucket left after
// all eight bytes whose updates all have one key (a big group's) is
// sorted the same way by its vals' first eight bytes, held in the
// prefixes until the bucket is sorted. A bucket smaller than radixMin,
// or one left after all eight bytes of another kind, is sorted by
// compareStaged. It needs no scratch memory.
func sortStaged(s []staged, arena []byte) {
	radixSort(s, arena, 56, true)
}

// radixSort sorts s, whose prefixes all agree above bit shift+8, by the
// prefix byte at shift and the ones below it, then by compareStaged.
// byKey says that the prefixes are the keys', not the vals'.
func radixSort(s []staged, arena []byte, shift int, byKey bool) {
	for len(s) >= radixMin && shift >= 0 {
		var counts [256]int
		for i := range s {
			counts[byte(s[i].prefix>>shift)]++
		}
		if counts[byte(s[0].prefix>>shift)] == len(s) {
			shift -= 8
			continue
		}
		// heads[v] is the next slot of bucket v not yet holding one of
		// its own updates; ends[v] is where the bucket ends.
		var heads, ends [256]int
		sum := 0
		for v, c := range counts {
			heads[v] = sum
			sum += c
			ends[v] = sum
		}
		for v := range heads {
			for heads[v] < ends[v] {
				// Carry the update out of this slot along the cycle of
				// the buckets it and its displaced updates belong to,
				// until one that belongs in bucket v comes back.
				x := s[heads[v]]
				for d := int(byte(x.prefix >> shift)); d != v; d = int(byte(x.prefix >> shift)) {
					x, s[heads[d]] = s[heads[d]], x
					heads[d]++
				}
				s[heads[v]] = x
				heads[v]++
			}
		}
		start := 0
		for _, c := range counts {
			if c > 1 {
				radixSort(s[start:start+c], arena, shift-8, byKey)
			}
			start += c
		}
		return
	}
	if len(s) >= radixMin && byKey && sameKey(s, arena) {
		// compareStaged compares the prefixes first: with the vals' in
		// every one they order as the vals do, the keys being equal.
		p := s[0].prefix
		for i := range s {
			s[i].prefix = keyPrefix(s[i].valIn(arena))
		}
		radixSort(s, arena, 56, false)
		for i := range s {
			s[i].prefix = p
		}
		return
	}
	if len(s) > 1 {
		slices.SortFunc(s, func(x, y staged) int { return compareStaged(arena, x, arena, y) })
	}
}

// sameKey reports whether every update of s has the first one's key.
func sameKey(s []staged, arena []byte) bool {
	k := s[0].keyIn(arena)
	for i := 1; i < len(s); i++ {
		if !bytes.Equal(s[i].keyIn(arena), k) {
			return false
		}
	}
	return true
}
