package sqllogic

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// startServer runs the whole server in-process on dir and returns the
// address it listens on.
func startServer(t *testing.T, dir string) (addr string, stop func()) {
	t.Helper()
	s, err := StartServer(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	return s.Addr, s.Close
}

func connect(t *testing.T, addr, db string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/%s?sslmode=disable", addr, db))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestFreshetScripts runs our own sqllogictest files (testdata/freshet)
// against the server over a real pgwire connection, one fresh server per
// file and mode. Each file runs as queries, then in both view modes
// (ViewsBefore and ViewsAfter), where every query must also hold as a
// materialized view; a file whose name ends in .queries.slt runs as
// queries only (its queries read now(), which no view may). A file whose
// name ends in .restart.slt runs as queries, in two halves split at the
// line "# restart": the server restarts in between, on the same data
// directory.
func TestFreshetScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/freshet/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if strings.HasSuffix(file, ".restart.slt") {
				dir := t.TempDir()
				for _, part := range splitAtRestart(t, file) {
					runScriptFile(t, dir, part, Options{})
				}
				return
			}
			plain := runScriptFile(t, t.TempDir(), file, Options{})
			if strings.HasSuffix(file, ".queries.slt") {
				return
			}
			passed := plain.PassedQueries()
			for _, opts := range []Options{{Views: ViewsBefore, Candidates: passed}, {Views: ViewsAfter}} {
				res := runScriptFile(t, t.TempDir(), file, opts)
				if res.Views.Passed != len(passed) {
					t.Fatalf("%s: %d views passed, want one per query, %d", opts.Views, res.Views.Passed, len(passed))
				}
			}
		})
	}
}

// runScriptFile runs file in the mode opts gives on a fresh server on
// dir and fails the test if any record or view failed or nothing ran.
func runScriptFile(t *testing.T, dir, file string, opts Options) FileResult {
	t.Helper()
	addr, stop := startServer(t, dir)
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts.Engine, opts.Timeout, opts.Log, opts.MaxFailures = "postgresql", time.Minute, testLog{t}, 20
	res := Run(ctx, NewConn(conn), file, opts)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	t.Logf("%s [%s]: statements %s; queries %s; views %s", file, opts.Views, res.Statements, res.Queries, res.Views)
	if n := res.Statements.Failed + res.Queries.Failed + res.Views.Failed; n > 0 {
		t.Fatalf("%s [%s]: %d statements, %d queries and %d views failed", file, opts.Views,
			res.Statements.Failed, res.Queries.Failed, res.Views.Failed)
	}
	if res.Statements.Passed+res.Queries.Passed == 0 {
		t.Fatalf("%s ran nothing", file)
	}
	return res
}

// splitAtRestart writes the two halves of a restart script to files.
func splitAtRestart(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const marker = "\n# restart\n"
	i := strings.Index(string(data), marker)
	if i < 0 {
		t.Fatalf("%s has no %q line", file, "# restart")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "before.slt"), filepath.Join(dir, "after.slt")
	os.WriteFile(a, data[:i+1], 0o644)
	os.WriteFile(b, data[i+len(marker):], 0o644)
	return []string{a, b}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}

// TestCopyFromStdin loads a table with COPY FROM STDIN over the wire and
// reads it back through a materialized view.
func TestCopyFromStdin(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx := context.Background()
	for _, sql := range []string{
		"CREATE TABLE t (k int, v text NOT NULL, w int DEFAULT 9)",
		"CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(k) AS s, sum(w) AS sw FROM t",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	data := "1\tone\n2\ttab\\there\n\\N\tnull k\n"
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY t (k, v) FROM STDIN")
	if err != nil {
		t.Fatal(err)
	}
	if tag.String() != "COPY 3" {
		t.Fatalf("tag %q", tag)
	}
	var n, s, sw int64
	if err := conn.QueryRow(ctx, "SELECT n, s, sw FROM m").Scan(&n, &s, &sw); err != nil {
		t.Fatal(err)
	}
	if n != 3 || s != 3 || sw != 27 {
		t.Fatalf("after COPY: n=%d s=%d sw=%d", n, s, sw)
	}
	var v string
	if err := conn.QueryRow(ctx, "SELECT v FROM t WHERE k = 2").Scan(&v); err != nil || v != "tab\there" {
		t.Fatalf("escaped value %q, %v", v, err)
	}
	// A bad row fails the whole COPY with PostgreSQL's error; nothing is
	// written.
	_, err = conn.PgConn().CopyFrom(ctx, strings.NewReader("4\tok\nx\tbad\n"), "COPY t (k, v) FROM STDIN")
	if err == nil || !strings.Contains(err.Error(), "22P02") {
		t.Fatalf("bad COPY: %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT n FROM m").Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows after a failed COPY: %d %v", n, err)
	}
}

// TestExplainShowsImports checks that EXPLAIN names the arrangements a
// plan's dataflow imports, and that a view with an index is read from
// the index.
func TestExplainShowsImports(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx := context.Background()
	for _, sql := range []string{
		"CREATE TABLE t (k int, v int)",
		"CREATE VIEW big AS SELECT k, v * 10 AS w FROM t WHERE v > 1",
		"CREATE INDEX big_k ON big (k)",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.Query(ctx, "EXPLAIN SELECT t.k, big.w FROM t JOIN big ON t.k = big.k")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "Imports table t (g5)") || !strings.Contains(text, "Imports index big_k (g7)") {
		t.Fatalf("EXPLAIN:\n%s", text)
	}
}

// TestConcurrentDML: statements that read and then write never lose an
// update or retract a row twice, a transaction block whose reads were
// overtaken fails with 40001 at COMMIT, and a block cannot read its own
// uncommitted writes (0A000) rather than silently missing them.
func TestConcurrentDML(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	ctx := context.Background()
	a := connect(t, addr, "freshet")
	defer a.Close(ctx)
	b := connect(t, addr, "freshet")
	defer b.Close(ctx)
	exec := func(c *pgx.Conn, sql string) error {
		_, err := c.Exec(ctx, sql)
		return err
	}
	count := func(sql string) int64 {
		var n int64
		if err := a.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := exec(a, "CREATE TABLE t (k int, v int)"); err != nil {
		t.Fatal(err)
	}
	// Two sessions delete the same row many times over; each round
	// inserts it once, so it must be gone once, never below zero.
	for round := 0; round < 20; round++ {
		if err := exec(a, "INSERT INTO t VALUES (1, 0)"); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 2)
		for _, c := range []*pgx.Conn{a, b} {
			go func(c *pgx.Conn) { errs <- exec(c, "DELETE FROM t WHERE k = 1") }(c)
		}
		for i := 0; i < 2; i++ {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if n := count("SELECT count(*) FROM t WHERE k = 1"); n != 0 {
			t.Fatalf("round %d: %d rows left after two deletes", round, n)
		}
	}
	if err := exec(a, "INSERT INTO t VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	if n := count("SELECT count(*) FROM t WHERE k = 1"); n != 1 {
		t.Fatalf("a row inserted after the deletes shows %d times", n)
	}
	// Concurrent updates increment without losing any.
	errs := make(chan error, 2)
	for _, c := range []*pgx.Conn{a, b} {
		go func(c *pgx.Conn) {
			for i := 0; i < 10; i++ {
				if err := exec(c, "UPDATE t SET v = v + 1 WHERE k = 1"); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(c)
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if v := count("SELECT v FROM t WHERE k = 1"); v != 20 {
		t.Fatalf("after 20 concurrent increments v = %d", v)
	}
	// A block whose read was overtaken fails at COMMIT.
	if err := exec(a, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := exec(a, "DELETE FROM t WHERE k = 1"); err != nil {
		t.Fatal(err)
	}
	if err := exec(b, "UPDATE t SET v = 0 WHERE k = 1"); err != nil {
		t.Fatal(err)
	}
	if err := exec(a, "COMMIT"); err == nil || !strings.Contains(err.Error(), "40001") {
		t.Fatalf("COMMIT of an overtaken block: %v", err)
	}
	if n := count("SELECT count(*) FROM t WHERE k = 1 AND v = 0"); n != 1 {
		t.Fatalf("after the failed block: %d rows", n)
	}
	// A block does not read its own writes: refused, not wrong.
	if err := exec(a, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := exec(a, "INSERT INTO t VALUES (2, 2)"); err != nil {
		t.Fatal(err)
	}
	if err := exec(a, "SELECT * FROM t"); err == nil || !strings.Contains(err.Error(), "0A000") {
		t.Fatalf("reading own writes in a block: %v", err)
	}
	exec(a, "ROLLBACK")
}
