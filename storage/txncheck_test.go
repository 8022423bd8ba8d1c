package storage

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// txnWrites returns the updates of the test transaction at time ts. They
// are a function of ts alone and span up to three tables, so that a
// checker can tell a whole transaction from part of one without being
// told what was written.
func txnWrites(ts uint64) []TableWrite {
	ws := make([]TableWrite, 1+ts%5)
	for i := range ws {
		ws[i] = TableWrite{
			Table: 1 + (ts+uint64(i))%3,
			Row:   fmt.Appendf(nil, "ts%d-row%d", ts, i),
			Diff:  int64(1 + i%2),
		}
	}
	return ws
}

// formatWrites renders updates as sorted lines, for comparison.
func formatWrites(ws []TableWrite) string {
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = fmt.Sprintf("%d %s %d", w.Table, w.Row, w.Diff)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// checkTxns reads the test transactions from s and checks that each one
// present is whole and that every time in acked is present. It returns
// the times present.
func checkTxns(t *testing.T, s *Store, acked []uint64) map[uint64]bool {
	t.Helper()
	return checkTxnsOf(t, s, acked, txnWrites)
}

// checkTxnsOf is checkTxns for transactions whose writes at ts are
// want(ts).
func checkTxnsOf(t *testing.T, s *Store, acked []uint64, want func(ts uint64) []TableWrite) map[uint64]bool {
	t.Helper()
	got := map[uint64][]TableWrite{}
	for table := uint64(1); table <= 3; table++ {
		err := s.ScanTable(table, func(ts uint64, row []byte, diff int64) error {
			got[ts] = append(got[ts], TableWrite{Table: table, Row: slices.Clone(row), Diff: diff})
			return nil
		})
		if err != nil {
			t.Fatalf("scan table %d: %v", table, err)
		}
	}
	present := map[uint64]bool{}
	for ts, ws := range got {
		present[ts] = true
		if g, w := formatWrites(ws), formatWrites(want(ts)); g != w {
			t.Errorf("transaction at time %d is partial or altered:\ngot:\n%s\nwant:\n%s", ts, g, w)
		}
	}
	missing := 0
	for _, ts := range acked {
		if !present[ts] {
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged transaction at time %d is missing", ts)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged transactions are missing", missing, len(acked))
	}
	return present
}
