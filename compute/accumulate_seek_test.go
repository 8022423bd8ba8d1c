package compute

import (
	"fmt"
	"testing"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// TestAccumulateOverImportSeeks: an accumulation over an imported
// table whose filters bound the table's leading column reads only the
// runs of the arrangement's keys that can pass them, in every batch the
// import gives it, and still counts exactly the rows that pass: the
// dataflow's account reads as many rows as lie in the runs, over the
// rows loaded at the start and those written later.
func TestAccumulateOverImportSeeks(t *testing.T) {
	lit := func(v int32) expr.Scalar { return expr.Literal{Value: repr.NewInt4(v), Type: repr.Int4} }
	col := func(c int) expr.Scalar { return expr.Column{Index: c} }
	cmp := func(f expr.BinaryFunc, c int, v int32) expr.Scalar {
		return expr.CallBinary{Func: f, Left: col(c), Right: lit(v)}
	}
	types := []expr.ColumnType{{Type: repr.Int4}, {Type: repr.Int4}}
	// Rows (a, b) for a in [0, 100), b in [0, 10); then, written later,
	// a in [100, 120).
	inRange := func(lo, hi int) func(a, b int) bool { return func(a, _ int) bool { return a >= lo && a < hi } }
	for _, c := range []struct {
		name  string
		preds []expr.Scalar
		// swap puts the filter above a projection that swaps the
		// columns: its column 0 is the table's b, which bounds no key.
		swap bool
		// read reports whether a row lies in the runs read (a strict
		// lower bound's own rows are read, a strict upper bound's are
		// not), and keep whether it passes.
		read, keep func(a, b int) bool
	}{
		{"a = 7", []expr.Scalar{cmp(expr.Eq, 0, 7)}, false, inRange(7, 8), inRange(7, 8)},
		{"a = 7 and b < 3", []expr.Scalar{cmp(expr.Eq, 0, 7), cmp(expr.Lt, 1, 3)}, false,
			func(a, b int) bool { return a == 7 && b < 3 }, func(a, b int) bool { return a == 7 && b < 3 }},
		{"a in (3, 105, 50)", []expr.Scalar{expr.CallBinary{Func: expr.Or,
			Left:  expr.CallBinary{Func: expr.Or, Left: cmp(expr.Eq, 0, 3), Right: cmp(expr.Eq, 0, 105)},
			Right: cmp(expr.Eq, 0, 50)}}, false,
			func(a, _ int) bool { return a == 3 || a == 105 || a == 50 }, func(a, _ int) bool { return a == 3 || a == 105 || a == 50 }},
		{"a >= 95 and a < 102", []expr.Scalar{cmp(expr.Gte, 0, 95), cmp(expr.Lt, 0, 102)}, false, inRange(95, 102), inRange(95, 102)},
		{"a > 200", []expr.Scalar{cmp(expr.Gt, 0, 200)}, false, inRange(200, 201), inRange(201, 202)},
		{"a > 50 and a < 10", []expr.Scalar{cmp(expr.Gt, 0, 50), cmp(expr.Lt, 0, 10)}, false, inRange(0, 0), inRange(0, 0)},
		{"b = 4, no seek", []expr.Scalar{cmp(expr.Eq, 1, 4)}, false, func(int, int) bool { return true }, func(_, b int) bool { return b == 4 }},
		{"b = 4 above a projection, no seek", []expr.Scalar{cmp(expr.Eq, 0, 4)}, true, func(int, int) bool { return true }, func(_, b int) bool { return b == 4 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rel expr.Relation = expr.Get{ID: 1, Types: types}
			if c.swap {
				rel = expr.Project{Input: rel, Outputs: []int{1, 0}}
			}
			plan := expr.Reduce{
				Input:      expr.Filter{Input: rel, Predicates: c.preds},
				Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}},
			}
			if _, ok := accumulationOf(plan); !ok {
				t.Fatalf("plan not accumulable:\n%s", expr.Explain(plan))
			}
			var in *dataflow.InputHandle[arrange.Update]
			var acct *dataflow.Account
			got := map[string]int64{}
			w := dataflow.NewWorker(0, dataflow.NewProcessAllocator(1, nil), func(f dataflow.Failure) { t.Fatal(f) })
			w.Enqueue(dataflow.Command{ID: 1, Build: func(b *dataflow.Builder) {
				acct = b.Account()
				src := &arrangedTestSource{built: map[expr.GlobalID]*arrange.Arranged{}, tables: func(b *dataflow.Builder, _ expr.GlobalID, _ int) (Collection, error) {
					h, s := dataflow.NewInputHandle[arrange.Update](b, "table")
					in = h
					return Collection{Rows: s, Errs: empty(b)}, nil
				}}
				out, err := Render(b, plan, src)
				if err != nil {
					t.Fatal(err)
				}
				dataflow.Inspect(out.Rows, "collect", func(_ uint64, u arrange.Update) {
					got[repr.Row(u.Key).String()] += u.Diff
				})
			}})
			settle := func() {
				for w.Step() {
				}
			}
			settle()
			wantRead, wantKept := 0, 0
			write := func(tm uint64, from, to int) {
				for a := from; a < to; a++ {
					for b := range 10 {
						row := repr.PackRow(repr.NewInt4(int32(a)), repr.NewInt4(int32(b)))
						if err := in.Send(tm, arrange.Update{Key: row, Time: tm, Diff: 1}); err != nil {
							t.Fatal(err)
						}
						if c.read(a, b) {
							wantRead++
						}
						if c.keep(a, b) {
							wantKept++
						}
					}
				}
				if err := in.Advance(tm + 1); err != nil {
					t.Fatal(err)
				}
				settle()
			}
			write(0, 0, 100)
			write(1, 100, 120)
			if read, _ := acct.Reading(); read != int64(wantRead) {
				t.Fatalf("read %d rows, want the %d in the runs", read, wantRead)
			}
			for k, d := range got {
				if d == 0 {
					delete(got, k)
				}
			}
			want := map[string]int64{}
			if wantKept > 0 {
				want[fmt.Sprintf("(%d)", wantKept)] = 1
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("count %v, want %v", got, want)
			}
		})
	}
}
