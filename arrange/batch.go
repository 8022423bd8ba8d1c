package arrange

import (
	"bytes"
	"unsafe"
)

// Batch is an immutable, sorted, consolidated run of updates (key, val,
// time, diff) with a Description.
//
// It is a three-level trie in flat, pointer-free columns, so that the
// garbage collector never scans its contents and an update costs no
// allocation of its own: each key's bytes appear once, each val's bytes
// once per key, and every update costs a time and a diff, unless the
// batch's updates all share one (see times and diffs).
//
// The zero value is an empty batch over [0, 0). A *Batch is never
// modified after its Builder's Done returns it, so it may be shared
// between readers, merges and goroutines without copying.
type Batch struct {
	desc Description

	// keyBytes holds every key's bytes back to back; key i is
	// keyBytes[keyOff[i]:keyOff[i+1]].
	// Invariant: len(keyOff) == nKeys+1, or 0 when the batch is empty.
	keyBytes []byte
	keyOff   []uint32
	// keyVals[i]..keyVals[i+1] are the vals of key i.
	// Invariant: nil exactly when every key has one val, so that key i
	// owns val i; a flat batch of distinct keys pays nothing for it.
	keyVals []uint32

	// valBytes and valOff hold the vals as keyBytes and keyOff hold keys.
	// Invariant: valOff is nil exactly when every val is empty (as in an
	// arrangement of whole rows by themselves), and valCount counts
	// them; otherwise valCount == len(valOff)-1.
	valBytes []byte
	valOff   []uint32
	valCount int
	// valUpds[j]..valUpds[j+1] are the updates of val j.
	// Invariant: nil exactly when every val has one update.
	valUpds []uint32

	// times and diffs are the updates, one entry each, n in all.
	// Invariant: times is nil exactly when every update is at time0, as
	// in a batch compacted to its since, and diffs is nil exactly when
	// every val has one update and every diff is diff0, as in a batch of
	// inserts. Either saves 8 bytes an update. No diff is zero.
	times []uint64
	diffs []int64
	n     int
	time0 [1]uint64
	diff0 [1]int64
}

// advancedShared returns, with description desc, the batch of b's
// updates with every time advanced to since, sharing b's keys, vals and
// diffs, and true, when advancing needs no consolidation: every val of b
// has one update and every time is at or before since, so that each
// update keeps its place and only its time changes, to since for all.
// Otherwise it returns false.
func (b *Batch) advancedShared(since uint64, desc Description) (*Batch, bool) {
	if b.valUpds != nil {
		return nil, false
	}
	if b.times == nil {
		if b.n > 0 && b.time0[0] > since {
			return nil, false
		}
	} else {
		for _, t := range b.times {
			if t > since {
				return nil, false
			}
		}
	}
	c := *b
	c.desc = desc
	c.times = nil
	c.time0 = [1]uint64{since}
	return &c, true
}

// Description returns the batch's description.
func (b *Batch) Description() Description { return b.desc }

// Len returns the number of updates in the batch.
func (b *Batch) Len() int { return b.n }

// countThrough returns how many of the batch's updates are at times at
// or before t.
func (b *Batch) countThrough(t uint64) int64 {
	if b.times == nil {
		if b.n > 0 && b.time0[0] <= t {
			return int64(b.n)
		}
		return 0
	}
	var n int64
	for _, tm := range b.times {
		if tm <= t {
			n++
		}
	}
	return n
}

// Bytes returns the heap bytes the batch holds: the capacity of every
// column plus the batch header. Builders size their columns to within a
// sixteenth of their length (exact), so this is what the batch costs.
func (b *Batch) Bytes() int64 {
	n := int64(unsafe.Sizeof(*b))
	n += int64(cap(b.keyBytes)) + int64(cap(b.valBytes))
	n += 4 * int64(cap(b.keyOff)+cap(b.keyVals)+cap(b.valOff)+cap(b.valUpds))
	n += 8 * int64(cap(b.times)+cap(b.diffs))
	return n
}

// Cursor returns a cursor at the batch's first key and first val.
func (b *Batch) Cursor() *BatchCursor {
	c := &BatchCursor{}
	c.reset(b)
	return c
}

// withDescription returns a batch that shares b's columns under a new
// description. A merge whose other input is empty and that advances no
// time uses it to finish without copying anything.
func (b *Batch) withDescription(d Description) *Batch {
	nb := *b
	nb.desc = d
	return &nb
}

func (b *Batch) nKeys() int {
	if len(b.keyOff) == 0 {
		return 0
	}
	return len(b.keyOff) - 1
}

func (b *Batch) nVals() int { return b.valCount }

func (b *Batch) key(i int) []byte { return b.keyBytes[b.keyOff[i]:b.keyOff[i+1]] }

func (b *Batch) val(j int) []byte {
	if b.valOff == nil {
		return nil
	}
	return b.valBytes[b.valOff[j]:b.valOff[j+1]]
}

// valSpan returns the bytes that vals [lo, hi) take.
func (b *Batch) valSpan(lo, hi int) int {
	if b.valOff == nil {
		return 0
	}
	return int(b.valOff[hi] - b.valOff[lo])
}

// timeAt and diffAt return update u's time and diff.
func (b *Batch) timeAt(u int) uint64 {
	if b.times == nil {
		return b.time0[0]
	}
	return b.times[u]
}

func (b *Batch) diffAt(u int) int64 {
	if b.diffs == nil {
		return b.diff0[0]
	}
	return b.diffs[u]
}

// updates returns updates [lo, hi) as views into the batch. A column
// that is not stored has one update per val, so the range is one update,
// and the view is of the batch's one value.
func (b *Batch) updates(lo, hi int) ([]uint64, []int64) {
	times, diffs := b.time0[:], b.diff0[:]
	if b.times != nil {
		times = b.times[lo:hi]
	}
	if b.diffs != nil {
		diffs = b.diffs[lo:hi]
	}
	return times, diffs
}

// vals returns the range of vals that key i owns.
func (b *Batch) vals(i int) (lo, hi int) {
	if b.keyVals == nil {
		return i, i + 1
	}
	return int(b.keyVals[i]), int(b.keyVals[i+1])
}

// upds returns the range of updates that val j owns.
func (b *Batch) upds(j int) (lo, hi int) {
	if b.valUpds == nil {
		return j, j + 1
	}
	return int(b.valUpds[j]), int(b.valUpds[j+1])
}

// validate checks every invariant of the batch's layout and contents and
// reports the first one broken. It is linear in the batch's size.
func (b *Batch) validate() error {
	d := b.desc
	if d.Lower > d.Upper {
		return assertionFailedf("batch %v: lower above upper", d)
	}
	if (b.times != nil && len(b.times) != b.n) || (b.diffs != nil && len(b.diffs) != b.n) {
		return assertionFailedf("batch %v: %d times and %d diffs for %d updates", d, len(b.times), len(b.diffs), b.n)
	}
	if (b.times == nil || b.diffs == nil) && b.valUpds != nil {
		return assertionFailedf("batch %v: a column of updates elided, but a val has several", d)
	}
	// Compaction raised every time to at least this; Lower when the
	// batch was never compacted.
	least := max(d.Lower, d.advanceTo(d.Since))
	nk, nv, nu := b.nKeys(), b.nVals(), b.Len()
	if nk == 0 {
		if nv != 0 || nu != 0 || len(b.keyBytes) != 0 || len(b.valBytes) != 0 || b.keyVals != nil || b.valUpds != nil {
			return assertionFailedf("batch %v: no keys but other columns are not empty", d)
		}
		return nil
	}
	if err := checkOffsets("keyOff", b.keyOff, len(b.keyBytes), false); err != nil {
		return err
	}
	if b.valOff == nil {
		if len(b.valBytes) != 0 {
			return assertionFailedf("batch %v: valOff elided but %d val bytes", d, len(b.valBytes))
		}
	} else if err := checkOffsets("valOff", b.valOff, len(b.valBytes), false); err != nil {
		return err
	} else if len(b.valOff) != nv+1 {
		return assertionFailedf("batch %v: %d valOff for %d vals", d, len(b.valOff), nv)
	}
	if b.keyVals == nil {
		if nv != nk {
			return assertionFailedf("batch %v: keyVals elided but %d keys and %d vals", d, nk, nv)
		}
	} else if err := checkOffsets("keyVals", b.keyVals, nv, true); err != nil {
		return err
	} else if len(b.keyVals) != nk+1 {
		return assertionFailedf("batch %v: %d keyVals for %d keys", d, len(b.keyVals), nk)
	}
	if b.valUpds == nil {
		if nu != nv {
			return assertionFailedf("batch %v: valUpds elided but %d vals and %d updates", d, nv, nu)
		}
	} else if err := checkOffsets("valUpds", b.valUpds, nu, true); err != nil {
		return err
	} else if len(b.valUpds) != nv+1 {
		return assertionFailedf("batch %v: %d valUpds for %d vals", d, len(b.valUpds), nv)
	}
	for i := range nk {
		if i > 0 && bytes.Compare(b.key(i-1), b.key(i)) >= 0 {
			return assertionFailedf("batch %v: key %d (%q) not above key %d (%q)", d, i, b.key(i), i-1, b.key(i-1))
		}
		vlo, vhi := b.vals(i)
		for j := vlo; j < vhi; j++ {
			if j > vlo && bytes.Compare(b.val(j-1), b.val(j)) >= 0 {
				return assertionFailedf("batch %v: key %q: val %q not above %q", d, b.key(i), b.val(j), b.val(j-1))
			}
			ulo, uhi := b.upds(j)
			for u := ulo; u < uhi; u++ {
				if u > ulo && b.timeAt(u-1) >= b.timeAt(u) {
					return assertionFailedf("batch %v: (%q, %q): time %d not above %d", d, b.key(i), b.val(j), b.timeAt(u), b.timeAt(u-1))
				}
				if !d.Contains(b.timeAt(u)) {
					return assertionFailedf("batch %v: (%q, %q): time %d outside the batch", d, b.key(i), b.val(j), b.timeAt(u))
				}
				if b.timeAt(u) < least {
					return assertionFailedf("batch %v: (%q, %q): time %d not advanced to the since", d, b.key(i), b.val(j), b.timeAt(u))
				}
				if b.diffAt(u) == 0 {
					return assertionFailedf("batch %v: (%q, %q): zero diff at time %d", d, b.key(i), b.val(j), b.timeAt(u))
				}
			}
		}
	}
	return nil
}

// checkOffsets checks that offs starts at 0, ends at end and increases,
// strictly when each range must be non-empty.
func checkOffsets(name string, offs []uint32, end int, strict bool) error {
	if len(offs) == 0 || offs[0] != 0 || int(offs[len(offs)-1]) != end {
		return assertionFailedf("%s does not run from 0 to %d", name, end)
	}
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] || (strict && offs[i] == offs[i-1]) {
			return assertionFailedf("%s decreases or holds an empty range at %d", name, i)
		}
	}
	return nil
}

// sizeHint returns b's shape, for a Builder that will hold at most b's
// contents.
func (b *Batch) sizeHint() sizeHint {
	return sizeHint{keys: b.nKeys(), keyBytes: len(b.keyBytes), vals: b.nVals(), valBytes: len(b.valBytes), upds: b.Len()}
}
