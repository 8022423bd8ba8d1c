package coord

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/sqlerr"
)

// slowView is a view whose hydration takes minutes: 400M joined rows.
const slowView = "CREATE MATERIALIZED VIEW big AS SELECT count(*) FROM generate_series(1, 20000) AS a(x), generate_series(1, 20000) AS b(x)"

// awaitCreating waits until a create of the object named name is
// hydrating.
func (env *sqlEnv) awaitCreating(name string) {
	env.t.Helper()
	deadline := time.Now().Add(hangLimit)
	for time.Now().Before(deadline) {
		env.e.readsMu.Lock()
		n := len(env.e.creating)
		env.e.readsMu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	env.t.Fatalf("%s never started hydrating", name)
}

// objectID returns the id of the object named name, 0 if there is none.
func (env *sqlEnv) objectID(name string) uint64 {
	env.t.Helper()
	var id uint64
	if err := env.e.Catalog(func(c *catalog.Catalog) error {
		if o, err := c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, name); err == nil {
			id = o.ID
		}
		return nil
	}); err != nil {
		env.t.Fatal(err)
	}
	return id
}

// TestCreateAnswersOnceHydrated: CREATE MATERIALIZED VIEW and CREATE INDEX
// answer once their dataflow's output has passed the time they were built
// at, so every row written before them is in them.
func TestCreateAnswersOnceHydrated(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t SELECT x FROM generate_series(1, 400) AS g(x)")
	for _, c := range []struct{ create, name string }{
		{"CREATE MATERIALIZED VIEW pairs AS SELECT a.k, b.k AS k2 FROM t AS a, t AS b WHERE a.k <= b.k", "pairs"},
		{"CREATE INDEX pairs_k ON pairs (k2)", "pairs_k"},
	} {
		env.e.mu.Lock()
		fed := env.e.fed
		env.e.mu.Unlock()
		env.exec(s, c.create)
		id := env.objectID(c.name)
		var behind atomic.Int32
		if err := env.e.cluster.Exec(context.Background(), func(w int) bool {
			tr, err := env.e.reg.Trace(arrange.GlobalID(id), w)
			if err != nil || tr.Upper() <= fed {
				behind.Add(1)
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if behind.Load() != 0 {
			t.Fatalf("%s answered before its dataflow passed the time it was built at", c.create)
		}
	}
	if got := env.query(s, "SELECT count(*) FROM pairs"); got != "80200" {
		t.Fatalf("count = %s", got)
	}
	env.settled()
}

// TestCreateHydrationBounded: a CREATE whose hydration runs past the
// statement_timeout, or is cancelled, ends with 57014 and is undone: the
// view is gone, its dataflow with it, and the name is free again.
func TestCreateHydrationBounded(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "SET statement_timeout = '200ms'")
	env.fails(s, slowView, sqlerr.QueryCanceled, "canceling statement due to statement timeout", "")
	env.failsWith(s, "SELECT * FROM big", sqlerr.UndefinedTable)
	env.settled()

	env.exec(s, "SET statement_timeout = 0")
	pid := env.query(s, "SELECT pg_backend_pid()")
	done := make(chan error, 1)
	go func() { done <- s.Query(context.Background(), slowView, &recorder{}) }()
	env.awaitCreating("big")
	// Nothing may be created over a view whose create may yet be undone.
	env.failsWith(other, "CREATE MATERIALIZED VIEW over_big AS SELECT * FROM big", sqlerr.ObjectNotInPrerequisiteState, "still being created")
	env.exec(other, "SELECT pg_cancel_backend("+pid+")")
	if err := <-done; sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("the cancelled create: %v", err)
	}
	env.failsWith(s, "SELECT * FROM big", sqlerr.UndefinedTable)
	env.exec(s, "CREATE MATERIALIZED VIEW big AS SELECT 1 AS one")
	if got := env.query(other, "SELECT * FROM big"); got != "1" {
		t.Fatalf("the view made again: %s", got)
	}
	env.settled()
}

// TestCreateHydrationOverMemoryLimit: a create whose hydration would take
// the server past its memory limit fails with 53200 naming it, and is
// undone; installed views carry on. With nothing left to cancel and the
// heap still over, writes wait, and are refused whole when it stays over.
func TestCreateHydrationOverMemoryLimit(t *testing.T) {
	var heap atomic.Int64
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), MemoryLimit: 1 << 30, heap: heap.Load}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	env := &sqlEnv{t: t, e: e, b: NewBackend(e)}
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t")

	done := make(chan error, 1)
	go func() { done <- s.Query(ctx, slowView, &recorder{}) }()
	env.awaitCreating("big")
	heap.Store(2 << 30)
	err = <-done
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.OutOfMemory || !strings.Contains(e.Detail, "CREATE MATERIALIZED VIEW big") {
		t.Fatalf("a create past the memory limit: %v (detail %q)", err, sqlerr.From(err).Detail)
	}
	env.failsWith(s, "SELECT * FROM big", sqlerr.UndefinedTable)

	// Still over, with nothing to cancel: writes wait, then are refused.
	defer func(d time.Duration) { writeMemoryWait = d }(writeMemoryWait)
	writeMemoryWait = 100 * time.Millisecond
	deadline := time.Now().Add(hangLimit)
	for !e.memoryOver.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the governor never held writes back")
		}
		time.Sleep(time.Millisecond)
	}
	env.failsWith(other, "INSERT INTO t VALUES (2)", sqlerr.OutOfMemory)
	heap.Store(0)
	for e.memoryOver.Load() {
		time.Sleep(time.Millisecond)
	}
	env.exec(other, "INSERT INTO t VALUES (3)")
	if got := env.query(s, "SELECT * FROM m"); got != "2" {
		t.Fatalf("the view after the refused write: %s (want 2: rows 1 and 3)", got)
	}
	env.settled()
}

// noticeRecorder is a recorder that keeps the notices it is sent, which
// may come from a goroutine of the statement's.
type noticeRecorder struct {
	recorder
	mu      sync.Mutex
	notices []string
}

func (r *noticeRecorder) Notice(n *sqlerr.Error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices = append(r.notices, n.Message)
	return nil
}

func (r *noticeRecorder) taken() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.notices)
}

var progressNotice = regexp.MustCompile(`^hydrating (\w+): (\d+)% \((\d+k?) of (\d+k?) records read\)$`)

// TestCreateReportsHydrationProgress: a create whose imports hold at
// least the threshold of records sends NOTICE lines of its progress, the
// first as it starts and then as the share read changes, never past
// 100% and never backwards; one under the threshold sends none. While it
// runs, freshet_internal.hydration has its records read of records to
// read, and once done, all of them.
func TestCreateReportsHydrationProgress(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), progress: &progressConfig{min: 3000, every: time.Millisecond}}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close() }()
	env := &sqlEnv{t: t, e: e, b: NewBackend(e)}
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE small (k int)")
	env.exec(s, "INSERT INTO small SELECT x FROM generate_series(1, 2999) AS g(x)")
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t SELECT x FROM generate_series(1, 20000) AS g(x)")

	r := &noticeRecorder{}
	if err := s.Query(ctx, "CREATE MATERIALIZED VIEW under AS SELECT k % 10 AS d, count(*) FROM small GROUP BY 1", r); err != nil {
		t.Fatal(err)
	}
	if n := r.taken(); len(n) != 0 {
		t.Fatalf("a create under the threshold sent %q", n)
	}

	r = &noticeRecorder{}
	if err := s.Query(ctx, "CREATE MATERIALIZED VIEW v AS SELECT k % 10 AS d, count(*) FROM t GROUP BY 1", r); err != nil {
		t.Fatal(err)
	}
	notices := r.taken()
	if len(notices) == 0 {
		t.Fatal("no progress notice")
	}
	last := -1
	for _, n := range notices {
		m := progressNotice.FindStringSubmatch(n)
		if m == nil || m[1] != "v" || m[4] != "20k" {
			t.Fatalf("notice %q", n)
		}
		pct, _ := strconv.Atoi(m[2])
		if pct < last || pct > 100 {
			t.Fatalf("notices %q", notices)
		}
		last = pct
	}
	if got := env.query(s, "SELECT object, hydrated, records_read, records_to_read FROM freshet_internal.hydration ORDER BY 1"); got != "under,t,2999,2999 v,t,20000,20000" {
		t.Fatalf("hydration once done: %s", got)
	}

	// A create that takes long: the relation shows it reading.
	done := make(chan error, 1)
	go func() {
		done <- s.Query(ctx, "CREATE MATERIALIZED VIEW big AS SELECT count(*) FROM t AS a, t AS b", &recorder{})
	}()
	env.awaitCreating("big")
	got := env.query(other, "SELECT hydrated, records_read <= records_to_read, records_to_read FROM freshet_internal.hydration WHERE object = 'big'")
	if got != "f,t,20000" {
		t.Fatalf("hydration while big hydrates: %s (the self-join imports t once)", got)
	}
	env.exec(other, "DROP MATERIALIZED VIEW big")
	if err := <-done; err == nil {
		t.Fatal("the create of a view dropped while it hydrated succeeded")
	}
	env.settled()
}

func TestCountText(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 9999: "9999", 12_345: "12k", 999_999: "999k",
		1_000_000: "1M", 1_850_000: "1.8M", 4_000_000: "4M", 12_500_000: "12M"} {
		if got := countText(n); got != want {
			t.Errorf("countText(%d) = %q, want %q", n, got, want)
		}
	}
}
