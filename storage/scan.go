package storage

import (
	"bytes"
	"errors"
	"math"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"freshet/sqlerr"
)

// ScanTable calls fn for every update in table id's log, in time order
// (and, within a time, in the order written), from one consistent view of
// the store: updates committed while it runs are not seen. row is valid
// only until fn returns; copy it to keep it. If fn returns an error, the
// scan stops and ScanTable returns that error unchanged.
//
// fn may call other methods of the store but Close: Close waits for the
// scan to end.
func (s *Store) ScanTable(id uint64, fn func(ts uint64, row []byte, diff int64) error) error {
	lower, upper := tableBounds(id)
	return s.scanUpdates(lower, upper, func(key []byte, ts uint64, row []byte, diff int64) error {
		return fn(ts, row, diff)
	})
}

// ScanTableParts reads table id's log as ScanTable does, in up to n
// parts read at once, one goroutine a part, from one consistent view of
// the store. The parts cover the log in order, part 0 first, and are
// about equal in size on disk; fn is called for part i's updates in
// their order, concurrently with other parts' calls. It returns how
// many parts it read, which is fewer than n for a log too small to be
// worth splitting. If fn returns an error, every part stops and
// ScanTableParts returns one of the errors.
func (s *Store) ScanTableParts(id uint64, n int, fn func(part int, ts uint64, row []byte, diff int64) error) (int, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	snap := s.db.NewSnapshot()
	defer snap.Close()
	lower, upper := tableBounds(id)
	bounds, err := s.splitTable(snap, id, lower, upper, n)
	if err != nil {
		return 0, err
	}
	parts := len(bounds) - 1
	errs := make([]error, parts)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			defer func() {
				// A panic in fn fails the scan rather than the process.
				if v := recover(); v != nil {
					errs[i] = sqlerr.AssertionFailedf("reading part %d of table log %d: %v", i, id, v)
					stop.Store(true)
				}
			}()
			errs[i] = s.scanUpdatesIn(snap, bounds[i], bounds[i+1], func(_ []byte, ts uint64, row []byte, diff int64) error {
				if stop.Load() {
					return errScanStopped
				}
				return fn(i, ts, row, diff)
			})
			if errs[i] != nil {
				stop.Store(true)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && err != errScanStopped {
			return 0, err
		}
	}
	return parts, nil
}

// errScanStopped ends a part of ScanTableParts that another part's error
// stopped.
var errScanStopped = errors.New("scan stopped")

// minSplitBytes is the least log, on disk, that ScanTableParts splits:
// below it a part is quicker read than a goroutine is started.
const minSplitBytes = 4 << 20

// splitTable returns the bounds of up to n parts of table id's log in
// [lower, upper): lower, the keys that split it, upper. A split falls
// where about a part's share of the log's bytes on disk lies before it:
// bisecting the times between the log's first and last finds the time
// that holds it, and bisecting the sequence numbers within that time
// the key (a compacted log, or a load in one transaction, is all one
// time). Updates still in memory are not counted.
func (s *Store) splitTable(snap *pebble.Snapshot, id uint64, lower, upper []byte, n int) ([][]byte, error) {
	bounds := [][]byte{lower}
	total, err := s.db.EstimateDiskUsage(lower, upper)
	if err != nil {
		return nil, ioError(err, "could not size table log")
	}
	if n <= 1 || total < minSplitBytes {
		return append(bounds, upper), nil
	}
	it, err := snap.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, ioError(err, "could not read table log")
	}
	var first, last uint64
	ok := it.First()
	if ok {
		_, first, _, ok = decodeUpdateKey(it.Key())
	}
	if ok && it.Last() {
		_, last, _, ok = decodeUpdateKey(it.Key())
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, ioError(err, "could not read table log")
	}
	// least returns the least x in [lo, hi] whose key has at least want
	// bytes before it, or hi.
	least := func(lo, hi uint64, key func(uint64) []byte, want uint64) (uint64, error) {
		for lo < hi {
			mid := lo + (hi-lo)/2
			below, err := s.db.EstimateDiskUsage(lower, key(mid))
			if err != nil {
				return 0, ioError(err, "could not size table log")
			}
			if below >= want {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo, nil
	}
	for k := 1; ok && k < n; k++ {
		want := total / uint64(n) * uint64(k)
		// The share ends in the time before the least one whose start
		// has it before it, and there at the least sequence number that
		// has it.
		t, err := least(first+1, last+1, func(t uint64) []byte { return appendUpdateKey(nil, id, t, 0) }, want)
		if err != nil {
			return nil, err
		}
		seq, err := least(0, math.MaxUint64, func(q uint64) []byte { return appendUpdateKey(nil, id, t-1, q) }, want)
		if err != nil {
			return nil, err
		}
		split := appendUpdateKey(nil, id, t-1, seq)
		if bytes.Compare(split, bounds[len(bounds)-1]) > 0 && bytes.Compare(split, upper) < 0 {
			bounds = append(bounds, split)
		}
	}
	return append(bounds, upper), nil
}

// scanUpdates calls fn for every update in [lower, upper), with the key
// of the block that holds it (consecutive calls share a key); key and
// row are valid only until fn returns.
func (s *Store) scanUpdates(lower, upper []byte, fn func(key []byte, ts uint64, row []byte, diff int64) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	return s.scanUpdatesIn(s.db, lower, upper, fn)
}

// scanUpdatesIn is scanUpdates of reader r: the store or a snapshot of it.
func (s *Store) scanUpdatesIn(r pebble.Reader, lower, upper []byte, fn func(key []byte, ts uint64, row []byte, diff int64) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return ioError(err, "could not read table log")
	}
	// The iterator is closed however the scan ends, a panic in fn
	// included: the store cannot close with one open.
	open := true
	defer func() {
		if open {
			_ = it.Close()
		}
	}()
	for valid := it.First(); valid; valid = it.Next() {
		key := it.Key()
		_, ts, _, ok := decodeUpdateKey(key)
		if !ok {
			return corruptf("table log key %x does not decode", key)
		}
		value, err := it.ValueAndErr()
		if err != nil {
			return ioError(err, "could not read table log")
		}
		var ferr error
		ok = eachUpdate(value, func(diff int64, row []byte) error { return fn(key, ts, row, diff) }, &ferr)
		if ferr != nil {
			return ferr
		}
		if !ok {
			return corruptf("table log value at key %x does not decode", key)
		}
	}
	open = false
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return ioError(err, "could not read table log")
	}
	return nil
}
