package storage

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
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
			errs[i] = s.scanUpdatesIn(snap, bounds[i], bounds[i+1], func(_ []byte, ts uint64, row []byte, diff int64) error {
				if stop.Load() {
					return errScanStopped
				}
				if err := fn(i, ts, row, diff); err != nil {
					stop.Store(true)
					return err
				}
				return nil
			})
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
// between two times of the log, where about a part's share of its bytes
// on disk lies before it, found by bisecting the times between the log's
// first and last; updates still in memory are not counted.
func (s *Store) splitTable(snap *pebble.Snapshot, id uint64, lower, upper []byte, n int) ([][]byte, error) {
	bounds := [][]byte{lower}
	total, err := s.db.EstimateDiskUsage(lower, upper)
	if err != nil {
		return nil, ioError(err, "could not size table log")
	}
	if n > 1 && total >= minSplitBytes {
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
		for k := 1; ok && k < n; k++ {
			// The least time t in (first, last] with a share of k/n of
			// the bytes before it.
			want := total / uint64(n) * uint64(k)
			lo, hi := first+1, last
			for lo < hi {
				mid := lo + (hi-lo)/2
				below, err := s.db.EstimateDiskUsage(lower, appendUpdateKey(nil, id, mid, 0))
				if err != nil {
					return nil, ioError(err, "could not size table log")
				}
				if below >= want {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			if lo > last {
				break
			}
			split := appendUpdateKey(nil, id, lo, 0)
			if bytes.Compare(split, bounds[len(bounds)-1]) > 0 {
				bounds = append(bounds, split)
			}
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
	for valid := it.First(); valid; valid = it.Next() {
		key := it.Key()
		_, ts, _, ok := decodeUpdateKey(key)
		if !ok {
			_ = it.Close()
			return corruptf("table log key %x does not decode", key)
		}
		value, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return ioError(err, "could not read table log")
		}
		var ferr error
		ok = eachUpdate(value, func(diff int64, row []byte) error { return fn(key, ts, row, diff) }, &ferr)
		if ferr != nil {
			_ = it.Close()
			return ferr
		}
		if !ok {
			_ = it.Close()
			return corruptf("table log value at key %x does not decode", key)
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return ioError(err, "could not read table log")
	}
	return nil
}
