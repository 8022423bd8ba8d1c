// Package e2e drives the built server binary through psql, as a user
// would: tables, a join + GROUP BY materialized view and a view on it,
// writes that show up at once, DROP rules, a clean restart and kill -9.
package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// server is one run of the binary.
type server struct {
	t       *testing.T
	bin     string
	dataDir string
	addr    string
	// flags are passed to the binary after the ones every run has.
	flags []string
	// env is added to psql's environment (PGSSLMODE, ...).
	env  []string
	cmd  *exec.Cmd
	logs *strings.Builder
	// running reports whether the server process is up; exited yields
	// its exit status.
	running bool
	exited  chan error
}

func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "freshet-server")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/server").CombinedOutput()
	if err != nil {
		t.Fatalf("building the server: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startBinary builds the server and starts it on a fresh directory with
// flags; the test's cleanup kills it if it still runs.
// pgx connects pgx to s's database freshet as user u, with params (such
// as "&timezone=UTC") added to the URL; the connection closes when the
// test ends.
func (s *server) pgx(ctx context.Context, params string) *pgx.Conn {
	s.t.Helper()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/freshet?sslmode=disable%s", s.addr, params))
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func startBinary(t *testing.T, flags ...string) *server {
	t.Helper()
	s := &server{t: t, bin: buildServer(t), dataDir: t.TempDir(), addr: freeAddr(t), flags: flags}
	s.start()
	t.Cleanup(func() {
		if s.running {
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
	return s
}

func (s *server) start() {
	s.t.Helper()
	s.logs = &strings.Builder{}
	s.cmd = exec.Command(s.bin, append([]string{"--listen", s.addr, "--data-dir", s.dataDir, "--workers", "2"}, s.flags...)...)
	s.cmd.Stdout = s.logs
	s.cmd.Stderr = s.logs
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.running = true
	s.exited = make(chan error, 1)
	go func() { s.exited <- s.cmd.Wait() }()
	// Wait until it accepts connections; a server that exits first fails.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if c, err := net.Dial("tcp", s.addr); err == nil {
			c.Close()
			return
		}
		select {
		case err := <-s.exited:
			s.running = false
			s.t.Fatalf("server exited before listening: %v\n%s", err, s.logs)
		case <-ctx.Done():
			s.t.Fatalf("server never listened\n%s", s.logs)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop sends sig to the server process (through os.Process, which only
// ever signals that one process) and waits for it to exit.
func (s *server) stop(sig os.Signal) {
	s.t.Helper()
	if !s.running {
		s.t.Fatalf("no server to stop")
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("signalling the server: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		s.t.Fatalf("server did not stop on %v\n%s", sig, s.logs)
	}
	s.running = false
}

// psql runs one command and returns its unaligned output, or the error
// output when want is an error.
func (s *server) psql(sql string) (string, error) {
	host, port, _ := net.SplitHostPort(s.addr)
	cmd := exec.Command("psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "u", "-d", "freshet", "-c", sql)
	cmd.Env = append(append(os.Environ(), "PGCONNECT_TIMEOUT=10"), s.env...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (s *server) must(sql string) string {
	s.t.Helper()
	out, err := s.psql(sql)
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", sql, err, out)
	}
	return out
}

func (s *server) expect(sql, want string) {
	s.t.Helper()
	if got := s.must(sql); got != want {
		s.t.Fatalf("%s:\n got %q\nwant %q", sql, got, want)
	}
}

func TestPsqlEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is required (apt-get install postgresql-client)")
	}
	s := startBinary(t)

	s.must("CREATE TABLE customers (id int NOT NULL, name text)")
	s.must("CREATE TABLE orders (id int, customer int, amount int)")
	s.must("INSERT INTO customers VALUES (1, 'ada'), (2, 'bob'), (3, 'cy')")
	s.must("INSERT INTO orders VALUES (1, 1, 50), (2, 1, 70), (3, 2, 20)")
	s.must(`CREATE MATERIALIZED VIEW totals AS
		SELECT c.name, sum(o.amount) AS total, count(*) AS n
		FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.name`)
	s.must("CREATE VIEW big AS SELECT name, total FROM totals WHERE total > 100")
	s.expect("SELECT name, total, n FROM totals ORDER BY name", "ada|120|2\nbob|20|1")
	s.expect("SELECT * FROM big", "ada|120")

	// Writes show up in the view on the next read.
	s.must("INSERT INTO orders VALUES (4, 2, 200)")
	s.expect("SELECT name, total FROM totals ORDER BY name", "ada|120\nbob|220")
	s.must("UPDATE orders SET amount = amount + 1 WHERE customer = 1")
	s.expect("SELECT name, total FROM totals ORDER BY name", "ada|122\nbob|220")
	s.must("DELETE FROM orders WHERE id = 3")
	s.expect("SELECT name, total, n FROM totals ORDER BY name", "ada|122|2\nbob|200|1")
	s.expect("SELECT name FROM big ORDER BY name", "ada\nbob")

	// DROP without CASCADE is refused with 2BP01 and nothing is dropped.
	out, err := s.psql("DROP TABLE orders")
	if err == nil || !strings.Contains(out, "cannot drop table orders because other objects depend on it") ||
		!strings.Contains(out, "Use DROP ... CASCADE to drop the dependent objects too.") {
		t.Fatalf("DROP TABLE without CASCADE: %v\n%s", err, out)
	}
	s.expect("SELECT count(*) FROM totals", "2")

	// A clean restart keeps everything.
	s.stop(syscall.SIGTERM)
	s.start()
	s.expect("SELECT name, total, n FROM totals ORDER BY name", "ada|122|2\nbob|200|1")
	s.must("INSERT INTO orders VALUES (5, 3, 7)")
	s.expect("SELECT name, total FROM totals ORDER BY name", "ada|122\nbob|200\ncy|7")

	// kill -9 loses no acknowledged write.
	for i := 0; i < 20; i++ {
		s.must(fmt.Sprintf("INSERT INTO orders VALUES (%d, 3, 1)", 100+i))
	}
	s.stop(syscall.SIGKILL)
	s.start()
	s.expect("SELECT total, n FROM totals WHERE name = 'cy'", "27|21")

	// CASCADE drops the dependents first.
	s.must("DROP TABLE orders CASCADE")
	if out, err := s.psql("SELECT * FROM totals"); err == nil || !strings.Contains(out, `relation "totals" does not exist`) {
		t.Fatalf("view survived CASCADE: %v %s", err, out)
	}
	s.expect("SELECT count(*) FROM customers", "3")
	s.stop(syscall.SIGTERM)
}
