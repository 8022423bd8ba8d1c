package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// readLine returns the next line from lines, failing after a minute.
func readLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the stream ended")
		}
		return l
	case <-time.After(time.Minute):
		t.Fatal("no line came within a minute")
		return ""
	}
}

// scanLines sends r's lines on a channel, closed at the end.
func scanLines(r io.Reader) <-chan string {
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- strings.TrimSuffix(sc.Text(), "\r")
		}
	}()
	return ch
}

// withoutTime drops a SUBSCRIBE line's first field, its timestamp.
func withoutTime(l string) string {
	_, rest, _ := strings.Cut(l, "\t")
	return rest
}

// TestSubscribePsql: psql shows COPY (SUBSCRIBE …) TO STDOUT live, a row
// as soon as its INSERT commits; when psql goes away the subscription
// ends, and the table it read can be dropped.
func TestSubscribePsql(t *testing.T) {
	s := startBinary(t)
	s.must("CREATE TABLE t (k int, v text)")
	s.must("INSERT INTO t VALUES (1, 'one')")
	host, port, _ := net.SplitHostPort(s.addr)
	// psql writes COPY's rows through stdio, which flushes each line only
	// to a terminal, as a person sees it: script(1) gives it one.
	psql := fmt.Sprintf("psql -X -q -h %s -p %s -U u -d freshet -c 'COPY (SUBSCRIBE t) TO STDOUT'", host, port)
	cmd := exec.Command("script", "-q", "-f", "-e", "-c", psql, "/dev/null")
	cmd.Env = os.Environ()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := scanLines(out)
	if got := withoutTime(readLine(t, lines)); got != "1\t1\tone" {
		t.Fatalf("the snapshot: %q", got)
	}
	s.must("INSERT INTO t VALUES (2, 'two')")
	if got := withoutTime(readLine(t, lines)); got != "1\t2\ttwo" {
		t.Fatalf("the insert: %q", got)
	}
	cmd.Process.Kill()
	cmd.Wait()
	s.must("DROP TABLE t")
}

// TestSubscribePgx: pgx reads COPY (SUBSCRIBE … WITH (PROGRESS)) TO
// STDOUT, and a DROP of the view ends the stream with an error that
// names it; a cursor over SUBSCRIBE with FETCH … WITH (timeout) works
// through pgx's extended protocol.
func TestSubscribePgx(t *testing.T) {
	s := startBinary(t)
	s.must("CREATE TABLE t (k int)")
	s.must("CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM t")
	ctx := context.Background()
	url := fmt.Sprintf("postgres://u@%s/freshet?sslmode=disable", s.addr)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	pr, pw := io.Pipe()
	copied := make(chan error, 1)
	go func() {
		_, err := conn.PgConn().CopyTo(ctx, pw, "COPY (SUBSCRIBE n WITH (PROGRESS)) TO STDOUT")
		pw.CloseWithError(io.EOF)
		copied <- err
	}()
	lines := scanLines(pr)
	if got := withoutTime(readLine(t, lines)); got != "f\t1\t0" {
		t.Fatalf("the snapshot: %q", got)
	}
	s.must("INSERT INTO t VALUES (1), (2)")
	var changes []string
	for len(changes) < 2 {
		if l := withoutTime(readLine(t, lines)); !strings.HasPrefix(l, "t\t") {
			changes = append(changes, l)
		}
	}
	if got := strings.Join(changes, " "); got != "f\t-1\t0 f\t1\t2" && got != "f\t1\t2 f\t-1\t0" {
		t.Fatalf("after the insert: %q", got)
	}
	s.must("DROP MATERIALIZED VIEW n")
	select {
	case err := <-copied:
		if err == nil || !strings.Contains(err.Error(), "dropped") {
			t.Fatalf("the stream after DROP: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the stream did not end at the DROP")
	}

	conn2, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(ctx)
	tx, err := conn2.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DECLARE c CURSOR FOR SUBSCRIBE (SELECT k FROM t WHERE k > 1)"); err != nil {
		t.Fatal(err)
	}
	var ts float64
	var diff int64
	var k int32
	if err := tx.QueryRow(ctx, "FETCH 1 c WITH (timeout = '10s')").Scan(&ts, &diff, &k); err != nil || diff != 1 || k != 2 {
		t.Fatalf("FETCH through pgx: %v %d %d", err, diff, k)
	}
}

// TestSubscribePsycopg2: psycopg2, which opens a transaction block on
// its own, reads a cursor over SUBSCRIBE with FETCH and a timeout; a
// FETCH after CLOSE is 34000.
func TestSubscribePsycopg2(t *testing.T) {
	if err := exec.Command(systemPython, "-c", "import psycopg2").Run(); err != nil {
		t.Fatalf("psycopg2 is required (apt-get install python3-psycopg2): %v", err)
	}
	s := startBinary(t)
	s.must("CREATE TABLE t (k int)")
	s.must("INSERT INTO t VALUES (1)")
	script := `
import sys, psycopg2
main = psycopg2.connect(sys.argv[1])
writer = psycopg2.connect(sys.argv[1]); writer.autocommit = True
cur = main.cursor()
cur.execute("DECLARE c CURSOR FOR SUBSCRIBE t")
cur.execute("FETCH ALL c WITH (timeout = '10s')")
print("snapshot", [(int(d), k) for _, d, k in cur.fetchall()])
writer.cursor().execute("INSERT INTO t VALUES (2)")
cur.execute("FETCH ALL c WITH (timeout = '10s')")
print("change", [(int(d), k) for _, d, k in cur.fetchall()])
cur.execute("CLOSE c")
try:
    cur.execute("FETCH 1 c")
except psycopg2.Error as e:
    print("closed", e.pgcode)
`
	out, err := exec.Command(systemPython, "-c", script, "dbname=freshet user=u host=127.0.0.1 port="+strings.Split(s.addr, ":")[1]).CombinedOutput()
	if err != nil {
		t.Fatalf("the script failed: %v\n%s", err, out)
	}
	want := "snapshot [(1, 1)]\nchange [(1, 2)]\nclosed 34000"
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("psycopg2:\n got %q\nwant %q", got, want)
	}
}
