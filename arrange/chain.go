package arrange

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"unsafe"
)

// chunkLen is how many staged updates a chunk holds, and chunkBytes
// about how many key and val bytes: a chunk is full when either is
// reached. A chunk's records and bytes together are under 1 MiB, so
// sorting one stays in cache and a batcher's spare chunks stay small.
const (
	chunkLen   = 1 << 13
	chunkBytes = 1 << 19
)

// stagedSize is the bytes one staged record takes.
const stagedSize = int64(unsafe.Sizeof(staged{}))

// staged is one update waiting to be sealed. Its bytes live in its
// chunk's arena, the val right after the key; prefix holds the key's
// first eight bytes big-endian (zero-padded), so most comparisons end
// before touching the arena.
type staged struct {
	prefix uint64
	key    uint32
	keyLen uint32
	valLen uint32
	time   uint64
	diff   int64
}

func (s *staged) keyIn(arena []byte) []byte { return arena[s.key : s.key+s.keyLen] }

func (s *staged) valIn(arena []byte) []byte {
	v := s.key + s.keyLen
	return arena[v : v+s.valLen]
}

// chunk is a run of staged updates and the arena of their bytes. A
// chunk in a chain is sorted and consolidated; the batcher's pending
// chunk is in push order.
type chunk struct {
	recs  []staged
	arena []byte
	// keyBytes and valBytes are the bytes of the updates' keys and
	// vals, and least their least time (Done if there are none); they
	// size a seal's batch and let a seal pass over chains it keeps.
	keyBytes, valBytes int
	least              uint64
}

// reset empties the chunk, keeping its buffers.
func (c *chunk) reset() {
	c.recs, c.arena = c.recs[:0], c.arena[:0]
	c.keyBytes, c.valBytes, c.least = 0, 0, Done
}

// size returns the heap bytes the chunk holds.
func (c *chunk) size() int64 {
	return int64(cap(c.recs))*stagedSize + int64(cap(c.arena))
}

// full reports whether the chunk should take no more updates.
func (c *chunk) full(limit int) bool {
	return len(c.recs) >= limit || len(c.arena) >= limit*(chunkBytes/chunkLen)
}

// push appends an update whose bytes are copied into the arena.
func (c *chunk) push(key, val []byte, prefix, time uint64, diff int64) {
	off := len(c.arena)
	if off+len(key)+len(val) > maxOffset {
		panic(assertionFailedf("batcher: a chunk exceeds %d bytes", uint64(maxOffset)))
	}
	c.arena = append(c.arena, key...)
	c.arena = append(c.arena, val...)
	c.recs = append(c.recs, staged{
		prefix: prefix,
		key:    uint32(off),
		keyLen: uint32(len(key)),
		valLen: uint32(len(val)),
		time:   time,
		diff:   diff,
	})
	c.keyBytes += len(key)
	c.valBytes += len(val)
	c.least = min(c.least, time)
}

// pushStaged appends a copy of s, whose bytes are in arena: its key and
// val, which lie one after the other there, are copied in one piece.
func (c *chunk) pushStaged(arena []byte, s *staged) {
	off := len(c.arena)
	n := s.keyLen + s.valLen
	if off+int(n) > maxOffset {
		panic(assertionFailedf("batcher: a chunk exceeds %d bytes", uint64(maxOffset)))
	}
	c.arena = append(c.arena, arena[s.key:s.key+n]...)
	r := *s
	r.key = uint32(off)
	c.recs = append(c.recs, r)
	c.keyBytes += int(s.keyLen)
	c.valBytes += int(s.valLen)
	c.least = min(c.least, s.time)
}

// consolidate sorts the chunk's updates, sums those that share (key,
// val, time) and drops zero sums, in place. The bytes of dropped
// updates stay in the arena until the chunk is reused.
func (c *chunk) consolidate() {
	sortStaged(c.recs, c.arena)
	kept := c.recs[:0]
	c.keyBytes, c.valBytes, c.least = 0, 0, Done
	for i := 0; i < len(c.recs); {
		s := c.recs[i]
		j := i + 1
		for j < len(c.recs) && compareStaged(c.arena, s, c.arena, c.recs[j]) == 0 {
			s.diff += c.recs[j].diff
			j++
		}
		i = j
		if s.diff != 0 {
			// kept never passes i, so it overwrites only records read.
			kept = append(kept, s)
			c.keyBytes += int(s.keyLen)
			c.valBytes += int(s.valLen)
			c.least = min(c.least, s.time)
		}
	}
	c.recs = kept
}

// chain is a sorted, consolidated run of updates cut into chunks: each
// chunk's updates follow the previous chunk's, and no (key, val, time)
// appears twice.
type chain struct {
	chunks []*chunk
	// n is the number of updates in the chain; keyBytes and valBytes
	// the bytes of their keys and vals.
	n, keyBytes, valBytes int
	// least is the least time in the chain (Done if it is empty).
	least uint64
	// level counts the rounds of merges that made the chain: 0 for a
	// chunk of pushes, one more than the highest of its inputs for a
	// merge's output.
	level int
}

// add appends a chunk whose updates follow the chain's.
func (ch *chain) add(c *chunk) {
	ch.chunks = append(ch.chunks, c)
	ch.n += len(c.recs)
	ch.keyBytes += c.keyBytes
	ch.valBytes += c.valBytes
	ch.least = min(ch.least, c.least)
}

// compareStaged orders staged updates, each read from its own arena, by
// (key, val, time).
func compareStaged(xa []byte, x staged, ya []byte, y staged) int {
	if x.prefix != y.prefix {
		return cmp.Compare(x.prefix, y.prefix)
	}
	xv, yv := x.key+x.keyLen, y.key+y.keyLen
	if c := bytes.Compare(xa[x.key:xv], ya[y.key:yv]); c != 0 {
		return c
	}
	if c := bytes.Compare(xa[xv:xv+x.valLen], ya[yv:yv+y.valLen]); c != 0 {
		return c
	}
	return cmp.Compare(x.time, y.time)
}

// keyPrefix returns key's first eight bytes as a big-endian integer,
// zero-padded. Padding with zeros keeps the order a refinement of
// bytes.Compare: equal prefixes fall back to comparing the bytes.
func keyPrefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var buf [8]byte
	copy(buf[:], key)
	return binary.BigEndian.Uint64(buf[:])
}

// concatDisjoint returns the merge of chains without reading them, and
// true, when they do not overlap: put in the order of their first
// updates, every update of one orders before every update of the next,
// and the merge is their chunks one chain after another. That is the
// case of updates staged in their sorted order, as a table's rows are
// when they are read back from storage; they are then never copied by a
// merge. The result's level is one above the highest of theirs.
func concatDisjoint(chains []chain) (chain, bool) {
	order := make([]int, 0, len(chains))
	for i, c := range chains {
		if c.n == 0 {
			return chain{}, false
		}
		// Insertion by first update: there are few chains.
		j := len(order)
		order = append(order, i)
		for j > 0 && chains[i].firstBefore(chains[order[j-1]]) {
			order[j] = order[j-1]
			j--
		}
		order[j] = i
	}
	for j := 1; j < len(order); j++ {
		if !chains[order[j-1]].lastBefore(chains[order[j]]) {
			return chain{}, false
		}
	}
	out := chain{least: Done}
	for _, i := range order {
		for _, c := range chains[i].chunks {
			out.add(c)
		}
		out.level = max(out.level, chains[i].level+1)
	}
	return out, true
}

// firstBefore reports whether ch's first update orders before other's
// first. Neither may be empty.
func (ch *chain) firstBefore(other chain) bool {
	x, y := ch.chunks[0], other.chunks[0]
	if len(x.recs) == 0 || len(y.recs) == 0 {
		return false
	}
	return compareStaged(x.arena, x.recs[0], y.arena, y.recs[0]) < 0
}

// lastBefore reports whether ch's last update orders before next's
// first. Neither may be empty.
func (ch *chain) lastBefore(next chain) bool {
	lc := ch.chunks[len(ch.chunks)-1]
	fc := next.chunks[0]
	if len(lc.recs) == 0 || len(fc.recs) == 0 {
		return false
	}
	return compareStaged(lc.arena, lc.recs[len(lc.recs)-1], fc.arena, fc.recs[0]) < 0
}
