package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// leadTypes are the columns of the leads tests' tables: a group column,
// and values of the types whose encodings order in ways of their own
// (variable-length ints, strings with prefixes, numerics, floats with
// NaN and -0, booleans).
var leadTypes = []expr.ColumnType{
	{Type: repr.Int4, Nullable: true},
	{Type: repr.Int4, Nullable: true},
	{Type: repr.Int2, Nullable: true},
	{Type: repr.Int8, Nullable: true},
	{Type: repr.Text, Nullable: true},
	{Type: repr.Numeric, Nullable: true},
	{Type: repr.Float8, Nullable: true},
	{Type: repr.Bool, Nullable: true},
}

// TestLeadsChosen shows which reductions are kept as leads: all of
// their aggregates min, max or non-DISTINCT count, and no min or max of
// a type whose SQL order ties distinct encodings.
func TestLeadsChosen(t *testing.T) {
	types := append(leadTypes[:len(leadTypes):len(leadTypes)],
		expr.ColumnType{Type: repr.Interval, Nullable: true}, expr.ColumnType{Type: repr.JSONBType, Nullable: true})
	in := expr.Get{ID: 1, Types: types}
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	agg := func(f expr.AggregateFunc, e expr.Scalar) expr.Aggregate { return expr.Aggregate{Func: f, Expr: e} }
	for _, tc := range []struct {
		name string
		aggs []expr.Aggregate
		want bool
	}{
		{"no aggregates", nil, false},
		{"min(int4)", []expr.Aggregate{agg(expr.Min, col(1))}, true},
		{"max(text), min(numeric), max(float8)", []expr.Aggregate{agg(expr.Max, col(4)), agg(expr.Min, col(5)), agg(expr.Max, col(6))}, true},
		{"count(*), max(v), count(v)", []expr.Aggregate{agg(expr.Count, expr.Bool(true)), agg(expr.Max, col(1)), agg(expr.Count, col(1))}, true},
		{"min(DISTINCT v)", []expr.Aggregate{{Func: expr.Min, Expr: col(1), Distinct: true}}, true},
		{"max(v + 1)", []expr.Aggregate{agg(expr.Max, expr.CallBinary{Func: expr.Add, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}})}, true},
		{"count(DISTINCT v), max(v)", []expr.Aggregate{{Func: expr.Count, Expr: col(1), Distinct: true}, agg(expr.Max, col(1))}, false},
		{"sum(v), max(v)", []expr.Aggregate{agg(expr.Sum, col(1)), agg(expr.Max, col(1))}, false},
		{"max(interval)", []expr.Aggregate{agg(expr.Max, col(8))}, false},
		{"min(jsonb)", []expr.Aggregate{agg(expr.Min, col(9))}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok := leadsOf(expr.Reduce{Input: in, GroupKey: []expr.Scalar{col(0)}, Aggregates: tc.aggs})
			if ok != tc.want {
				t.Fatalf("leads = %v, want %v", ok, tc.want)
			}
		})
	}
}

// TestLeadsMatchInterpret renders random reductions kept as leads on
// the simulated network and checks, at every completed time, that they
// agree with interpreting the plan from scratch. Half the writes are
// retractions over few groups and small domains, so a group's least and
// greatest values are retracted and the next one leads, groups empty
// and come back, and a group of NULLs has a row of NULLs.
func TestLeadsMatchInterpret(t *testing.T) {
	leadsOracles(t, []int{1, 2, 4}, 150, false, false)
}

// TestLeadsMatchInterpretSliced is TestLeadsMatchInterpret with every
// sliced run ended after one piece.
func TestLeadsMatchInterpretSliced(t *testing.T) {
	leadsOracles(t, []int{1, 2}, 60, true, false)
}

// TestLeadsOverImportMatchInterpret reads the tables from arrangements,
// as a view reads an exported table.
func TestLeadsOverImportMatchInterpret(t *testing.T) {
	leadsOracles(t, []int{1, 2}, 60, false, true)
}

func leadsOracles(t *testing.T, workerCounts []int, seeds int, sliced, imported bool) {
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, seeds, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 79))
				plan := leadsPlan(rng, imported)
				if _, ok := leadsOf(plan); !ok || accumulable(plan) {
					t.Fatalf("plan not kept as leads:\n%s", expr.Explain(plan))
				}
				tables := 2
				if imported {
					tables = 1
				}
				runOracle(t, rng, workers, plan, oracleInput{
					sliced: sliced, imported: imported,
					times: 12, maxWrites: 8, retractOneIn: 2,
					table: func() expr.GlobalID { return expr.GlobalID(1 + rng.IntN(tables)) },
					row:   func() []repr.Datum { return leadRow(rng) },
				})
			})
		})
	}
}

// leadsPlan draws a Reduce of one to four aggregates kept as leads, with
// at least one min or max, over table 1, a filter of it, or (unless
// imported) its union with table 2, grouped by nothing, by k, by k and
// the int2, by the nullable text, or by a key that fails for k = 1.
func leadsPlan(rng *rand.Rand, imported bool) expr.Reduce {
	var in expr.Relation = expr.Get{ID: 1, Types: leadTypes}
	switch rng.IntN(3) {
	case 1:
		in = expr.Filter{Input: in, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.NotEq, Left: expr.Column{Index: 1},
			Right: expr.Literal{Value: repr.NewInt4(int32(rng.IntN(3))), Type: repr.Int4}}}}
	case 2:
		if !imported {
			in = expr.Union{Inputs: []expr.Relation{in, expr.Get{ID: 2, Types: leadTypes}}}
		}
	}
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	plus1 := expr.CallBinary{Func: expr.Add, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}}
	positive := expr.CallBinary{Func: expr.Gt, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(0), Type: repr.Int4}}
	extremes := []expr.Aggregate{
		{Func: expr.Min, Expr: col(1)}, {Func: expr.Max, Expr: col(1)},
		{Func: expr.Min, Expr: col(2)}, {Func: expr.Max, Expr: col(3)}, {Func: expr.Min, Expr: col(3)},
		{Func: expr.Min, Expr: col(4)}, {Func: expr.Max, Expr: col(4)},
		{Func: expr.Min, Expr: col(5)}, {Func: expr.Max, Expr: col(5)},
		{Func: expr.Min, Expr: col(6)}, {Func: expr.Max, Expr: col(6)},
		{Func: expr.Min, Expr: col(7)}, {Func: expr.Max, Expr: col(7)},
		{Func: expr.Max, Expr: col(1), Distinct: true},
		// Expressions, evaluated on the decoded row: one that fails for
		// k = 1, and a filter.
		{Func: expr.Max, Expr: plus1},
		{Func: expr.Min, Expr: accFailsForK1},
		{Func: expr.Max, Expr: col(5), Filter: positive},
	}
	counts := []expr.Aggregate{
		{Func: expr.Count, Expr: expr.Bool(true)}, {Func: expr.Count, Expr: col(4)},
		{Func: expr.Count, Expr: expr.NullOf(repr.Int4)}, {Func: expr.Count, Expr: col(6), Filter: positive},
	}
	aggs := []expr.Aggregate{extremes[rng.IntN(len(extremes))]}
	for range rng.IntN(4) {
		if rng.IntN(3) == 0 {
			aggs = append(aggs, counts[rng.IntN(len(counts))])
		} else {
			aggs = append(aggs, extremes[rng.IntN(len(extremes))])
		}
	}
	rng.Shuffle(len(aggs), func(i, j int) { aggs[i], aggs[j] = aggs[j], aggs[i] })
	var key []expr.Scalar
	switch rng.IntN(5) {
	case 1:
		key = []expr.Scalar{col(0)}
	case 2:
		key = []expr.Scalar{col(0), col(2)}
	case 3:
		key = []expr.Scalar{col(4)}
	case 4:
		key = []expr.Scalar{accFailsForK1}
	}
	return expr.Reduce{Input: in, GroupKey: key, Aggregates: aggs}
}

// leadRow draws a row of leadTypes from small domains, a NULL in each
// column one time in four.
func leadRow(rng *rand.Rand) []repr.Datum {
	row := make([]repr.Datum, len(leadTypes))
	for c := range row {
		if rng.IntN(4) == 0 {
			row[c] = repr.Null
			continue
		}
		switch c {
		case 0:
			row[c] = repr.NewInt4(int32(rng.IntN(3)))
		case 1:
			// Magnitudes of one and two bytes, of both signs.
			row[c] = repr.NewInt4([]int32{-300, -3, -1, 0, 1, 2, 255, 256, 70000}[rng.IntN(9)])
		case 2:
			row[c] = repr.NewInt2(int16(rng.IntN(5) - 2))
		case 3:
			row[c] = repr.NewInt8([]int64{0, 1, -7, math.MaxInt64, math.MinInt64, 999_999_999_999}[rng.IntN(6)])
		case 4:
			// Prefixes of each other, and a byte above ASCII.
			row[c] = repr.NewText([]string{"", "a", "ab", "abc", "b", "é"}[rng.IntN(6)])
		case 5:
			row[c] = accNumeric(rng)
		case 6:
			row[c] = repr.NewFloat8([]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1.5, -2, 1e300}[rng.IntN(8)])
		case 7:
			row[c] = repr.NewBool(rng.IntN(2) == 0)
		}
	}
	return row
}

// TestSplitChosen shows how the renderer keeps reductions: whole as an
// accumulation or as leads, split in two when they mix the two kinds,
// and generically when any aggregate is neither.
func TestSplitChosen(t *testing.T) {
	in := expr.Get{ID: 1, Types: leadTypes}
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	agg := func(f expr.AggregateFunc, e expr.Scalar) expr.Aggregate { return expr.Aggregate{Func: f, Expr: e} }
	plus1 := expr.CallBinary{Func: expr.Add, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}}
	for _, tc := range []struct {
		name string
		aggs []expr.Aggregate
		want string
	}{
		{"sum(v), max(v)", []expr.Aggregate{agg(expr.Sum, col(1)), agg(expr.Max, col(1))}, "split [0] [1]"},
		{"min(v), count(*), sum(v + 1), max(t)", []expr.Aggregate{agg(expr.Min, col(1)), agg(expr.Count, expr.Bool(true)),
			agg(expr.Sum, plus1), agg(expr.Max, col(4))}, "split [1 2] [0 3]"},
		{"count(*), max(v)", []expr.Aggregate{agg(expr.Count, expr.Bool(true)), agg(expr.Max, col(1))}, "leads"},
		{"sum(v), count(v)", []expr.Aggregate{agg(expr.Sum, col(1)), agg(expr.Count, col(1))}, "accumulation"},
		{"sum(v), max(v), count(DISTINCT v)", []expr.Aggregate{agg(expr.Sum, col(1)), agg(expr.Max, col(1)),
			{Func: expr.Count, Expr: col(1), Distinct: true}}, "generic"},
		{"sum(float8), max(v)", []expr.Aggregate{agg(expr.Sum, col(6)), agg(expr.Max, col(1))}, "generic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := expr.Reduce{Input: in, GroupKey: []expr.Scalar{col(0)}, Aggregates: tc.aggs}
			got := "generic"
			if _, _, ok := accumulationAs(n); ok {
				got = "accumulation"
			} else if _, ok := leadsOf(n); ok {
				got = "leads"
			} else if p, ok := splitReduce(n); ok {
				got = fmt.Sprint("split ", p.acc, " ", p.leads)
			}
			if got != tc.want {
				t.Fatalf("kept as %s, want %s", got, tc.want)
			}
		})
	}
}

// TestReduceInPartsMatchesInterpret renders random reductions that mix
// sums and counts with mins and maxes, kept in two parts joined on the
// group key, and checks them against the interpreter at every time.
func TestReduceInPartsMatchesInterpret(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 100, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 80))
				plan := leadsPlan(rng, false)
				accs := []expr.Aggregate{
					{Func: expr.Sum, Expr: expr.Column{Index: 1}}, {Func: expr.Sum, Expr: expr.Column{Index: 3}},
					{Func: expr.Sum, Expr: expr.Column{Index: 5}},
					{Func: expr.Sum, Expr: expr.Cast{Arg: expr.Column{Index: 2}, To: repr.Numeric}},
					{Func: expr.Count, Expr: expr.Bool(true)}, {Func: expr.Count, Expr: expr.Column{Index: 4}},
				}
				for range 1 + rng.IntN(3) {
					plan.Aggregates = append(plan.Aggregates, accs[rng.IntN(len(accs))])
				}
				rng.Shuffle(len(plan.Aggregates), func(i, j int) {
					plan.Aggregates[i], plan.Aggregates[j] = plan.Aggregates[j], plan.Aggregates[i]
				})
				if _, ok := splitReduce(plan); !ok {
					t.Fatalf("plan not split:\n%s", expr.Explain(plan))
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
