package compute

import (
	"runtime"
	"testing"
	"weak"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// TestOperatorsKeepNoRowAlive: once a dataflow has taken in its input
// and waits for more, no operator keeps a view of the last row it read.
// Rows of an imported batch are views of the batch's keys, and a view
// kept in an operator's scratch held the whole batch alive at rest (60
// MB of a 4M-row table's after a restart). The rows here are views of
// one array per table, which must be collectable while the dataflow
// lives on.
func TestOperatorsKeepNoRowAlive(t *testing.T) {
	get := func(id expr.GlobalID) expr.Relation { return expr.Get{ID: id, Types: intCols(2)} }
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	for _, tc := range []struct {
		name string
		plan expr.Relation
	}{
		{"join", expr.Join{Inputs: []expr.Relation{get(1), get(2)}, Equivalences: [][]expr.Scalar{{col(0), col(2)}}}},
		{"filter and sum", expr.Reduce{
			Input:      expr.Filter{Input: get(1), Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Gte, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(0), Type: repr.Int4}}}},
			GroupKey:   []expr.Scalar{col(0)},
			Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}, {Func: expr.Sum, Expr: col(1)}},
		}},
		{"project and count", expr.Reduce{
			Input:      expr.Project{Input: get(1), Outputs: []int{1, 0}},
			GroupKey:   []expr.Scalar{col(1)},
			Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}},
		}},
		{"min, max and count", expr.Reduce{
			Input:    get(1),
			GroupKey: []expr.Scalar{col(0)},
			Aggregates: []expr.Aggregate{{Func: expr.Min, Expr: col(1)}, {Func: expr.Max, Expr: col(1)},
				{Func: expr.Count, Expr: expr.Bool(true)}},
		}},
		{"top 3", expr.TopK{Input: get(1), Order: []expr.ColumnOrder{{Column: 1, Desc: true, NullsFirst: true}}, Limit: 3}},
		{"first of each group", expr.TopK{Input: get(1), GroupKey: []int{0}, Order: []expr.ColumnOrder{{Column: 1}}, Limit: 1}},
		// A row's series longer than a piece waits, with its update, for
		// the rest of the chain.
		{"series", expr.Project{
			Input:   expr.FlatMap{Input: get(1), Func: expr.GenerateSeries, Args: []expr.Scalar{col(0), col(1)}, Type: repr.Int4},
			Outputs: []int{2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(m int) { mfpPiece = m }(mfpPiece)
			mfpPiece = 3
			sim := dataflow.NewSim(2, 1)
			inputs, probes, _, _ := renderOnSim(t, sim, tc.plan)
			var arrays []weak.Pointer[byte]
			for _, id := range []expr.GlobalID{1, 2} {
				// Each worker's rows are views of one array of its own.
				for w := range inputs {
					h := inputs[w][id]
					if h == nil {
						continue // the plan does not read it
					}
					var rows [][]byte
					for i := range 200 {
						rows = append(rows, repr.PackRow(repr.NewInt4(int32(i%7)), repr.NewInt4(int32(i))))
					}
					n := 0
					for _, r := range rows {
						n += len(r)
					}
					array := make([]byte, 0, n)
					var ups []arrange.Update
					for _, r := range rows {
						at := len(array)
						array = append(array, r...)
						ups = append(ups, arrange.Update{Key: array[at:len(array):len(array)], Time: 1, Diff: 1})
					}
					arrays = append(arrays, weak.Make(&array[0]))
					if err := h.Send(1, ups...); err != nil {
						t.Fatal(err)
					}
				}
			}
			for w := range inputs {
				for _, h := range inputs[w] {
					if err := h.Advance(2); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !sim.RunUntil(1_000_000, func() bool {
				for _, p := range probes {
					if ok, _ := p.Passed(1); !ok {
						return false
					}
				}
				return true
			}) {
				t.Fatal("the frontier never passed 1")
			}
			sim.Run(1_000_000)
			runtime.GC()
			runtime.GC()
			for i, a := range arrays {
				if a.Value() != nil {
					t.Errorf("the array of input %d is alive after the dataflow took it in", i)
				}
			}
			runtime.KeepAlive(sim)
		})
	}
}
