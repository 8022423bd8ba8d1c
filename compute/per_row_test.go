package compute

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// TestRandomPerCopy: a row that stands for three equal rows draws three
// random() values, in a Map and in an aggregate's argument, as
// PostgreSQL draws one per row, and the retraction of the three copies
// retracts exactly what their insertion added.
func TestRandomPerCopy(t *testing.T) {
	random := expr.CallVariadic{Func: expr.Random, Args: []expr.Scalar{expr.Literal{Value: repr.NewBytea("0123456789abcdef"), Type: repr.Bytea}}}
	mapped := expr.Map{Input: expr.Get{ID: 1, Types: intCols(1)}, Scalars: []expr.Scalar{random}}
	distinct := expr.Reduce{Input: expr.Get{ID: 1, Types: intCols(1)},
		Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: random, Distinct: true}}}
	a, b := repr.PackRow(repr.NewInt4(1)), repr.PackRow(repr.NewInt4(2))
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 10, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 13))
				got := runUpdates(t, rng, workers, mapped, [][]arrange.Update{
					{{Key: a, Diff: 3}, {Key: b, Diff: 1}},
					{{Key: a, Time: 1, Diff: -3}},
				})
				if n := len(got[0]); n != 4 || slices.ContainsFunc(mapValues(got[0]), func(d int64) bool { return d != 1 }) {
					t.Errorf("time 0: %v, want four rows once each", render(got[0]))
				}
				if len(got[1]) != 1 {
					t.Errorf("time 1: %v, want the row of 2 alone", render(got[1]))
				}
				got = runUpdates(t, rng, workers, distinct, [][]arrange.Update{{{Key: a, Diff: 3}, {Key: b, Diff: 1}}})
				if want := string(repr.PackRow(repr.NewInt8(4))); len(got[0]) != 1 || got[0][want] != 1 {
					t.Errorf("count(DISTINCT random()): %v, want 4", render(got[0]))
				}
			})
		})
	}
}

func mapValues(m map[string]int64) []int64 {
	var out []int64
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// runUpdates renders plan over table 1, sends the updates of time i
// (their Time set to i) to random workers, and returns the plan's
// accumulated output at each time. It fails on errors.
func runUpdates(t *testing.T, rng *rand.Rand, workers int, plan expr.Relation, times [][]arrange.Update) []map[string]int64 {
	t.Helper()
	sim := dataflow.NewSim(workers, rng.Uint64())
	inputs, probes, got, gotErrs := renderOnSim(t, sim, plan)
	var out []map[string]int64
	for tm, us := range times {
		for _, u := range us {
			u.Time = uint64(tm)
			inputs[rng.IntN(workers)][1].Send(uint64(tm), u)
		}
		for _, in := range inputs {
			in[1].Advance(uint64(tm) + 1)
		}
		if !sim.RunUntil(5_000_000, func() bool {
			for _, p := range probes {
				if ok, _ := p.Passed(uint64(tm)); !ok {
					return false
				}
			}
			return true
		}) {
			t.Fatalf("time %d never completed; failures %v", tm, sim.Failures)
		}
		if errs := slices.Concat(gotErrs...); len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
		m := map[string]int64{}
		for _, part := range got {
			for _, u := range part {
				if m[string(u.Key)] += u.Diff; m[string(u.Key)] == 0 {
					delete(m, string(u.Key))
				}
			}
		}
		out = append(out, m)
	}
	return out
}
