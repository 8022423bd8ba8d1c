package arrange

import "bytes"

// merger merges two batches adjacent in time into one, a bounded amount
// of work at a time, applying logical compaction as it goes.
//
// Every time t becomes max(t, advance), where advance is the merge's since
// clamped into the output (Description.advanceTo). That map is monotone
// and the older input's times all precede the newer's, so each val's
// history stays sorted when read as the older input's updates followed by
// the newer's, and the builder consolidates equal times as they arrive:
// one linear pass, no sorting.
//
// The merge can stop after any update and resume later; until it is done,
// readers keep reading its inputs, which it never modifies.
type merger struct {
	// older and newer are the inputs.
	// Invariant: older.desc.Upper == newer.desc.Lower.
	older, newer *Batch
	desc         Description
	advance      uint64

	out Builder
	// result is the merged batch, once the merge is done.
	result *Batch

	// ok and nk are the next keys of older and newer.
	ok, nk int
	// inKey is set while a key is open; ov..ovEnd and nv..nvEnd are then
	// its vals not yet merged, an empty range on a side that lacks it.
	inKey                bool
	ov, ovEnd, nv, nvEnd int
	// inVal is set while a val is open; ou..ouEnd and nu..nuEnd are then
	// its updates not yet merged.
	inVal                bool
	ou, ouEnd, nu, nuEnd int
	// consumed counts the input updates merged so far: the fuel spent.
	consumed int64
}

// newMerger starts merging older and newer, compacting to the greatest of
// their sinces and since.
func newMerger(older, newer *Batch, since uint64) *merger {
	if older.desc.Upper != newer.desc.Lower {
		panic(assertionFailedf("merge of batches not adjacent in time: %v and %v", older.desc, newer.desc))
	}
	desc := Description{
		Lower: older.desc.Lower,
		Upper: newer.desc.Upper,
		Since: max(older.desc.Since, newer.desc.Since, since),
	}
	m := &merger{older: older, newer: newer, desc: desc, advance: desc.advanceTo(desc.Since)}
	// With one side empty and no time to advance, the other side's
	// columns are already the answer: share them rather than copy.
	switch {
	case newer.Len() == 0 && m.advance <= older.desc.Lower:
		m.result = older.withDescription(desc)
	case older.Len() == 0 && m.advance <= newer.desc.Lower:
		m.result = newer.withDescription(desc)
	default:
		m.out.reserve(sizeHint{
			keys:     older.nKeys() + newer.nKeys(),
			keyBytes: len(older.keyBytes) + len(newer.keyBytes),
			vals:     older.nVals() + newer.nVals(),
			valBytes: len(older.valBytes) + len(newer.valBytes),
			upds:     older.Len() + newer.Len(),
		})
	}
	return m
}

// done reports whether the merge is complete and result is set.
func (m *merger) done() bool { return m.result != nil }

// remaining returns the fuel the merge still needs at most.
func (m *merger) remaining() int64 {
	if m.done() {
		return 0
	}
	return int64(m.older.Len()+m.newer.Len()) - m.consumed
}

// bytes returns the heap bytes the merge holds beyond its inputs.
func (m *merger) bytes() int64 { return m.out.bytes() }

// work merges until fuel input updates have been consumed or the merge is
// done, and returns the fuel used. Opening and closing keys and vals cost
// nothing, since each has at least one update that pays for it, so a merge
// whose last update is consumed always completes in the same call.
func (m *merger) work(fuel int64) int64 {
	var used int64
	for !m.done() {
		switch {
		case m.inVal:
			if m.ou < m.ouEnd || m.nu < m.nuEnd {
				if used >= fuel {
					return used
				}
				used += m.mergeUpdates(fuel - used)
				continue
			}
			m.out.closeVal()
			m.inVal = false
		case m.inKey:
			if m.ov == m.ovEnd && m.nv == m.nvEnd {
				m.out.closeKey()
				m.inKey = false
				continue
			}
			m.openVal()
		default:
			if m.ok == m.older.nKeys() && m.nk == m.newer.nKeys() {
				m.result = m.out.Done(m.desc)
				return used
			}
			if n := m.copyRun(fuel - used); n > 0 {
				used += n
				continue
			}
			m.openKey()
		}
	}
	return used
}

// mergeUpdates moves up to fuel updates of the open val to the output,
// the older input's first, and returns how many it moved.
func (m *merger) mergeUpdates(fuel int64) int64 {
	n := int(min(int64(m.ouEnd-m.ou), fuel))
	for u := m.ou; u < m.ou+n; u++ {
		m.out.pushUpdate(max(m.older.timeAt(u), m.advance), m.older.diffAt(u))
	}
	m.ou += n
	k := int(min(int64(m.nuEnd-m.nu), fuel-int64(n)))
	for u := m.nu; u < m.nu+k; u++ {
		m.out.pushUpdate(max(m.newer.timeAt(u), m.advance), m.newer.diffAt(u))
	}
	m.nu += k
	m.consumed += int64(n + k)
	return int64(n + k)
}

// copyRun copies whole the run of keys that one input holds before the
// other input's next key, as far as fuel allows. Advancing times can only
// make a val's times equal if it has several, so the run must have no
// time to advance or one update per val. It returns the updates copied: 0
// if it copied nothing, because both inputs hold the next key, the run
// has a val that must consolidate, or the first key's updates alone
// exceed the fuel.
//
// Inputs of very different sizes, as when a small batch merges into a
// large one, have long runs, and this turns their merge into a few
// memmoves; with equal sizes and random keys a run is a key or two, and
// copying it whole still skips the per-update path.
func (m *merger) copyRun(fuel int64) int64 {
	// The run comes from older unless newer's next key is first.
	src, at, other, otherAt := m.older, &m.ok, m.newer, m.nk
	switch {
	case m.ok == m.older.nKeys():
		src, at, other, otherAt = m.newer, &m.nk, m.older, m.ok
	case m.nk == m.newer.nKeys():
		// Only older has keys left.
	default:
		c := bytes.Compare(m.older.key(m.ok), m.newer.key(m.nk))
		if c == 0 {
			return 0
		}
		if c > 0 {
			src, at, other, otherAt = m.newer, &m.nk, m.older, m.ok
		}
	}
	lo, hi := *at, src.nKeys()
	if otherAt < other.nKeys() {
		hi = seekBytes(src.keyBytes, src.keyOff, lo+1, hi, other.key(otherAt))
	}
	base := firstUpdate(src, lo)
	if int64(firstUpdate(src, hi)-base) > fuel {
		// Keep the longest prefix of the run that the fuel pays for.
		l, h := lo, hi
		for l < h {
			mid := int(uint(l+h+1) >> 1)
			if int64(firstUpdate(src, mid)-base) <= fuel {
				l = mid
			} else {
				h = mid - 1
			}
		}
		hi = l
	}
	if hi == lo {
		return 0
	}
	n := int64(firstUpdate(src, hi) - base)
	if m.advance > src.desc.Lower {
		vlo, _ := src.vals(lo)
		_, vhi := src.vals(hi - 1)
		if int64(vhi-vlo) != n {
			return 0
		}
	}
	m.out.appendKeys(src, lo, hi, m.advance)
	*at = hi
	m.consumed += n
	return n
}

// firstUpdate returns the index of key i's first update in b, or b.Len()
// for i == b.nKeys().
func firstUpdate(b *Batch, i int) int {
	if i == b.nKeys() {
		return b.Len()
	}
	v, _ := b.vals(i)
	u, _ := b.upds(v)
	return u
}

// openKey opens the least key not yet merged from either input.
func (m *merger) openKey() {
	var c int
	switch {
	case m.ok == m.older.nKeys():
		c = 1
	case m.nk == m.newer.nKeys():
		c = -1
	default:
		c = bytes.Compare(m.older.key(m.ok), m.newer.key(m.nk))
	}
	var key []byte
	m.ov, m.ovEnd, m.nv, m.nvEnd = 0, 0, 0, 0
	if c <= 0 {
		key = m.older.key(m.ok)
		m.ov, m.ovEnd = m.older.vals(m.ok)
		m.ok++
	}
	if c >= 0 {
		key = m.newer.key(m.nk)
		m.nv, m.nvEnd = m.newer.vals(m.nk)
		m.nk++
	}
	m.out.openKey(key)
	m.inKey = true
}

// openVal opens the least val of the open key not yet merged.
func (m *merger) openVal() {
	var c int
	switch {
	case m.ov == m.ovEnd:
		c = 1
	case m.nv == m.nvEnd:
		c = -1
	default:
		c = bytes.Compare(m.older.val(m.ov), m.newer.val(m.nv))
	}
	var val []byte
	m.ou, m.ouEnd, m.nu, m.nuEnd = 0, 0, 0, 0
	if c <= 0 {
		val = m.older.val(m.ov)
		m.ou, m.ouEnd = m.older.upds(m.ov)
		m.ov++
	}
	if c >= 0 {
		val = m.newer.val(m.nv)
		m.nu, m.nuEnd = m.newer.upds(m.nv)
		m.nv++
	}
	m.out.openVal(val)
	m.inVal = true
}
