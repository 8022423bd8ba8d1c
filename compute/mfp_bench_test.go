package compute

import (
	"testing"

	"freshet/arrange"
	"freshet/expr"
	"freshet/repr"
)

// BenchmarkMapFilterProject measures a chain with a Map over a table's
// rows (SELECT k, v * 2 + 1 FROM t WHERE v * 2 + 1 > 10), rendered
// whole on one worker: 1,000-row messages, as a 1,000-row INSERT sends,
// through the mfp operator, figures per row.
func BenchmarkMapFilterProject(b *testing.B) {
	types := []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}
	lit := func(v int32) expr.Scalar { return expr.Literal{Value: repr.NewInt4(v), Type: repr.Int4} }
	v21 := expr.CallBinary{Func: expr.Add, Left: expr.CallBinary{Func: expr.Mul, Left: expr.Column{Index: 1}, Right: lit(2)}, Right: lit(1)}
	plan := expr.Project{Outputs: []int{0, 2}, Input: expr.Filter{
		Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Gt, Left: expr.Column{Index: 2}, Right: lit(10)}},
		Input:      expr.Map{Scalars: []expr.Scalar{v21}, Input: expr.Get{ID: 1, Types: types}}}}
	in, settle, outputs := renderOnOneWorker(b, plan)
	const batch = 1000
	msgs := 0
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		tm := uint64(msgs + 1)
		msgs++
		upds := make([]arrange.Update, batch)
		for j := range upds {
			upds[j] = arrange.Update{Key: repr.PackRow(repr.NewInt4(int32(j)), repr.NewInt4(int32(j%100))), Time: tm, Diff: 1}
		}
		in.Send(tm, upds...)
		in.Advance(tm + 1)
		settle()
	}
	b.StopTimer()
	// v in 0..99: v*2+1 > 10 for v >= 5, 95 of every 100.
	if want := msgs * batch * 95 / 100; *outputs != want {
		b.Fatalf("%d rows out, want %d", *outputs, want)
	}
	in.Close()
	settle()
}
