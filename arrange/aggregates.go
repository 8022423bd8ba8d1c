package arrange

import (
	"bytes"
	"encoding/binary"
	"slices"

	"freshet/dataflow"
)

// Count maintains, for every key of a with a nonzero count (the sum of
// the diffs of all its vals), the update (key, count), the count as an
// 8-byte big-endian int64 (EncodeInt64).
//
// The aggregate is kept in the diff: each window folds the input's diffs
// per (key, time) and adds them to the key's previous count, read from
// the output trace at one key. An input update costs a seek in the output
// trace, whatever the size of its group or of the collection.
func Count(a *Arranged, name string) *Arranged { return accumulateBy(a, name, nil) }

// Sum maintains, for every key of a, the update (key, sum) with sum the
// total of value(val)·diff over the key's updates, as an 8-byte
// big-endian int64 (EncodeInt64), wrapping on overflow. A key whose sum
// is zero has no output, as a key whose count is zero has none in Count:
// a SQL SUM, which is 0 for a non-empty group, pairs it with Count. The
// cost per input update is that of Count.
func Sum(a *Arranged, name string, value func(val []byte) int64) *Arranged {
	return accumulateBy(a, name, value)
}

// EncodeInt64 returns v as 8 bytes, big-endian: the vals of Count and Sum.
func EncodeInt64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// DecodeInt64 returns the int64 of an 8-byte big-endian val, and 0 for a
// val of another length.
func DecodeInt64(val []byte) int64 {
	if len(val) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(val))
}

func accumulateBy(a *Arranged, name string, value func(val []byte) int64) *Arranged {
	return windowOperator(a, name, func(in *dataflow.Input[*Batch], o *arrangedOutput, pending *Batcher) dataflow.Logic {
		return &accumulateLogic{value: value, in: in, o: o, pending: pending}
	})
}

type accumulateLogic struct {
	// value weighs each val; nil weighs every val 1 (Count).
	value func(val []byte) int64
	in    *dataflow.Input[*Batch]
	o     *arrangedOutput
	// pending stages (key, time, weighted diff) for every update not
	// yet in a window; consolidation sums them per (key, time).
	pending *Batcher
	hout    history
}

func (l *accumulateLogic) Schedule() {
	for {
		_, batches, ok := l.in.Next()
		if !ok {
			break
		}
		for _, b := range batches {
			for c := b.Cursor(); c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					w := int64(1)
					if l.value != nil {
						w = l.value(c.Val())
					}
					times, diffs := c.Updates()
					for i, t := range times {
						l.pending.Push(c.Key(), nil, t, w*diffs[i])
					}
				}
			}
		}
	}
	o := l.o
	o.applyCompaction()
	if o.cap == nil {
		return
	}
	f := l.in.Frontier()
	fNew := uint64(f)
	if fNew <= o.fOld {
		return
	}
	if w := l.pending.Seal(fNew); w.Len() > 0 {
		oc := o.lease.cursor()
		var enc [8]byte
		for c := w.Cursor(); c.KeyValid(); c.StepKey() {
			key := c.Key()
			// The output trace holds the key's aggregate as of fOld: one
			// live val, after retractions that compaction folds away.
			l.hout.load(oc, key, Done)
			var acc int64
			for _, v := range l.hout.vals {
				for _, u := range l.hout.upds[v.lo:v.hi] {
					acc += DecodeInt64(v.val) * u.diff
				}
			}
			times, diffs := c.Updates()
			for i, t := range times {
				next := acc + diffs[i]
				if acc != 0 {
					binary.BigEndian.PutUint64(enc[:], uint64(acc))
					o.batcher.Push(key, enc[:], t, -1)
				}
				if next != 0 {
					binary.BigEndian.PutUint64(enc[:], uint64(next))
					o.batcher.Push(key, enc[:], t, +1)
				}
				acc = next
			}
		}
	}
	o.advance(f)
}

func (l *accumulateLogic) Shutdown(dataflow.Reason) {}

// Distinct maintains (key, val) with count 1 for every (key, val) of a
// whose accumulated count is positive. It is Threshold with the indicator
// of a positive count.
func Distinct(a *Arranged, name string) *Arranged {
	return Threshold(a, name, func(c int64) int64 {
		if c > 0 {
			return 1
		}
		return 0
	})
}

// Threshold maintains (key, val) with count f(c) for every (key, val) of
// a, c its accumulated count; f(0) must be 0, so that absent pairs stay
// absent.
//
// It works per (key, val), not per group: for each pair with an update in
// the window it reads the pair's count below fOld from the input trace (a
// seek), then for each of its times t emits f(c') − f(c) at t, where c'
// is the count after t. The cost is independent of the group's size.
func Threshold(a *Arranged, name string, f func(count int64) int64) *Arranged {
	b := a.Batches.Builder()
	inLease := newLease(b, a.Trace, b.Start(), name)
	return windowOperator(a, name, func(in *dataflow.Input[*Batch], o *arrangedOutput, pending *Batcher) dataflow.Logic {
		return &thresholdLogic{f: f, in: in, lease: inLease, o: o, pending: pending}
	})
}

type thresholdLogic struct {
	f     func(count int64) int64
	in    *dataflow.Input[*Batch]
	lease *lease
	o     *arrangedOutput
	// pending stages every update not yet in a window, consolidated.
	pending *Batcher
}

func (l *thresholdLogic) Schedule() {
	for {
		_, batches, ok := l.in.Next()
		if !ok {
			break
		}
		for _, b := range batches {
			for c := b.Cursor(); c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					times, diffs := c.Updates()
					for i, t := range times {
						l.pending.Push(c.Key(), c.Val(), t, diffs[i])
					}
				}
			}
		}
	}
	o := l.o
	o.applyCompaction()
	if o.cap == nil {
		return
	}
	f := l.in.Frontier()
	fNew := uint64(f)
	if fNew <= o.fOld {
		return
	}
	if w := l.pending.Seal(fNew); w.Len() > 0 {
		ic := l.lease.cursor()
		for c := w.Cursor(); c.KeyValid(); c.StepKey() {
			key := c.Key()
			ic.SeekKey(key)
			found := ic.KeyValid() && bytes.Equal(ic.Key(), key)
			for ; c.ValValid(); c.StepVal() {
				val := c.Val()
				// The lease is at max(start, fOld-1); at the first window
				// every time is raised to start and none lies below fOld.
				var count int64
				if found && o.fOld > o.start {
					ic.SeekVal(val)
					if ic.ValValid() && bytes.Equal(ic.Val(), val) {
						count = ic.Count(o.fOld - 1)
					}
				}
				times, diffs := c.Updates()
				for i, t := range times {
					next := count + diffs[i]
					if d := l.f(next) - l.f(count); d != 0 {
						o.batcher.Push(key, val, t, d)
					}
					count = next
				}
			}
		}
	}
	if f.IsDone() {
		l.lease.close()
	} else {
		l.lease.setSince(max(o.start, fNew-1))
	}
	o.advance(f)
}

func (l *thresholdLogic) Shutdown(dataflow.Reason) {}

// TopK maintains, for every key of a, the vals of its group ordered by
// less (ties by val bytes), each with its multiplicity, skipping the
// first offset copies and keeping the next limit copies (all of them if
// limit < 0). Vals with a non-positive count take no place. It is a
// Reduce, so its cost per changed key is the key's group.
func TopK(a *Arranged, name string, less func(v1, v2 []byte) bool, offset, limit int) *Arranged {
	// Each worker's build makes its own Reduce and so its own scratch.
	var sorted, result []ValCount
	order := func(x, y ValCount) int {
		switch {
		case less(x.Val, y.Val):
			return -1
		case less(y.Val, x.Val):
			return 1
		}
		return 0
	}
	return Reduce(a, name, func(_ []byte, input []ValCount) []ValCount {
		sorted = sorted[:0]
		for _, vc := range input {
			if vc.Count > 0 {
				sorted = append(sorted, vc)
			}
		}
		// input is sorted by val, so a stable sort breaks ties by val.
		slices.SortStableFunc(sorted, order)
		// Reduce is done with the result before it calls f again.
		result = result[:0]
		skip, left := int64(offset), int64(limit)
		for _, vc := range sorted {
			if limit >= 0 && left == 0 {
				break
			}
			n := vc.Count
			s := min(skip, n)
			n, skip = n-s, skip-s
			if limit >= 0 {
				n = min(n, left)
				left -= n
			}
			if n > 0 {
				result = append(result, ValCount{Val: vc.Val, Count: n})
			}
		}
		return result
	})
}

// Consolidate exchanges s by key and emits, each time the input frontier
// advances, the updates before it consolidated: summed per (key, val,
// time), with no zero diff. It keeps no trace: a batcher holds only the
// updates not yet emitted.
func Consolidate(s dataflow.Stream[Update], name string) dataflow.Stream[Update] {
	b := s.Builder()
	start := b.Start()
	return dataflow.Unary(s, name, dataflow.Exchange(UpdateHash), func(_ *dataflow.Operator, cap *dataflow.Capability, in *dataflow.Input[Update], out *dataflow.Output[Update]) func() {
		batcher := newAccountedBatcher(b, start)
		return func() {
			for {
				_, data, ok := in.Next()
				if !ok {
					break
				}
				for _, u := range data {
					batcher.Push(u.Key, u.Val, u.Time, u.Diff)
				}
			}
			if cap == nil {
				return
			}
			f := in.Frontier()
			if uint64(f) <= batcher.Lower() {
				return
			}
			batch := batcher.Seal(uint64(f))
			if batch.Len() > 0 {
				upds := make([]Update, 0, batch.Len())
				for c := batch.Cursor(); c.KeyValid(); c.StepKey() {
					for ; c.ValValid(); c.StepVal() {
						times, diffs := c.Updates()
						for i, t := range times {
							upds = append(upds, Update{Key: c.Key(), Val: c.Val(), Time: t, Diff: diffs[i]})
						}
					}
				}
				giveByTime(out, upds)
			}
			if f.IsDone() {
				cap.Release()
				cap = nil
				return
			}
			cap.Downgrade(uint64(f))
		}
	})
}
