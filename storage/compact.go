package storage

import (
	"bytes"
	"context"
	"math"
	"slices"

	"freshet/sqlerr"
)

// CompactTable rewrites table id's log so that every update at a time <=
// since is replaced by one update per row at time since, holding the
// row's net diff; rows whose net diff is zero go. Accumulating the log at
// any time >= since gives what it gave before. The rewrite is one atomic,
// durable batch. A log that is already consolidated through since is left
// alone. It returns the number of updates the log holds through since
// afterwards.
//
// Updates written at times <= since while CompactTable runs are kept as
// they are: the rewrite deletes exactly the updates it read, never a
// range, so it cannot lose a concurrent write.
func (s *Store) CompactTable(ctx context.Context, id, since uint64) (int, error) {
	if since == math.MaxUint64 {
		return 0, invalidf("time %d is reserved and cannot be a compaction frontier", since)
	}
	s.maintMu.Lock()
	defer s.maintMu.Unlock()

	net := map[string]int64{}
	var deletes [][]byte
	consolidated := true
	lower, upper := tableBoundsThrough(id, since)
	err := s.scanUpdates(lower, upper, func(key []byte, ts uint64, row []byte, diff int64) error {
		// The updates of one block come one after another, with its key.
		if n := len(deletes); n == 0 || !bytes.Equal(deletes[n-1], key) {
			deletes = append(deletes, bytes.Clone(key))
		}
		prev, dup := net[string(row)]
		if ts != since || dup {
			consolidated = false
		}
		sum := prev + diff
		if (diff > 0 && sum < prev) || (diff < 0 && sum > prev) {
			return sqlerr.New(sqlerr.NumericValueOutOfRange, "net diff of a row of table %d overflows", id)
		}
		if sum == 0 {
			// A row deleted as often as it was inserted goes at once, so
			// that the map holds the table's rows, not every row the
			// log ever held; its updates were not consolidated.
			delete(net, string(row))
			consolidated = false
			return nil
		}
		net[string(row)] = sum
		return nil
	})
	if err != nil {
		return 0, err
	}
	if consolidated {
		return len(net), nil
	}
	rows := make([]string, 0, len(net))
	for row, diff := range net {
		if diff != 0 {
			rows = append(rows, row)
		}
	}
	slices.Sort(rows)
	writes := make([]TableWrite, len(rows))
	for i, row := range rows {
		writes[i] = TableWrite{Table: id, Row: []byte(row), Diff: net[row]}
	}
	if err := s.submit(ctx, &request{txn: &Txn{Time: since, Writes: writes}, deletes: deletes})(); err != nil {
		return 0, err
	}
	return len(writes), nil
}
