package coord

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestMemoryLimitCancelsTheQuery: a query whose result would take the
// heap far past the engine's memory limit fails with 53200 instead of
// taking the server down; the engine, its views and other sessions carry
// on.
func TestMemoryLimitCancelsTheQuery(t *testing.T) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	limit := int64(sample[0].Value.Uint64()) + 96<<20
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), MemoryLimit: limit}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	env := &sqlEnv{t: t, e: e, b: NewBackend(e)}
	defer e.Close()
	s, other := env.session(), env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1), (2)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t")
	// About 9 million rows, over half a gigabyte held before the first
	// is sent: far past the limit.
	err = env.queryErr(s, "SELECT a.x, b.x FROM generate_series(1, 3000) AS a(x), generate_series(1, 3000) AS b(x)")
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.OutOfMemory || e.Message != "out of memory" {
		t.Fatalf("a query far past the memory limit: %v", err)
	}
	env.exec(other, "INSERT INTO t VALUES (3)")
	if got := env.query(s, "SELECT * FROM m"); got != "3" {
		t.Fatalf("the view after the cancelled query: %s", got)
	}
	env.settled()
}

// TestStatementPrefix: a statement's text is named by its first
// maxNamedStatement characters, counted as characters, not bytes.
func TestStatementPrefix(t *testing.T) {
	for _, c := range []struct {
		n    int
		cut  bool
		char string
	}{{0, false, "a"}, {199, false, "é"}, {200, false, "é"}, {201, true, "é"}, {5000, true, "a"}, {201, true, "日"}} {
		sql := strings.Repeat(c.char, c.n)
		got := statementPrefix(sql)
		want := sql
		if c.cut {
			want = strings.Repeat(c.char, maxNamedStatement) + "…"
		}
		if got != want {
			t.Errorf("%d × %q: %q, want %q", c.n, c.char, got, want)
		}
	}
}
