package compute

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

var seedFlag = flag.Uint64("seed", 0, "run seeded tests with this seed only")

func forSeeds(t *testing.T, n int, f func(t *testing.T, seed uint64)) {
	t.Helper()
	var seeds []uint64
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	} else {
		for i := 1; i <= n; i++ {
			seeds = append(seeds, uint64(i))
		}
	}
	parent := t.Name()
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d; replay: go test ./compute -run '^%s$' -seed=%d -v", seed, strings.ReplaceAll(parent, "/", "$/^"), seed)
			f(t, seed)
		})
	}
}

func intCols(n int) []expr.ColumnType {
	ts := make([]expr.ColumnType, n)
	for i := range ts {
		ts[i] = expr.ColumnType{Type: repr.Int4, Nullable: true}
	}
	return ts
}

// planGen draws random plans over two tables of two nullable int columns.
type planGen struct{ rng *rand.Rand }

func (g planGen) lit(t repr.Type) expr.Literal {
	d, _ := repr.Cast(repr.NewInt4(int32(g.rng.IntN(5))), t)
	return expr.Literal{Value: d, Type: t}
}

func (g planGen) intCol(ts []expr.ColumnType) (int, bool) {
	var cols []int
	for i, c := range ts {
		if c.Type.Kind() == repr.KindInt4 {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return 0, false
	}
	return cols[g.rng.IntN(len(cols))], true
}

func (g planGen) predicate(ts []expr.ColumnType) expr.Scalar {
	c := g.rng.IntN(len(ts))
	col := expr.Column{Index: c}
	switch g.rng.IntN(5) {
	case 0:
		return expr.CallUnary{Func: expr.IsNull, Arg: col}
	case 4:
		// The filter a join puts on its key columns.
		return expr.CallUnary{Func: expr.Not, Arg: expr.CallUnary{Func: expr.IsNull, Arg: col}}
	case 1:
		return expr.CallBinary{Func: expr.Or, Left: expr.CallBinary{Func: expr.Lt, Left: col, Right: g.lit(ts[c].Type)},
			Right: expr.CallUnary{Func: expr.IsNull, Arg: col}}
	}
	fs := []expr.BinaryFunc{expr.Eq, expr.NotEq, expr.Lt, expr.Gte}
	return expr.CallBinary{Func: fs[g.rng.IntN(len(fs))], Left: col, Right: g.lit(ts[c].Type)}
}

func (g planGen) plan(depth int) expr.Relation {
	if depth == 0 || g.rng.IntN(4) == 0 {
		id := expr.GlobalID(1 + g.rng.IntN(2))
		return expr.Get{ID: id, Types: intCols(2)}
	}
	in := g.plan(depth - 1)
	ts := in.Typ()
	switch g.rng.IntN(11) {
	case 0:
		return expr.Filter{Input: in, Predicates: []expr.Scalar{g.predicate(ts)}}
	case 1:
		c, ok := g.intCol(ts)
		if !ok {
			return in
		}
		// Division can fail: 22012 when the divisor is zero.
		div := expr.CallBinary{Func: expr.Div, Left: g.lit(repr.Int4), Right: expr.CallBinary{Func: expr.Sub, Left: expr.Column{Index: c}, Right: g.lit(repr.Int4)}}
		add := expr.CallBinary{Func: expr.Add, Left: expr.Column{Index: c}, Right: g.lit(repr.Int4)}
		if g.rng.IntN(3) == 0 {
			return expr.Map{Input: in, Scalars: []expr.Scalar{div}}
		}
		return expr.Map{Input: in, Scalars: []expr.Scalar{add}}
	case 2:
		var outs []int
		for i := 0; i < 1+g.rng.IntN(len(ts)); i++ {
			outs = append(outs, g.rng.IntN(len(ts)))
		}
		return expr.Project{Input: in, Outputs: outs}
	case 3:
		right := g.plan(depth - 1)
		rt := right.Typ()
		lc, rc := g.rng.IntN(len(ts)), g.rng.IntN(len(rt))
		if ts[lc].Type != rt[rc].Type {
			return in
		}
		j := expr.Join{Inputs: []expr.Relation{in, right}, Equivalences: [][]expr.Scalar{{expr.Column{Index: lc}, expr.Column{Index: len(ts) + rc}}}}
		if g.rng.IntN(3) == 0 {
			// A cross join filtered by SQL equality, which drops NULLs.
			return expr.Filter{Input: expr.Join{Inputs: j.Inputs}, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Eq, Left: j.Equivalences[0][0], Right: j.Equivalences[0][1]}}}
		}
		return j
	case 4:
		k := g.rng.IntN(len(ts))
		c, ok := g.intCol(ts)
		if !ok {
			return in
		}
		aggs := []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}}
		switch g.rng.IntN(4) {
		case 0:
			aggs = append(aggs, expr.Aggregate{Func: expr.Sum, Expr: expr.Column{Index: c}})
		case 1:
			aggs = append(aggs, expr.Aggregate{Func: expr.Min, Expr: expr.Column{Index: c}})
		case 2:
			aggs = append(aggs, expr.Aggregate{Func: expr.Max, Expr: expr.Column{Index: c}})
		case 3:
			aggs = append(aggs, expr.Aggregate{Func: expr.Count, Expr: expr.Column{Index: c}, Distinct: true})
		}
		keys := []expr.Scalar{expr.Column{Index: k}}
		if g.rng.IntN(4) == 0 {
			keys = nil
		}
		return expr.Reduce{Input: in, GroupKey: keys, Aggregates: aggs}
	case 5:
		return expr.Distinct{Input: in}
	case 6, 7:
		other := g.plan(depth - 1)
		if !slices.Equal(other.Typ(), ts) {
			other = expr.Project{Input: other, Outputs: nil}
			if len(ts) != 0 {
				return in
			}
		}
		if g.rng.IntN(2) == 0 {
			return expr.Union{Inputs: []expr.Relation{in, other}}
		}
		// EXCEPT ALL.
		return expr.Threshold{Input: expr.Union{Inputs: []expr.Relation{in, expr.Negate{Input: other}}}}
	case 8:
		var group []int
		if len(ts) > 1 && g.rng.IntN(2) == 0 {
			group = []int{g.rng.IntN(len(ts))}
		}
		o := g.rng.IntN(len(ts))
		desc := g.rng.IntN(2) == 0
		return expr.TopK{Input: in, GroupKey: group, Order: []expr.ColumnOrder{{Column: o, Desc: desc, NullsFirst: desc}},
			Limit: int64(g.rng.IntN(4)) - 1, Offset: int64(g.rng.IntN(2))}
	case 9:
		return expr.FlatMap{Input: in, Func: expr.GenerateSeries, Args: []expr.Scalar{g.lit(repr.Int4), g.lit(repr.Int4)}, Type: repr.Int4}
	case 10:
		if len(ts) == 0 {
			return in
		}
		var part []int
		if g.rng.IntN(2) == 0 {
			part = []int{g.rng.IntN(len(ts))}
		}
		desc := g.rng.IntN(2) == 0
		order := []expr.ColumnOrder{{Column: g.rng.IntN(len(ts)), Desc: desc, NullsFirst: desc}}
		var funcs []expr.WindowCall
		for range 1 + g.rng.IntN(3) {
			funcs = append(funcs, g.windowCall(ts, ts[order[0].Column].Type))
		}
		return expr.Window{Input: in, PartitionBy: part, Order: order, Funcs: funcs}
	}
	return in
}

type tableUpdate struct {
	table expr.GlobalID
	row   []repr.Datum
	time  uint64
	diff  int64
}

// TestRenderMatchesInterpret renders random plans on the simulated
// network and checks, at every completed time, that the output and its
// errors agree with interpreting the plan from scratch over the inputs
// accumulated at that time: the incremental view equals the query.
func TestRenderMatchesInterpret(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 400, func(t *testing.T, seed uint64) {
				renderOracle(t, workers, seed)
			})
		})
	}
}

// TestRenderMatchesInterpretSliced is TestRenderMatchesInterpret with
// every worker's slice ending each sliced run after one piece, and
// pieces of one row: every operator that keeps its place between runs
// (flatten, the contributions to accumulations, the join, the reduce,
// the mfp over what one update expands to, the accumulation's groups,
// which then apply one time's contributions over several runs) does so
// at every row, and the output is the same.
func TestRenderMatchesInterpretSliced(t *testing.T) {
	defer func(f, c, m, a int) {
		flattenPiece, contributionsPiece, mfpPiece, accumulatePiece = f, c, m, a
	}(flattenPiece, contributionsPiece, mfpPiece, accumulatePiece)
	flattenPiece, contributionsPiece, mfpPiece, accumulatePiece = 1, 1, 1, 1
	slicedOracles(t)
}

// TestRenderMatchesInterpretCutWithinPieces is the sliced oracle with
// pieces of four rows and a time check after every row: the mfp and the
// contributions to accumulations end their runs within a piece, and
// the rest of the piece, with the rest of its message, waits for the
// next run.
func TestRenderMatchesInterpretCutWithinPieces(t *testing.T) {
	defer func(c, m, r int) { contributionsPiece, mfpPiece, rowsBetweenChecks = c, m, r }(contributionsPiece, mfpPiece, rowsBetweenChecks)
	contributionsPiece, mfpPiece, rowsBetweenChecks = 4, 4, 1
	slicedOracles(t)
}

// slicedOracles runs the render oracle on 1 and 2 workers whose slice
// ends every sliced run after one piece.
func slicedOracles(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 150, func(t *testing.T, seed uint64) {
				renderOracleWith(t, workers, seed, true)
			})
		})
	}
}

func renderOracle(t *testing.T, workers int, seed uint64) { renderOracleWith(t, workers, seed, false) }

func renderOracleWith(t *testing.T, workers int, seed uint64, sliced bool) {
	renderOracleIndexed(t, workers, seed, sliced, false)
}

// TestRenderWithIndexesMatchesInterpret is TestRenderMatchesInterpret
// with indexes on both tables, by either column and by both, that the
// joins read their inputs from wherever they serve them.
func TestRenderWithIndexesMatchesInterpret(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 1500, func(t *testing.T, seed uint64) {
				renderOracleIndexed(t, workers, seed, false, true)
			})
		})
	}
}

func renderOracleIndexed(t *testing.T, workers int, seed uint64, sliced, indexed bool) {
	rng := rand.New(rand.NewPCG(seed, 77))
	plan := planGen{rng}.plan(4)
	runOracle(t, rng, workers, plan, oracleInput{
		indexed: indexed,
		sliced:  sliced,
		times:   6, maxWrites: 6, retractOneIn: 3,
		table: func() expr.GlobalID { return expr.GlobalID(1 + rng.IntN(2)) },
		row: func() []repr.Datum {
			var row []repr.Datum
			for c := 0; c < 2; c++ {
				if rng.IntN(5) == 0 {
					row = append(row, repr.Null)
				} else {
					row = append(row, repr.NewInt4(int32(rng.IntN(4))))
				}
			}
			return row
		},
	})
}

// oracleInput says what runOracle writes: at each of times times, up to
// maxWrites-1 writes, each to a table drawn by table; a write retracts
// one of the table's rows with probability 1/retractOneIn (when it has
// one) and inserts a row drawn by row otherwise.
type oracleInput struct {
	// sliced ends every sliced run after one piece (dataflow.SlicePiece).
	sliced bool
	// indexed renders with testIndexes.
	indexed bool
	// imported renders over a source that reads each table's rows from
	// an arrangement of them, as a dataflow reads an exported table
	// (arrangedSource).
	imported bool
	// want, if set, is the plan whose interpretation the output must
	// match, in place of the rendered plan's own: a rewrite's output
	// checked against the plan it replaces.
	want                           expr.Relation
	times, maxWrites, retractOneIn int
	table                          func() expr.GlobalID
	row                            func() []repr.Datum
}

// runOracle renders plan on a simulated network of workers, writes in
// to its tables, and checks the output at every completed time against
// expr.Interpret over the tables accumulated there.
func runOracle(t *testing.T, rng *rand.Rand, workers int, plan expr.Relation, in oracleInput) {
	t.Helper()
	if err := expr.Check(plan); err != nil {
		t.Fatal(err)
	}
	sim := dataflow.NewSim(workers, rng.Uint64())
	if in.sliced {
		for _, w := range sim.Workers {
			w.SetSlice(dataflow.SlicePiece)
		}
	}
	inputs, probes, got, gotErrs := renderOnSimWith(t, sim, plan, in.indexed, in.imported)
	var history []tableUpdate
	for tm := uint64(0); tm < uint64(in.times); tm++ {
		for i := rng.IntN(in.maxWrites); i > 0; i-- {
			id := in.table()
			var row []repr.Datum
			// Retract only rows the table holds: a table never has a
			// negative count.
			counts := map[string]int64{}
			var live []tableUpdate
			for _, u := range history {
				if u.table == id {
					counts[string(repr.PackRow(u.row...))] += u.diff
				}
			}
			for _, u := range history {
				if u.table == id && counts[string(repr.PackRow(u.row...))] > 0 {
					live = append(live, u)
				}
			}
			diff := int64(1)
			if len(live) > 0 && rng.IntN(in.retractOneIn) == 0 {
				row, diff = live[rng.IntN(len(live))].row, -1
			} else {
				row = in.row()
			}
			history = append(history, tableUpdate{id, row, tm, diff})
			// A table the plan does not read has no input.
			if h := inputs[rng.IntN(workers)][id]; h != nil {
				h.Send(tm, arrange.Update{Key: repr.PackRow(row...), Time: tm, Diff: diff})
			}
		}
		for w := range inputs {
			for _, h := range inputs[w] {
				h.Advance(tm + 1)
			}
		}
		if !sim.RunUntil(5_000_000, func() bool {
			for _, p := range probes {
				if ok, _ := p.Passed(tm); !ok {
					return false
				}
			}
			return true
		}) {
			t.Fatalf("time %d never completed; failures %v", tm, sim.Failures)
		}
		want := plan
		if in.want != nil {
			want = in.want
		}
		compareAt(t, want, history, got, gotErrs, tm)
	}
	if len(sim.Failures) > 0 {
		t.Fatal(sim.Failures)
	}
}

// renderOnSim builds plan on every worker of sim over an input handle per
// table, and returns the handles, a probe of the output and of its
// errors per worker, and what each worker's output and errors collect.
func renderOnSim(t *testing.T, sim *dataflow.Sim, plan expr.Relation) (inputs []map[expr.GlobalID]*dataflow.InputHandle[arrange.Update], probes []*dataflow.Probe, got, gotErrs [][]arrange.Update) {
	t.Helper()
	return renderOnSimWith(t, sim, plan, false, false)
}

// testIndexes are the indexes of renderOnSimWith's tables 1 and 2 (two
// int4 columns each): by column 0, by column 1, and by both.
var testIndexes = []Index{
	{ID: 11, On: 1, Keys: []int{0}, Width: 2}, {ID: 12, On: 1, Keys: []int{1}, Width: 2}, {ID: 13, On: 1, Keys: []int{1, 0}, Width: 2},
	{ID: 21, On: 2, Keys: []int{0}, Width: 2}, {ID: 22, On: 2, Keys: []int{1}, Width: 2}, {ID: 23, On: 2, Keys: []int{0, 1}, Width: 2},
}

// renderOnSimWith is renderOnSim, with the joins reading their inputs
// from testIndexes if indexed: each an arrangement of its table's input
// in the same dataflow.
func renderOnSimWith(t *testing.T, sim *dataflow.Sim, plan expr.Relation, indexed, imported bool) (inputs []map[expr.GlobalID]*dataflow.InputHandle[arrange.Update], probes []*dataflow.Probe, got, gotErrs [][]arrange.Update) {
	t.Helper()
	workers := len(sim.Workers)
	inputs = make([]map[expr.GlobalID]*dataflow.InputHandle[arrange.Update], workers)
	probes = make([]*dataflow.Probe, workers)
	got, gotErrs = make([][]arrange.Update, workers), make([][]arrange.Update, workers)
	var buildErr error
	sim.Build(0, func(b *dataflow.Builder) {
		w := b.Index()
		inputs[w] = map[expr.GlobalID]*dataflow.InputHandle[arrange.Update]{}
		tables := map[expr.GlobalID]Collection{}
		source := func(b *dataflow.Builder, id expr.GlobalID, _ int) (Collection, error) {
			if c, ok := tables[id]; ok {
				return c, nil
			}
			h, s := dataflow.NewInputHandle[arrange.Update](b, fmt.Sprintf("table %d", id))
			inputs[w][id] = h
			tables[id] = Collection{Rows: s, Errs: empty(b)}
			return tables[id], nil
		}
		var ix *Indexes
		if indexed {
			ix = &Indexes{List: testIndexes, Import: func(b *dataflow.Builder, id expr.GlobalID) (*arrange.Arranged, dataflow.Stream[arrange.Update], error) {
				i := slices.IndexFunc(testIndexes, func(x Index) bool { return x.ID == id })
				c, _ := source(b, testIndexes[i].On, 2)
				var keys []expr.Scalar
				for _, k := range testIndexes[i].Keys {
					keys = append(keys, expr.Column{Index: k})
				}
				r := &renderer{b: b}
				a, errs := r.arrangeBy(c, fmt.Sprintf("index %d", id), []repr.Type{repr.Int4, repr.Int4}, keys)
				return a, dataflow.Concat(c.Errs, errs, "index errors"), nil
			}}
		}
		var src Source = SourceFunc(source)
		if imported {
			src = &arrangedTestSource{tables: source, built: map[expr.GlobalID]*arrange.Arranged{}}
		}
		c, err := RenderIndexed(b, plan, src, ix)
		if err != nil {
			buildErr = err
			return
		}
		rows := dataflow.Inspect(c.Rows, "collect", func(_ uint64, u arrange.Update) { got[w] = append(got[w], u) })
		errs := dataflow.Inspect(c.Errs, "collect errors", func(_ uint64, u arrange.Update) { gotErrs[w] = append(gotErrs[w], u) })
		probes[w] = dataflow.NewProbe(dataflow.Concat(rows, errs, "all"))
	})
	if !sim.RunUntil(1_000_000, func() bool { return !slices.Contains(probes, nil) || buildErr != nil }) {
		t.Fatal("not built")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return inputs, probes, got, gotErrs
}

func compareAt(t *testing.T, plan expr.Relation, history []tableUpdate, got, gotErrs [][]arrange.Update, tm uint64) {
	t.Helper()
	env := expr.Env{}
	for _, u := range history {
		if u.time <= tm {
			env[u.table] = append(env[u.table], expr.Row{Datums: u.row, Diff: u.diff})
		}
	}
	for id, rows := range env {
		env[id] = expr.Consolidate(rows)
	}
	want, wantErr := expr.Interpret(plan, env)
	acc := func(parts [][]arrange.Update) map[string]int64 {
		m := map[string]int64{}
		for _, p := range parts {
			for _, u := range p {
				if u.Time <= tm {
					if m[string(u.Key)] += u.Diff; m[string(u.Key)] == 0 {
						delete(m, string(u.Key))
					}
				}
			}
		}
		return m
	}
	errs := acc(gotErrs)
	if wantErr != nil {
		if len(errs) == 0 {
			t.Fatalf("time %d: the query fails with %v but the view has no error\nplan:\n%s", tm, wantErr, expr.Explain(plan))
		}
		return
	}
	if len(errs) > 0 {
		t.Fatalf("time %d: the view has errors %v but the query succeeds\nplan:\n%s", tm, errs, expr.Explain(plan))
	}
	wantM := map[string]int64{}
	for _, r := range want {
		wantM[string(repr.PackRow(r.Datums...))] = r.Diff
	}
	gotM := acc(got)
	if fmt.Sprint(gotM) != fmt.Sprint(wantM) {
		t.Fatalf("time %d:\n got %v\nwant %v\nplan:\n%s", tm, render(gotM), render(wantM), expr.Explain(plan))
	}
}

func render(m map[string]int64) string {
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%v×%d", repr.Row(k), n))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// windowCall makes a random window function call over columns of types
// ts, with a random frame for the frame family; RANGE offsets when the
// window is ordered by an integer column (of type order).
func (g planGen) windowCall(ts []expr.ColumnType, order repr.Type) expr.WindowCall {
	col := g.rng.IntN(len(ts))
	one, two := repr.NewInt8(1), repr.NewInt8(2)
	frames := []expr.Frame{
		expr.DefaultFrame,
		{Mode: expr.FrameRows, Start: expr.UnboundedPreceding, End: expr.CurrentRow},
		{Mode: expr.FrameRows, Start: expr.OffsetPreceding, StartOffset: one, End: expr.OffsetFollowing, EndOffset: one},
		{Mode: expr.FrameRows, Start: expr.OffsetPreceding, StartOffset: two, End: expr.CurrentRow},
		{Start: expr.CurrentRow, End: expr.UnboundedFollowing},
		{Mode: expr.FrameRows, Start: expr.OffsetFollowing, StartOffset: one, End: expr.UnboundedFollowing},
		{Mode: expr.FrameGroups, Start: expr.OffsetPreceding, StartOffset: one, End: expr.CurrentRow, Exclude: expr.ExcludeCurrentRow},
		{Mode: expr.FrameRows, Start: expr.UnboundedPreceding, End: expr.UnboundedFollowing, Exclude: expr.ExcludeTies},
		{Start: expr.UnboundedPreceding, End: expr.CurrentRow, Exclude: expr.ExcludeGroup},
	}
	if order.Kind().IsInt() {
		frames = append(frames, expr.Frame{Start: expr.OffsetPreceding, StartOffset: one, End: expr.OffsetFollowing, EndOffset: two, Exclude: expr.ExcludeTies},
			expr.Frame{Start: expr.OffsetFollowing, StartOffset: one, End: expr.UnboundedFollowing})
	}
	frame := frames[g.rng.IntN(len(frames))]
	switch g.rng.IntN(9) {
	case 0:
		return expr.WindowCall{Func: expr.RowNumber, Type: expr.ColumnType{Type: repr.Int8}}
	case 1:
		return expr.WindowCall{Func: expr.Rank, Type: expr.ColumnType{Type: repr.Int8}}
	case 2:
		return expr.WindowCall{Func: expr.DenseRank, Type: expr.ColumnType{Type: repr.Int8}}
	case 3:
		return expr.WindowCall{Func: expr.CumeDist, Type: expr.ColumnType{Type: repr.Float8}}
	case 4:
		f := expr.Lag
		if g.rng.IntN(2) == 0 {
			f = expr.Lead
		}
		return expr.WindowCall{Func: f, Args: []int{col}, Type: expr.ColumnType{Type: ts[col].Type, Nullable: true}}
	case 5:
		f := []expr.WindowFunc{expr.FirstValue, expr.LastValue}[g.rng.IntN(2)]
		return expr.WindowCall{Func: f, Args: []int{col}, Frame: frame, Type: expr.ColumnType{Type: ts[col].Type, Nullable: true}}
	case 6:
		return expr.WindowCall{Func: expr.WindowAgg, Agg: expr.Count, Args: []int{col}, Frame: frame, Type: expr.ColumnType{Type: repr.Int8}}
	case 7:
		agg := []expr.AggregateFunc{expr.Min, expr.Max}[g.rng.IntN(2)]
		return expr.WindowCall{Func: expr.WindowAgg, Agg: agg, Args: []int{col}, Frame: frame, Type: expr.ColumnType{Type: ts[col].Type, Nullable: true}}
	}
	if k := ts[col].Type.Kind(); k == repr.KindInt2 || k == repr.KindInt4 || k == repr.KindInt8 {
		a := expr.Aggregate{Func: expr.Sum, Expr: expr.Column{Index: col}}
		return expr.WindowCall{Func: expr.WindowAgg, Agg: expr.Sum, Args: []int{col}, Frame: frame, Type: a.Typ(ts)}
	}
	return expr.WindowCall{Func: expr.PercentRank, Type: expr.ColumnType{Type: repr.Float8}}
}

// TestMfpSlicesAnExpansion: a row that generate_series expands past a
// piece is taken through the rest of the chain a piece at a time, one
// piece per run, and the output is the query's at every time, with its
// errors (a division by zero in some of the expanded rows) and with
// retractions, which must cut the same pieces as the insertions did.
func TestMfpSlicesAnExpansion(t *testing.T) {
	defer func(m int) { mfpPiece = m }(mfpPiece)
	mfpPiece = 3
	x := expr.Column{Index: 0}
	series := expr.FlatMap{Input: expr.Get{ID: 1, Types: intCols(1)},
		Func: expr.GenerateSeries, Args: []expr.Scalar{expr.Literal{Value: repr.NewInt4(1)}, x}, Type: repr.Int4}
	g := expr.Column{Index: 1}
	plan := expr.Project{Outputs: []int{1, 2}, Input: expr.Filter{
		Predicates: []expr.Scalar{expr.CallBinary{Func: expr.NotEq, Left: g, Right: expr.Literal{Value: repr.NewInt4(2)}}},
		Input: expr.Map{Input: series, Scalars: []expr.Scalar{
			expr.CallBinary{Func: expr.Div, Left: expr.Literal{Value: repr.NewInt4(60)}, Right: expr.CallBinary{Func: expr.Sub, Left: g, Right: expr.Literal{Value: repr.NewInt4(11)}}}}}}}
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 40, func(t *testing.T, seed uint64) {
				rng := rand.New(rand.NewPCG(seed, 91))
				runOracle(t, rng, workers, plan, oracleInput{
					sliced: true, times: 5, maxWrites: 5, retractOneIn: 2,
					table: func() expr.GlobalID { return 1 },
					row:   func() []repr.Datum { return []repr.Datum{repr.NewInt4(int32(rng.IntN(14)))} },
				})
			})
		})
	}
}

// arrangedTestSource reads each table's input arranged, as a dataflow
// reads an exported table: as the arrangement's batches by the operators
// that can (arrangedSource), and flattened for the others.
type arrangedTestSource struct {
	tables func(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error)
	built  map[expr.GlobalID]*arrange.Arranged
}

func (s *arrangedTestSource) Collection(b *dataflow.Builder, id expr.GlobalID, width int) (Collection, error) {
	in, err := s.arranged(b, id, width)
	if err != nil {
		return Collection{}, err
	}
	return Collection{Rows: flatten(in.rows, fmt.Sprintf("rows of %d", id), in.row), Errs: in.errs}, nil
}

func (s *arrangedTestSource) keyed(expr.GlobalID) bool { return false }

func (s *arrangedTestSource) arranged(b *dataflow.Builder, id expr.GlobalID, width int) (importedRows, error) {
	a, ok := s.built[id]
	if !ok {
		c, err := s.tables(b, id, width)
		if err != nil {
			return importedRows{}, err
		}
		a = arrange.Arrange(c.Rows, fmt.Sprintf("arrange %d", id))
		s.built[id] = a
	}
	return importedRows{rows: a, width: width, errs: empty(b)}, nil
}
