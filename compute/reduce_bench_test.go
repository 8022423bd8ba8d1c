package compute

import (
	"fmt"
	"testing"
	"time"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// BenchmarkReduceOneGroup measures one INSERT into a group that already
// holds rows rows, for SELECT k, count(*), sum(v) GROUP BY k (kept as
// accumulations) and SELECT k, max(v) and min(v), max(v), count(v)
// (kept as leads) rendered whole: one worker on its own allocator,
// stepped until quiet, one time step per insert. Each insert's value is
// above every other, so every aggregate changes. Neither way does the
// step's cost grow with the group; a generic Reduce would re-read the
// group every time.
func BenchmarkReduceOneGroup(b *testing.B) {
	types := []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}
	v := expr.Column{Index: 1}
	for _, agg := range []struct {
		name string
		aggs []expr.Aggregate
	}{
		{"count,sum", []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}, {Func: expr.Sum, Expr: v}}},
		{"max", []expr.Aggregate{{Func: expr.Max, Expr: v}}},
		{"min,max,count", []expr.Aggregate{{Func: expr.Min, Expr: v}, {Func: expr.Max, Expr: v}, {Func: expr.Count, Expr: v}}},
	} {
		plan := expr.Reduce{Input: expr.Get{ID: 1, Types: types}, GroupKey: []expr.Scalar{expr.Column{Index: 0}}, Aggregates: agg.aggs}
		for _, rows := range []int{10_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/rows=%d", agg.name, rows), func(b *testing.B) {
				benchGroupWrites(b, plan, rows, "insert", func(i int) arrange.Update {
					return arrange.Update{Key: groupRow(rows + i), Diff: 1}
				})
			})
		}
	}
}

// groupRow is row i of the benchmarks' one group, (7, i).
func groupRow(i int) []byte { return repr.PackRow(repr.NewInt4(7), repr.NewInt4(int32(i))) }

// benchGroupWrites renders plan on one worker (renderOnOneWorker) over
// the rows groupRow(0) to groupRow(rows-1), then times b.N writes, each
// write(i) at a time of its own and stepped until quiet. Each write
// must change the group's row: a retraction and an insertion.
func benchGroupWrites(b *testing.B, plan expr.Relation, rows int, unit string, write func(i int) arrange.Update) {
	in, settle, counted := renderOnOneWorker(b, plan)
	upds := make([]arrange.Update, rows)
	for i := range upds {
		upds[i] = arrange.Update{Key: groupRow(i), Diff: 1}
	}
	in.Send(0, upds...)
	in.Advance(1)
	settle()
	*counted = 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		tm := uint64(i + 1)
		u := write(i)
		u.Time = tm
		in.Send(tm, u)
		in.Advance(tm + 1)
		settle()
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if *counted != 2*b.N {
		b.Fatalf("%d output updates for %d writes", *counted, b.N)
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/1e3, "µs/"+unit)
	in.Close()
	settle()
}

// renderOnOneWorker renders plan, whose one Get is fed by in, on a worker
// of its own, and returns in, a settle that steps the worker until it is
// quiet, and the count of the rows the plan has put out.
func renderOnOneWorker(b *testing.B, plan expr.Relation) (in *dataflow.InputHandle[arrange.Update], settle func(), counted *int) {
	counted = new(int)
	w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { b.Fatal(f) })
	w.Enqueue(dataflow.Command{ID: 1, Build: func(bl *dataflow.Builder) {
		c, err := Render(bl, plan, SourceFunc(func(bl *dataflow.Builder, _ expr.GlobalID, _ int) (Collection, error) {
			h, s := dataflow.NewInputHandle[arrange.Update](bl, "t")
			in = h
			return Collection{Rows: s, Errs: empty(bl)}, nil
		}))
		if err != nil {
			b.Fatal(err)
		}
		dataflow.NewProbe(dataflow.Inspect(c.Rows, "count", func(uint64, arrange.Update) { *counted++ }))
	}})
	settle = func() {
		for w.Step() {
		}
	}
	settle()
	return in, settle, counted
}

// BenchmarkLeadsDeleteLeast measures SELECT k, min(v) GROUP BY k when
// each write deletes the group's least row, as a queue's consumer does:
// the next lead is found by stepping past the rows deleted before it,
// which stay in the arrangement's trace until the batch that inserted
// them merges with the ones that deleted them.
func BenchmarkLeadsDeleteLeast(b *testing.B) {
	types := []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}
	plan := expr.Reduce{Input: expr.Get{ID: 1, Types: types}, GroupKey: []expr.Scalar{expr.Column{Index: 0}},
		Aggregates: []expr.Aggregate{{Func: expr.Min, Expr: expr.Column{Index: 1}}}}
	for _, rows := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			if b.N >= rows {
				b.Skipf("%d deletes from a group of %d rows", b.N, rows)
			}
			benchGroupWrites(b, plan, rows, "delete", func(i int) arrange.Update {
				return arrange.Update{Key: groupRow(i), Diff: -1}
			})
		})
	}
}
