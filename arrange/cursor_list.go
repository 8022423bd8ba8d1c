package arrange

import "bytes"

// CursorList is a Cursor over a list of batches that tile time, such as a
// trace's: it presents their union, merging keys and vals across the
// batches.
//
// It presents every time t as max(t, since). Below its since the batches
// may have been compacted, so their raw times would show states that
// never happened; raised to since, they are exact at every time a reader
// holding since may ask about.
//
// The zero value is a cursor over no batches.
type CursorList struct {
	// cursors are the batches' cursors, oldest batch first. Batches tile
	// time and every time lies inside its batch, so reading the cursors
	// in this order reads a val's history in time order.
	cursors []BatchCursor
	since   uint64
	// minKey indexes the cursors at the least current key, ascending.
	// Invariant: empty exactly when every cursor is past its last key.
	minKey []int
	// minVal indexes the cursors of minKey at the least current val,
	// ascending.
	minVal []int
}

// NewCursorList returns a cursor over batches, which must be given oldest
// first and tile time (each Lower the previous Upper). It presents times
// unchanged.
func NewCursorList(batches []*Batch) *CursorList {
	return newCursorList(batches, 0)
}

// newCursorList returns a cursor over batches that presents each time t as
// max(t, since).
func newCursorList(batches []*Batch, since uint64) *CursorList {
	c := &CursorList{since: since}
	for _, b := range batches {
		if b.Len() == 0 {
			continue
		}
		var bc BatchCursor
		bc.reset(b)
		c.cursors = append(c.cursors, bc)
	}
	c.minKey = make([]int, 0, len(c.cursors))
	c.minVal = make([]int, 0, len(c.cursors))
	c.findMinKey()
	return c
}

// Since returns the time below which the cursor presents no time.
func (c *CursorList) Since() uint64 { return c.since }

// KeyValid reports whether the cursor is at a key.
func (c *CursorList) KeyValid() bool { return len(c.minKey) > 0 }

// Key returns the current key.
func (c *CursorList) Key() []byte { return c.cursors[c.minKey[0]].Key() }

// StepKey moves to the next key and its first val.
func (c *CursorList) StepKey() {
	for _, i := range c.minKey {
		c.cursors[i].StepKey()
	}
	c.findMinKey()
}

// SeekKey moves to the first key at or after key, never backwards.
func (c *CursorList) SeekKey(key []byte) {
	for i := range c.cursors {
		c.cursors[i].SeekKey(key)
	}
	c.findMinKey()
}

// RewindKeys moves back to the first key.
func (c *CursorList) RewindKeys() {
	for i := range c.cursors {
		c.cursors[i].RewindKeys()
	}
	c.findMinKey()
}

// ValValid reports whether the cursor is at a val of the current key.
func (c *CursorList) ValValid() bool { return len(c.minVal) > 0 }

// Val returns the current val.
func (c *CursorList) Val() []byte { return c.cursors[c.minVal[0]].Val() }

// StepVal moves to the next val of the current key.
func (c *CursorList) StepVal() {
	for _, i := range c.minVal {
		c.cursors[i].StepVal()
	}
	c.findMinVal()
}

// SeekVal moves to the first val at or after val within the current key,
// never backwards.
func (c *CursorList) SeekVal(val []byte) {
	for _, i := range c.minKey {
		c.cursors[i].SeekVal(val)
	}
	c.findMinVal()
}

// RewindVals moves back to the current key's first val.
func (c *CursorList) RewindVals() {
	for _, i := range c.minKey {
		c.cursors[i].RewindVals()
	}
	c.findMinVal()
}

// History calls fn for each update of the current val across all batches,
// in non-decreasing time order, each time raised to the cursor's since.
// Times are distinct except where raising made them equal.
func (c *CursorList) History(fn func(time uint64, diff int64)) {
	for _, i := range c.minVal {
		times, diffs := c.cursors[i].Updates()
		for j, t := range times {
			fn(max(t, c.since), diffs[j])
		}
	}
}

// Count returns the current val's accumulation at asOf across all
// batches. Asking below the cursor's since is a bug: under the invariants
// build tag it panics, and otherwise it sees nothing, as no time below
// since is presented.
func (c *CursorList) Count(asOf uint64) int64 {
	if asOf < c.since {
		if invariants {
			panic(assertionFailedf("cursor: read at %d below since %d", asOf, c.since))
		}
		return 0
	}
	var sum int64
	for _, i := range c.minVal {
		sum += c.cursors[i].Count(asOf)
	}
	return sum
}

// findMinKey recomputes minKey, and then minVal.
func (c *CursorList) findMinKey() {
	c.minKey = c.minKey[:0]
	var least []byte
	for i := range c.cursors {
		cur := &c.cursors[i]
		if !cur.KeyValid() {
			continue
		}
		k := cur.Key()
		if len(c.minKey) > 0 {
			cmp := bytes.Compare(k, least)
			if cmp > 0 {
				continue
			}
			if cmp < 0 {
				c.minKey = c.minKey[:0]
			}
		}
		least = k
		c.minKey = append(c.minKey, i)
	}
	c.findMinVal()
}

// findMinVal recomputes minVal from minKey.
func (c *CursorList) findMinVal() {
	c.minVal = c.minVal[:0]
	var least []byte
	for _, i := range c.minKey {
		cur := &c.cursors[i]
		if !cur.ValValid() {
			continue
		}
		v := cur.Val()
		if len(c.minVal) > 0 {
			cmp := bytes.Compare(v, least)
			if cmp > 0 {
				continue
			}
			if cmp < 0 {
				c.minVal = c.minVal[:0]
			}
		}
		least = v
		c.minVal = append(c.minVal, i)
	}
}

// sizeHint returns the shapes of c's batches added up: enough for a
// Builder to hold everything c reads, since consolidating only shrinks.
func (c *CursorList) sizeHint() sizeHint {
	var h sizeHint
	for i := range c.cursors {
		b := c.cursors[i].batch.sizeHint()
		h.keys += b.keys
		h.keyBytes += b.keyBytes
		h.vals += b.vals
		h.valBytes += b.valBytes
		h.upds += b.upds
	}
	return h
}
