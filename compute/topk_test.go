package compute

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// TestTopKFirstsChosen: a TopK with a limit is kept as a FirstN unless
// it orders by a type whose SQL order ties distinct encodings.
func TestTopKFirstsChosen(t *testing.T) {
	types := append(leadTypes[:len(leadTypes):len(leadTypes)],
		expr.ColumnType{Type: repr.Interval, Nullable: true}, expr.ColumnType{Type: repr.JSONBType, Nullable: true})
	in := expr.Get{ID: 1, Types: types}
	by := func(c int) []expr.ColumnOrder { return []expr.ColumnOrder{{Column: c}} }
	for _, tc := range []struct {
		name string
		n    expr.TopK
		want bool
	}{
		{"ORDER BY v LIMIT 10", expr.TopK{Input: in, Order: by(1), Limit: 10}, true},
		{"DISTINCT ON (k) ORDER BY k, t DESC", expr.TopK{Input: in, GroupKey: []int{0}, Order: []expr.ColumnOrder{{Column: 4, Desc: true, NullsFirst: true}}, Limit: 1}, true},
		{"ORDER BY v OFFSET 5", expr.TopK{Input: in, Order: by(1), Limit: -1, Offset: 5}, false},
		{"ORDER BY v LIMIT 0", expr.TopK{Input: in, Order: by(1), Limit: 0}, false},
		{"ORDER BY interval LIMIT 1", expr.TopK{Input: in, Order: by(8), Limit: 1}, false},
		{"ORDER BY jsonb LIMIT 1", expr.TopK{Input: in, Order: by(9), Limit: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstsOf(tc.n); got != tc.want {
				t.Fatalf("kept as firsts = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTopKFirstsMatchInterpret renders random TopKs with a limit, kept as
// FirstN, on the simulated network and checks them against the
// interpreter at every time: grouped or not, ordered by one or two
// columns in each direction with NULLs first or last, with offsets, over
// rows that repeat (a row's copies take a place each) and are half the
// time retracted.
func TestTopKFirstsMatchInterpret(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 150, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 81))
				plan := firstsPlan(rng)
				if !firstsOf(plan) {
					t.Fatalf("plan not kept as firsts:\n%s", expr.Explain(plan))
				}
				runOracle(t, rng, workers, plan, oracleInput{
					times: 12, maxWrites: 8, retractOneIn: 2,
					table: func() expr.GlobalID { return expr.GlobalID(1 + rng.IntN(2)) },
					row:   func() []repr.Datum { return leadRow(rng) },
				})
			})
		})
	}
}

// firstsPlan draws a TopK over table 1 or its union with table 2, half
// the time projected to three columns of small domains so that rows
// repeat.
func firstsPlan(rng *rand.Rand) expr.TopK {
	var in expr.Relation = expr.Get{ID: 1, Types: leadTypes}
	if rng.IntN(2) == 0 {
		in = expr.Union{Inputs: []expr.Relation{in, expr.Get{ID: 2, Types: leadTypes}}}
	}
	if rng.IntN(2) == 0 {
		in = expr.Project{Input: in, Outputs: []int{0, 2, 7}}
	}
	width := len(in.Typ())
	var group []int
	switch rng.IntN(3) {
	case 1:
		group = []int{0}
	case 2:
		group = []int{0, width - 1}
	}
	order := make([]expr.ColumnOrder, 1+rng.IntN(2))
	for i := range order {
		order[i] = expr.ColumnOrder{Column: 1 + rng.IntN(width-1), Desc: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0}
	}
	return expr.TopK{Input: in, GroupKey: group, Order: order, Limit: int64(1 + rng.IntN(3)), Offset: int64(rng.IntN(3))}
}
