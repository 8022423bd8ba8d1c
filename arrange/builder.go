package arrange

import (
	"bytes"
	"math"
	"slices"
)

// maxOffset is the largest offset a batch column can hold. Offsets are
// uint32 to keep the per-update overhead low, so one batch holds at most
// 4 GiB of key bytes, 4 GiB of val bytes and 4G updates.
const maxOffset = math.MaxUint32

// Builder writes a Batch from updates pushed in (key, val, time) order.
//
// Updates that share (key, val, time) are summed, and an update whose
// diff is or sums to zero is dropped, so the batch is consolidated even
// if its input was only sorted. Pushing out of order is a bug and panics
// with an *AssertionError.
//
// The zero value is an empty Builder ready for use. After Done it is empty
// again and may be reused; the columns it built belong to the batch.
type Builder struct {
	keyBytes []byte
	keyOff   []uint32
	keyVals  []uint32
	valBytes []byte
	// valOff is empty while every val closed so far is empty, as a
	// table's rows (all key) are: offsets that would all be 0 are not
	// written until a val has bytes (see closeVal).
	valOff  []uint32
	valUpds []uint32
	// times and diffs are the updates' columns, nUpds entries each; each
	// holds its entries only once two differ (see column), so a batch of
	// one time or one diff never has them written out.
	times column[uint64]
	diffs column[int64]
	nUpds int

	// nKeys and nVals count the committed keys and vals: those closed
	// with at least one val, respectively one update.
	nKeys, nVals int

	// A key is open from openKey to closeKey, and its bytes sit at the
	// end of keyBytes from keyStart; a key closed with no vals is cut
	// off again. Vals work the same way within the open key.
	// Invariant: valOpen implies keyOpen.
	keyOpen, valOpen bool
	keyStart         int
	valStart         int
	// keyFirstVal is nVals when the open key opened.
	keyFirstVal int
	// valFirstUpd is nUpds when the open val opened.
	valFirstUpd int

	// lastTime is the time last pushed to the open val, for Push's order
	// check; popping a zero sum must not forget it.
	lastTime uint64

	// minTime and maxTime bound every time ever pushed, so Done can check
	// the description without a pass over the updates.
	minTime, maxTime uint64

	// hint sizes the columns that are materialised late (keyVals and
	// valUpds) when a merge reserved space up front.
	hint sizeHint
}

// sizeHint is an upper bound on a batch's shape, used to allocate its
// columns once.
type sizeHint struct {
	keys, keyBytes, vals, valBytes, upds int
}

// Push appends one update. key, val and time must not be below the
// previous update's in (key, val, time) order; the bytes are copied.
func (b *Builder) Push(key, val []byte, time uint64, diff int64) {
	if time == Done {
		panic(assertionFailedf("builder: update at the reserved time Done"))
	}
	if !b.keyOpen {
		b.openKey(key)
		b.openVal(val)
	} else if c := bytes.Compare(key, b.keyBytes[b.keyStart:]); c > 0 {
		b.closeKey()
		b.openKey(key)
		b.openVal(val)
	} else if c < 0 {
		panic(assertionFailedf("builder: key %q pushed after key %q", key, b.keyBytes[b.keyStart:]))
	} else if c := bytes.Compare(val, b.valBytes[b.valStart:]); c > 0 {
		b.closeVal()
		b.openVal(val)
	} else if c < 0 {
		panic(assertionFailedf("builder: key %q: val %q pushed after val %q", key, val, b.valBytes[b.valStart:]))
	} else if time < b.lastTime {
		panic(assertionFailedf("builder: (%q, %q): time %d pushed after time %d", key, val, time, b.lastTime))
	}
	b.lastTime = time
	b.pushUpdate(time, diff)
}

// Accepts reports whether Push would take the update, by Push's own
// checks: whether it does not order before the last one pushed in
// (key, val, time).
func (b *Builder) Accepts(key, val []byte, time uint64) bool {
	if !b.keyOpen {
		return true
	}
	if c := bytes.Compare(key, b.keyBytes[b.keyStart:]); c != 0 {
		return c > 0
	}
	if c := bytes.Compare(val, b.valBytes[b.valStart:]); c != 0 {
		return c > 0
	}
	return time >= b.lastTime
}

// Done closes the batch, describes it with desc and returns it. Every
// pushed time must lie in [desc.Lower, desc.Upper).
func (b *Builder) Done(desc Description) *Batch {
	b.closeKey()
	if desc.Lower > desc.Upper {
		panic(assertionFailedf("builder: description %v has lower above upper", desc))
	}
	if b.nUpds > 0 && (b.minTime < desc.Lower || b.maxTime >= desc.Upper) {
		panic(assertionFailedf("builder: times in [%d, %d] do not fit description %v", b.minTime, b.maxTime, desc))
	}
	batch := &Batch{desc: desc}
	if b.nKeys > 0 {
		// Growing by append leaves spare capacity, and a merge reserves
		// for the sum of its inputs; copying to exact sizes here, where
		// more than a sixteenth is spare, is what makes Bytes, and
		// memory, fall when consolidation cancels.
		batch.keyBytes = exact(b.keyBytes)
		batch.keyOff = exact(b.keyOff)
		batch.keyVals = exact(b.keyVals)
		batch.valCount = b.nVals
		if len(b.valBytes) > 0 {
			batch.valBytes = exact(b.valBytes)
			batch.valOff = exact(b.valOff)
		}
		batch.valUpds = exact(b.valUpds)
		// Columns whose every entry is the same are not kept (see Batch):
		// a compacted batch's times, an insert-only batch's diffs.
		batch.n = b.nUpds
		if b.valUpds == nil && b.times.uniform() {
			batch.time0[0] = b.times.at(0)
		} else {
			batch.times = b.times.exact(b.nUpds)
		}
		if b.valUpds == nil && b.diffs.uniform() {
			batch.diff0[0] = b.diffs.at(0)
		} else {
			batch.diffs = b.diffs.exact(b.nUpds)
		}
	}
	*b = Builder{}
	if invariants {
		if err := batch.validate(); err != nil {
			panic(err)
		}
	}
	return batch
}

// reserve sizes every column for a batch of at most h's shape, keeping
// what has been built: a merge writes its output without growing a
// slice, and a run found in order is sized for the rest of it
// (Batcher.Expect). A column already larger is left as it is; the
// update columns are allocated at h's size if they are written out.
func (b *Builder) reserve(h sizeHint) {
	b.hint = h
	b.keyBytes = growCap(b.keyBytes, h.keyBytes)
	b.keyOff = growCap(b.keyOff, h.keys+1)
	if h.valBytes > 0 || len(b.valBytes) > 0 {
		b.valBytes = growCap(b.valBytes, h.valBytes)
		b.valOff = growCap(b.valOff, h.vals+1)
	}
}

// growCap returns s with a capacity of at least n.
func growCap[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	t := make([]T, len(s), n)
	copy(t, s)
	return t
}

// bytes returns the heap bytes the builder's columns hold.
func (b *Builder) bytes() int64 {
	n := int64(cap(b.keyBytes)) + int64(cap(b.valBytes))
	n += 4 * int64(cap(b.keyOff)+cap(b.keyVals)+cap(b.valOff)+cap(b.valUpds))
	n += 8 * int64(cap(b.times.s)+cap(b.diffs.s))
	return n
}

func (b *Builder) openKey(key []byte) {
	if len(b.keyOff) == 0 {
		b.keyOff = append(b.keyOff, 0)
	}
	b.keyStart = len(b.keyBytes)
	b.keyBytes = append(grow(b.keyBytes, len(key)), key...)
	b.keyOpen = true
	b.keyFirstVal = b.nVals
}

// closeKey closes the open val and key, and drops the key if all its vals
// cancelled.
func (b *Builder) closeKey() {
	b.closeVal()
	if !b.keyOpen {
		return
	}
	b.keyOpen = false
	vals := b.nVals - b.keyFirstVal
	if vals == 0 {
		b.keyBytes = b.keyBytes[:b.keyStart]
		return
	}
	if len(b.keyBytes) > maxOffset || b.nVals > maxOffset {
		panic(assertionFailedf("builder: batch exceeds %d key bytes or vals", uint64(maxOffset)))
	}
	b.keyOff = append(grow(b.keyOff, 1), uint32(len(b.keyBytes)))
	b.nKeys++
	switch {
	case b.keyVals != nil:
		b.keyVals = append(grow(b.keyVals, 1), uint32(b.nVals))
	case vals != 1:
		// The first key with other than one val: write out the identity
		// that the nil column stood for so far.
		b.keyVals = identityPrefix(b.nKeys-1, b.hint.keys+1)
		b.keyVals = append(b.keyVals, uint32(b.nVals))
	}
}

func (b *Builder) openVal(val []byte) {
	b.valStart = len(b.valBytes)
	b.valBytes = append(grow(b.valBytes, len(val)), val...)
	b.valOpen = true
	b.valFirstUpd = b.nUpds
	b.lastTime = 0
}

// closeVal closes the open val, and drops it if all its updates cancelled.
func (b *Builder) closeVal() {
	if !b.valOpen {
		return
	}
	b.valOpen = false
	upds := b.nUpds - b.valFirstUpd
	if upds == 0 {
		b.valBytes = b.valBytes[:b.valStart]
		return
	}
	if len(b.valBytes) > maxOffset || b.nUpds > maxOffset {
		panic(assertionFailedf("builder: batch exceeds %d val bytes or updates", uint64(maxOffset)))
	}
	if len(b.valOff) > 0 || len(b.valBytes) > 0 {
		b.writeValOffsets()
		b.valOff = append(grow(b.valOff, 1), uint32(len(b.valBytes)))
	}
	b.nVals++
	switch {
	case b.valUpds != nil:
		b.valUpds = append(grow(b.valUpds, 1), uint32(b.nUpds))
	case upds != 1:
		b.valUpds = identityPrefix(b.nVals-1, b.hint.vals+1)
		b.valUpds = append(b.valUpds, uint32(b.nUpds))
	}
}

// pushUpdate appends (t, d) to the open val, summing it into the last
// update if that has the same time. Times must not decrease within a val.
func (b *Builder) pushUpdate(t uint64, d int64) {
	n := b.nUpds
	if n > b.valFirstUpd && b.times.at(n-1) == t {
		if sum := b.diffs.at(n-1) + d; sum != 0 {
			b.diffs.set(n, n-1, sum, b.hint.upds)
		} else {
			b.nUpds--
			b.times.truncate(b.nUpds)
			b.diffs.truncate(b.nUpds)
		}
		return
	}
	if d == 0 {
		return
	}
	if n == 0 {
		b.minTime, b.maxTime = t, t
	} else {
		b.minTime = min(b.minTime, t)
		b.maxTime = max(b.maxTime, t)
	}
	b.times.push(n, t, b.hint.upds)
	b.diffs.push(n, d, b.hint.upds)
	b.nUpds++
}

// appendKeys appends keys [lo, hi) of src with all their vals and updates
// in a few bulk copies, advancing each time t to max(t, advance). No key
// may be open, the keys must follow every key already built, and
// advancing must not make two times of one val equal (true when advance
// is at most src's Lower, or each val has one update). A merge uses it for
// runs of keys that only one input holds.
func (b *Builder) appendKeys(src *Batch, lo, hi int, advance uint64) {
	vlo, _ := src.vals(lo)
	_, vhi := src.vals(hi - 1)
	ulo, _ := src.upds(vlo)
	_, uhi := src.upds(vhi - 1)
	if len(b.keyBytes)+int(src.keyOff[hi]-src.keyOff[lo]) > maxOffset ||
		len(b.valBytes)+src.valSpan(vlo, vhi) > maxOffset ||
		b.nUpds+uhi-ulo > maxOffset {
		panic(assertionFailedf("builder: batch exceeds %d bytes or updates", uint64(maxOffset)))
	}

	b.keyOff = appendRebased(b.keyOff, src.keyOff[lo:hi+1], uint32(len(b.keyBytes)))
	b.keyBytes = append(b.keyBytes, src.keyBytes[src.keyOff[lo]:src.keyOff[hi]]...)
	b.keyVals = appendSpans(b.keyVals, src.keyVals, lo, hi, b.nKeys, b.nVals, b.hint.keys+1)
	b.nKeys += hi - lo

	if src.valOff == nil {
		// Every val is empty: each starts and ends where the bytes do,
		// which is written out only once some val has bytes.
		if len(b.valOff) > 0 {
			for range vhi - vlo {
				b.valOff = append(b.valOff, uint32(len(b.valBytes)))
			}
		}
	} else {
		b.writeValOffsets()
		b.valOff = appendRebased(b.valOff, src.valOff[vlo:vhi+1], uint32(len(b.valBytes)))
		b.valBytes = append(b.valBytes, src.valBytes[src.valOff[vlo]:src.valOff[vhi]]...)
	}
	b.valUpds = appendSpans(b.valUpds, src.valUpds, vlo, vhi, b.nVals, b.nUpds, b.hint.vals+1)
	b.nVals += vhi - vlo

	n, k := b.nUpds, uhi-ulo
	if n == 0 {
		t := max(src.timeAt(ulo), advance)
		b.minTime, b.maxTime = t, t
	}
	if src.times == nil {
		t := max(src.time0[0], advance)
		b.times.pushSame(n, t, k, b.hint.upds)
		b.minTime = min(b.minTime, t)
		b.maxTime = max(b.maxTime, t)
	} else {
		times := b.times.pushRange(n, src.times[ulo:uhi], b.hint.upds)
		for i, t := range times {
			t = max(t, advance)
			times[i] = t
			b.minTime = min(b.minTime, t)
			b.maxTime = max(b.maxTime, t)
		}
	}
	if src.diffs == nil {
		b.diffs.pushSame(n, src.diff0[0], k, b.hint.upds)
	} else {
		b.diffs.pushRange(n, src.diffs[ulo:uhi], b.hint.upds)
	}
	b.nUpds += k
}

// column is a column of a builder's updates that is written out only
// once two of its entries differ: until then it is n copies of same,
// where n is the builder's count of updates, which every method takes.
type column[T comparable] struct {
	s    []T // nil while every entry is same
	same T
}

// at returns entry i.
func (c *column[T]) at(i int) T {
	if c.s == nil {
		return c.same
	}
	return c.s[i]
}

// uniform reports whether every entry is the same.
func (c *column[T]) uniform() bool { return c.s == nil || allSame(c.s) }

// writeOut writes out the column's n entries, with room for hint.
func (c *column[T]) writeOut(n, hint int) {
	c.s = make([]T, n, max(hint, 2*n+1))
	for i := range c.s {
		c.s[i] = c.same
	}
}

// push appends x after n entries.
func (c *column[T]) push(n int, x T, hint int) {
	if c.s == nil {
		if n == 0 || x == c.same {
			c.same = x
			return
		}
		c.writeOut(n, hint)
	}
	c.s = append(grow(c.s, 1), x)
}

// pushSame appends k copies of x after n entries.
func (c *column[T]) pushSame(n int, x T, k, hint int) {
	if c.s == nil {
		if n == 0 || x == c.same {
			c.same = x
			return
		}
		c.writeOut(n, hint)
	}
	start := len(c.s)
	c.s = slices.Grow(c.s, k)[:start+k]
	for i := range c.s[start:] {
		c.s[start+i] = x
	}
}

// pushRange appends xs after n entries, writing the column out, and
// returns the appended entries for the caller to adjust.
func (c *column[T]) pushRange(n int, xs []T, hint int) []T {
	if c.s == nil {
		c.writeOut(n, hint)
	}
	c.s = append(c.s, xs...)
	return c.s[n:]
}

// set sets entry i of n to x.
func (c *column[T]) set(n, i int, x T, hint int) {
	if c.s == nil {
		if x == c.same {
			return
		}
		c.writeOut(n, hint)
	}
	c.s[i] = x
}

// truncate cuts the column to n entries.
func (c *column[T]) truncate(n int) {
	if c.s != nil {
		c.s = c.s[:n]
	}
}

// exact returns the column's n entries in a slice of exactly that length.
func (c *column[T]) exact(n int) []T {
	if c.s == nil {
		c.writeOut(n, n)
	}
	return exact(c.s)
}

// allSame reports whether s has entries and all of them are equal.
func allSame[T comparable](s []T) bool {
	if len(s) == 0 {
		return false
	}
	for _, x := range s[1:] {
		if x != s[0] {
			return false
		}
	}
	return true
}

// appendRebased appends the offsets src[1:] to dst, moved so that src[0]
// lands on base, which is where the copied bytes start. An empty dst gets
// its leading 0 first.
func appendRebased(dst, src []uint32, base uint32) []uint32 {
	if len(dst) == 0 {
		dst = append(dst, 0)
	}
	shift := base - src[0]
	for _, o := range src[1:] {
		dst = append(dst, o+shift)
	}
	return dst
}

// appendSpans appends the span offsets of entries [lo, hi) of the column
// src to dst, where dst so far spans n entries over base items. In both, a
// nil column means one item per entry; dst stays nil while that holds.
func appendSpans(dst, src []uint32, lo, hi, n, base, hint int) []uint32 {
	identity := src == nil || int(src[hi]-src[lo]) == hi-lo
	if dst == nil {
		if identity {
			return nil
		}
		dst = identityPrefix(n, hint)
	}
	if src == nil {
		for i := 1; i <= hi-lo; i++ {
			dst = append(dst, uint32(base+i))
		}
		return dst
	}
	shift := uint32(base) - src[lo]
	for _, o := range src[lo+1 : hi+1] {
		dst = append(dst, o+shift)
	}
	return dst
}

// writeValOffsets writes out the offsets of the vals closed so far, if
// they are not: all empty, they all start at 0 (see valOff).
func (b *Builder) writeValOffsets() {
	if len(b.valOff) > 0 {
		return
	}
	b.valOff = grow(b.valOff[:0], b.nVals+1)[:b.nVals+1]
	clear(b.valOff)
}

// identityPrefix returns [0, 1, ..., n] with room for at least hint
// entries: the offsets of n ranges of one entry each, plus the start of
// the next.
func identityPrefix(n, hint int) []uint32 {
	s := make([]uint32, n+1, max(hint, n+2))
	for i := range s {
		s[i] = uint32(i)
	}
	return s
}

// grow returns s with room for n more entries. A column that must grow
// doubles: a batch built without a reservation (a batcher's run, a
// replayed log) would otherwise copy its columns about four times over
// at append's growth of a quarter for large slices; Done trims the
// excess once (exact).
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n, 64))
	copy(t, s)
	return t
}

// exact returns s in a slice of about its length: s itself if its spare
// capacity is at most a sixteenth of it, else a copy of exactly its
// length; an empty s becomes nil. A merge, or a log's run with rows
// merged in, reserves for all its inputs: a few updates summed away
// leave a little room, which costs less kept than a copy of the column
// (a batch of 4M rows' keys is 60 MB).
func exact[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	if cap(s)-len(s) <= len(s)/16 {
		return s
	}
	t := make([]T, len(s))
	copy(t, s)
	return t
}
