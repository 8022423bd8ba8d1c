package storage

import (
	"encoding/binary"
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// LoadCatalog returns every catalog record in id order. The values are
// copies the caller owns.
func (s *Store) LoadCatalog() ([]CatalogRecord, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.exit()
	lower, upper := catalogBounds()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, ioError(err, "could not read catalog")
	}
	var recs []CatalogRecord
	for valid := it.First(); valid; valid = it.Next() {
		key := it.Key()
		if len(key) != 9 {
			_ = it.Close()
			return nil, corruptf("catalog key of %d bytes, want 9", len(key))
		}
		value, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return nil, ioError(err, "could not read catalog")
		}
		recs = append(recs, CatalogRecord{
			ID:    binary.BigEndian.Uint64(key[1:]),
			Value: append([]byte(nil), value...),
		})
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, ioError(err, "could not read catalog")
	}
	return recs, nil
}

// GetMeta returns a copy of the setting named key; found is false if it
// was never written.
func (s *Store) GetMeta(key string) (value []byte, found bool, err error) {
	if err := s.enter(); err != nil {
		return nil, false, err
	}
	defer s.exit()
	if key == "" {
		return nil, false, invalidf("setting name must not be empty")
	}
	return s.get(metaKey(key))
}
