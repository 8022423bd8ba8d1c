package compute

// KeyCursor is a cursor over an arrangement's keys, in order, that a
// RangeWalk moves: a batch's (arrange.BatchCursor) or a trace's
// (arrange.CursorList).
type KeyCursor interface {
	KeyValid() bool
	Key() []byte
	StepKey()
	SeekKey(key []byte)
}

// RangeWalk walks a cursor's keys that lie in runs of keys (nil: every
// key), seeking to each run in turn: the runs are in key order and
// apart (Peek.KeyRanges), so the cursor only moves forward.
type RangeWalk struct {
	c      KeyCursor
	ranges []KeyRange
	i      int
}

// WalkRanges starts a walk of c's keys in ranges at the first of them.
func WalkRanges(c KeyCursor, ranges []KeyRange) RangeWalk {
	w := RangeWalk{c: c, ranges: ranges}
	if len(ranges) > 0 {
		c.SeekKey(ranges[0].Start())
	}
	w.settle()
	return w
}

// settle moves past the runs the cursor's key is past, seeking to the
// next run each time.
func (w *RangeWalk) settle() {
	if w.ranges == nil {
		return
	}
	for w.i < len(w.ranges) && (!w.c.KeyValid() || w.ranges[w.i].Past(w.c.Key())) {
		if w.i++; w.i < len(w.ranges) {
			w.c.SeekKey(w.ranges[w.i].Start())
		}
	}
}

// Valid reports whether the cursor is at a key in the runs.
func (w *RangeWalk) Valid() bool {
	return w.c.KeyValid() && (w.ranges == nil || w.i < len(w.ranges))
}

// Step moves to the next key in the runs.
func (w *RangeWalk) Step() {
	w.c.StepKey()
	w.settle()
}
