package compute

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"freshet/arrange"
	"freshet/expr"
	"freshet/repr"
)

// TestPackStepsMatchesApplySteps: rows taken through chains of Map,
// Filter and Project one row at a time, in two reused buffers, pack to
// the same updates, in the same order, as the chain applied step by
// step; a chain that fails on a row fails both ways. Chains and rows are
// drawn from a seed.
func TestPackStepsMatchesApplySteps(t *testing.T) {
	const seed = 47
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	lit := func(v int32) expr.Scalar { return expr.Literal{Value: repr.NewInt4(v), Type: repr.Int4} }
	col := func(i int) expr.Scalar { return expr.Column{Index: i} }
	for round := range 200 {
		width := 2
		var steps []expr.Relation
		for range 1 + rng.IntN(5) {
			switch rng.IntN(3) {
			case 0:
				var scs []expr.Scalar
				for range 1 + rng.IntN(2) {
					f := []expr.BinaryFunc{expr.Add, expr.Mul, expr.Div}[rng.IntN(3)]
					scs = append(scs, expr.CallBinary{Func: f, Left: col(rng.IntN(width)), Right: lit(int32(rng.IntN(5)))})
				}
				steps = append(steps, expr.Map{Scalars: scs})
				width += len(scs)
			case 1:
				steps = append(steps, expr.Filter{Predicates: []expr.Scalar{
					expr.CallBinary{Func: expr.Gt, Left: col(rng.IntN(width)), Right: lit(int32(rng.IntN(40) - 20))}}})
			case 2:
				outs := make([]int, 1+rng.IntN(width))
				for i := range outs {
					outs[i] = rng.IntN(width)
				}
				steps = append(steps, expr.Project{Outputs: outs})
				width = len(outs)
			}
		}
		rows := make([][]repr.Datum, 1+rng.IntN(50))
		for i := range rows {
			rows[i] = []repr.Datum{repr.NewInt4(int32(rng.IntN(60) - 30)), repr.NewInt4(int32(rng.IntN(60) - 30))}
		}
		u := arrange.Update{Time: 9, Diff: 3}
		results, wantErr := applySteps(steps, rows)
		var want []arrange.Update
		var p repr.RowPacker
		for _, ds := range results {
			p.Reset()
			for _, d := range ds {
				p.Push(d)
			}
			want = append(want, arrange.Update{Key: p.Finish(), Time: u.Time, Diff: u.Diff})
		}
		var bufs [2][]repr.Datum
		got, err := packSteps(steps, len(rows), func(i int) []repr.Datum { return rows[i] }, &bufs, &p, nil, u)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("round %d: %v: error %v, step by step %v", round, steps, err, wantErr)
		}
		if err != nil {
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: %v: %d rows, step by step %d", round, steps, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i].Key, want[i].Key) || got[i].Time != u.Time || got[i].Diff != u.Diff {
				t.Fatalf("round %d: %v: row %d is %v, step by step %v", round, steps, i, got[i], want[i])
			}
		}
	}
}
