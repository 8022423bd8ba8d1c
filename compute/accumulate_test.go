package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

// accTypes is the schema of the tables of the accumulation tests: k
// int4, v int4, w int2, x int8, s text, n numeric, all nullable.
var accTypes = []expr.ColumnType{
	{Type: repr.Int4, Nullable: true},
	{Type: repr.Int4, Nullable: true},
	{Type: repr.Int2, Nullable: true},
	{Type: repr.Int8, Nullable: true},
	{Type: repr.Text, Nullable: true},
	{Type: repr.Numeric, Nullable: true},
}

// TestAccumulationChosen shows which reductions are kept as
// accumulations and which stay on the generic Reduce.
func TestAccumulationChosen(t *testing.T) {
	in := expr.Get{ID: 1, Types: accTypes}
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	count := func(e expr.Scalar) expr.Aggregate { return expr.Aggregate{Func: expr.Count, Expr: e} }
	sum := func(e expr.Scalar) expr.Aggregate { return expr.Aggregate{Func: expr.Sum, Expr: e} }
	for _, tc := range []struct {
		name string
		aggs []expr.Aggregate
		want bool
	}{
		{"no aggregates", nil, true},
		{"count(*)", []expr.Aggregate{count(expr.Bool(true))}, true},
		{"count(int4)", []expr.Aggregate{count(col(1))}, true},
		{"count(int8)", []expr.Aggregate{count(col(3))}, true},
		{"count(text)", []expr.Aggregate{count(col(4))}, true},
		{"sum(int4)", []expr.Aggregate{sum(col(1))}, true},
		{"sum(int2)", []expr.Aggregate{sum(col(2))}, true},
		{"count(*), count(v), sum(v), sum(w)", []expr.Aggregate{count(expr.Bool(true)), count(col(1)), sum(col(1)), sum(col(2))}, true},
		{"sum(int8)", []expr.Aggregate{sum(col(3))}, true},
		{"count(*), sum(int8)", []expr.Aggregate{count(expr.Bool(true)), sum(col(3))}, true},
		{"sum(numeric)", []expr.Aggregate{sum(col(5))}, true},
		{"count(DISTINCT v)", []expr.Aggregate{{Func: expr.Count, Expr: col(1), Distinct: true}}, false},
		{"sum(DISTINCT v)", []expr.Aggregate{{Func: expr.Sum, Expr: col(1), Distinct: true}}, false},
		{"count(NULL)", []expr.Aggregate{count(expr.NullOf(repr.Int4))}, false},
		{"sum(v + 1)", []expr.Aggregate{sum(expr.CallBinary{Func: expr.Add, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}})}, false},
		{"min(v)", []expr.Aggregate{{Func: expr.Min, Expr: col(1)}}, false},
		{"max(v)", []expr.Aggregate{{Func: expr.Max, Expr: col(1)}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, ok := accumulationOf(expr.Reduce{Input: in, GroupKey: []expr.Scalar{col(0)}, Aggregates: tc.aggs})
			if ok != tc.want {
				t.Fatalf("accumulable = %v, want %v", ok, tc.want)
			}
			if ok && len(plan.outputs) != len(tc.aggs) {
				t.Fatalf("%d outputs for %d aggregates", len(plan.outputs), len(tc.aggs))
			}
		})
	}
}

// accumulable reports whether the renderer keeps n as an accumulation,
// with its arguments lifted into columns or without.
func accumulable(n expr.Reduce) bool {
	_, _, ok := accumulationAs(n)
	return ok
}

// TestAccumulationOfExpressions: counts and sums of expressions are
// accumulated once their arguments are lifted into a Map (avg's and the
// variance family's casts to numeric and products), unless the lifted
// argument is not accumulable itself (a float) or the aggregate is not
// (DISTINCT, min).
func TestAccumulationOfExpressions(t *testing.T) {
	in := expr.Get{ID: 1, Types: accTypes}
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	num := func(i int) expr.Scalar { return expr.Cast{Arg: col(i), To: repr.Numeric} }
	plus1 := expr.CallBinary{Func: expr.Add, Left: col(1), Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}}
	for _, tc := range []struct {
		name string
		agg  expr.Aggregate
		want bool
	}{
		{"sum(v + 1)", expr.Aggregate{Func: expr.Sum, Expr: plus1}, true},
		{"sum(v::numeric * v::numeric)", expr.Aggregate{Func: expr.Sum, Expr: expr.CallBinary{Func: expr.Mul, Left: num(1), Right: num(1)}}, true},
		{"count(v + 1)", expr.Aggregate{Func: expr.Count, Expr: plus1}, true},
		{"sum(v::float8)", expr.Aggregate{Func: expr.Sum, Expr: expr.Cast{Arg: col(1), To: repr.Float8}}, false},
		{"sum(DISTINCT v + 1)", expr.Aggregate{Func: expr.Sum, Expr: plus1, Distinct: true}, false},
		{"min(v + 1)", expr.Aggregate{Func: expr.Min, Expr: plus1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := expr.Reduce{Input: in, GroupKey: []expr.Scalar{col(0)}, Aggregates: []expr.Aggregate{tc.agg}}
			if got := accumulable(n); got != tc.want {
				t.Fatalf("accumulable = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAccumulationShared shows that aggregates share accumulators: one
// row counter, and one non-NULL counter per column however many
// aggregates read it.
func TestAccumulationShared(t *testing.T) {
	r := expr.Reduce{Input: expr.Get{ID: 1, Types: accTypes}, Aggregates: []expr.Aggregate{
		{Func: expr.Count, Expr: expr.Bool(true)},
		{Func: expr.Sum, Expr: expr.Column{Index: 1}},
		{Func: expr.Count, Expr: expr.Column{Index: 1}},
		{Func: expr.Count, Expr: expr.Bool(true)},
	}}
	plan, ok := accumulationOf(r)
	if !ok {
		t.Fatal("not accumulable")
	}
	got := fmt.Sprint(plan.accs, plan.outputs)
	want := "[{0 0} {1 1} {2 1}] [{0 -1} {2 1} {1 -1} {0 -1}]"
	if got != want {
		t.Fatalf("accumulators and outputs\n got %s\nwant %s", got, want)
	}
}

// TestAccumulateMatchesInterpret renders random accumulable reductions
// on the simulated network and checks, at every completed time, that
// they agree with interpreting the plan from scratch. The writes are
// mostly retractions over few groups, so groups empty and reappear, and
// sums of values of both signs pass through zero while the group still
// has non-NULL values (sum 0, not NULL).
func TestAccumulateMatchesInterpret(t *testing.T) {
	accumulateOracles(t, []int{1, 2, 4}, 200, false)
}

// TestAccumulateMatchesInterpretSliced is TestAccumulateMatchesInterpret
// with every sliced run ended after one piece, and pieces of one row and
// one contribution: the accumulation's groups apply a time's
// contributions over several runs, a group's row may change more than
// once at one time, and the output is the same.
func TestAccumulateMatchesInterpretSliced(t *testing.T) {
	defer func(c, a int) { contributionsPiece, accumulatePiece = c, a }(contributionsPiece, accumulatePiece)
	contributionsPiece, accumulatePiece = 1, 1
	accumulateOracles(t, []int{1, 2}, 100, true)
}

func accumulateOracles(t *testing.T, workerCounts []int, seeds int, sliced bool) {
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, seeds, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 78))
				plan := accumulablePlan(rng)
				if !accumulable(plan.(expr.Reduce)) {
					t.Fatalf("plan not accumulable:\n%s", expr.Explain(plan))
				}
				runOracle(t, rng, workers, plan, oracleInput{
					sliced: sliced,
					times:  12, maxWrites: 8, retractOneIn: 2,
					table: func() expr.GlobalID { return expr.GlobalID(1 + rng.IntN(2)) },
					row:   func() []repr.Datum { return accRow(rng) },
				})
			})
		})
	}
}

// accumulablePlan draws a Reduce of accumulable aggregates over table 1,
// a filter of it, or its union with table 2, grouped by nothing, by k,
// by k and w, or by a key that fails for k = 1.
func accumulablePlan(rng *rand.Rand) expr.Relation {
	var in expr.Relation = expr.Get{ID: 1, Types: accTypes}
	switch rng.IntN(3) {
	case 1:
		in = expr.Filter{Input: in, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.NotEq, Left: expr.Column{Index: 1},
			Right: expr.Literal{Value: repr.NewInt4(int32(rng.IntN(3))), Type: repr.Int4}}}}
	case 2:
		in = expr.Union{Inputs: []expr.Relation{in, expr.Get{ID: 2, Types: accTypes}}}
	}
	return expr.Reduce{Input: in, GroupKey: accGroupKey(rng), Aggregates: accAggregates(rng)}
}

// accAggregates draws up to four aggregates over accTypes' columns:
// counts, sums of every width, and expressions that are lifted into a
// Map (one of which fails for k = 1).
func accAggregates(rng *rand.Rand) []expr.Aggregate {
	choices := []expr.Aggregate{
		{Func: expr.Count, Expr: expr.Bool(true)},
		{Func: expr.Count, Expr: expr.Column{Index: 1}},
		{Func: expr.Count, Expr: expr.Column{Index: 3}},
		{Func: expr.Count, Expr: expr.Column{Index: 4}},
		{Func: expr.Sum, Expr: expr.Column{Index: 1}},
		{Func: expr.Sum, Expr: expr.Column{Index: 2}},
		{Func: expr.Sum, Expr: expr.Column{Index: 3}},
		{Func: expr.Sum, Expr: expr.Column{Index: 5}},
		{Func: expr.Sum, Expr: expr.Column{Index: 5}},
		// Arguments that are expressions, lifted into a Map.
		{Func: expr.Sum, Expr: expr.CallBinary{Func: expr.Mul, Left: expr.Column{Index: 5}, Right: expr.Column{Index: 5}}},
		{Func: expr.Sum, Expr: expr.Cast{Arg: expr.Column{Index: 1}, To: repr.Numeric}},
		{Func: expr.Count, Expr: expr.CallBinary{Func: expr.Add, Left: expr.Column{Index: 2}, Right: expr.Literal{Value: repr.NewInt2(1), Type: repr.Int2}}},
		// 22012 for a row whose k is 1.
		{Func: expr.Sum, Expr: expr.CallBinary{Func: expr.Div, Left: expr.Literal{Value: repr.NewInt4(6), Type: repr.Int4},
			Right: expr.CallBinary{Func: expr.Sub, Left: expr.Column{Index: 0}, Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}}}},
	}
	aggs := make([]expr.Aggregate, rng.IntN(5))
	for i := range aggs {
		aggs[i] = choices[rng.IntN(len(choices))]
	}
	return aggs
}

// accGroupKey draws a group key over accTypes: none, k, k and w, a key
// that fails for k = 1 (22012), or a nullable column.
func accGroupKey(rng *rand.Rand) []expr.Scalar {
	switch rng.IntN(4) {
	case 1:
		return []expr.Scalar{expr.Column{Index: 0}}
	case 2:
		return []expr.Scalar{expr.Column{Index: 0}, expr.Column{Index: 2}}
	case 3:
		if rng.IntN(3) == 0 {
			return []expr.Scalar{accFailsForK1}
		}
		return []expr.Scalar{expr.Column{Index: 4}}
	}
	return nil
}

// accFailsForK1 is 6 / (k - 1): 22012 for a row whose k is 1.
var accFailsForK1 = expr.CallBinary{Func: expr.Div, Left: expr.Literal{Value: repr.NewInt4(6), Type: repr.Int4},
	Right: expr.CallBinary{Func: expr.Sub, Left: expr.Column{Index: 0}, Right: expr.Literal{Value: repr.NewInt4(1), Type: repr.Int4}}}

// accNumeric draws a numeric of either sign across scales and
// magnitudes that cross limb boundaries, now and then NaN or an
// infinity.
func accNumeric(rng *rand.Rand) repr.Datum {
	lit := []string{"0", "1.5", "-1.50", "0.000000001", "-123456789.987654321", "1e20", "-1e-12", "999999999.999999999",
		"12345678901234567890.0001", "-0.25", "7", "1e9", "-1e9"}
	switch rng.IntN(40) {
	case 0:
		lit = []string{"NaN"}
	case 1:
		lit = []string{"Infinity"}
	case 2:
		lit = []string{"-Infinity"}
	}
	d, err := repr.ParseText(repr.Numeric, lit[rng.IntN(len(lit))])
	if err != nil {
		panic(err)
	}
	return d
}

// accRow draws a row of accTypes from small domains: three groups, values
// of both signs, a NULL in each column one time in four.
func accRow(rng *rand.Rand) []repr.Datum {
	row := make([]repr.Datum, len(accTypes))
	for c := range row {
		if rng.IntN(4) == 0 {
			row[c] = repr.Null
			continue
		}
		switch c {
		case 0:
			row[c] = repr.NewInt4(int32(rng.IntN(3)))
		case 1:
			row[c] = repr.NewInt4(int32(rng.IntN(7) - 3))
		case 2:
			row[c] = repr.NewInt2(int16(rng.IntN(5) - 2))
		case 3:
			// Small values, and ones whose sums overflow an int64.
			row[c] = repr.NewInt8([]int64{0, 1, 2, -7, math.MaxInt64, math.MinInt64, 999_999_999_999}[rng.IntN(7)])
		case 4:
			row[c] = repr.NewText([]string{"a", "b"}[rng.IntN(2)])
		case 5:
			row[c] = accNumeric(rng)
		}
	}
	return row
}

// revAccInput is the oracle's input of table 1, imported, with
// accRow's rows stored in reverse (revAccTypes).
func revAccInput(rng *rand.Rand, sliced bool) oracleInput {
	return oracleInput{
		sliced: sliced, imported: true,
		times: 12, maxWrites: 8, retractOneIn: 2,
		table: func() expr.GlobalID { return 1 },
		row: func() []repr.Datum {
			row := accRow(rng)
			slices.Reverse(row)
			return row
		},
	}
}

// seekPredicates returns predicates over revAccTypes' columns that
// bound the leading ones: column 0 (a numeric) pinned, in a list or in a
// range, and then column 1 (a text) in a range.
func seekPredicates(rng *rand.Rand) []expr.Scalar {
	num := func() expr.Scalar { return expr.Literal{Value: accNumeric(rng), Type: repr.Numeric} }
	c0, c1 := expr.Column{Index: 0}, expr.Column{Index: 1}
	bin := func(f expr.BinaryFunc, l, r expr.Scalar) expr.Scalar {
		return expr.CallBinary{Func: f, Left: l, Right: r}
	}
	switch rng.IntN(5) {
	case 0:
		return []expr.Scalar{bin(expr.Eq, c0, num())}
	case 1:
		return []expr.Scalar{bin(expr.Or, bin(expr.Eq, c0, num()), bin(expr.Eq, c0, num()))}
	case 2:
		return []expr.Scalar{bin(expr.Gte, c0, num()), bin(expr.Lt, c0, num())}
	case 3:
		return []expr.Scalar{bin(expr.Gt, num(), c0)}
	}
	return []expr.Scalar{bin(expr.Eq, c0, num()), bin(expr.Lte, c1, expr.Literal{Value: repr.NewText("a"), Type: repr.Text})}
}

// revAccTypes are accTypes in reverse order: table 1's columns in
// TestAccumulateOverImportMatchesInterpret, which a projection puts back.
var revAccTypes = func() []expr.ColumnType {
	ts := slices.Clone(accTypes)
	slices.Reverse(ts)
	return ts
}()

// notNullOf is NOT (column c IS NULL), the filter a join's key puts on
// its inputs.
func notNullOf(c int) expr.Scalar {
	return expr.CallUnary{Func: expr.Not, Arg: expr.CallUnary{Func: expr.IsNull, Arg: expr.Column{Index: c}}}
}

// TestAccumulateOverImportMatchesInterpret renders accumulable reductions
// over a chain of filters and projections of a table read from its
// arrangement, as a view reads an exported table: the contributions are
// read from the arrangement's batches (contributionsOfImport), directly
// from the stored columns where the chain's filters are all NOT NULL
// checks and the keys columns, through the chain otherwise. Table 1
// stores accTypes' columns reversed; the chain reverses them back, with
// NOT NULL filters on either side of the projection and now and then a
// filter that is not one. Each run is checked against the interpreted
// plan at every time, unsliced and with every run one piece.
func TestAccumulateOverImportMatchesInterpret(t *testing.T) {
	for _, sliced := range []bool{false, true} {
		t.Run(fmt.Sprintf("sliced=%v", sliced), func(t *testing.T) {
			if sliced {
				defer func(c, a int) { contributionsPiece, accumulatePiece = c, a }(contributionsPiece, accumulatePiece)
				contributionsPiece, accumulatePiece = 1, 1
			}
			for _, workers := range []int{1, 2} {
				t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
					forSeeds(t, 100, func(t *testing.T, seed uint64) {
						rng := rand.New(rand.NewPCG(seed, 79))
						reverse := []int{5, 4, 3, 2, 1, 0}
						var in expr.Relation = expr.Get{ID: 1, Types: revAccTypes}
						if rng.IntN(2) == 0 {
							// Bounds on the leading stored columns
							// (accTypes' 5 and 4), which the read seeks
							// to.
							in = expr.Filter{Input: in, Predicates: seekPredicates(rng)}
						}
						if rng.IntN(2) == 0 {
							// accTypes' column 1, stored at 4.
							in = expr.Filter{Input: in, Predicates: []expr.Scalar{notNullOf(4)}}
						}
						in = expr.Project{Input: in, Outputs: reverse}
						switch rng.IntN(3) {
						case 1:
							in = expr.Filter{Input: in, Predicates: []expr.Scalar{notNullOf(3)}}
						case 2:
							in = expr.Filter{Input: in, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.NotEq, Left: expr.Column{Index: 1},
								Right: expr.Literal{Value: repr.NewInt4(int32(rng.IntN(3))), Type: repr.Int4}}}}
						}
						plan := expr.Reduce{Input: in, GroupKey: accGroupKey(rng), Aggregates: accAggregates(rng)}
						if !accumulable(plan) {
							t.Fatalf("plan not accumulable:\n%s", expr.Explain(plan))
						}
						runOracle(t, rng, workers, plan, revAccInput(rng, sliced))
					})
				})
			}
		})
	}
}
