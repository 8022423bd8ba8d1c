package planner

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// Apply returns the rows a read returns from a query's result: each row
// as often as its count, sorted, offset, limited and projected.
func (f Finishing) Apply(rows expr.Collection) [][]repr.Datum {
	var all []expr.Row
	for _, r := range rows {
		for i := int64(0); i < r.Diff; i++ {
			all = append(all, r)
		}
	}
	if len(f.OrderBy) > 0 {
		sortRows(all, f.OrderBy)
	}
	if f.Offset > 0 {
		if f.Offset >= int64(len(all)) {
			all = nil
		} else {
			all = all[f.Offset:]
		}
	}
	if f.Limit >= 0 && f.Limit < int64(len(all)) {
		all = all[:f.Limit]
	}
	out := make([][]repr.Datum, len(all))
	for i, r := range all {
		row := make([]repr.Datum, len(f.Project))
		for j, c := range f.Project {
			row[j] = r.Datums[c]
		}
		out[i] = row
	}
	return out
}

func sortRows(rows []expr.Row, order []expr.ColumnOrder) {
	slices.SortStableFunc(rows, func(a, b expr.Row) int { return expr.CompareRows(order, a.Datums, b.Datums) })
}
