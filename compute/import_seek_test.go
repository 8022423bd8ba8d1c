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

// TestImportSeeks: a count (accumulated as the import is read) and a max
// (a reduction over the rows of a flatten) over an imported table whose
// filters bound the table's leading column read only the runs of the
// arrangement's keys that can pass them, in every batch the import
// gives them, and still aggregate exactly the rows that pass: the
// dataflow's account reads as many rows as lie in the runs and counts
// the rest as skipped, over the rows loaded at the start and those
// written later.
func TestImportSeeks(t *testing.T) {
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
		for _, isMax := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s max=%v", c.name, isMax), func(t *testing.T) {
				var rel expr.Relation = expr.Get{ID: 1, Types: types}
				bcol := 1
				if c.swap {
					rel = expr.Project{Input: rel, Outputs: []int{1, 0}}
					bcol = 0
				}
				agg := expr.Aggregate{Func: expr.Count, Expr: expr.Bool(true)}
				if isMax {
					agg = expr.Aggregate{Func: expr.Max, Expr: col(bcol)}
				}
				plan := expr.Reduce{
					Input:      expr.Filter{Input: rel, Predicates: c.preds},
					Aggregates: []expr.Aggregate{agg},
				}
				if _, ok := accumulationOf(plan); ok == isMax {
					t.Fatalf("plan accumulable %v:\n%s", ok, expr.Explain(plan))
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
				wantRead, wantKept, wantMax := 0, 0, -1
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
								wantMax = max(wantMax, b)
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
				// Every row counts as read, those a seek skipped too, so
				// that a hydration's progress reaches its end.
				if read, _ := acct.Reading(); read-acct.Skipped() != int64(wantRead) || read != 1200 {
					t.Fatalf("read %d rows, %d of them skipped; want the %d in the runs read, and all 1200 counted", read, acct.Skipped(), wantRead)
				}
				for k, d := range got {
					if d == 0 {
						delete(got, k)
					}
				}
				want := map[string]int64{}
				switch {
				case wantKept == 0:
				case isMax:
					want[fmt.Sprintf("(%d)", wantMax)] = 1
				default:
					want[fmt.Sprintf("(%d)", wantKept)] = 1
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("result %v, want %v", got, want)
				}
			})
		}
	}
}

// TestSeekingImportMatchesInterpret renders chains of filters that bound
// the leading columns of a table read from its arrangement, under a
// projection and a max or alone, so that the rows are read by a flatten
// that seeks (seekingImport), and checks each run against the
// interpreted plan at every time, unsliced and with every run one piece,
// on one worker and two.
func TestSeekingImportMatchesInterpret(t *testing.T) {
	for _, sliced := range []bool{false, true} {
		t.Run(fmt.Sprintf("sliced=%v", sliced), func(t *testing.T) {
			if sliced {
				defer func(f, p int) { flattenFuel, flattenPiece = f, p }(flattenFuel, flattenPiece)
				flattenFuel, flattenPiece = 1, 1
			}
			for _, workers := range []int{1, 2} {
				t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
					forSeeds(t, 60, func(t *testing.T, seed uint64) {
						rng := rand.New(rand.NewPCG(seed, 83))
						var plan expr.Relation = expr.Filter{Input: expr.Get{ID: 1, Types: revAccTypes}, Predicates: seekPredicates(rng)}
						plan = expr.Project{Input: plan, Outputs: []int{0, 1, 3}}
						if rng.IntN(2) == 0 {
							plan = expr.Reduce{Input: plan, GroupKey: []expr.Scalar{expr.Column{Index: 1}},
								Aggregates: []expr.Aggregate{{Func: expr.Max, Expr: expr.Column{Index: 2}}}}
						}
						runOracle(t, rng, workers, plan, revAccInput(rng, sliced))
					})
				})
			}
		})
	}
}
