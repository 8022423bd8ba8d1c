package coord

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

func tableObj(name string) *catalog.Object {
	return &catalog.Object{Kind: catalog.Table, Name: name, Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
		Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "v", Type: repr.Int4}}}
}

func row(k, v int32) repr.Row { return repr.PackRow(repr.NewInt4(k), repr.NewInt4(v)) }

func show(c expr.Collection) string {
	s := ""
	for _, r := range c {
		s += "("
		for i, d := range r.Datums {
			if i > 0 {
				s += ","
			}
			s += repr.FormatText(d)
		}
		s += fmt.Sprintf(")x%d ", r.Diff)
	}
	return s
}

// sumByKey is SELECT k, sum(v) FROM t GROUP BY k.
func sumByKey(t *catalog.Object) expr.Relation {
	return expr.Reduce{Input: expr.Get{ID: expr.GlobalID(t.ID), Types: t.ColumnTypes()},
		GroupKey: []expr.Scalar{expr.Column{Index: 0}}, Aggregates: []expr.Aggregate{{Func: expr.Sum, Expr: expr.Column{Index: 1}}}}
}

// createSumView creates the materialized view m, sumByKey over tb.
func createSumView(ctx context.Context, t *testing.T, e *Engine, tb *catalog.Object) *catalog.Object {
	t.Helper()
	mv := &catalog.Object{Kind: catalog.MaterializedView, Name: "m", Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
		DependsOn: []uint64{tb.ID}, Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "sum", Type: repr.Int8}}}
	if err := e.CreateMaterializedView(ctx, mv, sumByKey(tb), nil); err != nil {
		t.Fatal(err)
	}
	return mv
}

// readAll reads the whole of relation o at the engine's read time.
func readAll(ctx context.Context, t *testing.T, e *Engine, o *catalog.Object) string {
	t.Helper()
	got, err := e.Read(ctx, expr.Get{ID: expr.GlobalID(o.ID), Types: o.ColumnTypes()}, e.ReadTime())
	if err != nil {
		t.Fatal(err)
	}
	return show(got)
}

func TestEngineTablesViewsRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	clock := uint64(1000)
	cfg := Config{Workers: 2, DataDir: dir, Clock: func() uint64 { clock++; return clock }}
	e, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(1, 10), Diff: 1}, {Table: tb.ID, Row: row(1, 5), Diff: 1}, {Table: tb.ID, Row: row(2, 7), Diff: 1}}); err != nil {
		t.Fatal(err)
	}
	mv := &catalog.Object{Kind: catalog.MaterializedView, Name: "m", Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
		DependsOn: []uint64{tb.ID}, Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "sum", Type: repr.Int8}}}
	if err := e.CreateMaterializedView(ctx, mv, sumByKey(tb), nil); err != nil {
		t.Fatal(err)
	}
	readMV := func(e *Engine) string {
		got, err := e.Read(ctx, expr.Get{ID: expr.GlobalID(mv.ID), Types: mv.ColumnTypes()}, e.ReadTime())
		if err != nil {
			t.Fatal(err)
		}
		return show(got)
	}
	if got := readMV(e); got != "(1,15)x1 (2,7)x1 " {
		t.Fatalf("view: %s", got)
	}
	// A write shows up in the view at once: the next read sees it.
	if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(1, 10), Diff: -1}, {Table: tb.ID, Row: row(3, 1), Diff: 1}}); err != nil {
		t.Fatal(err)
	}
	if got := readMV(e); got != "(1,5)x1 (2,7)x1 (3,1)x1 " {
		t.Fatalf("view after write: %s", got)
	}
	// Dropping the table without CASCADE is refused; the view depends on it.
	e.Catalog(func(c *catalog.Catalog) error {
		_, err := c.PlanDrop(catalog.Table, tb, false)
		if sqlerr.Code(err) != sqlerr.DependentObjectsStillExist {
			t.Fatalf("restrict: %v", err)
		}
		return nil
	})
	e.Close()

	// Restart: the table is rebuilt from its log and the view from its
	// plan, with the same contents.
	rebuild := func(e *Engine, o *catalog.Object) error {
		return e.RebuildView(ctx, o, sumByKey(tb))
	}
	e, err = Open(ctx, cfg, rebuild)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := readMV(e); got != "(1,5)x1 (2,7)x1 (3,1)x1 " {
		t.Fatalf("view after restart: %s", got)
	}
	if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(2, 1), Diff: 1}}); err != nil {
		t.Fatal(err)
	}
	if got := readMV(e); got != "(1,5)x1 (2,8)x1 (3,1)x1 " {
		t.Fatalf("view after restart and write: %s", got)
	}
	if _, err := e.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) { return c.PlanDrop(catalog.Table, tb, true) }); err != nil {
		t.Fatal(err)
	}
	if st := userDataflows(e); st.Running != 0 {
		t.Fatalf("dataflows left after dropping everything: %+v", st)
	}
}

// TestReplayAcrossBatchesAndTimes writes rows over several chunks of a
// restart's replay, in several transactions that insert, repeat and
// delete rows, restarts, and checks that the table and a view over it
// read as they did before the restart; then that writes after it, which
// delete rows of the log and add others, leave the table and the view as
// they leave them on an engine that never restarted. Its logs are in no
// order (sorted in chunks and merged at the restart) and in row order
// (one sorted run).
func TestReplayAcrossBatchesAndTimes(t *testing.T) {
	for _, order := range []string{"unordered", "sorted"} {
		t.Run(order, func(t *testing.T) { testReplay(t, order == "sorted") })
	}
}

func testReplay(t *testing.T, sorted bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	key := func(k int32) int32 { return k % 97 }
	if sorted {
		key = func(k int32) int32 { return k }
	}
	const n = 3*replayChunkRows + 17
	// rounds are the writes before the restart, then one after it.
	var rounds [][]TableWrite
	tb := tableObj("t")
	for round := range 4 {
		var ws []TableWrite
		for i := range n / 4 {
			k := int32(round*(n/4) + i)
			ws = append(ws, TableWrite{Row: row(key(k), k), Diff: 1})
			if i%5 == 0 {
				ws = append(ws, TableWrite{Row: row(key(k), k), Diff: 1}) // a repeat
			}
		}
		if round == 3 && !sorted {
			for k := range int32(n / 8) {
				ws = append(ws, TableWrite{Row: row(key(k), k), Diff: -1})
			}
		}
		rounds = append(rounds, ws)
	}
	var after []TableWrite
	for k := int32(n / 8); k < n; k += 3 {
		after = append(after, TableWrite{Row: row(key(k), k), Diff: -1})
		after = append(after, TableWrite{Row: row(key(k), -k), Diff: 1})
	}
	write := func(e *Engine, ws []TableWrite) {
		t.Helper()
		for i := range ws {
			ws[i].Table = tb.ID
		}
		if _, err := e.Write(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	open := func(dir string) (*Engine, *catalog.Object) {
		t.Helper()
		cfg := Config{Workers: 2, DataDir: dir}
		e, err := Open(ctx, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.CreateTable(ctx, tb, nil); err != nil {
			t.Fatal(err)
		}
		for _, ws := range rounds {
			write(e, ws)
		}
		return e, createSumView(ctx, t, e, tb)
	}
	dir := t.TempDir()
	e, mv := open(dir)
	wantTable, wantView := readAll(ctx, t, e, tb), readAll(ctx, t, e, mv)
	e.Close()
	e, err := Open(ctx, Config{Workers: 2, DataDir: dir}, func(e *Engine, o *catalog.Object) error { return e.RebuildView(ctx, o, sumByKey(tb)) })
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := readAll(ctx, t, e, tb); got != wantTable {
		t.Fatalf("the table after the restart differs: %d bytes of rows, want %d", len(got), len(wantTable))
	}
	if got := readAll(ctx, t, e, mv); got != wantView {
		t.Fatalf("the view after the restart:\n%s\nwant\n%s", got, wantView)
	}
	// Every row is on the worker whose shard its hash names, where the
	// writes that delete it go.
	e.cluster.Exec(ctx, func(w int) bool {
		tr, err := e.reg.Trace(arrange.GlobalID(tb.ID), w)
		if err != nil {
			t.Error(err)
			return true
		}
		h, err := tr.NewHandle(tr.Since())
		if err != nil {
			t.Error(err)
			return true
		}
		defer h.Close()
		c, err := h.Cursor()
		if err != nil {
			t.Error(err)
			return true
		}
		for ; c.KeyValid(); c.StepKey() {
			if got := int(arrange.KeyHash(c.Key()) % 2); got != w {
				t.Errorf("row %x is on worker %d, its hash names %d", c.Key(), w, got)
				return true
			}
		}
		return true
	})
	ref, refView := open(t.TempDir())
	defer ref.Close()
	write(ref, after)
	write(e, after)
	if got, want := readAll(ctx, t, e, tb), readAll(ctx, t, ref, tb); got != want {
		t.Fatalf("the table after writes since the restart differs from one never restarted: %d bytes of rows, want %d", len(got), len(want))
	}
	if got, want := readAll(ctx, t, e, mv), readAll(ctx, t, ref, refView); got != want {
		t.Fatalf("the view after writes since the restart:\n%s\nwant, as on an engine never restarted,\n%s", got, want)
	}
}

func TestEngineReadErrorsAndCancel(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(0, 1), Diff: 1}})
	div := expr.Map{Input: expr.Get{ID: expr.GlobalID(tb.ID), Types: tb.ColumnTypes()},
		Scalars: []expr.Scalar{expr.CallBinary{Func: expr.Div, Left: expr.Column{Index: 1}, Right: expr.Column{Index: 0}}}}
	if _, err := e.Read(ctx, div, e.ReadTime()); sqlerr.Code(err) != sqlerr.DivisionByZero {
		t.Fatalf("division by zero: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Read(canceled, div, e.ReadTime()); sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("canceled read: %v", err)
	}
	// Transient dataflows are gone when their reads return.
	if st := userDataflows(e); st.Running != 2 {
		t.Fatalf("running dataflows %d, want the table's 2", st.Running)
	}
}

// A SELECT in flight on a dropped relation ends with a clear error, not
// a partial result, and the drop goes through.
func TestDropEndsReadsInFlight(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(1, 1), Diff: 1}})
	// A read at a time no write has reached yet waits for it.
	started := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		close(started)
		_, err := e.Read(ctx, expr.Get{ID: expr.GlobalID(tb.ID), Types: tb.ColumnTypes()}, e.ReadTime()+1_000_000)
		result <- err
	}()
	<-started
	// Wait until the read is registered, then drop the table.
	for {
		e.readsMu.Lock()
		n := len(e.reads)
		e.readsMu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := e.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) { return c.PlanDrop(catalog.Table, tb, false) }); err != nil {
		t.Fatalf("drop with a read in flight: %v", err)
	}
	err = <-result
	if sqlerr.Code(err) != sqlerr.QueryCanceled || err.Error() != `query could not complete because table "t" was dropped` {
		t.Fatalf("read in flight: %v", err)
	}
	if st := userDataflows(e); st.Running != 0 {
		t.Fatalf("dataflows left: %+v", st)
	}
}

// Concurrent writers share syncs (group commit), every acknowledged write
// is visible to the next read, and reads see writes in timestamp order.
func TestConcurrentWritesGroupCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := Open(ctx, Config{Workers: 2, DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 25
	before := e.store.Stats()
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				ts, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(int32(w), int32(i)), Diff: 1}})
				if err != nil {
					errs <- err
					return
				}
				// An acknowledged write is visible to a read after it.
				if rt := e.ReadTime(); rt < ts {
					errs <- fmt.Errorf("read time %d before acknowledged write %d", rt, ts)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	after := e.store.Stats()
	txns, syncs := after.Txns-before.Txns, after.Syncs-before.Syncs
	// The oracle's durable bound is a transaction too, now and then.
	if txns < writers*each || syncs >= txns {
		t.Fatalf("%d transactions in %d syncs: no group commit", txns, syncs)
	}
	got, err := e.Read(ctx, expr.Reduce{Input: expr.Get{ID: expr.GlobalID(tb.ID), Types: tb.ColumnTypes()},
		Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}}}, e.ReadTime())
	if err != nil || show(got) != fmt.Sprintf("(%d)x1 ", writers*each) {
		t.Fatalf("count after concurrent writes: %s %v", show(got), err)
	}
	e.Close()
	e, err = Open(ctx, Config{Workers: 2, DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err = e.Read(ctx, expr.Reduce{Input: expr.Get{ID: expr.GlobalID(tb.ID), Types: tb.ColumnTypes()},
		Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}}}, e.ReadTime())
	if err != nil || show(got) != fmt.Sprintf("(%d)x1 ", writers*each) {
		t.Fatalf("count after restart: %s %v", show(got), err)
	}
}

// A peek (a Map/Filter/Project over one arrangement, read from its trace
// without a dataflow) gives the same rows and errors as the same read
// built as a dataflow.
func TestPeekMatchesDataflow(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	get := expr.Get{ID: expr.GlobalID(tb.ID), Types: tb.ColumnTypes()}
	mv := &catalog.Object{Kind: catalog.MaterializedView, Name: "m", Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
		DependsOn: []uint64{tb.ID}, Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "sum", Type: repr.Int8}}}
	if err := e.CreateMaterializedView(ctx, mv, sumByKey(tb), nil); err != nil {
		t.Fatal(err)
	}
	mvGet := expr.Get{ID: expr.GlobalID(mv.ID), Types: mv.ColumnTypes()}
	lit := func(v int32) expr.Literal { return expr.Literal{Value: repr.NewInt4(v), Type: repr.Int4} }
	plans := []expr.Relation{
		get,
		expr.Filter{Input: get, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Gt, Left: expr.Column{Index: 1}, Right: lit(2)}}},
		expr.Project{Input: expr.Map{Input: get, Scalars: []expr.Scalar{expr.CallBinary{Func: expr.Add, Left: expr.Column{Index: 0}, Right: expr.Column{Index: 1}}}}, Outputs: []int{2, 0}},
		expr.Map{Input: get, Scalars: []expr.Scalar{expr.CallBinary{Func: expr.Div, Left: lit(10), Right: expr.Column{Index: 0}}}},
		expr.Filter{Input: mvGet, Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Lt, Left: expr.Column{Index: 0}, Right: lit(3)}}},
	}
	for round := 0; round < 6; round++ {
		var ws []TableWrite
		for i := 0; i < 8; i++ {
			ws = append(ws, TableWrite{Table: tb.ID, Row: row(int32((round*3+i)%5), int32(i)), Diff: 1})
		}
		if round > 0 {
			ws = append(ws, TableWrite{Table: tb.ID, Row: row(int32((round*3-3)%5), 0), Diff: -1})
		}
		if _, err := e.Write(ctx, ws); err != nil {
			t.Fatal(err)
		}
		for i, plan := range plans {
			if _, ok := compute.PeekOf(plan); !ok {
				t.Fatalf("plan %d is not a peek", i)
			}
			ts := e.ReadTime()
			e.noPeek = false
			peeked, perr := e.Read(ctx, plan, ts)
			e.noPeek = true
			built, berr := e.Read(ctx, plan, ts)
			e.noPeek = false
			if sqlerr.Code(perr) != sqlerr.Code(berr) || show(peeked) != show(built) {
				t.Fatalf("round %d plan %d: peek %s %v, dataflow %s %v", round, i, show(peeked), perr, show(built), berr)
			}
		}
	}
	if st := userDataflows(e); st.Running != 4 {
		t.Fatalf("running dataflows %d: peeks must leave none", st.Running)
	}
}

// Object ids are never reused, across a restart either: dropping the
// newest object and restarting does not hand its id out again.
func TestObjectIDsNotReusedAfterRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := Open(ctx, Config{Workers: 1, DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(1, 1), Diff: 1}})
	if _, err := e.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) { return c.PlanDrop(catalog.Table, tb, false) }); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e, err = Open(ctx, Config{Workers: 1, DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	u := tableObj("u")
	if err := e.CreateTable(ctx, u, nil); err != nil {
		t.Fatal(err)
	}
	if u.ID <= tb.ID {
		t.Fatalf("new table got id %d, the dropped table had %d", u.ID, tb.ID)
	}
	got, err := e.Read(ctx, expr.Get{ID: expr.GlobalID(u.ID), Types: u.ColumnTypes()}, e.ReadTime())
	if err != nil || len(got) != 0 {
		t.Fatalf("new table holds %v (%v)", show(got), err)
	}
}

// Traces compact up to the oldest time a read holds: after churn on one
// row, a table's arrangement shrinks to its net contents once merged,
// while a held read time keeps its history readable.
func TestTracesCompact(t *testing.T) {
	ctx := context.Background()
	clock := uint64(1_000_000)
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), Clock: func() uint64 { clock += 10; return clock }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(9, 9), Diff: 1}}); err != nil {
		t.Fatal(err)
	}
	held, release := e.AcquireRead()
	for i := 0; i < 600; i++ {
		diff := int64(1)
		if i%2 == 1 {
			diff = -1
		}
		if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(1, 1), Diff: diff}}); err != nil {
			t.Fatal(err)
		}
	}
	// Settle so every worker has applied the latest compaction.
	e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(2, 2), Diff: 1}})
	get := expr.Get{ID: expr.GlobalID(tb.ID), Types: tb.ColumnTypes()}
	sinceAndLen := func() (since uint64, updates int) {
		var mu sync.Mutex
		first := true
		e.cluster.Exec(ctx, func(w int) bool {
			mu.Lock()
			defer mu.Unlock()
			tr, err := e.reg.Trace(arrange.GlobalID(tb.ID), w)
			if err != nil {
				t.Error(err)
				return true
			}
			tr.MergeAll()
			h, _ := tr.NewHandle(tr.Since())
			c, _ := h.Cursor()
			for ; c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					c.History(func(uint64, int64) { updates++ })
				}
			}
			h.Close()
			if first || tr.Since() < since {
				since, first = tr.Since(), false
			}
			return true
		})
		return since, updates
	}
	since, _ := sinceAndLen()
	if since > held {
		t.Fatalf("since %d passed the held read time %d", since, held)
	}
	// The held time still reads exactly.
	if got, err := e.Read(ctx, get, held); err != nil || show(got) != "(9,9)x1 " {
		t.Fatalf("read at the held time: %s %v", show(got), err)
	}
	release()
	e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(3, 3), Diff: 1}})
	clock += 2 * compactionEvery
	e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(4, 4), Diff: 1}})
	// Compaction is applied by each worker's arrange operator when it
	// next runs, which the write only schedules: wait for it (a bound on
	// a hang, not a measure of speed).
	since, updates := sinceAndLen()
	for deadline := time.Now().Add(30 * time.Second); (since <= held || updates > 10) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		since, updates = sinceAndLen()
	}
	if since <= held || updates > 10 {
		t.Fatalf("after release: since %d (held was %d), %d updates left", since, held, updates)
	}
	got, err := e.Read(ctx, get, e.ReadTime())
	if err != nil || show(got) != "(2,2)x1 (3,3)x1 (4,4)x1 (9,9)x1 " {
		t.Fatalf("contents after compaction: %s %v", show(got), err)
	}
}

// userDataflows is e's dataflow statistics with the system tables'
// dataflows, which every engine runs, left out of Running.
func userDataflows(e *Engine) dataflow.Stats {
	st := e.Stats()
	st.Running -= int64((len(systemTableList()) + len(introspectTableList())) * e.workers)
	return st
}

// TestNextReadChunk: a read's chunks start small and double up to
// readChunk, and stay there.
func TestNextReadChunk(t *testing.T) {
	var chunks [][]arrange.Update
	var caps []int
	for range 12 {
		n := nextReadChunk(chunks)
		caps = append(caps, n)
		chunks = append(chunks, make([]arrange.Update, n))
	}
	want := []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 4096, 4096, 4096}
	if !slices.Equal(caps, want) {
		t.Errorf("chunk sizes %v, want %v", caps, want)
	}
}
