package coord

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/planner"
	"freshet/sqlerr"
)

// The tests in this file reproduce, one each, the ways a DROP or a
// failure could break the coordinator's promises (docs/dataflow-lifecycle.md,
// "The coordinator's part"), and check that they hold.

// hangLimit bounds every wait in these tests: reaching it means a hang,
// which is the failure being tested for, never a measure of speed.
const hangLimit = 60 * time.Second

// queryErr runs sql on s and returns its error, failing the test if the
// statement does not end within hangLimit.
func (env *sqlEnv) queryErr(s *Session, sql string) error {
	env.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	err := s.Query(ctx, sql, &recorder{})
	if ctx.Err() != nil {
		env.t.Fatalf("%s: did not end within %v: %v", sql, hangLimit, err)
	}
	return err
}

// failsWith runs sql on s, which must fail with code and a message that
// contains each of parts.
func (env *sqlEnv) failsWith(s *Session, sql, code string, parts ...string) {
	env.t.Helper()
	err := env.queryErr(s, sql)
	e := sqlerr.From(err)
	if err == nil || e.Code != code {
		env.t.Fatalf("%s: got %v (%s), want %s", sql, err, e.Code, code)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			env.t.Fatalf("%s: message %q does not name %q", sql, e.Message, p)
		}
	}
}

// settled waits until the engine passes its audit (a failure is handled
// asynchronously) and fails the test if it never does.
func (env *sqlEnv) settled() {
	env.t.Helper()
	deadline := time.Now().Add(hangLimit)
	for {
		err := env.e.Audit()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			env.t.Fatalf("the engine never settled: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// awaitFailed waits until object id is marked failed.
func (env *sqlEnv) awaitFailed(id uint64) {
	env.t.Helper()
	deadline := time.Now().Add(hangLimit)
	for env.e.failedErr([]uint64{id}) == nil {
		if time.Now().After(deadline) {
			env.t.Fatalf("object %d was never marked failed", id)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFailedExportEndsItsImporters is gap 1: a materialized view that
// fails while another imports it is ended on every worker together with
// its importer; reads of either return a clear error naming the view and
// the cause (they used to hang and spin a worker); unrelated views and
// writes carry on; DROP cleans up; a restart builds them again.
func TestFailedExportEndsItsImporters(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE tp (k int, v int)")
	env.exec(s, "INSERT INTO tp VALUES (1, 10), (2, 20), (1, 5)")
	env.exec(s, "CREATE MATERIALIZED VIEW pa AS SELECT k, count(*) AS n FROM tp GROUP BY k")
	env.exec(s, "CREATE MATERIALIZED VIEW pb AS SELECT k, sum(v) AS total FROM tp GROUP BY k")
	env.exec(s, "CREATE INDEX pb_k ON pb (k)")
	env.exec(s, "CREATE MATERIALIZED VIEW pc AS SELECT count(*) AS groups FROM pb")
	env.exec(s, "CREATE VIEW pv AS SELECT k FROM pb WHERE total > 10")
	env.exec(s, "CREATE MATERIALIZED VIEW pd AS SELECT sum(v) AS total FROM tp")
	env.settled()

	if err := env.e.InjectFault(context.Background(), "pb", 1); err != nil {
		t.Fatal(err)
	}
	env.settled()
	env.failsWith(s, "SELECT * FROM pb", sqlerr.InternalError, `materialized view "pb" failed`, "injected fault")
	env.failsWith(s, "SELECT * FROM pc", sqlerr.ObjectNotInPrerequisiteState, `materialized view "pc"`, `materialized view "pb"`)
	env.failsWith(s, "SELECT * FROM pv", sqlerr.InternalError, `materialized view "pb" failed`)
	env.failsWith(s, "CREATE MATERIALIZED VIEW pe AS SELECT * FROM pb", sqlerr.InternalError, `materialized view "pb" failed`)
	env.exec(s, "INSERT INTO tp VALUES (3, 1)")
	if got := env.query(s, "SELECT * FROM pa"); got != "1,2 2,1 3,1" {
		t.Fatalf("pa after the failure: %s", got)
	}
	if got := env.query(s, "SELECT * FROM pd"); got != "36" {
		t.Fatalf("pd after the failure: %s", got)
	}
	if st := userDataflows(env.e); st.Running != 3*2 {
		t.Fatalf("running %d dataflow copies, want tp, pa and pd on 2 workers", st.Running)
	}

	// A restart builds the failed views again: the fault was injected,
	// not in their definitions.
	env.restart()
	s = env.session()
	env.settled()
	if got := env.query(s, "SELECT * FROM pc"); got != "3" {
		t.Fatalf("pc after a restart: %s", got)
	}
	if err := env.e.InjectFault(context.Background(), "pb", 0); err != nil {
		t.Fatal(err)
	}
	env.settled()
	env.failsWith(s, "SELECT * FROM pc", sqlerr.ObjectNotInPrerequisiteState, `materialized view "pc"`)
	env.exec(s, "DROP MATERIALIZED VIEW pb CASCADE")
	env.failsWith(s, "SELECT * FROM pb", sqlerr.UndefinedTable, `relation "pb" does not exist`)
	env.exec(s, "CREATE MATERIALIZED VIEW pb AS SELECT k, sum(v) AS total FROM tp GROUP BY k")
	if got := env.query(s, "SELECT * FROM pb"); got != "1,15 2,20 3,1" {
		t.Fatalf("pb created again: %s", got)
	}
	env.settled()
}

// TestFailedIndexOnAViewIsForgotten: an index that fails stops serving
// reads of its view, which are computed again instead; the view itself
// never failed.
func TestFailedIndexOnAViewIsForgotten(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1), (2)")
	env.exec(s, "CREATE VIEW v AS SELECT k FROM t WHERE k > 1")
	env.exec(s, "CREATE INDEX v_k ON v (k)")
	id := env.objectID("v_k")
	if err := env.e.InjectFault(context.Background(), "v_k", 0); err != nil {
		t.Fatal(err)
	}
	// The failure is handled when it is reported: until then a read
	// may choose the index, and end with its failure.
	env.awaitFailed(id)
	env.settled()
	if got := env.query(s, "SELECT * FROM v"); got != "2" {
		t.Fatalf("v after its index failed: %s", got)
	}
	env.exec(s, "DROP INDEX v_k")
	env.settled()
}

// TestCreateOverAnObjectDroppedMeanwhile is gap 2: a CREATE planned over
// a view that a DROP removes before the CREATE commits fails with 42P01
// naming the view, and the catalog never holds a view over a dropped one.
func TestCreateOverAnObjectDroppedMeanwhile(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "CREATE VIEW w AS SELECT k FROM t")
	for _, create := range []string{
		"CREATE MATERIALIZED VIEW n AS SELECT k FROM w",
		"CREATE VIEW n AS SELECT k FROM w",
	} {
		stmts, err := planner.Plan(s.catalog(), create)
		if err != nil {
			t.Fatal(err)
		}
		env.exec(other, "DROP VIEW w")
		_, err = s.createView(context.Background(), stmts[0].(*planner.CreateView), &recorder{})
		if e := sqlerr.From(err); err == nil || e.Code != sqlerr.UndefinedTable || e.Message != `relation "w" does not exist` {
			t.Fatalf("%s after DROP VIEW w: %v", create, err)
		}
		env.exec(s, "CREATE VIEW w AS SELECT k FROM t")
	}
	env.restart()
	env.settled()
}

// TestDropRacingCreateNeverBricksARestart is gap 2 as it was seen: DROP
// VIEW w_i and CREATE MATERIALIZED VIEW n_i over w_i, started together,
// many times. Whatever the interleaving, no n_i outlives its w_i, and
// the server restarts.
func TestDropRacingCreateNeverBricksARestart(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, a, b := env.session(), env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1), (2)")
	const rounds = 60
	for i := range rounds {
		w, n := "w_"+itoa(i), "n_"+itoa(i)
		env.exec(s, "CREATE VIEW "+w+" AS SELECT k FROM t")
		var wg sync.WaitGroup
		var dropErr, createErr error
		wg.Add(2)
		go func() { defer wg.Done(); dropErr = env.queryErr(a, "DROP VIEW "+w) }()
		go func() {
			defer wg.Done()
			createErr = env.queryErr(b, "CREATE MATERIALIZED VIEW "+n+" AS SELECT k FROM "+w)
		}()
		wg.Wait()
		switch {
		case dropErr == nil && createErr == nil:
			t.Fatalf("round %d: both the DROP and the CREATE over the dropped view succeeded", i)
		case dropErr != nil && sqlerr.Code(dropErr) != sqlerr.DependentObjectsStillExist:
			t.Fatalf("round %d: DROP: %v", i, dropErr)
		case createErr != nil && sqlerr.Code(createErr) != sqlerr.UndefinedTable:
			t.Fatalf("round %d: CREATE: %v", i, createErr)
		}
	}
	env.restart()
	env.settled()
	s = env.session()
	env.exec(s, "DROP TABLE t CASCADE")
	env.settled()
}

// TestRestartMarksAnUnbuildableObjectFailed: a catalog that holds a
// materialized view over a relation that is gone (as an older server
// could write) does not stop the server: the view, and what reads it,
// are marked failed and say why; DROP removes them.
func TestRestartMarksAnUnbuildableObjectFailed(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "CREATE TABLE u (k int)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT k FROM t")
	env.exec(s, "CREATE MATERIALIZED VIEW m2 AS SELECT count(*) FROM m")
	// Write the catalog without t, behind the engine's back.
	env.e.mu.Lock()
	tb, _ := env.e.cat.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, "t")
	err := env.e.persistCatalog(context.Background(), nil, []*catalog.Object{tb})
	env.e.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	env.restart()
	s = env.session()
	env.failsWith(s, "SELECT * FROM m", sqlerr.ObjectNotInPrerequisiteState, `materialized view "m" could not be rebuilt`, `relation "t" does not exist`)
	env.failsWith(s, "SELECT * FROM m2", sqlerr.ObjectNotInPrerequisiteState, `materialized view "m2" could not be rebuilt`, `materialized view "m"`)
	env.exec(s, "INSERT INTO u VALUES (1)")
	env.settled()
	env.exec(s, "DROP MATERIALIZED VIEW m CASCADE")
	env.settled()
	env.restart()
	env.settled()
}

// TestCascadeThroughAnIndexOnAView is gap 3: DROP TABLE … CASCADE that
// runs through an index on a view, which a materialized view imports,
// drops everything (it used to fail half-way with 55006 and leave
// objects without dataflows).
func TestCascadeThroughAnIndexOnAView(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int, v int)")
	env.exec(s, "CREATE TABLE keep (k int)")
	env.exec(s, "INSERT INTO t VALUES (1, 1), (2, 2)")
	env.exec(s, "CREATE VIEW v AS SELECT k, v FROM t WHERE v > 0")
	env.exec(s, "CREATE INDEX v_idx ON v (k)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM v")
	env.exec(s, "CREATE MATERIALIZED VIEW m_other AS SELECT sum(v) FROM t")
	env.exec(s, "CREATE MATERIALIZED VIEW m_keep AS SELECT count(*) FROM keep")
	if !strings.Contains(explain(t, env, s, "SELECT count(*) FROM v"), "v_idx") {
		t.Fatal("the plan over v does not import v_idx: the test needs it to")
	}
	// Also with the index retired first: DROP INDEX while m imports it.
	env.exec(s, "DROP INDEX v_idx")
	env.exec(s, "CREATE INDEX v_idx2 ON v (v)")
	env.exec(s, "CREATE MATERIALIZED VIEW m2 AS SELECT count(*) FROM v")
	env.settled()
	env.exec(s, "DROP TABLE t CASCADE")
	for _, name := range []string{"t", "v", "m", "m2", "m_other"} {
		env.failsWith(s, "SELECT * FROM "+name, sqlerr.UndefinedTable, `relation "`+name+`" does not exist`)
	}
	env.settled()
	if st := userDataflows(env.e); st.Running != 2*2 {
		t.Fatalf("running %d dataflow copies, want keep and m_keep on 2 workers", st.Running)
	}
	env.restart()
	env.settled()
}

// explain returns EXPLAIN's text for sql.
func explain(t *testing.T, env *sqlEnv, s *Session, sql string) string {
	t.Helper()
	r := &recorder{}
	if err := s.Query(context.Background(), "EXPLAIN "+sql, r); err != nil {
		t.Fatal(err)
	}
	return strings.Join(r.rows, "\n")
}

// TestRetiredIndexKeepsCompacting is gap 4: an index dropped while a
// materialized view imports it keeps being told how far it may compact,
// as every export is, so it does not grow with every update.
func TestRetiredIndexKeepsCompacting(t *testing.T) {
	var clock atomic.Uint64
	clock.Store(1_700_000_000_000)
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), Clock: clock.Load}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	env := &sqlEnv{t: t, e: e, b: NewBackend(e)}
	defer e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int, v int)")
	env.exec(s, "CREATE VIEW v AS SELECT k, v FROM t")
	env.exec(s, "CREATE INDEX vi ON v (k)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM v")
	var vi uint64
	e.Catalog(func(c *catalog.Catalog) error {
		o, err := c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, "vi")
		vi = o.ID
		return err
	})
	env.exec(s, "DROP INDEX vi")
	if _, ok := e.reg.Compaction(arrange.GlobalID(vi)); !ok {
		t.Fatal("the dropped index is not retired: m imports it, so the test needs it to be")
	}
	before, _ := e.reg.Compaction(arrange.GlobalID(vi))
	for i := range 5 {
		clock.Add(2 * compactionEvery)
		env.exec(s, "INSERT INTO t VALUES (1, "+itoa(i)+")")
	}
	after, _ := e.reg.Compaction(arrange.GlobalID(vi))
	errAfter, _ := e.reg.Compaction(compute.ErrorsID(expr.GlobalID(vi)))
	if after <= before || errAfter <= before {
		t.Fatalf("the retired index's compaction stayed at %d (errors %d) across writes, from %d", after, errAfter, before)
	}
	if got := env.query(s, "SELECT * FROM m"); got != "5" {
		t.Fatalf("m: %s", got)
	}
	env.exec(s, "DROP MATERIALIZED VIEW m")
	if _, ok := e.reg.Compaction(arrange.GlobalID(vi)); ok {
		t.Fatal("the retired index outlived its last importer")
	}
	env.settled()
}

// TestDropWaitsWithoutTheEngineLock is the stall the issue measured: a
// DROP waits for the workers to apply it (behind whatever step they are
// in), but not with the engine's lock, so a write to an unrelated table
// completes meanwhile. A blocked worker stands in for a long step.
func TestDropWaitsWithoutTheEngineLock(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "CREATE TABLE u (k int)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t")

	unblock := env.blockWorker()
	defer unblock()
	dropped := make(chan error, 1)
	go func() { dropped <- env.queryErr(s, "DROP MATERIALIZED VIEW m") }()
	// The drop has committed to the catalog once m is gone from it; it
	// then waits for worker 0.
	deadline := time.Now().Add(hangLimit)
	for env.e.catalogHas("m") {
		if time.Now().After(deadline) {
			t.Fatal("the DROP never committed")
		}
		time.Sleep(time.Millisecond)
	}
	// COPY writes without reading (INSERT … VALUES computes its rows in
	// a dataflow, which the blocked worker would hold up).
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	if err := other.Query(ctx, "COPY u FROM STDIN", &recorder{copyData: "1\n"}); err != nil {
		t.Fatalf("a write to an unrelated table during the DROP: %v", err)
	}
	select {
	case err := <-dropped:
		t.Fatalf("the DROP returned (%v) while a worker could not have applied it", err)
	default:
	}
	unblock()
	if err := <-dropped; err != nil {
		t.Fatal(err)
	}
	env.settled()
}

// blockWorker holds worker 0 between steps until the returned function
// is called (once or more): a stand-in for a long operator step, so that
// tests can hold a statement in flight for as long as they like. The
// caller must unblock on every way out, or closing the engine waits for
// the worker forever.
func (env *sqlEnv) blockWorker() (unblock func()) {
	release := make(chan struct{})
	var once sync.Once
	blocked := make(chan struct{})
	go env.e.cluster.Exec(context.Background(), func(w int) bool {
		if w == 0 {
			close(blocked)
			<-release
		}
		return true
	})
	<-blocked
	return func() { once.Do(func() { close(release) }) }
}

// catalogHas reports whether the default schema holds an object name.
func (e *Engine) catalogHas(name string) bool {
	err := e.Catalog(func(c *catalog.Catalog) error {
		_, err := c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, name)
		return err
	})
	return err == nil
}

// TestWriteRacingDropTableNamesTheTable: a write planned before its
// table's drop and committed after it gets 42P01 with the table's name,
// never an internal id.
func TestWriteRacingDropTableNamesTheTable(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE gone (k int)")
	stmts, err := planner.Plan(s.catalog(), "INSERT INTO gone VALUES (1)")
	if err != nil {
		t.Fatal(err)
	}
	ins := stmts[0].(*planner.Insert)
	env.exec(other, "DROP TABLE gone")
	_, _, err = s.writeRows(context.Background(), ins.Table, ins.Plan, 0, nil)
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.UndefinedTable || e.Message != `relation "gone" does not exist` {
		t.Fatalf("a write to a table dropped meanwhile: %v", err)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestDropRefusesAndChangesNothing: should the catalog ever miss a
// dependency (a view that reads a table without recording it), a DROP of
// what it reads is refused with 55006 naming the reader, before anything
// is dropped: the catalog, the dataflows and the data are as they were.
func TestDropRefusesAndChangesNothing(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int, v int)")
	env.exec(s, "INSERT INTO t VALUES (1, 2)")
	var tb *catalog.Object
	env.e.Catalog(func(c *catalog.Catalog) error {
		var err error
		tb, err = c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, "t")
		return err
	})
	hidden := &catalog.Object{Kind: catalog.MaterializedView, Name: "hidden", Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
		Columns: []catalog.Column{{Name: "k", Type: tb.Columns[0].Type}, {Name: "sum", Type: tb.Columns[1].Type}}}
	if err := env.e.CreateMaterializedView(context.Background(), hidden, sumByKey(tb), nil); err != nil {
		t.Fatal(err)
	}
	env.failsWith(s, "DROP TABLE t CASCADE", sqlerr.ObjectInUse, `table "t"`, `materialized view "hidden"`)
	if got := env.query(s, "SELECT * FROM t"); got != "1,2" {
		t.Fatalf("t after the refused drop: %s", got)
	}
	env.settled()
	env.exec(s, "DROP MATERIALIZED VIEW hidden")
	env.exec(s, "DROP TABLE t")
	env.settled()
}

// TestReadThatFailsEndsWithItsFailure: a transient read whose own
// dataflow fails (here an injected panic on worker 1, while worker 0 has
// not even built it) ends at once with XX000 naming the failure, never
// with a bare runtime error, and leaves nothing behind.
func TestReadThatFailsEndsWithItsFailure(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT k FROM t")
	env.exec(s, "INSERT INTO t VALUES (1), (2)")

	unblock := env.blockWorker()
	defer unblock()
	done := make(chan error, 1)
	go func() { done <- s.Query(context.Background(), "SELECT count(*) FROM m", &recorder{}) }()
	var id dataflow.ID
	deadline := time.Now().Add(hangLimit)
	for id == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the read never built its dataflow on worker 1")
		}
		time.Sleep(time.Millisecond)
		env.e.readsMu.Lock()
		for r := range env.e.reads {
			id = r.dataflow
		}
		env.e.readsMu.Unlock()
	}
	// The fault command completes only once worker 0 has taken it too.
	injected := make(chan error, 1)
	go func() { injected <- env.e.cluster.InjectFault(context.Background(), id, 1, "injected fault in a read") }()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangLimit):
		unblock()
		t.Fatal("the failed read did not end while worker 0 was busy")
	}
	if e := sqlerr.From(err); e == nil || e.Code != sqlerr.InternalError || !strings.Contains(e.Message, "the query failed on worker 1") || !strings.Contains(e.Message, "injected fault in a read") {
		t.Fatalf("the failed read returned %v (%v), want XX000 naming its failure", err, sqlerr.Code(err))
	}
	unblock()
	if err := <-injected; err != nil {
		t.Fatal(err)
	}
	env.settled()
	if got := env.query(s, "SELECT count(*) FROM m"); got != "2" {
		t.Fatalf("a read after the failed one: %s", got)
	}
}

// TestDropKeepsWhatAnUncountedImporterReads: a dataflow that imports an
// index but is neither an object's nor a read's (as one on its way out
// that nobody marked as ending) is not counted by the drop's plan, and
// the runtime refuses the index's drop. The DROP still succeeds, the
// index's dataflow stays, retired, while that importer runs (no state
// pulled from under it), and goes when it does: the engine settles with
// nothing left behind.
func TestDropKeepsWhatAnUncountedImporterReads(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b int)")
	env.exec(s, "INSERT INTO t VALUES (1, 2), (3, 4)")
	env.exec(s, "CREATE INDEX i ON t (a)")
	ix := env.resolve("i")
	env.e.mu.Lock()
	indexFlow, at := env.e.dataflows[ix.ID], env.e.fed
	env.e.mu.Unlock()
	stray, err := env.e.cluster.Build(context.Background(), at, func(b *dataflow.Builder) {
		if _, err := env.e.reg.Import(b, arrange.GlobalID(ix.ID), "stray"); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	env.exec(s, "DROP INDEX i")
	env.e.mu.Lock()
	_, kept := env.e.retired[indexFlow]
	env.e.mu.Unlock()
	if !kept {
		t.Fatal("the index's dataflow, still imported, is not kept as retired")
	}
	if got := env.query(s, "SELECT a, b FROM t ORDER BY a"); got != "1,2 3,4" {
		t.Fatalf("t after the drop: %q", got)
	}
	if err := env.e.cluster.Drop(context.Background(), stray); err != nil {
		t.Fatal(err)
	}
	env.settled()
}

// TestCreatePlannedOverAnIndexDroppedMeanwhile: a CREATE is planned while
// view v has an index, so its plan reads v through the index, and it
// commits after a DROP INDEX has taken the index out of the catalog but
// before that DROP has dropped the index's dataflow (it is ending a read
// of the index, without the engine's lock). The create depends on v,
// which is still there: it used to build a dataflow that imported the
// dropped index, an importer the DROP's plan had not counted, and the
// runtime refused the index's drop (the importer the chaos test found).
// The create now fails as a stale plan (40001), the index's dataflow is
// dropped, and nothing imports it: for a materialized view, and for an
// index on a view that reads v.
func TestCreatePlannedOverAnIndexDroppedMeanwhile(t *testing.T) {
	for _, kind := range []string{"materialized view", "index"} {
		t.Run(kind, func(t *testing.T) {
			env := openSQL(t, t.TempDir())
			defer func() { env.e.Close() }()
			s, other := env.session(), env.session()
			env.exec(s, "CREATE TABLE t (k int, v int)")
			env.exec(s, "INSERT INTO t VALUES (1, 1), (2, 2)")
			env.exec(s, "CREATE VIEW v AS SELECT k, v FROM t WHERE v > 0")
			env.exec(s, "CREATE VIEW w AS SELECT k FROM v")
			env.exec(s, "CREATE INDEX v_idx ON v (k)")
			ix, w := env.resolve("v_idx"), env.resolve("w")
			env.e.mu.Lock()
			indexFlow := env.e.dataflows[ix.ID]
			env.e.mu.Unlock()

			// The create is planned, as its session plans it, before the
			// DROP: the plan reads v through v_idx.
			var create func() error
			var plan expr.Relation
			switch kind {
			case "materialized view":
				stmts, err := planner.Plan(s.catalog(), "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM v")
				if err != nil {
					t.Fatal(err)
				}
				st := stmts[0].(*planner.CreateView)
				o := s.objectFor(catalog.MaterializedView, st.Name, st.Columns, st.Query)
				names, err := s.dependOn(o, st)
				if err != nil {
					t.Fatal(err)
				}
				plan = st.Plan
				create = func() error { return env.e.CreateMaterializedView(context.Background(), o, st.Plan, names) }
			case "index":
				var err error
				if plan, err = s.relationPlan(w); err != nil {
					t.Fatal(err)
				}
				o := &catalog.Object{Kind: catalog.Index, Name: "w_idx", Database: w.Database, Schema: w.Schema,
					On: w.ID, DependsOn: []uint64{w.ID}, SQL: "k"}
				create = func() error {
					return env.e.CreateIndex(context.Background(), o, plan, []expr.Scalar{expr.Column{Index: 0}}, "w")
				}
			}
			if !slices.Contains(dependencies(plan), ix.ID) {
				t.Fatal("the plan does not read v through v_idx, which the test needs")
			}

			// A read of v_idx in flight: the DROP ends it, and waits for
			// it to end without the engine's lock.
			rctx, read, err := env.e.beginRead(context.Background(), []uint64{ix.ID})
			if err != nil {
				t.Fatal(err)
			}
			dropped := make(chan error, 1)
			go func() { dropped <- env.queryErr(other, "DROP INDEX v_idx") }()
			<-rctx.Done()
			if env.e.catalogHas("v_idx") {
				t.Fatal("the DROP ended the read before it committed")
			}
			// The create commits between the DROP's commit and its
			// dataflows' drop.
			createErr := create()
			env.e.endRead(read)
			if err := <-dropped; err != nil {
				t.Fatalf("DROP INDEX v_idx: %v", err)
			}

			if c := sqlerr.Code(createErr); c != sqlerr.SerializationFailure {
				t.Fatalf("the create planned before DROP INDEX v_idx: %v (%s), want 40001", createErr, c)
			}
			if importers := env.e.reg.Importers(arrange.GlobalID(ix.ID)); len(importers) > 0 {
				t.Errorf("dataflows %v import v_idx after DROP INDEX returned", importers)
			}
			env.e.mu.Lock()
			_, kept := env.e.retired[indexFlow]
			env.e.mu.Unlock()
			if kept {
				t.Errorf("the runtime refused the drop of v_idx's dataflow %d, which stays, retired", indexFlow)
			}
			env.settled()
			// Planned again, the create reads v itself.
			if kind == "materialized view" {
				env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM v")
				if got := env.query(s, "SELECT * FROM m"); got != "2" {
					t.Fatalf("m: %q, want 2", got)
				}
			} else {
				env.exec(s, "CREATE INDEX w_idx ON w (k)")
				if got := env.query(s, "SELECT k FROM w ORDER BY k"); got != "1 2" {
					t.Fatalf("w: %q, want 1 2", got)
				}
			}
			env.settled()
		})
	}
}
