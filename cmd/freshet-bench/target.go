package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// target is one system under test.
type target struct {
	name string
	// connect opens a connection to a clean database for size n, or,
	// with n = 0, to the database as it is.
	connect func(ctx context.Context, n int) (*pgx.Conn, error)
	// create makes view name over query (CREATE MATERIALIZED VIEW, or
	// pg_ivm's create_immv).
	create func(ctx context.Context, c *pgx.Conn, name, query string) error
	// refresh brings view name up to date after a write (REFRESH for
	// PostgreSQL's own views; nothing where views stay fresh).
	refresh func(ctx context.Context, c *pgx.Conn, name string) error
	// dropView drops view name.
	dropView func(ctx context.Context, c *pgx.Conn, name string) error
	// indexesViews reports whether CREATE INDEX takes a (non-materialized)
	// view, as Freshet's does and PostgreSQL's does not.
	indexesViews bool
	// vacuum, if not empty, is what reclaims deleted rows and brings the
	// planner's statistics up to date after a large DELETE.
	vacuum string
	// restart stops and starts the server, if the bench owns it, and
	// started returns when the running server's process started.
	restart func(ctx context.Context) error
	started func() time.Time
	// rss returns the server's resident memory, if the bench owns it,
	// and peakRSS the largest it has been at this size.
	rss, peakRSS func() int64
	// memStats returns the server's Go memory statistics (after a
	// garbage collection if gc), if the bench owns it.
	memStats func(ctx context.Context, gc bool) (map[string]int64, error)
	// close ends the target.
	close func()
}

// benchTables are every table a run creates, dropped (with what depends
// on them) before a run on a database the bench does not own.
var benchTables = []string{"orders", "customers", "regions", "t", "load_select", "load_values", "load_copy"}

func execAll(ctx context.Context, c *pgx.Conn, stmts ...string) error {
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func dropBenchTables(ctx context.Context, c *pgx.Conn) error {
	for _, t := range benchTables {
		if err := execAll(ctx, c, "DROP TABLE IF EXISTS "+t+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}

// freshetTarget starts a server per size (each on a fresh data directory,
// so that RSS is this size's), or uses cfg.freshetURL.
func freshetTarget(ctx context.Context, cfg config, logf func(string, ...any)) (*target, error) {
	t := &target{
		name: "Freshet",
		create: func(ctx context.Context, c *pgx.Conn, name, query string) error {
			return execAll(ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+query)
		},
		refresh: func(context.Context, *pgx.Conn, string) error { return nil },
		dropView: func(ctx context.Context, c *pgx.Conn, name string) error {
			return execAll(ctx, c, "DROP MATERIALIZED VIEW "+name)
		},
		indexesViews: true,
	}
	if cfg.freshetURL != "" {
		t.connect = func(ctx context.Context, n int) (*pgx.Conn, error) {
			c, err := pgx.Connect(ctx, cfg.freshetURL)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				if err := dropBenchTables(ctx, c); err != nil {
					return nil, err
				}
			}
			return c, nil
		}
		t.close = func() {}
		return t, nil
	}
	bin := cfg.serverBin
	tmp, err := os.MkdirTemp("", "freshet-bench-")
	if err != nil {
		return nil, err
	}
	if bin == "" {
		bin = filepath.Join(tmp, "server")
		logf("building the server")
		if out, err := exec.Command("go", "build", "-o", bin, "freshet/cmd/server").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	s := &server{bin: bin, workers: cfg.workers}
	t.connect = func(ctx context.Context, n int) (*pgx.Conn, error) {
		if n > 0 {
			// A new size: a new server on a new directory.
			s.stop()
			s.peak = 0
			s.dataDir = filepath.Join(tmp, fmt.Sprintf("data-%d", n))
			if err := s.start(ctx); err != nil {
				return nil, err
			}
		}
		return pgx.Connect(ctx, s.url())
	}
	t.restart = func(ctx context.Context) error {
		s.stop()
		return s.start(ctx)
	}
	t.started = func() time.Time { return s.started }
	t.rss = s.rss
	t.peakRSS = s.peakRSS
	t.memStats = s.memStats
	t.close = func() {
		s.stop()
		os.RemoveAll(tmp)
	}
	return t, nil
}

var errNoIVM = errors.New("pg_ivm is not installed")

// postgresTarget measures PostgreSQL: with REFRESH MATERIALIZED VIEW
// after every write, or, with ivm, with pg_ivm's incrementally
// maintained views.
func postgresTarget(ctx context.Context, url string, ivm bool) (*target, error) {
	t := &target{name: "PostgreSQL (REFRESH)", vacuum: "VACUUM ANALYZE"}
	t.connect = func(ctx context.Context, n int) (*pgx.Conn, error) {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return nil, err
		}
		for _, s := range []string{"DROP MATERIALIZED VIEW IF EXISTS v", "DROP TABLE IF EXISTS v"} {
			if _, err := c.Exec(ctx, s); err != nil {
				// pg_ivm's view is a table: the first DROP fails on it
				// with 42809, the second takes it.
				if !strings.Contains(err.Error(), "42809") {
					return nil, err
				}
			}
		}
		if err := dropBenchTables(ctx, c); err != nil {
			return nil, err
		}
		return c, nil
	}
	t.create = func(ctx context.Context, c *pgx.Conn, name, query string) error {
		return execAll(ctx, c, "CREATE MATERIALIZED VIEW "+name+" AS "+query)
	}
	t.refresh = func(ctx context.Context, c *pgx.Conn, name string) error {
		return execAll(ctx, c, "REFRESH MATERIALIZED VIEW "+name)
	}
	t.dropView = func(ctx context.Context, c *pgx.Conn, name string) error {
		return execAll(ctx, c, "DROP MATERIALIZED VIEW "+name)
	}
	t.close = func() {}
	if !ivm {
		return t, nil
	}
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_ivm"); err != nil {
		return nil, errNoIVM
	}
	t.name = "PostgreSQL + pg_ivm"
	t.create = func(ctx context.Context, c *pgx.Conn, name, query string) error {
		_, err := c.Exec(ctx, "SELECT create_immv($1, $2)", name, query)
		return err
	}
	t.refresh = func(context.Context, *pgx.Conn, string) error { return nil }
	t.dropView = func(ctx context.Context, c *pgx.Conn, name string) error {
		return execAll(ctx, c, "DROP TABLE "+name)
	}
	return t, nil
}
