package coord

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"freshet/sqlerr"
)

// TestStreamedSelect checks the queries that stream (one arrangement,
// mapped, filtered and projected, no ORDER BY): they answer what the
// collected read of the same query answers, with OFFSET and LIMIT; a
// LIMIT stops the walk after the rows it needs instead of reading the
// table; and a query that does not stream (a join, an ORDER BY, an
// aggregate) still answers.
func TestStreamedSelect(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int, v text)")
	env.exec(s, "INSERT INTO t SELECT g, 'v' || (g % 7) FROM generate_series(1, 5000) g")
	env.exec(s, "INSERT INTO t VALUES (1, 'v1')") // a duplicate row: two copies out
	env.exec(s, "CREATE INDEX t_v ON t (v)")

	for _, q := range []string{
		"SELECT * FROM t",
		"SELECT k + 1, upper(v) FROM t WHERE k % 3 = 0",
		"SELECT v FROM t WHERE v = 'v3'",
		"SELECT k FROM t WHERE k <= 10",
	} {
		// ORDER BY makes the same query read whole and sort.
		streamed := strings.Split(env.query(s, q), " ")
		collected := strings.Split(env.query(s, q+" ORDER BY 1"), " ")
		if !slices.Equal(streamed, collected) {
			t.Errorf("%s: streamed %d rows, collected %d; they differ", q, len(streamed), len(collected))
		}
	}
	if got := env.query(s, "SELECT k, v FROM t WHERE k = 1"); got != "1,v1 1,v1" {
		t.Errorf("a duplicate row streamed: %s", got)
	}

	// Rows without duplicates, so that each row taken is one row out.
	env.exec(s, "CREATE TABLE u AS SELECT k FROM t WHERE k > 1")
	before := env.e.streamedRows.Load()
	r := &recorder{}
	if err := s.Query(context.Background(), "SELECT * FROM u LIMIT 10 OFFSET 5", r); err != nil {
		t.Fatal(err)
	}
	if len(r.rows) != 10 {
		t.Fatalf("LIMIT 10 OFFSET 5: %d rows", len(r.rows))
	}
	// Worker 0's shard is walked first; the walk ends at the 15th row.
	if taken := env.e.streamedRows.Load() - before; taken != 15 {
		t.Errorf("LIMIT 10 OFFSET 5 took %d rows from the table's cursors, want 15", taken)
	}
	if got := env.query(s, "SELECT * FROM t LIMIT 0"); got != "" {
		t.Errorf("LIMIT 0: %q", got)
	}
	if got := env.query(s, "SELECT count(*) FROM (SELECT * FROM t LIMIT 3) x"); got != "3" {
		t.Errorf("a LIMIT inside a query: %s", got)
	}
	if got := env.query(s, "SELECT count(*), count(DISTINCT v) FROM t"); got != "5001,7" {
		t.Errorf("an aggregate: %s", got)
	}
}

// blockingWriter is a client that takes the first row of a result and
// then stops reading until it is released, as a slow client does.
type blockingWriter struct {
	recorder
	first   chan struct{}
	release chan struct{}
}

func (b *blockingWriter) Row(values [][]byte) error {
	if len(b.rows) == 0 {
		close(b.first)
		<-b.release
	}
	return b.recorder.Row(values)
}

// TestStreamedSelectOutlivesDrop checks that a streamed read holds
// nothing that a DROP waits for once its rows flow: with a client that
// has stopped reading after the first row, DROP TABLE of what it reads
// completes, a new read of the name fails with 42P01, and the stalled
// client then gets every row of the table as it was at its read time.
func TestStreamedSelectOutlivesDrop(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, dropper := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t SELECT g FROM generate_series(1, 3000) g")

	w := &blockingWriter{first: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- s.Query(context.Background(), "SELECT k FROM t", w) }()
	select {
	case <-w.first:
	case err := <-done:
		t.Fatalf("the read ended before its first row: %v", err)
	case <-time.After(hangLimit):
		t.Fatal("no first row")
	}
	env.exec(dropper, "DROP TABLE t")
	env.failsWith(dropper, "SELECT * FROM t", sqlerr.UndefinedTable, "t")
	close(w.release)
	if err := <-done; err != nil {
		t.Fatalf("the streamed read after the DROP: %v", err)
	}
	if len(w.rows) != 3000 {
		t.Fatalf("the streamed read got %d rows, want 3000", len(w.rows))
	}
	seen := map[string]bool{}
	for _, r := range w.rows {
		seen[r] = true
	}
	for i := 1; i <= 3000; i++ {
		if !seen[fmt.Sprint(i)] {
			t.Fatalf("row %d missing from the streamed read", i)
		}
	}
}
