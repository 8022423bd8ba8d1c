package coord

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"freshet/pgwire"
	"freshet/sqlerr"
)

// lines is a QueryWriter whose COPY TO STDOUT data arrives on a channel,
// a CopyData message at a time, while the statement runs.
type lines struct {
	recorder
	ch chan string
}

type chanWriter chan string

func (c chanWriter) Write(p []byte) (int, error) {
	c <- string(p)
	return len(p), nil
}

func (l *lines) CopyOut(pgwire.CopyFormat) (io.Writer, error) { return chanWriter(l.ch), nil }

// next returns the next line the statement sent.
func (l *lines) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-l.ch:
		return strings.TrimSuffix(s, "\n")
	case <-time.After(hangLimit):
		t.Fatal("no line came")
		return ""
	}
}

// changesThrough reads lines until it has n changes and a progress row
// past their time (so that every change of that time has come), and
// returns the changes.
func (l *lines) changesThrough(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	var last string
	for {
		line := l.next(t)
		ts, rest, _ := strings.Cut(line, "\t")
		if !strings.HasPrefix(rest, "t\t") {
			got, last = append(got, line), ts
			continue
		}
		if len(got) >= n && later(ts, last) {
			return got
		}
	}
}

// changes strips the timestamp off lines: what is left is mz_diff and
// the row (and mz_progressed first, WITH (PROGRESS)), sorted, since the
// order of one time's changes is not defined.
func changes(ls ...string) string {
	var out []string
	for _, l := range ls {
		_, rest, _ := strings.Cut(l, "\t")
		out = append(out, rest)
	}
	slices.Sort(out)
	return strings.Join(out, " | ")
}

// TestSubscribeCopy: COPY (SUBSCRIBE …) TO STDOUT sends the snapshot, then
// each change as it commits, with progress rows WITH (PROGRESS), in time
// order; a cancel ends it with 57014 and drops its dataflow.
func TestSubscribeCopy(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, w := env.session(), env.session()
	env.exec(w, "CREATE TABLE t (k int, v text)")
	env.exec(w, "INSERT INTO t VALUES (1, 'a'), (2, 'tab\there')")
	out := &lines{ch: make(chan string, 100)}
	done := make(chan error, 1)
	go func() {
		done <- s.Query(context.Background(), "COPY (SUBSCRIBE (SELECT k, v FROM t WHERE k < 10) WITH (PROGRESS)) TO STDOUT", out)
	}()
	snap := []string{out.next(t), out.next(t), out.next(t)}
	if got := changes(snap...); got != `f	1	1	a | f	1	2	tab\there | t	\N	\N	\N` {
		t.Fatalf("snapshot: %s", got)
	}
	snapTime, _, _ := strings.Cut(snap[0], "\t")
	env.exec(w, "INSERT INTO t VALUES (3, 'c'), (11, 'filtered')")
	got := out.changesThrough(t, 1)
	if changes(got...) != "f	1	3	c" {
		t.Fatalf("after the insert: %q", got)
	}
	insTime, _, _ := strings.Cut(got[0], "\t")
	if insTime <= snapTime {
		t.Fatalf("the insert's time %s is not after the snapshot's %s", insTime, snapTime)
	}
	env.exec(w, "UPDATE t SET v = 'A' WHERE k = 1")
	got = out.changesThrough(t, 2)
	if c := changes(got...); c != "f	-1	1	a | f	1	1	A" {
		t.Fatalf("after the update: %s", c)
	}
	env.b.Cancel(s.key)
	if err := <-done; sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("the cancelled subscription: %v", err)
	}
	env.settled()
}

// TestSubscribeCursor: DECLARE … CURSOR FOR SUBSCRIBE and FETCH with a
// timeout; SNAPSHOT = false; a DROP of what it reads ends it with a clear
// error; bad input gets PostgreSQL's and Materialize's SQLSTATEs.
func TestSubscribeCursor(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, w := env.session(), env.session()
	env.exec(w, "CREATE TABLE t (k int)")
	env.exec(w, "INSERT INTO t VALUES (1), (1), (2)")
	env.exec(w, "CREATE MATERIALIZED VIEW counts AS SELECT k, count(*) AS n FROM t GROUP BY k")

	env.failsWith(s, "SUBSCRIBE missing", sqlerr.UndefinedTable)
	env.failsWith(s, "DECLARE c CURSOR FOR SUBSCRIBE counts", sqlerr.NoActiveSQLTransaction)
	env.failsWith(s, "SUBSCRIBE counts WITH (BOGUS)", sqlerr.SyntaxError)
	env.failsWith(s, "FETCH 1 c WITH (timeout = '1s')", sqlerr.InvalidCursorName)

	env.exec(s, "BEGIN")
	env.exec(s, "DECLARE c CURSOR FOR SUBSCRIBE counts")
	strip := func(rows string) string {
		var out []string
		for _, r := range strings.Fields(rows) {
			_, rest, _ := strings.Cut(r, ",")
			out = append(out, rest)
		}
		return strings.Join(out, " ")
	}
	if got := strip(env.query(s, "FETCH ALL c")); got != "1,1,2 1,2,1" {
		t.Fatalf("the snapshot: %s", got)
	}
	if got := env.query(s, "FETCH ALL c WITH (timeout = '0s')"); got != "" {
		t.Fatalf("nothing changed, yet FETCH gave %s", got)
	}
	env.exec(w, "INSERT INTO t VALUES (2)")
	if got := strip(env.query(s, "FETCH ALL c WITH (timeout = '10s')")); got != "-1,2,1 1,2,2" {
		t.Fatalf("after the insert: %s", got)
	}
	env.exec(w, "DROP MATERIALIZED VIEW counts")
	env.failsWith(s, "FETCH ALL c WITH (timeout = '10s')", sqlerr.QueryCanceled, "counts", "dropped")
	env.exec(s, "ROLLBACK")

	env.exec(w, "CREATE MATERIALIZED VIEW counts AS SELECT k, count(*) AS n FROM t GROUP BY k")
	env.exec(s, "BEGIN")
	env.exec(s, "DECLARE c CURSOR FOR SUBSCRIBE TO counts WITH (SNAPSHOT = false)")
	env.exec(w, "DELETE FROM t WHERE k = 1")
	if got := strip(env.query(s, "FETCH 10 c")); got != "-1,1,2" {
		t.Fatalf("changes only: %s", got)
	}
	env.exec(s, "CLOSE c")
	env.failsWith(s, "FETCH 1 c", sqlerr.InvalidCursorName)
	env.exec(s, "COMMIT")

	// A write in the block first: a SUBSCRIBE there would not see it.
	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO t VALUES (5)")
	env.failsWith(s, "DECLARE c CURSOR FOR SUBSCRIBE t", sqlerr.ActiveSQLTransaction)
	env.exec(s, "ROLLBACK")
	env.settled()
}

// TestSubscribeSlowClient: a client that stops taking a subscription's
// changes gets 53200 once they pass the backlog bound, and the server
// lets go of them.
func TestSubscribeSlowClient(t *testing.T) {
	defer func(n int64) { maxSubscribeBacklog = n }(maxSubscribeBacklog)
	maxSubscribeBacklog = 64 << 10
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s, w := env.session(), env.session()
	env.exec(w, "CREATE TABLE t (k int, pad text)")
	env.exec(s, "BEGIN")
	env.exec(s, "DECLARE c CURSOR FOR SUBSCRIBE t")
	env.exec(w, "INSERT INTO t SELECT x, repeat('x', 100) FROM generate_series(1, 5000) AS g(x)")
	err := env.queryErr(s, "FETCH ALL c WITH (timeout = '10s')")
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.OutOfMemory || !strings.Contains(e.Detail, "behind") {
		t.Fatalf("a client too far behind: %v", err)
	}
	env.exec(s, "ROLLBACK")
	env.settled()
}

// BenchmarkSubscribeFreshness measures the time from the start of a
// one-row INSERT to its change arriving through a SUBSCRIBE (a cursor's
// FETCH, which waits for it), with a join + GROUP BY view as the
// subscribed relation: the freshness a subscriber sees.
func BenchmarkSubscribeFreshness(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s, w := env.session(), env.session()
	env.exec(w, "CREATE TABLE customers (id int, region int)")
	env.exec(w, "CREATE TABLE orders (id int, customer int, amount int)")
	env.exec(w, "INSERT INTO customers SELECT x, x % 50 FROM generate_series(1, 10000) AS g(x)")
	env.exec(w, "INSERT INTO orders SELECT x, x % 10000 + 1, x % 100 FROM generate_series(1, 100000) AS g(x)")
	env.exec(w, "CREATE MATERIALIZED VIEW by_region AS SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region")
	env.exec(s, "BEGIN")
	env.exec(s, "DECLARE c CURSOR FOR SUBSCRIBE by_region WITH (SNAPSHOT = false)")
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		env.exec(w, "INSERT INTO orders VALUES ("+strconv.Itoa(200000+i)+", 7, 1)")
		if got := env.query(s, "FETCH ALL c WITH (timeout = '10s')"); got == "" {
			b.Fatal("the change never came")
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	env.exec(s, "ROLLBACK")
}
