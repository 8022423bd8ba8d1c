package compute

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// TestChainOverConstantSharesExpansion renders random chains over a
// generate_series over a constant, on 1, 2 and 3 workers whose pieces
// are a few rows, and checks that the rows and the errors, counted, are
// exactly those of the chain over the same rows not read as a constant
// (so not shared) on one worker, and that the rows are the query's.
// The series include empty ones, ones shorter than the workers, a step
// of 0 (an error of the function), divisions by zero after it, diffs
// above 1, and a second FlatMap; half the seeds end every sliced run
// after one piece, so a share waits between runs.
func TestChainOverConstantSharesExpansion(t *testing.T) {
	defer func(m int) { mfpPiece = m }(mfpPiece)
	for _, workers := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 150, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 29))
				mfpPiece = 1 + rng.IntN(4)
				c := randomConstant(rng)
				plan := randomChainOver(rng, c)
				// A Union of one input renders as the input, but the
				// chain is not directly over a Constant.
				ref := randomChainOverWith(plan, expr.Union{Inputs: []expr.Relation{c}})
				sliced := rng.IntN(2) == 0
				got, gotErrs := runToCompletion(t, workers, rng.Uint64(), sliced, plan)
				want, wantErrs := runToCompletion(t, 1, rng.Uint64(), false, ref)
				if render(got) != render(want) {
					t.Fatalf("rows\n got %s\nwant %s\nplan:\n%s", render(got), render(want), expr.Explain(plan))
				}
				if fmt.Sprint(gotErrs) != fmt.Sprint(wantErrs) {
					t.Fatalf("errors\n got %v\nwant %v\nplan:\n%s", gotErrs, wantErrs, expr.Explain(plan))
				}
				rows, err := expr.Interpret(plan, expr.Env{})
				if (err != nil) != (len(gotErrs) > 0) {
					t.Fatalf("errors %v, the query's %v\nplan:\n%s", gotErrs, err, expr.Explain(plan))
				}
				if err != nil {
					return
				}
				wantM := map[string]int64{}
				for _, r := range rows {
					if wantM[string(repr.PackRow(r.Datums...))] += r.Diff; wantM[string(repr.PackRow(r.Datums...))] == 0 {
						delete(wantM, string(repr.PackRow(r.Datums...)))
					}
				}
				if render(got) != render(wantM) {
					t.Fatalf("rows\n got %s\nthe query's %s\nplan:\n%s", render(got), render(wantM), expr.Explain(plan))
				}
			})
		})
	}
}

// TestChainOverConstantRunsOnEveryWorker: a series of several pieces
// over a constant gives rows on every worker, each row once; with a
// per-row call (random()) in the chain, worker 0 makes them all.
func TestChainOverConstantRunsOnEveryWorker(t *testing.T) {
	defer func(m int) { mfpPiece = m }(mfpPiece)
	mfpPiece = 2
	c := expr.Constant{Rows: []expr.Row{{Datums: []repr.Datum{repr.NewInt4(1), repr.NewInt4(20)}, Diff: 1}}, Types: intCols(2)}
	series := expr.FlatMap{Input: c, Func: expr.GenerateSeries, Args: []expr.Scalar{expr.Column{Index: 0}, expr.Column{Index: 1}}, Type: repr.Int4}
	random := expr.CallVariadic{Func: expr.Random, Args: []expr.Scalar{expr.Literal{Value: repr.NewBytea("0123456789abcdef"), Type: repr.Bytea}}}
	for _, tc := range []struct {
		name   string
		plan   expr.Relation
		shared bool
	}{
		{"series", expr.Project{Input: series, Outputs: []int{2}}, true},
		{"random", expr.Project{Input: expr.Map{Input: series, Scalars: []expr.Scalar{random}}, Outputs: []int{2, 3}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := dataflow.NewSim(3, 1)
			_, probes, got, gotErrs := renderOnSim(t, sim, tc.plan)
			runPast(t, sim, probes)
			total := 0
			for w, rows := range got {
				if len(gotErrs[w]) > 0 {
					t.Fatalf("worker %d: errors %v", w, gotErrs[w])
				}
				if want := w == 0 || tc.shared; want != (len(rows) > 0) {
					t.Errorf("worker %d made %d rows", w, len(rows))
				}
				total += len(rows)
			}
			if total != 20 {
				t.Errorf("%d rows, want 20", total)
			}
		})
	}
}

// randomConstant draws up to three rows (start, stop) with diffs from 1
// to 3: series of up to about twenty values, some empty, some of one.
func randomConstant(rng *rand.Rand) expr.Constant {
	c := expr.Constant{Types: []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}}
	for range 1 + rng.IntN(3) {
		lo := int32(rng.IntN(10))
		c.Rows = append(c.Rows, expr.Row{Datums: []repr.Datum{repr.NewInt4(lo), repr.NewInt4(lo - 2 + int32(rng.IntN(22)))}, Diff: 1 + int64(rng.IntN(3))})
	}
	return c
}

// randomChainOver draws a chain over c: steps below the series (a Map,
// a Filter), generate_series(start, stop, step) with a step that may be
// 0, and steps above it (a division by g - k, a Filter, a second series,
// a Project).
func randomChainOver(rng *rand.Rand, c expr.Constant) expr.Relation {
	var rel expr.Relation = c
	lit := func(v int) expr.Literal { return expr.Literal{Value: repr.NewInt4(int32(v)), Type: repr.Int4} }
	col := func(i int) expr.Column { return expr.Column{Index: i} }
	if rng.IntN(3) == 0 {
		// Below the series: a division that fails if start is k.
		rel = expr.Map{Input: rel, Scalars: []expr.Scalar{expr.CallBinary{Func: expr.Div, Left: lit(6), Right: expr.CallBinary{Func: expr.Sub, Left: col(0), Right: lit(rng.IntN(10))}}}}
	}
	if rng.IntN(4) == 0 {
		rel = expr.Filter{Input: rel, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Gte, Left: col(0), Right: lit(rng.IntN(5))}}}
	}
	args := []expr.Scalar{col(0), col(1)}
	if rng.IntN(2) == 0 {
		args = append(args, lit(rng.IntN(4)))
	}
	rel = expr.FlatMap{Input: rel, Func: expr.GenerateSeries, Args: args, Type: repr.Int4}
	g := col(len(rel.Typ()) - 1)
	if rng.IntN(2) == 0 {
		rel = expr.Map{Input: rel, Scalars: []expr.Scalar{expr.CallBinary{Func: expr.Div, Left: lit(60), Right: expr.CallBinary{Func: expr.Sub, Left: g, Right: lit(rng.IntN(30))}}}}
	}
	if rng.IntN(3) == 0 {
		rel = expr.Filter{Input: rel, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.NotEq, Left: g, Right: lit(rng.IntN(10))}}}
	}
	if rng.IntN(3) == 0 {
		rel = expr.FlatMap{Input: rel, Func: expr.GenerateSeries, Args: []expr.Scalar{lit(1), expr.CallBinary{Func: expr.Mod, Left: g, Right: lit(4)}}, Type: repr.Int4}
	}
	ts := rel.Typ()
	return expr.Project{Input: rel, Outputs: []int{g.Index, len(ts) - 1}}
}

// randomChainOverWith returns chain with the Constant at its bottom
// replaced by in.
func randomChainOverWith(chain expr.Relation, in expr.Relation) expr.Relation {
	switch n := chain.(type) {
	case expr.Map:
		n.Input = randomChainOverWith(n.Input, in)
		return n
	case expr.Filter:
		n.Input = randomChainOverWith(n.Input, in)
		return n
	case expr.Project:
		n.Input = randomChainOverWith(n.Input, in)
		return n
	case expr.FlatMap:
		n.Input = randomChainOverWith(n.Input, in)
		return n
	}
	return in
}

// runToCompletion renders plan, which reads no table, on workers
// workers, whose sliced runs end after one piece if sliced, and returns
// its rows and its errors, counted, over all workers.
func runToCompletion(t *testing.T, workers int, seed uint64, sliced bool, plan expr.Relation) (rows, errs map[string]int64) {
	t.Helper()
	sim := dataflow.NewSim(workers, seed)
	if sliced {
		for _, w := range sim.Workers {
			w.SetSlice(dataflow.SlicePiece)
		}
	}
	_, probes, got, gotErrs := renderOnSim(t, sim, plan)
	runPast(t, sim, probes)
	count := func(parts [][]arrange.Update) map[string]int64 {
		m := map[string]int64{}
		for _, p := range parts {
			for _, u := range p {
				if m[string(u.Key)] += u.Diff; m[string(u.Key)] == 0 {
					delete(m, string(u.Key))
				}
			}
		}
		return m
	}
	return count(got), count(gotErrs)
}

// runPast runs sim until every probe has passed time 0.
func runPast(t *testing.T, sim *dataflow.Sim, probes []*dataflow.Probe) {
	t.Helper()
	if !sim.RunUntil(5_000_000, func() bool {
		for _, p := range probes {
			if ok, _ := p.Passed(0); !ok {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("time 0 never completed; failures %v", sim.Failures)
	}
	if len(sim.Failures) > 0 {
		t.Fatal(sim.Failures)
	}
}
