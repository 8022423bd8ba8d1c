package coord

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"freshet/catalog"
	"freshet/expr"
)

// openAdvanceEnv opens an engine whose clock stands still unless the test
// moves it: every write takes the next timestamp, and compaction (which
// brings every table up, allowCompactionLocked) runs only when the test
// moves the clock past compactionEvery.
func openAdvanceEnv(t *testing.T, clock *atomic.Uint64) *sqlEnv {
	t.Helper()
	ctx := context.Background()
	clock.Store(1_000_000)
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), Clock: clock.Load}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	if err := RestoreDefaults(e); err != nil {
		t.Fatal(err)
	}
	return &sqlEnv{t: t, e: e, b: NewBackend(e)}
}

// within runs sql on s, failing the test if it takes past hangLimit: a
// table that should have been advanced and was not makes a read or a
// create wait for ever.
func (env *sqlEnv) within(s *Session, sql string) string {
	env.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	r := &recorder{}
	if err := s.Query(ctx, sql, r); err != nil {
		env.t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(sortedCopy(r.rows), " ")
}

// resolve returns the object named name in the default schema.
func (env *sqlEnv) resolve(name string) *catalog.Object {
	env.t.Helper()
	var o *catalog.Object
	if err := env.e.Catalog(func(c *catalog.Catalog) error {
		var err error
		o, err = c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, name)
		return err
	}); err != nil {
		env.t.Fatal(err)
	}
	return o
}

// advancedTo returns the time table name's inputs were advanced to, and
// the last fed time.
func (env *sqlEnv) advancedTo(name string) (advanced, fed uint64) {
	env.t.Helper()
	id := env.resolve(name).ID
	env.e.mu.Lock()
	defer env.e.mu.Unlock()
	return env.e.tables[id].advanced, env.e.fed
}

// systemAdvanced returns the time the first system table's inputs were
// advanced to.
func (env *sqlEnv) systemAdvanced() uint64 {
	env.e.mu.Lock()
	defer env.e.mu.Unlock()
	return env.e.tables[systemTableList()[0].id].advanced
}

// TestWriteAdvancesWhatItConcerns: a write advances the tables it writes
// and the tables that a view over them also reads, through a view over a
// view, and nothing else; a read of a table left behind brings it up
// first, and sees every write.
func TestWriteAdvancesWhatItConcerns(t *testing.T) {
	var clock atomic.Uint64
	env := openAdvanceEnv(t, &clock)
	s := env.session()
	for _, sql := range []string{
		"CREATE TABLE a (k int, v int)",
		"CREATE TABLE b (k int, w int)",
		"CREATE TABLE c (k int)",
		"CREATE TABLE d (k int, x int)",
		"CREATE MATERIALIZED VIEW ab AS SELECT a.k, count(*) AS n FROM a JOIN b ON a.k = b.k GROUP BY a.k",
		"CREATE MATERIALIZED VIEW abd AS SELECT ab.k, ab.n, d.x FROM ab JOIN d ON ab.k = d.k",
		"INSERT INTO b VALUES (1, 1)",
		"INSERT INTO d VALUES (1, 7)",
		"INSERT INTO c VALUES (5)",
		"INSERT INTO a VALUES (1, 10)",
	} {
		env.within(s, sql)
	}
	for _, name := range []string{"a", "b", "d"} {
		if got, fed := env.advancedTo(name); got != fed+1 {
			t.Errorf("table %s: advanced to %d after a write to a at %d, want %d", name, got, fed, fed+1)
		}
	}
	c, fed := env.advancedTo("c")
	if c >= fed+1 {
		t.Errorf("table c, which no view over a reads: advanced to %d by a write to a at %d", c, fed)
	}
	if sys := env.systemAdvanced(); sys >= fed+1 {
		t.Errorf("a system table: advanced to %d by a write to a at %d", sys, fed)
	}
	// Introspection counts c as up to date once its workers have taken
	// in its last write: every write to it is in.
	env.awaitQuery(s, "SELECT object || ' ' || lag_ms FROM freshet_internal.frontiers WHERE object = 'c'", "c 0")
	if c2, _ := env.advancedTo("c"); c2 != c {
		t.Fatalf("table c: advanced to %d by introspection, was %d", c2, c)
	}
	if got, want := env.within(s, "SELECT k || ' ' || n || ' ' || x FROM abd"), "1 1 7"; got != want {
		t.Fatalf("abd: %q, want %q", got, want)
	}
	// A read that builds a dataflow over c, and one that reads its
	// arrangement, bring it up first.
	if got, want := env.within(s, "SELECT count(*) FROM c"), "1"; got != want {
		t.Fatalf("count of c: %q, want %q", got, want)
	}
	if c, fed := env.advancedTo("c"); c != fed+1 {
		t.Errorf("table c: advanced to %d after a count of it at %d, want %d", c, fed, fed+1)
	}
	env.within(s, "INSERT INTO a VALUES (1, 11)")
	if got, want := env.within(s, "SELECT k FROM c"), "5"; got != want {
		t.Fatalf("c: %q, want %q", got, want)
	}
	if c, fed := env.advancedTo("c"); c != fed+1 {
		t.Errorf("table c: advanced to %d after a read of it at %d, want %d", c, fed, fed+1)
	}
	// A write to b, read only by ab's join with a, moves a and (through
	// abd) d too.
	env.within(s, "INSERT INTO b VALUES (1, 2)")
	for _, name := range []string{"a", "b", "d"} {
		if got, fed := env.advancedTo(name); got != fed+1 {
			t.Errorf("table %s: advanced to %d after a write to b at %d, want %d", name, got, fed, fed+1)
		}
	}
	if got, want := env.within(s, "SELECT k || ' ' || n || ' ' || x FROM abd"), "1 4 7"; got != want {
		t.Fatalf("abd after the write to b: %q, want %q", got, want)
	}
	// A new view over a and c hydrates (c is brought up when it
	// starts), and from then on a write to a moves c.
	env.within(s, "INSERT INTO a VALUES (2, 20)")
	env.within(s, "CREATE MATERIALIZED VIEW ac AS SELECT count(*) AS n FROM a JOIN c ON a.k < c.k")
	if got, want := env.within(s, "SELECT n FROM ac"), "3"; got != want {
		t.Fatalf("ac: %q, want %q", got, want)
	}
	env.within(s, "INSERT INTO a VALUES (4, 40)")
	if c, fed := env.advancedTo("c"); c != fed+1 {
		t.Errorf("table c, under ac: advanced to %d after a write to a at %d, want %d", c, fed, fed+1)
	}
	if got, want := env.within(s, "SELECT n FROM ac"), "4"; got != want {
		t.Fatalf("ac after a write to a: %q, want %q", got, want)
	}
	// After DROP, a write to a no longer moves b.
	env.within(s, "DROP MATERIALIZED VIEW abd")
	env.within(s, "DROP MATERIALIZED VIEW ab")
	env.within(s, "INSERT INTO a VALUES (3, 30)")
	if b, fed := env.advancedTo("b"); b >= fed+1 {
		t.Errorf("table b: advanced to %d by a write to a at %d, with no view over both", b, fed)
	}
}

// TestCompactionBringsEveryTableUp: once the compaction frontier moves,
// every table's inputs have first been advanced past it, so that no
// export compacts past a time its inputs have not passed.
func TestCompactionBringsEveryTableUp(t *testing.T) {
	var clock atomic.Uint64
	env := openAdvanceEnv(t, &clock)
	s := env.session()
	env.within(s, "CREATE TABLE a (k int)")
	env.within(s, "CREATE TABLE c (k int)")
	env.within(s, "INSERT INTO a VALUES (1)")
	if c, fed := env.advancedTo("c"); c >= fed+1 {
		t.Fatalf("table c: advanced to %d by a write to a at %d", c, fed)
	}
	env.e.mu.Lock()
	before := env.e.compacted
	env.e.mu.Unlock()
	clock.Add(2 * compactionEvery)
	// An INSERT holds its read time while its write is fed: compaction
	// moves at the write after it.
	env.within(s, "INSERT INTO a VALUES (2)")
	env.within(s, "INSERT INTO a VALUES (3)")
	env.e.mu.Lock()
	after := env.e.compacted
	env.e.mu.Unlock()
	if after == before {
		t.Fatalf("compaction did not move (%d) with the clock %d ms on", after, 2*compactionEvery)
	}
	if c, fed := env.advancedTo("c"); c != fed+1 {
		t.Errorf("table c: advanced to %d when compaction moved at %d, want %d", c, fed, fed+1)
	}
	if sys, _ := env.advancedTo("c"); env.systemAdvanced() != sys {
		t.Errorf("a system table: advanced to %d when compaction moved, want %d", env.systemAdvanced(), sys)
	}
}

// TestSubscriptionFollowsEveryWrite: the tables under a subscription move
// with every write while it runs, so that its progress follows the
// engine's time, and stop doing so once it ends.
func TestSubscriptionFollowsEveryWrite(t *testing.T) {
	var clock atomic.Uint64
	env := openAdvanceEnv(t, &clock)
	s := env.session()
	env.within(s, "CREATE TABLE a (k int)")
	env.within(s, "CREATE TABLE c (k int)")
	c := env.resolve("c")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sub, err := env.e.Subscribe(ctx, expr.Get{ID: expr.GlobalID(c.ID), Types: c.ColumnTypes()}, SubscribeOptions{Snapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	env.within(s, "INSERT INTO a VALUES (1)")
	got, fed := env.advancedTo("c")
	if got != fed+1 {
		t.Errorf("table c, under a subscription: advanced to %d by a write to a at %d, want %d", got, fed, fed+1)
	}
	for progress := uint64(0); progress <= fed; {
		b, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("the subscription's progress did not pass the write to a at %d: %v", fed, err)
		}
		progress = b.Progress
	}
	sub.Close()
	// The subscription's end is a drop of its dataflow, after which it
	// stops following: wait for that.
	for {
		env.e.mu.Lock()
		n := len(env.e.eager)
		env.e.mu.Unlock()
		if n == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the subscription's tables are still followed after it ended")
		}
		time.Sleep(time.Millisecond)
	}
	env.within(s, "INSERT INTO a VALUES (2)")
	if got, fed := env.advancedTo("c"); got >= fed+1 {
		t.Errorf("table c: advanced to %d by a write to a at %d after the subscription ended", got, fed)
	}
}
