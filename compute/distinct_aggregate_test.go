package compute

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// TestDistinctAggregatesOverDistinct checks the plan the planner gives
// aggregates that are all DISTINCT of one argument (planner rule
// DistinctInputs): the same aggregates without DISTINCT, over a Distinct
// of (group key, argument). Rendered incrementally on seeded random
// inserts and deletes with NULLs, its output must match, at every time,
// the generic DISTINCT Reduce interpreted from scratch.
func TestDistinctAggregatesOverDistinct(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 150, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 91))
				generic := distinctAggregatePlan(rng)
				rewritten := overDistinct(generic)
				if !slicesEqualTypes(generic.Typ(), rewritten.Typ()) {
					t.Fatalf("types differ: %v and %v", generic.Typ(), rewritten.Typ())
				}
				if countsOrSumsOfColumn(generic) && !accumulable(rewritten) {
					t.Fatalf("counts and sums over a Distinct not accumulable:\n%s", expr.Explain(rewritten))
				}
				runOracle(t, rng, workers, rewritten, oracleInput{
					want:  generic,
					times: 12, maxWrites: 8, retractOneIn: 2,
					table: func() expr.GlobalID { return expr.GlobalID(1 + rng.IntN(2)) },
					row:   func() []repr.Datum { return accRow(rng) },
				})
			})
		})
	}
}

// distinctAggregatePlan draws a Reduce over table 1, or its union with
// table 2, grouped by nothing, by k, by k and w, or by a key that fails
// for k = 1, whose aggregates are one to four DISTINCT aggregates of one
// argument (a column of any of accTypes, or an expression, one that
// fails for k = 1 included).
func distinctAggregatePlan(rng *rand.Rand) expr.Reduce {
	var in expr.Relation = expr.Get{ID: 1, Types: accTypes}
	if rng.IntN(2) == 1 {
		in = expr.Union{Inputs: []expr.Relation{in, expr.Get{ID: 2, Types: accTypes}}}
	}
	keys := accGroupKey(rng)
	one4 := expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}
	args := []expr.Scalar{
		expr.Column{Index: 0}, expr.Column{Index: 1}, expr.Column{Index: 2}, expr.Column{Index: 3},
		expr.Column{Index: 4}, expr.Column{Index: 5},
		expr.CallBinary{Func: expr.Add, Left: expr.Column{Index: 1}, Right: one4},
		accFailsForK1,
	}
	arg := args[rng.IntN(len(args))]
	funcs := []expr.AggregateFunc{expr.Count, expr.Min, expr.Max}
	if arg.Typ(accTypes).Type.Kind() == repr.KindText {
		funcs = append(funcs, expr.StringAgg)
	} else {
		funcs = append(funcs, expr.Sum, expr.Sum)
	}
	aggs := make([]expr.Aggregate, 1+rng.IntN(4))
	for i := range aggs {
		aggs[i] = expr.Aggregate{Func: funcs[rng.IntN(len(funcs))], Expr: arg, Distinct: true, Delimiter: ","}
	}
	return expr.Reduce{Input: in, GroupKey: keys, Aggregates: aggs}
}

// overDistinct is the plan of r over a Distinct of (group key,
// argument), built independently of the planner's rule.
func overDistinct(r expr.Reduce) expr.Reduce {
	arity := len(r.Input.Typ())
	scalars := append(append([]expr.Scalar(nil), r.GroupKey...), r.Aggregates[0].Expr)
	outputs := make([]int, len(scalars))
	for i := range outputs {
		outputs[i] = arity + i
	}
	keys := make([]expr.Scalar, len(r.GroupKey))
	for i := range keys {
		keys[i] = expr.Column{Index: i}
	}
	aggs := make([]expr.Aggregate, len(r.Aggregates))
	for i, a := range r.Aggregates {
		a.Expr, a.Distinct = expr.Column{Index: len(keys)}, false
		aggs[i] = a
	}
	in := expr.Distinct{Input: expr.Project{Input: expr.Map{Input: r.Input, Scalars: scalars}, Outputs: outputs}}
	return expr.Reduce{Input: in, GroupKey: keys, Aggregates: aggs}
}

// countsOrSumsOfColumn reports whether r's aggregates are all counts, or
// sums of an integer or numeric column.
func countsOrSumsOfColumn(r expr.Reduce) bool {
	for _, a := range r.Aggregates {
		if a.Func != expr.Count && a.Func != expr.Sum {
			return false
		}
	}
	return true
}

func slicesEqualTypes(a, b []expr.ColumnType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}
