package arrange

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"unsafe"

	"freshet/dataflow"
)

// consolidateAt is the least number of staged updates at which Push sorts
// and consolidates them in place. Staging then grows to twice what
// survived, so a stream that keeps cancelling itself between seals holds
// memory proportional to its net size, at O(log) sorts per update.
const consolidateAt = 1 << 16

// Batcher collects updates in any order and seals them into batches.
//
// Seal(upper) returns a batch of exactly the staged updates with time <
// upper, sorted and consolidated, and keeps the rest for a later seal.
// The batcher's lower starts at the lower it was made with and moves to
// each seal's upper, so the batches it returns tile time.
//
// The zero value is a Batcher with lower 0, ready for use.
type Batcher struct {
	// lower is the Lower of the next sealed batch.
	// Invariant: every staged update has time >= lower.
	lower uint64

	// staged are the updates not yet sealed; their keys and vals live in
	// arena. Invariant: staged[:sorted] is sorted and consolidated.
	staged []staged
	arena  []byte
	sorted int

	// spare is the previous arena, kept for reuse so that a steady
	// stream of seals allocates nothing for staging.
	spare []byte
	// merge is the staging buffer that consolidate merges into, kept
	// for reuse until the next seal.
	merge []staged

	// frontier is a lower bound on the least staged time, exact right
	// after a seal.
	frontier uint64
	// consolidateAt is the staged length at which Push consolidates next.
	consolidateAt int

	// account, if set, is charged the bytes the batcher holds; charged
	// is what it was last charged.
	account *dataflow.Account
	charged int64
}

// staged is one update waiting to be sealed. Its bytes live in the
// batcher's arena; prefix holds the key's first eight bytes big-endian
// (zero-padded), so most comparisons end before touching the arena.
type staged struct {
	prefix uint64
	key    uint32
	keyLen uint32
	val    uint32
	valLen uint32
	time   uint64
	diff   int64
}

// NewBatcher returns a batcher whose first sealed batch starts at lower.
func NewBatcher(lower uint64) *Batcher {
	return &Batcher{lower: lower, frontier: Done}
}

// newAccountedBatcher returns a batcher of the dataflow b builds, whose
// staged bytes are charged to the dataflow's memory account.
func newAccountedBatcher(b *dataflow.Builder, lower uint64) *Batcher {
	return &Batcher{lower: lower, frontier: Done, account: b.Account()}
}

// recharge brings the account's charge to the bytes the batcher's arenas
// and staging hold now. It changes only when a buffer was reallocated, so
// it costs a few comparisons a push.
func (b *Batcher) recharge() {
	if b.account == nil {
		return
	}
	held := int64(cap(b.arena)+cap(b.spare)) + int64(cap(b.staged)+cap(b.merge))*int64(unsafe.Sizeof(staged{}))
	if held != b.charged {
		b.account.Add(held - b.charged)
		b.charged = held
	}
}

// Lower returns the Lower of the next batch Seal returns.
func (b *Batcher) Lower() uint64 { return b.lower }

// Len returns the number of updates staged. It counts pushes since the
// last consolidation, so updates that will cancel are still counted.
func (b *Batcher) Len() int { return len(b.staged) }

// Frontier returns a time at or below every staged update's time, or Done
// if nothing is staged: the least time at which the batcher may still
// emit an update. Right after Seal it is exact.
func (b *Batcher) Frontier() uint64 {
	if len(b.staged) == 0 {
		return Done
	}
	return b.frontier
}

// Push stages one update; key and val are copied. The time must be at or
// after the batcher's lower, since the batch that would hold an earlier
// time was sealed already; breaking that is a bug and panics with an
// *AssertionError.
func (b *Batcher) Push(key, val []byte, time uint64, diff int64) {
	if time < b.lower || time == Done {
		panic(assertionFailedf("batcher: update at time %d, but lower is %d", time, b.lower))
	}
	if diff == 0 {
		return
	}
	if len(b.staged) == 0 {
		b.frontier = time
	} else {
		b.frontier = min(b.frontier, time)
	}
	off := len(b.arena)
	if off+len(key)+len(val) > maxOffset {
		panic(assertionFailedf("batcher: staging exceeds %d bytes", uint64(maxOffset)))
	}
	b.arena = append(b.arena, key...)
	b.arena = append(b.arena, val...)
	b.staged = append(b.staged, staged{
		prefix: keyPrefix(key),
		key:    uint32(off),
		keyLen: uint32(len(key)),
		val:    uint32(off + len(key)),
		valLen: uint32(len(val)),
		time:   time,
		diff:   diff,
	})
	if len(b.staged) >= max(b.consolidateAt, consolidateAt) {
		b.consolidate(Done, nil)
	}
	b.recharge()
}

// Seal returns a batch described by [lower, upper) holding exactly the
// staged updates with time < upper, sorted and consolidated, and keeps the
// others. The batcher's lower becomes upper. upper may be Done to seal
// everything; it must not be below the lower.
func (b *Batcher) Seal(upper uint64) *Batch {
	if upper < b.lower {
		panic(assertionFailedf("batcher: seal at %d below lower %d", upper, b.lower))
	}
	// Size the batch once, for the case that nothing cancels and no key
	// repeats; Done trims what that overestimates.
	var h sizeHint
	for _, s := range b.staged {
		if s.time < upper {
			h.upds++
			h.keyBytes += int(s.keyLen)
			h.valBytes += int(s.valLen)
		}
	}
	h.keys, h.vals = h.upds, h.upds
	var out Builder
	out.reserve(h)
	b.consolidate(upper, &out)
	// The merge buffer serves a burst of pushes; between seals it would
	// only hold a copy's worth of staging.
	b.merge = nil
	b.recharge()
	batch := out.Done(Description{Lower: b.lower, Upper: upper})
	b.lower = upper
	return batch
}

// consolidate sorts the staged updates, sums those that share (key, val,
// time) and drops zero sums. Survivors with time < upper go to out, which
// receives them in order; the others, or all of them when out is nil, stay
// staged, their bytes moved to a fresh arena so that the old one, and
// everything sealed or cancelled in it, can be reused.
func (b *Batcher) consolidate(upper uint64, out *Builder) {
	// Only what was pushed since the last consolidation is sorted; it is
	// then merged with the sorted prefix in one pass. Sorting the whole
	// staging again (as a burst of pushes crosses consolidateAt, twice
	// as far each time) cost several sorts of the same updates.
	if b.sorted < len(b.staged) {
		tail := b.staged[b.sorted:]
		b.sortStaged(tail)
		if b.sorted > 0 && b.compare(b.staged[b.sorted-1], tail[0]) > 0 {
			b.mergeSorted()
		}
	}
	src := b.arena
	dst := b.spare[:0]
	kept := b.staged[:0]
	frontier := Done
	for i := 0; i < len(b.staged); {
		s := b.staged[i]
		sum := s.diff
		j := i + 1
		for j < len(b.staged) && b.compare(s, b.staged[j]) == 0 {
			sum += b.staged[j].diff
			j++
		}
		i = j
		if sum == 0 {
			continue
		}
		key := src[s.key : s.key+s.keyLen]
		val := src[s.val : s.val+s.valLen]
		if out != nil && s.time < upper {
			out.Push(key, val, s.time, sum)
			continue
		}
		// kept may overwrite staged entries already read: it never
		// passes i.
		off := len(dst)
		dst = append(dst, key...)
		dst = append(dst, val...)
		kept = append(kept, staged{
			prefix: s.prefix,
			key:    uint32(off),
			keyLen: s.keyLen,
			val:    uint32(off + len(key)),
			valLen: s.valLen,
			time:   s.time,
			diff:   sum,
		})
		frontier = min(frontier, s.time)
	}
	b.staged = kept
	b.sorted = len(kept)
	b.arena, b.spare = dst, src[:0]
	b.frontier = frontier
	b.consolidateAt = 2 * len(kept)
}

// mergeSorted merges staged[:sorted] and staged[sorted:], each sorted,
// into one sorted run, through a second buffer that the next merge
// reuses.
func (b *Batcher) mergeSorted() {
	x, y := b.staged[:b.sorted], b.staged[b.sorted:]
	merged := slices.Grow(b.merge[:0], len(b.staged))
	for len(x) > 0 && len(y) > 0 {
		if b.compare(y[0], x[0]) < 0 {
			merged = append(merged, y[0])
			y = y[1:]
		} else {
			merged = append(merged, x[0])
			x = x[1:]
		}
	}
	merged = append(merged, x...)
	merged = append(merged, y...)
	b.merge, b.staged = b.staged[:0], merged
	b.sorted = len(merged)
}

// compare orders staged updates by (key, val, time).
func (b *Batcher) compare(x, y staged) int {
	if x.prefix != y.prefix {
		return cmp.Compare(x.prefix, y.prefix)
	}
	if c := bytes.Compare(b.arena[x.key:x.key+x.keyLen], b.arena[y.key:y.key+y.keyLen]); c != 0 {
		return c
	}
	if c := bytes.Compare(b.arena[x.val:x.val+x.valLen], b.arena[y.val:y.val+y.valLen]); c != 0 {
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
