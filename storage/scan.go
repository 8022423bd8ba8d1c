package storage

import (
	"errors"

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

// scanUpdates calls fn for every update in [lower, upper), with the key
// of the block that holds it (consecutive calls share a key); key and
// row are valid only until fn returns.
func (s *Store) scanUpdates(lower, upper []byte, fn func(key []byte, ts uint64, row []byte, diff int64) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
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
