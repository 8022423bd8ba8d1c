package coord

import (
	"context"
	"fmt"

	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// merge runs MERGE. Its plan gives, for each source row that acts, the
// action, the target row it acts on with the number of copies of it the
// table holds, and the new row; all of it is read at one time, as
// UPDATE reads, and turned into the table's changes here, where a
// target row that two source rows update or delete is refused with
// 21000 as PostgreSQL refuses it. The changes are then submitted as one
// write, through the unique keys' checks like any other, so an error
// anywhere leaves the table as it was.
func (s *Session) merge(ctx context.Context, st *planner.Merge) (result, error) {
	t := st.Table
	rows, deps, done, err := s.readForWrite(ctx, st.Plan)
	if err != nil {
		return result{}, err
	}
	defer done()
	n := len(t.Columns)
	// hit counts the source rows that update or delete each target row,
	// by its packed value.
	hit := map[string]int64{}
	var writes []TableWrite
	var count int64
	for _, r := range rows {
		if r.Diff <= 0 || len(r.Datums) != 2+2*n {
			return result{}, sqlerr.AssertionFailedf("MERGE plan produced %d columns with count %d", len(r.Datums), r.Diff)
		}
		action, next := planner.MergeAction(r.Datums[0].Int()), repr.PackRow(r.Datums[2+n:]...)
		switch action {
		case planner.MergeInsert:
			writes = append(writes, TableWrite{Table: uint64(t.ID), Row: next, Diff: r.Diff, Shape: t.Shape})
			count += r.Diff
		case planner.MergeUpdate, planner.MergeDelete:
			old := repr.PackRow(r.Datums[2 : 2+n]...)
			if hit[string(old)] += r.Diff; hit[string(old)] > 1 {
				return result{}, sqlerr.New(sqlerr.CardinalityViolation, "MERGE command cannot affect row a second time").
					WithHint("Ensure that not more than one source row matches any one target row.")
			}
			// The source row acts on every copy of the row.
			copies := r.Datums[1].Int()
			writes = append(writes, TableWrite{Table: uint64(t.ID), Row: old, Diff: -copies, Shape: t.Shape})
			if action == planner.MergeUpdate {
				writes = append(writes, TableWrite{Table: uint64(t.ID), Row: next, Diff: copies, Shape: t.Shape})
			}
			count += copies
		default:
			return result{}, sqlerr.AssertionFailedf("MERGE plan produced action %v", r.Datums[0])
		}
	}
	if err := s.submitWrites(ctx, t, deps, writes); err != nil {
		return result{}, err
	}
	return result{tag: fmt.Sprintf("MERGE %d", count)}, nil
}
