package coord

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/repr"
	"freshet/sqlerr"
)

// recorder is a pgwire.QueryWriter that keeps a statement's rows as
// text, and feeds COPY FROM STDIN from copyData.
type recorder struct {
	rows     []string
	copyData string
	// copied collects what COPY TO STDOUT sends.
	copied strings.Builder
}

func (r *recorder) Row(values [][]byte) error {
	vals := make([]string, len(values))
	for i, v := range values {
		vals[i] = "NULL"
		if v != nil {
			vals[i] = string(v)
		}
	}
	r.rows = append(r.rows, strings.Join(vals, ","))
	return nil
}
func (r *recorder) Notice(*sqlerr.Error) error { return nil }
func (r *recorder) Flush() error               { return nil }
func (r *recorder) CopyIn(pgwire.CopyFormat) (io.Reader, error) {
	return strings.NewReader(r.copyData), nil
}
func (r *recorder) CopyOut(pgwire.CopyFormat) (io.Writer, error) { return &r.copied, nil }
func (r *recorder) Describe([]pgwire.Column) error               { return nil }
func (r *recorder) Complete(string) error                        { return nil }

// sqlEnv is an engine with the server's planner and a helper to run SQL
// on sessions of it.
type sqlEnv struct {
	t   testing.TB
	dir string
	e   *Engine
	b   *Backend
}

func openSQL(t testing.TB, dir string) *sqlEnv {
	t.Helper()
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: dir}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if err := RestoreDefaults(e); err != nil {
		t.Fatal(err)
	}
	return &sqlEnv{t: t, dir: dir, e: e, b: NewBackend(e)}
}

// restart closes the engine and opens it again on the same directory.
func (env *sqlEnv) restart() {
	env.e.Close()
	*env = *openSQL(env.t, env.dir)
}

func (env *sqlEnv) session() *Session {
	env.t.Helper()
	s, err := env.b.NewSession(context.Background(), pgwire.Startup{User: "u", Database: catalog.DefaultDatabase})
	if err != nil {
		env.t.Fatal(err)
	}
	return s.(*Session)
}

// exec runs sql on s and fails the test on an error.
func (env *sqlEnv) exec(s *Session, sql string) {
	env.t.Helper()
	if err := s.Query(context.Background(), sql, &recorder{}); err != nil {
		env.t.Fatalf("%s: %v", sql, err)
	}
}

// query runs sql on s and returns its rows, sorted, one per line.
func (env *sqlEnv) query(s *Session, sql string) string {
	env.t.Helper()
	r := &recorder{}
	if err := s.Query(context.Background(), sql, r); err != nil {
		env.t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(sortedCopy(r.rows), " ")
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// fails runs sql on s, which must fail with code, message and detail.
func (env *sqlEnv) fails(s *Session, sql, code, msg, detail string) {
	env.t.Helper()
	err := s.Query(context.Background(), sql, &recorder{})
	e := sqlerr.From(err)
	if err == nil || e.Code != code || e.Message != msg || e.Detail != detail {
		env.t.Fatalf("%s: got %v (%s, detail %q), want %s %q detail %q", sql, err, e.Code, e.Detail, code, msg, detail)
	}
}

const dupKey = "duplicate key value violates unique constraint %q"

// committedCounts shows the committed counts of every unique key of
// table name, to check that failed writes leave them alone.
func (env *sqlEnv) committedCounts(name string) string {
	env.t.Helper()
	var out []string
	env.e.Catalog(func(c *catalog.Catalog) error {
		o, err := c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, name)
		if err != nil {
			env.t.Fatal(err)
		}
		tk := env.e.keys[o.ID]
		if tk == nil {
			return nil
		}
		for _, k := range tk.keys {
			var vals []string
			for v, n := range k.counts {
				vals = append(vals, fmt.Sprintf("%s:%d", tk.describe(k, []byte(v)), n))
			}
			if len(k.inflight) > 0 {
				env.t.Errorf("key %s has values in flight: %v", k.def.Name, k.inflight)
			}
			out = append(out, k.def.Name+"["+strings.Join(sortedCopy(vals), " ")+"]")
		}
		return nil
	})
	return strings.Join(out, " ")
}

// Inserts that repeat a key value, of a row already there or of another
// row of the same statement, fail with PostgreSQL's error and change
// nothing; NULLs never conflict.
func TestUniqueInsert(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (id int PRIMARY KEY, z int UNIQUE, a int, b text, UNIQUE (a, b))")
	env.exec(s, "INSERT INTO t VALUES (1, 10, 1, 'x'), (2, 20, 1, 'y')")
	before := env.committedCounts("t")
	const want = "t_pkey[(id)=(1):1 (id)=(2):1] t_z_key[(z)=(10):1 (z)=(20):1] t_a_b_key[(a, b)=(1, x):1 (a, b)=(1, y):1]"
	if before != want {
		t.Fatalf("counts %s, want %s", before, want)
	}

	env.fails(s, "INSERT INTO t VALUES (1, 30, 3, 'z')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_pkey"), "Key (id)=(1) already exists.")
	env.fails(s, "INSERT INTO t VALUES (3, 10, 3, 'z')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_z_key"), "Key (z)=(10) already exists.")
	env.fails(s, "INSERT INTO t VALUES (3, 30, 1, 'x')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_a_b_key"), "Key (a, b)=(1, x) already exists.")
	// Within one statement; the primary key is checked first.
	env.fails(s, "INSERT INTO t VALUES (5, 50, 5, 'p'), (6, 50, 5, 'p')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_z_key"), "Key (z)=(50) already exists.")
	env.fails(s, "INSERT INTO t VALUES (5, 50, 5, 'p'), (5, 50, 5, 'p')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_pkey"), "Key (id)=(5) already exists.")
	// INSERT … SELECT of the table's own rows repeats every value.
	env.fails(s, "INSERT INTO t SELECT id + 10, z, a, b FROM t", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_z_key"), "Key (z)=(10) already exists.")
	if got := env.query(s, "SELECT id FROM t"); got != "1 2" {
		t.Fatalf("rows after failed inserts: %s", got)
	}
	if got := env.committedCounts("t"); got != before {
		t.Fatalf("failed inserts changed the counts: %s", got)
	}

	// NULLs never conflict, nor does a key with any NULL column.
	env.exec(s, "INSERT INTO t VALUES (3, NULL, 1, NULL), (4, NULL, 1, NULL), (5, NULL, NULL, 'x'), (6, NULL, NULL, 'x')")
	if got := env.query(s, "SELECT count(*) FROM t"); got != "6" {
		t.Fatalf("count after NULL keys: %s", got)
	}
	// A key value that needs quoting shows as PostgreSQL shows it.
	env.exec(s, `CREATE TABLE q ("Key Col" text PRIMARY KEY)`)
	env.exec(s, "INSERT INTO q VALUES ('it''s')")
	env.fails(s, "INSERT INTO q VALUES ('it''s')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "q_pkey"), `Key ("Key Col")=(it's) already exists.`)
	// Values equal as SQL values are equal keys: 1.0 = 1.000. The
	// detail shows the value as the column's type does.
	env.exec(s, "CREATE TABLE n (x numeric(5, 2) UNIQUE)")
	env.exec(s, "INSERT INTO n VALUES (1.0)")
	env.fails(s, "INSERT INTO n VALUES (1.000)", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "n_x_key"), "Key (x)=(1.00) already exists.")
}

// UPDATE is judged on the statement's final state: values may move
// between rows, but no two rows may end with one value.
func TestUniqueUpdate(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, v text)")
	env.exec(s, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	env.fails(s, "UPDATE t SET a = 2 WHERE a = 1", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_pkey"), "Key (a)=(2) already exists.")
	env.fails(s, "UPDATE t SET a = 9 WHERE a < 3", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_pkey"), "Key (a)=(9) already exists.")
	// A swap, and a shift that PostgreSQL (row by row) refuses, pass.
	env.exec(s, "UPDATE t SET a = 3 - a WHERE a IN (1, 2)")
	env.exec(s, "UPDATE t SET a = a + 1")
	if got := env.query(s, "SELECT a, v FROM t"); got != "2,two 3,one 4,three" {
		t.Fatalf("after the updates: %s", got)
	}
	// Changing only other columns rewrites the row with its own value.
	env.exec(s, "UPDATE t SET v = upper(v)")
	if got := env.committedCounts("t"); got != "t_pkey[(a)=(2):1 (a)=(3):1 (a)=(4):1]" {
		t.Fatalf("counts: %s", got)
	}
}

// COPY FROM STDIN is checked like INSERT: a value already there or
// repeated in the data fails the whole COPY.
func TestUniqueCopy(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b int, PRIMARY KEY (a, b))")
	copyIn := func(data string) error {
		return s.Query(context.Background(), "COPY t FROM STDIN", &recorder{copyData: data})
	}
	if err := copyIn("1\t1\n1\t2\n"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ data, detail string }{
		{"2\t2\n1\t1\n", "Key (a, b)=(1, 1) already exists."},
		{"3\t3\n4\t4\n3\t3\n", "Key (a, b)=(3, 3) already exists."},
	} {
		err := copyIn(tt.data)
		if e := sqlerr.From(err); e.Code != sqlerr.UniqueViolation || e.Message != fmt.Sprintf(dupKey, "t_pkey") || e.Detail != tt.detail {
			t.Fatalf("COPY %q: %v (detail %q)", tt.data, err, e.Detail)
		}
	}
	if got := env.query(s, "SELECT a, b FROM t"); got != "1,1 1,2" {
		t.Fatalf("rows after failed COPYs: %s", got)
	}
}

// A transaction block's statement fails as soon as it repeats a value
// (as in PostgreSQL), counting the block's own earlier writes; a block
// whose values another session took first fails at COMMIT.
func TestUniqueTransactionBlock(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (a int UNIQUE)")
	env.exec(s, "INSERT INTO t VALUES (1)")

	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO t VALUES (2)")
	env.fails(s, "INSERT INTO t VALUES (2)", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_a_key"), "Key (a)=(2) already exists.")
	env.fails(s, "INSERT INTO t VALUES (3)", sqlerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block", "")
	env.exec(s, "ROLLBACK")

	// Freeing a value and taking it again in one block is fine.
	env.exec(s, "BEGIN")
	env.exec(s, "DELETE FROM t WHERE a = 1")
	env.exec(s, "INSERT INTO t VALUES (1), (4)")
	env.exec(s, "COMMIT")

	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO t VALUES (5)")
	env.exec(other, "INSERT INTO t VALUES (5)")
	env.fails(s, "COMMIT", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_a_key"), "Key (a)=(5) already exists.")
	// A multi-statement query is one implicit transaction.
	env.fails(s, "INSERT INTO t VALUES (6); INSERT INTO t VALUES (6)", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_a_key"), "Key (a)=(6) already exists.")
	if got := env.query(s, "SELECT a FROM t"); got != "1 4 5" {
		t.Fatalf("rows: %s", got)
	}
	if got := env.committedCounts("t"); got != "t_a_key[(a)=(1):1 (a)=(4):1 (a)=(5):1]" {
		t.Fatalf("counts: %s", got)
	}
}

// CREATE UNIQUE INDEX over rows that repeat a value fails and leaves
// nothing behind; over distinct values it adds a key under the index's
// name, which DROP INDEX removes.
func TestUniqueIndex(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text)")
	env.exec(s, "INSERT INTO t VALUES (1, 'x'), (1, 'y'), (NULL, 'z'), (NULL, 'z')")
	env.fails(s, "CREATE UNIQUE INDEX t_a ON t (a)", sqlerr.UniqueViolation, `could not create unique index "t_a"`, "Key (a)=(1) is duplicated.")
	env.fails(s, "CREATE UNIQUE INDEX t_b ON t (b)", sqlerr.UniqueViolation, `could not create unique index "t_b"`, "Key (b)=(z) is duplicated.")
	env.e.Catalog(func(c *catalog.Catalog) error {
		if _, err := c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, "t_a"); err == nil {
			t.Error("the failed index is in the catalog")
		}
		return nil
	})
	if got := env.committedCounts("t"); got != "" {
		t.Fatalf("a failed index left keys: %s", got)
	}
	// The same rows, told apart by both columns, are unique.
	env.exec(s, "CREATE UNIQUE INDEX t_ab ON t (a, b)")
	env.fails(s, "INSERT INTO t VALUES (1, 'y')", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_ab"), "Key (a, b)=(1, y) already exists.")
	env.exec(s, "INSERT INTO t VALUES (2, 'y'), (NULL, 'y')")
	env.fails(s, "CREATE UNIQUE INDEX t_ab ON t (b)", sqlerr.DuplicateTable, `relation "t_ab" already exists`, "")
	env.exec(s, "CREATE UNIQUE INDEX IF NOT EXISTS t_ab ON t (b)")
	env.fails(s, "CREATE UNIQUE INDEX bad ON t ((a + 1))", sqlerr.FeatureNotSupported, "unique indexes on expressions not supported", "")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT a FROM t")
	env.fails(s, "CREATE UNIQUE INDEX bad ON m (a)", sqlerr.FeatureNotSupported, "unique indexes on materialized views not supported", "")
	env.exec(s, "DROP INDEX t_ab")
	env.exec(s, "INSERT INTO t VALUES (1, 'y')")
	if got := env.query(s, "SELECT count(*) FROM t WHERE a = 1 AND b = 'y'"); got != "2" {
		t.Fatalf("after DROP INDEX: %s", got)
	}
	if got := env.committedCounts("t"); got != "" {
		t.Fatalf("DROP INDEX left keys: %s", got)
	}
	// DROP TABLE takes the table's keys with it.
	env.exec(s, "CREATE TABLE p (a int PRIMARY KEY)")
	env.exec(s, "CREATE UNIQUE INDEX p_a ON p (a)")
	env.exec(s, "DROP TABLE p")
	env.e.Catalog(func(c *catalog.Catalog) error {
		for id := range env.e.keys {
			if c.Get(id) == nil {
				t.Errorf("keys of dropped table %d left", id)
			}
		}
		return nil
	})
}

// Keys and their counts survive a restart: they are rebuilt from the
// catalog and the tables' logs, retractions included.
func TestUniqueRestart(t *testing.T) {
	env := openSQL(t, t.TempDir())
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY, b int)")
	env.exec(s, "CREATE UNIQUE INDEX t_b ON t (b)")
	env.exec(s, "INSERT INTO t VALUES (1, 10), (2, 20), (3, NULL)")
	env.exec(s, "DELETE FROM t WHERE a = 2")
	env.exec(s, "UPDATE t SET b = 30 WHERE a = 1")
	want := env.committedCounts("t")
	env.restart()
	defer func() { env.e.Close() }()
	if got := env.committedCounts("t"); got != want {
		t.Fatalf("counts after restart %s, want %s", got, want)
	}
	s = env.session()
	env.fails(s, "INSERT INTO t VALUES (1, 40)", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_pkey"), "Key (a)=(1) already exists.")
	env.fails(s, "INSERT INTO t VALUES (4, 30)", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_b"), "Key (b)=(30) already exists.")
	env.exec(s, "INSERT INTO t VALUES (2, 10), (4, NULL)")
	env.exec(s, "DROP INDEX t_b")
	env.restart()
	s = env.session()
	env.exec(s, "INSERT INTO t VALUES (5, 10)")
	env.fails(s, "INSERT INTO t VALUES (5, 50)", sqlerr.UniqueViolation, fmt.Sprintf(dupKey, "t_pkey"), "Key (a)=(5) already exists.")
}

// Sessions that insert the same key at once: exactly one wins, every
// round, and the others fail with 23505.
func TestUniqueConcurrentInserts(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	const sessions, rounds = 4, 25
	ss := make([]*Session, sessions)
	for i := range ss {
		ss[i] = env.session()
	}
	env.exec(ss[0], "CREATE TABLE t (k int PRIMARY KEY, who int)")
	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		errs := make([]error, sessions)
		for i, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Query(context.Background(), fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", round, i), &recorder{})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case sqlerr.Code(err) == sqlerr.UniqueViolation:
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d sessions inserted the key", round, won)
		}
	}
	if got := env.query(ss[0], "SELECT count(*), count(DISTINCT k) FROM t"); got != fmt.Sprintf("%d,%d", rounds, rounds) {
		t.Fatalf("rows: %s", got)
	}
}

// A write that fails to commit (here: canceled before storage takes it)
// leaves the counts as they were, and the value stays free.
func TestUniqueFailedCommit(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int PRIMARY KEY)")
	env.exec(s, "INSERT INTO t VALUES (1)")
	var id uint64
	env.e.Catalog(func(c *catalog.Catalog) error {
		o, err := c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, "t")
		id = o.ID
		return err
	})
	before := env.committedCounts("t")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := env.e.Write(canceled, []TableWrite{{Table: id, Row: repr.PackRow(repr.NewInt4(2)), Diff: 1}}); sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("canceled write: %v", err)
	}
	if got := env.committedCounts("t"); got != before {
		t.Fatalf("a failed write changed the counts: %s, was %s", got, before)
	}
	env.exec(s, "INSERT INTO t VALUES (2)")
}

// checkDeltasLocked's verdicts: a value may be added if no committed row
// holds it and no write in flight adds it; if a write in flight changes
// it and the verdict could go either way, the writer waits.
func TestCheckDeltas(t *testing.T) {
	tk := &tableKeys{columns: []catalog.Column{{Name: "a", Type: repr.Int4}}}
	v := string(repr.PackRow(repr.NewInt4(7)))
	for _, tt := range []struct {
		name      string
		committed int64
		inflight  inflightValue
		block     int64
		net       int64
		want      string
	}{
		{"free value", 0, inflightValue{}, 0, 1, "ok"},
		{"taken value", 1, inflightValue{}, 0, 1, "violation"},
		{"two rows of one value", 0, inflightValue{}, 0, 2, "violation"},
		{"removing a value", 1, inflightValue{}, 0, -1, "ok"},
		{"added by a write in flight", 0, inflightValue{writes: 1, adds: 1}, 0, 1, "wait"},
		{"removed by a write in flight", 1, inflightValue{writes: 1}, 0, 1, "wait"},
		{"in flight elsewhere in the key", 0, inflightValue{}, 0, 1, "ok"},
		{"freed earlier in the block", 1, inflightValue{}, -1, 1, "ok"},
		{"taken earlier in the block", 0, inflightValue{}, 1, 1, "violation"},
	} {
		k := newUniqueKey(catalog.UniqueKey{Name: "k", Columns: []int{0}})
		if tt.committed != 0 {
			k.counts[v] = tt.committed
		}
		if tt.inflight.writes != 0 {
			k.inflight[v] = tt.inflight
		}
		var block *blockKeys
		if tt.block != 0 {
			block = &blockKeys{net: map[*uniqueKey]map[string]int64{k: {v: tt.block}}}
		}
		wait, err := checkDeltasLocked([]*keyDelta{{key: k, table: tk, net: map[string]int64{v: tt.net}}}, block)
		got := "ok"
		switch {
		case err != nil:
			got = "violation"
			if e := sqlerr.From(err); e.Code != sqlerr.UniqueViolation || e.Detail != "Key (a)=(7) already exists." {
				t.Errorf("%s: %v (detail %q)", tt.name, err, e.Detail)
			}
		case wait:
			got = "wait"
		}
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// Reserving and settling: a reservation counts for other writers until
// the write settles; a durable write's deltas join the counts, a failed
// one's vanish.
func TestReserveSettle(t *testing.T) {
	k := newUniqueKey(catalog.UniqueKey{Name: "k", Columns: []int{0}})
	one, two := string(repr.PackRow(repr.NewInt4(1))), string(repr.PackRow(repr.NewInt4(2)))
	k.counts[one] = 1
	move := []*keyDelta{{key: k, net: map[string]int64{one: -1, two: 1}}}
	reserveLocked(move)
	if f := k.inflight[two]; f.writes != 1 || f.adds != 1 || k.inflight[one].writes != 1 || k.inflight[one].adds != 0 {
		t.Fatalf("reserved: %v", k.inflight)
	}
	settleLocked(move, false)
	if len(k.inflight) != 0 || len(k.counts) != 1 || k.counts[one] != 1 {
		t.Fatalf("after a failed write: counts %v inflight %v", k.counts, k.inflight)
	}
	reserveLocked(move)
	settleLocked(move, true)
	if len(k.inflight) != 0 || len(k.counts) != 1 || k.counts[two] != 1 {
		t.Fatalf("after a durable write: counts %v inflight %v", k.counts, k.inflight)
	}
}
