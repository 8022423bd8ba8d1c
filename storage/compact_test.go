package storage

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// update is one (row, time, diff) of the oracle's copy of a table.
type update struct {
	row  string
	time uint64
	diff int64
}

// accumulate returns the net diff of every row over the updates at times
// <= asOf, without the rows that net to zero.
func accumulate(updates []update, asOf uint64) map[string]int64 {
	acc := map[string]int64{}
	for _, u := range updates {
		if u.time <= asOf {
			acc[u.row] += u.diff
		}
	}
	maps.DeleteFunc(acc, func(_ string, d int64) bool { return d == 0 })
	return acc
}

func scanUpdates(t *testing.T, s *Store, table uint64) []update {
	t.Helper()
	var us []update
	err := s.ScanTable(table, func(ts uint64, row []byte, diff int64) error {
		us = append(us, update{string(row), ts, diff})
		return nil
	})
	if err != nil {
		t.Fatalf("scan table %d: %v", table, err)
	}
	return us
}

// TestCompactTableOracle writes seeded random updates to two tables and
// compacts one at seeded random frontiers, reopening the store now and
// then. After every compaction, the table's contents at every time at or
// after the greatest frontier so far equal those of the oracle, a plain
// list of every update written; the log through the frontier holds one
// update per row, at the frontier, none with diff 0; and the other table
// is untouched, and CompactTable counted the updates it kept.
func TestCompactTableOracle(t *testing.T) {
	forSeeds(t, 60, func(t *testing.T, seed uint64, rng *rand.Rand) {
		ctx := context.Background()
		fs := vfs.NewMem()
		s := openMem(t, fs)
		defer func() { s.Close() }()
		oracle := map[uint64][]update{}
		rows := []string{"a", "b", "c", "d", "e", "f"}
		var now, frontier uint64
		for step := 0; step < 80; step++ {
			switch r := rng.IntN(10); {
			case r < 7:
				// A write transaction, sometimes at the time of the last.
				now += uint64(rng.IntN(3))
				var ws []TableWrite
				for range 1 + rng.IntN(4) {
					d := int64(1 + rng.IntN(2))
					if rng.IntN(2) == 0 {
						d = -d
					}
					w := TableWrite{Table: 1 + uint64(rng.IntN(2)), Row: []byte(rows[rng.IntN(len(rows))]), Diff: d}
					ws = append(ws, w)
					oracle[w.Table] = append(oracle[w.Table], update{string(w.Row), now, w.Diff})
				}
				if err := s.Write(ctx, now, ws); err != nil {
					t.Fatal(err)
				}
			case r < 9:
				since := uint64(rng.IntN(int(now) + 3))
				frontier = max(frontier, since)
				other := scanUpdates(t, s, 2)
				kept, err := s.CompactTable(ctx, 1, since)
				if err != nil {
					t.Fatal(err)
				}
				got := scanUpdates(t, s, 1)
				checkConsolidated(t, got, since)
				through := 0
				for _, u := range got {
					if u.time <= since {
						through++
					}
				}
				if kept != through {
					t.Fatalf("step %d: CompactTable through %d kept %d updates, the log holds %d", step, since, kept, through)
				}
				for asOf := frontier; asOf <= now+2; asOf++ {
					if g, w := accumulate(got, asOf), accumulate(oracle[1], asOf); !maps.Equal(g, w) {
						t.Fatalf("step %d, compact through %d: contents at %d: got %v, want %v", step, since, asOf, g, w)
					}
				}
				if g := scanUpdates(t, s, 2); !slices.Equal(g, other) {
					t.Fatalf("step %d: compacting table 1 changed table 2:\ngot  %v\nwant %v", step, g, other)
				}
			default:
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				s = openMem(t, fs)
			}
		}
		for table := uint64(1); table <= 2; table++ {
			got := scanUpdates(t, s, table)
			for asOf := frontier; asOf <= now+2; asOf++ {
				if g, w := accumulate(got, asOf), accumulate(oracle[table], asOf); !maps.Equal(g, w) {
					t.Fatalf("end: table %d at %d: got %v, want %v", table, asOf, g, w)
				}
			}
		}
	})
}

// checkConsolidated checks that the updates of a log at times <= since
// are all at since, one per row, none with diff 0.
func checkConsolidated(t *testing.T, updates []update, since uint64) {
	t.Helper()
	seen := map[string]bool{}
	for _, u := range updates {
		if u.time > since {
			continue
		}
		if u.time != since || seen[u.row] || u.diff == 0 {
			t.Fatalf("log not consolidated through %d: %v", since, fmt.Sprint(updates))
		}
		seen[u.row] = true
	}
}
