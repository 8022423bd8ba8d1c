package arrange

import "bytes"

// Cursor walks an arrangement in three levels: keys in order, the vals of
// the current key in order, and the (time, diff) history of the current
// val. BatchCursor walks one batch and CursorList a list of them; the
// arrange operators take either.
//
// Seeks move forward only. The bytes a cursor returns are views into
// immutable batches: valid for as long as the caller keeps them, but not
// to be modified.
type Cursor interface {
	// KeyValid reports whether the cursor is at a key; false once the keys
	// are exhausted.
	KeyValid() bool
	// Key returns the current key. It requires KeyValid.
	Key() []byte
	// StepKey moves to the next key and its first val.
	StepKey()
	// SeekKey moves to the first key at or after key, never backwards.
	SeekKey(key []byte)
	// RewindKeys moves back to the first key and its first val.
	RewindKeys()

	// ValValid reports whether the cursor is at a val of the current key.
	ValValid() bool
	// Val returns the current val. It requires ValValid.
	Val() []byte
	// StepVal moves to the next val of the current key.
	StepVal()
	// SeekVal moves to the first val at or after val within the current
	// key, never backwards.
	SeekVal(val []byte)
	// RewindVals moves back to the current key's first val.
	RewindVals()

	// History calls fn for each update of the current val, in
	// non-decreasing time order. A time may repeat (CursorList merges
	// batches), so callers accumulate rather than assume one diff per
	// time.
	History(fn func(time uint64, diff int64))
	// Count returns the current val's accumulation at asOf: the sum of
	// the diffs at times <= asOf. It is exact only for asOf at or after
	// the since of the data read.
	Count(asOf uint64) int64
}

var (
	_ Cursor = (*BatchCursor)(nil)
	_ Cursor = (*CursorList)(nil)
)

// BatchCursor is a Cursor over one batch.
//
// The zero value is a cursor over no data; Batch.Cursor returns a usable
// one.
type BatchCursor struct {
	batch *Batch
	// key is the current key's index.
	// Invariant: 0 <= key <= batch.nKeys(); key == nKeys() means done.
	key int
	// val is the current val's index and valEnd the end of the current
	// key's vals. Invariant: val <= valEnd.
	val, valEnd int
}

func (c *BatchCursor) reset(b *Batch) {
	c.batch = b
	c.key = 0
	c.enterKey()
}

// enterKey moves to the first val of the current key.
func (c *BatchCursor) enterKey() {
	if c.key < c.batch.nKeys() {
		c.val, c.valEnd = c.batch.vals(c.key)
	} else {
		c.val, c.valEnd = 0, 0
	}
}

// KeyValid reports whether the cursor is at a key.
func (c *BatchCursor) KeyValid() bool { return c.batch != nil && c.key < c.batch.nKeys() }

// Key returns the current key.
func (c *BatchCursor) Key() []byte { return c.batch.key(c.key) }

// StepKey moves to the next key and its first val.
func (c *BatchCursor) StepKey() {
	if c.KeyValid() {
		c.key++
		c.enterKey()
	}
}

// SeekKey moves to the first key at or after key, never backwards. It
// gallops, so a seek costs the log of the distance it moves.
func (c *BatchCursor) SeekKey(key []byte) {
	if !c.KeyValid() {
		return
	}
	next := seekBytes(c.batch.keyBytes, c.batch.keyOff, c.key, c.batch.nKeys(), key)
	if next != c.key {
		c.key = next
		c.enterKey()
	}
}

// RewindKeys moves back to the first key.
func (c *BatchCursor) RewindKeys() {
	if c.batch != nil {
		c.reset(c.batch)
	}
}

// FlatRun returns up to max keys from the cursor's on, read in bulk, if
// the batch is flat: every key has one val, which is empty, with one
// update, and every update is at one time with one diff, as in the batch
// a table's rows make. Key i of the run is keys[ends[i]:ends[i+1]], for
// i < len(ends)-1, each with the update (t, d); the cursor moves to the
// key after the run. ok is false, and the cursor does not move, for a
// batch that is not flat, a cursor past its key's val, or at the end.
func (c *BatchCursor) FlatRun(max int) (keys []byte, ends []uint32, t uint64, d int64, ok bool) {
	b := c.batch
	// Every val empty (no valOff) is one val a key, as a key's vals are
	// distinct; no diffs is one update a val, each of diff0; no times,
	// each at time0.
	if b == nil || max <= 0 || !c.KeyValid() || c.val != c.key || b.valOff != nil || b.diffs != nil || b.times != nil {
		return nil, nil, 0, 0, false
	}
	n := min(max, b.nKeys()-c.key)
	ends = b.keyOff[c.key : c.key+n+1]
	c.key += n
	c.enterKey()
	return b.keyBytes, ends, b.time0[0], b.diff0[0], true
}

// ValValid reports whether the cursor is at a val of the current key.
func (c *BatchCursor) ValValid() bool { return c.val < c.valEnd }

// Val returns the current val.
func (c *BatchCursor) Val() []byte { return c.batch.val(c.val) }

// StepVal moves to the next val of the current key.
func (c *BatchCursor) StepVal() {
	if c.val < c.valEnd {
		c.val++
	}
}

// SeekVal moves to the first val at or after val within the current key,
// never backwards.
func (c *BatchCursor) SeekVal(val []byte) {
	switch {
	case c.val == c.valEnd:
	case c.batch.valOff == nil:
		// Every val is empty, and so the key's only one.
		if len(val) > 0 {
			c.val = c.valEnd
		}
	default:
		c.val = seekBytes(c.batch.valBytes, c.batch.valOff, c.val, c.valEnd, val)
	}
}

// RewindVals moves back to the current key's first val.
func (c *BatchCursor) RewindVals() {
	if c.KeyValid() {
		c.enterKey()
	}
}

// Updates returns the current val's times and diffs, in strictly
// increasing time order, as views into the batch; they must not be
// modified. Both are empty unless ValValid.
func (c *BatchCursor) Updates() (times []uint64, diffs []int64) {
	if !c.ValValid() {
		return nil, nil
	}
	return c.batch.updates(c.batch.upds(c.val))
}

// History calls fn for each update of the current val in strictly
// increasing time order.
func (c *BatchCursor) History(fn func(time uint64, diff int64)) {
	times, diffs := c.Updates()
	for i, t := range times {
		fn(t, diffs[i])
	}
}

// Count returns the sum of the current val's diffs at times <= asOf.
func (c *BatchCursor) Count(asOf uint64) int64 {
	times, diffs := c.Updates()
	var sum int64
	for i, t := range times {
		if t > asOf {
			break
		}
		sum += diffs[i]
	}
	return sum
}

// seekBytes returns the first index i in [lo, hi) whose item
// data[offs[i]:offs[i+1]] is at or after target, or hi if there is none.
// The items must be sorted. It gallops from lo, because seeks usually
// land near where they start, and then bisects.
func seekBytes(data []byte, offs []uint32, lo, hi int, target []byte) int {
	// Invariant: every item before lo is below target, and hi is past
	// the answer.
	for step := 1; ; step <<= 1 {
		p := lo + step - 1
		if p >= hi {
			break
		}
		if bytes.Compare(data[offs[p]:offs[p+1]], target) >= 0 {
			hi = p
			break
		}
		lo = p + 1
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(data[offs[m]:offs[m+1]], target) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
