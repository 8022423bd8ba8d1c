package coord

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"freshet/sqlerr"
)

// TestIntrospection reads the freshet_internal relations: objects and
// their dependencies, the dataflows with their memory (a subscription's
// among them), the arrangements' records and bytes per worker, the
// frontiers and hydration; they join, a plain view over them reads
// afresh, and a materialized view or a subscription over them follows the
// engine's state.
func TestIntrospection(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), introspectEvery: 5 * time.Millisecond}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	env := &sqlEnv{t: t, e: e, b: NewBackend(e)}
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int, v text)")
	env.exec(s, "INSERT INTO t SELECT x, 'row ' || x FROM generate_series(1, 1000) AS g(x)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT k % 10 AS g, count(*) AS n FROM t GROUP BY k % 10")
	env.exec(s, "CREATE INDEX m_g ON m (g)")
	env.exec(s, "CREATE VIEW plain AS SELECT * FROM t")
	if got := env.query(s, "SELECT name, kind, state, dataflow IS NOT NULL FROM freshet_internal.objects ORDER BY name"); got != "m,materialized view,running,t m_g,index,running,t plain,view,defined,f t,table,running,t" {
		t.Fatalf("objects: %s", got)
	}
	if got := env.query(s, "SELECT object, depends_on FROM freshet_internal.dependencies ORDER BY 1, 2"); got != "m,t m_g,m plain,t" {
		t.Fatalf("dependencies: %s", got)
	}
	if got := env.query(s, "SELECT sum(records), count(*) FROM freshet_internal.arrangements WHERE object = 't'"); got != "1000,2" {
		t.Fatalf("t's arrangement, summed over its 2 workers: %s", got)
	}
	// Joined with objects: every dataflow's memory is what its account
	// holds, at least its arrangements' bytes.
	got := env.query(s, `SELECT o.name, d.memory_bytes >= sum(a.bytes), sum(a.bytes) > 0
		FROM freshet_internal.objects o JOIN freshet_internal.dataflows d ON d.object_id = o.id
		JOIN freshet_internal.arrangements a ON a.object_id = o.id
		GROUP BY o.name, d.memory_bytes ORDER BY 1`)
	if got != "m,t,t m_g,t,t t,t,t" {
		t.Fatalf("memory against arrangements: %s", got)
	}
	env.query(s, "SELECT * FROM m")
	if got := env.query(s, "SELECT object, lag_ms FROM freshet_internal.frontiers WHERE object IN ('t', 'm') ORDER BY 1"); got != "m,0 t,0" {
		t.Fatalf("frontiers after a read: %s", got)
	}
	// m imports t's arrangement; m_g imports m's: each export has one
	// importer.
	if got := env.query(s, "SELECT importer, object FROM freshet_internal.imports ORDER BY 1"); got != "m,t m_g,m" {
		t.Fatalf("imports: %s", got)
	}
	// Each import's lease, and how far it lets the arrangement compact:
	// no further than the arrangement's own frontier.
	if got := env.query(s, `SELECT i.importer, i.lease_since <= a.upper FROM freshet_internal.imports i
		JOIN (SELECT object_id, min(upper) AS upper FROM freshet_internal.arrangements GROUP BY object_id) a ON a.object_id = i.object_id`); got != "m,t m_g,t" {
		t.Fatalf("imports' leases: %s", got)
	}
	if got := env.query(s, `SELECT bool_and(merge_pending >= 0), bool_and(created_at <= now()) FROM freshet_internal.arrangements a
		JOIN freshet_internal.dataflows d ON d.object_id = a.object_id`); got != "t,t" {
		t.Fatalf("merge work and build times: %s", got)
	}
	if got := env.query(s, "SELECT object, importers FROM freshet_internal.exports ORDER BY 1"); got != "m,1 m_g,0 t,1" {
		t.Fatalf("exports: %s", got)
	}
	if got := env.query(s, "SELECT object, hydrated FROM freshet_internal.hydration ORDER BY 1"); got != "m,t m_g,t" {
		t.Fatalf("hydration: %s", got)
	}

	// The sessions, the reading one running the statement that reads.
	if got := env.query(s, `SELECT count(*), bool_or(pid = pg_backend_pid() AND "user" = 'u' AND state = 'active'
		AND statement LIKE '%freshet_internal.sessions%' AND backend_start <= statement_start) FROM freshet_internal.sessions`); got != "2,t" {
		t.Fatalf("sessions: %s", got)
	}

	// The graph of m's dataflow: its operators, and channels between
	// them.
	got = env.query(s, `SELECT count(*) > 2, bool_or(op.name LIKE '%arrange%')
		FROM freshet_internal.operators op JOIN freshet_internal.objects o ON o.dataflow = op.dataflow_id
		WHERE o.name = 'm'`)
	if got != "t,t" {
		t.Fatalf("m's operators: %s", got)
	}
	got = env.query(s, `SELECT count(*) > 1, bool_and(c.from_operator < o2.n AND c.to_operator < o2.n)
		FROM freshet_internal.channels c JOIN freshet_internal.objects o ON o.dataflow = c.dataflow_id
		JOIN (SELECT dataflow_id, count(*) AS n FROM freshet_internal.operators GROUP BY dataflow_id) o2 ON o2.dataflow_id = c.dataflow_id
		WHERE o.name = 'm'`)
	if got != "t,t" {
		t.Fatalf("m's channels: %s", got)
	}

	env.exec(other, "BEGIN")
	env.exec(other, "DECLARE c CURSOR FOR SUBSCRIBE m")
	if got := env.query(s, "SELECT count(*), sum(memory_bytes) >= 0 FROM freshet_internal.dataflows WHERE kind = 'subscription' AND statement LIKE '%SUBSCRIBE m%'"); got != "1,t" {
		t.Fatalf("the subscription's dataflow: %s", got)
	}
	env.exec(other, "ROLLBACK")

	// A plain view over them is read afresh.
	env.exec(s, "CREATE VIEW sizes AS SELECT name FROM freshet_internal.objects WHERE kind = 'table'")
	env.exec(s, "CREATE TABLE u (x int)")
	if got := env.query(s, "SELECT * FROM sizes ORDER BY 1"); got != "t u" {
		t.Fatalf("a view over objects: %s", got)
	}

	// A materialized view over them follows: the tables are written on
	// a timer while it exists, and it sees what changes.
	env.exec(s, "CREATE MATERIALIZED VIEW tables AS SELECT name FROM freshet_internal.objects WHERE kind = 'table'")
	if got := env.query(s, "SELECT * FROM tables"); got != "t u" {
		t.Fatalf("a materialized view over objects, at its creation: %s", got)
	}
	env.exec(s, "CREATE TABLE later (x int)")
	env.awaitQuery(s, "SELECT * FROM tables", "later t u")
	// So does a subscription: its changes come as the engine's state
	// changes, with nothing else read.
	env.exec(other, "BEGIN")
	env.exec(other, "DECLARE f CURSOR FOR SUBSCRIBE (SELECT name FROM freshet_internal.objects WHERE kind = 'table')")
	if got := env.query(other, "FETCH ALL f WITH (timeout = '1s')"); !strings.HasSuffix(got, ",1,u") || strings.Count(got, ",1,") != 3 {
		t.Fatalf("the subscription's snapshot: %s", got)
	}
	env.exec(s, "DROP TABLE later")
	if got := env.query(other, "FETCH 1 f WITH (timeout = '10s')"); !strings.HasSuffix(got, ",-1,later") {
		t.Fatalf("the subscription after a drop: %s", got)
	}
	env.exec(other, "ROLLBACK")
	env.exec(s, "DROP MATERIALIZED VIEW tables")
	// The cursor's subscription is torn down after its read ends, on a
	// goroutine of its own (context.AfterFunc): wait for it.
	deadline := time.Now().Add(hangLimit)
	for env.e.intro.following.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d still follow the introspection tables", env.e.intro.following.Load())
		}
		time.Sleep(time.Millisecond)
	}
	env.failsWith(s, "SELECT * FROM freshet_internal.nosuch", sqlerr.UndefinedTable)
	n, _ := strconv.Atoi(env.query(s, "SELECT count(*) FROM freshet_internal.dataflows"))
	if n < 4 || !strings.Contains(env.query(s, "SELECT kind FROM freshet_internal.dataflows"), "table") {
		t.Fatalf("dataflows: %d", n)
	}
	env.settled()
}

// TestShowCommands: Materialize's SHOW MATERIALIZED VIEWS, SHOW INDEXES
// [ON name] and SHOW CREATE … name.
func TestShowCommands(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int NOT NULL, v text)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n FROM t GROUP BY k")
	env.exec(s, "CREATE MATERIALIZED VIEW a_first AS SELECT 1 AS one")
	env.exec(s, "COMMENT ON MATERIALIZED VIEW m IS 'counts'")
	env.exec(s, "CREATE VIEW w AS SELECT v FROM t")
	env.exec(s, "CREATE INDEX m_k ON m (k)")
	env.exec(s, "CREATE INDEX t_kv ON t (k, v)")
	for sql, want := range map[string]string{
		"SHOW MATERIALIZED VIEWS":         "a_first,NULL m,counts",
		"SHOW INDEXES":                    "m_k,m,k t_kv,t,k, v",
		"SHOW INDEXES ON t":               "t_kv,t,k, v",
		"SHOW CREATE MATERIALIZED VIEW m": "m,CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n FROM t GROUP BY k",
		"SHOW CREATE VIEW w":              "w,CREATE VIEW w AS SELECT v FROM t",
		"SHOW CREATE INDEX m_k":           "m_k,CREATE INDEX m_k ON public.m USING btree (k)",
		"SHOW CREATE TABLE t":             "t,CREATE TABLE t (k integer NOT NULL, v text)",
	} {
		if got := env.query(s, sql); got != want {
			t.Errorf("%s:\n got %q\nwant %q", sql, got, want)
		}
	}
	env.failsWith(s, "SHOW CREATE TABLE nosuch", sqlerr.UndefinedTable)
	if got := env.query(s, "SHOW CREATE TABLE m"); got != "" {
		t.Errorf("SHOW CREATE TABLE of a materialized view: %q", got)
	}
}

// TestExplainMaterializedView: EXPLAIN MATERIALIZED VIEW shows the view's
// plan, what it imports, what it exports and who imports that.
func TestExplainMaterializedView(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1), (2), (2)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n FROM t GROUP BY k")
	env.exec(s, "CREATE MATERIALIZED VIEW top AS SELECT max(n) FROM m")
	got := env.query(s, "EXPLAIN MATERIALIZED VIEW m")
	for _, want := range []string{"Reduce", "Imports table t", "Exports materialized view m", ": 2 records", "Imported by materialized view top"} {
		if !strings.Contains(got, want) {
			t.Errorf("EXPLAIN MATERIALIZED VIEW m lacks %q:\n%s", want, got)
		}
	}
	env.failsWith(s, "EXPLAIN MATERIALIZED VIEW t", sqlerr.WrongObjectType)
	env.failsWith(s, "EXPLAIN MATERIALIZED VIEW nosuch", sqlerr.UndefinedTable)
}

// awaitQuery runs sql on s until it gives want, for state that changes
// on its own time (the introspection tables' timer).
func (env *sqlEnv) awaitQuery(s *Session, sql, want string) {
	env.t.Helper()
	deadline := time.Now().Add(hangLimit)
	var got string
	for time.Now().Before(deadline) {
		if got = env.query(s, sql); got == want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	env.t.Fatalf("%s: %s, never %s", sql, got, want)
}

// TestExpensiveDataflowVisible: while a view hydrates a 400M-row join,
// freshet_internal.operators names the operators of its dataflow that
// hold the workers, with their runs, time and longest run; a DROP ends
// it (the create fails) and its operators leave the relation.
func TestExpensiveDataflowVisible(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, other := env.session(), env.session()
	done := make(chan error, 1)
	go func() { done <- s.Query(context.Background(), slowView, &recorder{}) }()
	env.awaitCreating("big")
	sql := `SELECT d.object, op.schedules > 0, op.busy_ms > 0, op.longest_ms > 0 AND op.longest_ms <= op.busy_ms
		FROM freshet_internal.operators op JOIN freshet_internal.dataflows d ON d.id = op.dataflow_id
		ORDER BY op.busy_ms DESC LIMIT 1`
	env.awaitQuery(other, sql, "big,t,t,t")
	env.exec(other, "DROP MATERIALIZED VIEW big")
	if err := <-done; err == nil {
		t.Fatal("the create of a dropped view succeeded")
	}
	if got := env.query(other, `SELECT count(*) FROM freshet_internal.operators op
		JOIN freshet_internal.dataflows d ON d.id = op.dataflow_id WHERE d.object = 'big'`); got != "0" {
		t.Fatalf("big's operators after the drop: %s", got)
	}
	env.settled()
}
