package pgwire

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPsql runs the real psql against the fake backend: startup through
// libpq (SSLRequest with sslmode=prefer), simple queries with several
// statements, errors, a refused database, and COPY both ways.
func TestPsql(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql is not installed (apt-get install postgresql-client); this test needs it to check a real client")
	}
	b := newFakeBackend()
	ts := startServer(t, b)
	host, port, err := net.SplitHostPort(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(db, stdin string, args ...string) (string, string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		args = append([]string{"-X", "-A", "-t", "-h", host, "-p", port, "-U", "u", "-d", db}, args...)
		cmd := exec.CommandContext(ctx, psql, args...)
		// A clean environment: no service files, passwords or locale
		// from the machine running the test.
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C", "PGSSLMODE=prefer", "PGCONNECT_TIMEOUT=10"}
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("psql %v: %v", args, err)
		}
		return stdout.String(), stderr.String(), code
	}

	cases := []struct {
		name       string
		db, stdin  string
		args       []string
		wantOut    string
		wantErr    string
		wantStatus int
	}{
		{name: "select", db: "freshet", args: []string{"-c", "select 1"}, wantOut: "1\n"},
		{name: "two statements", db: "freshet", args: []string{"-c", "select 1; select 'a' as x, 2 as y"}, wantOut: "1\na|2\n"},
		{name: "types", db: "freshet", args: []string{"-c", "select * from types"},
			wantOut: "t|-32768|2147483647|-9223372036854775808|1.5|-1.25e-07|123.4500|héllo|varchar|ab  |2024-02-29|" +
				"2024-02-29 12:34:56.789|2024-02-29 12:34:56.789+00|1 year 2 mons -3 days +04:05:06.5\n" +
				"f|0|0|0|-Infinity|NaN|NaN||||infinity|-infinity|infinity|00:00:00\n|||||||||||||\n"},
		{name: "error", db: "freshet", args: []string{"-c", "select 1/0"}, wantErr: "ERROR:  division by zero\n", wantStatus: 1},
		{name: "error position", db: "freshet", args: []string{"-c", "select boom"},
			wantErr: "ERROR:  column \"boom\" does not exist\nLINE 1: select boom\n               ^\n", wantStatus: 1},
		{name: "no database", db: "nosuch", args: []string{"-c", "select 1"},
			wantErr: `FATAL:  database "nosuch" does not exist`, wantStatus: 2},
		{name: "copy from stdin", db: "freshet", stdin: "1\ta\n2\tb\n\\.\n", args: []string{"-c", "copy t from stdin"}, wantOut: "COPY 2\n"},
		{name: "copy to stdout", db: "freshet", args: []string{"-c", "copy t to stdout"}, wantOut: "1\tone\n2\ttwo\n"},
		{name: "set", db: "freshet", args: []string{"-c", "set application_name = 'x'", "-c", "select 1"}, wantOut: "SET\n1\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, status := run(c.db, c.stdin, c.args...)
			if status != c.wantStatus || out != c.wantOut || !strings.Contains(stderr, c.wantErr) || (c.wantErr == "" && stderr != "") {
				t.Errorf("psql %q: status %d\nstdout: %q\nstderr: %q\nwant status %d, stdout %q, stderr containing %q",
					c.args, status, out, stderr, c.wantStatus, c.wantOut, c.wantErr)
			}
		})
	}
	if got := b.copied(); len(got) != 1 || got[0] != "1\ta\n2\tb\n" {
		t.Errorf("COPY FROM STDIN gave the session %q", got)
	}
}
