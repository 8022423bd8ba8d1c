package sqllogic

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"freshet/coord"
	"freshet/pgwire"
)

// startServer runs the whole server in-process on a temporary data
// directory and returns the address it listens on.
func startServer(t *testing.T, dir string) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	engine, err := coord.Open(ctx, coord.Config{Workers: 2, DataDir: dir}, coord.Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if err := coord.RestoreDefaults(engine); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &pgwire.Server{Backend: coord.NewBackend(engine)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return ln.Addr().String(), func() {
		cancel()
		<-done
		engine.Close()
	}
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
// file. A file whose name ends in .restart.slt is run in two halves
// split at the line "# restart": the server restarts in between, on the
// same data directory.
func TestFreshetScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/freshet/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			dir := t.TempDir()
			parts := []string{file}
			if filepath.Ext(file[:len(file)-len(".slt")]) == ".restart" {
				parts = splitAtRestart(t, file)
			}
			for _, part := range parts {
				addr, stop := startServer(t, dir)
				conn := connect(t, addr, "freshet")
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				res := Run(ctx, NewConn(conn), part, Options{Engine: "postgresql", Timeout: time.Minute, Log: testLog{t}, MaxFailures: 20})
				cancel()
				conn.Close(context.Background())
				stop()
				if res.Err != nil {
					t.Fatal(res.Err)
				}
				t.Logf("%s: statements %s; queries %s", part, res.Statements, res.Queries)
				if res.Statements.Failed+res.Queries.Failed > 0 {
					t.Fatalf("%s: %d statements and %d queries failed", part, res.Statements.Failed, res.Queries.Failed)
				}
				if res.Statements.Passed+res.Queries.Passed == 0 {
					t.Fatalf("%s ran nothing", part)
				}
			}
		})
	}
}

// splitAtRestart writes the two halves of a restart script to files.
func splitAtRestart(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const marker = "\n# restart\n"
	i := indexOf(string(data), marker)
	if i < 0 {
		t.Fatalf("%s has no %q line", file, "# restart")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "before.slt"), filepath.Join(dir, "after.slt")
	os.WriteFile(a, data[:i+1], 0o644)
	os.WriteFile(b, data[i+len(marker):], 0o644)
	return []string{a, b}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
