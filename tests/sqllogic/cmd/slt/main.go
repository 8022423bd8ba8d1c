// Command slt runs sqllogictest files against a PostgreSQL-wire server.
//
//	slt [flags] <file or folder>...
//
// A folder stands for every *.test and *.slt file under it. Each file
// runs on a database of its own, created before it (CREATE DATABASE
// slt_N) and dropped after it, unless --fresh=false. The command prints
// the failures (up to --max-failures per file), one line of counts per
// file, and last a line "N passed, N failed, N skipped" that counts
// statements and queries together. It exits with status 1 if any record
// failed or any file could not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"freshet/tests/sqllogic"
)

func main() {
	url := flag.String("url", "postgres://u@127.0.0.1:6875/freshet", "server to test; each file's database is created through it")
	engine := flag.String("engine", sqllogic.DefaultEngine, "engine name for skipif and onlyif")
	timeout := flag.Duration("timeout", time.Minute, "time limit of each record (0: none)")
	maxFailures := flag.Int("max-failures", 10, "failure messages printed per file (0: all)")
	fresh := flag.Bool("fresh", true, "run each file on a new database slt_N, dropped after it")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: slt [flags] <file or folder>...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	files, err := collect(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "slt:", err)
		os.Exit(2)
	}
	cfg, err := pgx.ParseConfig(*url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slt:", err)
		os.Exit(2)
	}
	// A record that times out is cancelled on the server, and the
	// connection stays usable for the next record if the server honours
	// the cancel request.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 5 * time.Second}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := sqllogic.Options{Engine: *engine, Timeout: *timeout, Log: os.Stdout, MaxFailures: *maxFailures}
	var stmts, queries sqllogic.Counts
	broken := 0
	for i, file := range files {
		res := runFile(ctx, cfg, *fresh, fmt.Sprintf("slt_%d", i+1), file, opts)
		stmts, queries = stmts.Add(res.Statements), queries.Add(res.Queries)
		line := fmt.Sprintf("%s: statements %v; queries %v (%.1fs)", file, res.Statements, res.Queries, res.Elapsed.Seconds())
		if res.HaltLine != 0 {
			line += fmt.Sprintf(" halted at line %d", res.HaltLine)
		}
		fmt.Println(line)
		if res.Err != nil {
			broken++
			fmt.Printf("%s: did not run to the end: %v\n", file, res.Err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	total := stmts.Add(queries)
	fmt.Printf("statements: %v\nqueries: %v\n", stmts, queries)
	if broken > 0 {
		fmt.Printf("%d of %d files did not run to the end\n", broken, len(files))
	}
	fmt.Println(total)
	if total.Failed > 0 || broken > 0 {
		os.Exit(1)
	}
}

// collect expands folders into the *.test and *.slt files under them, in
// lexical order; files named on the command line are taken as they are.
func collect(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".test") || strings.HasSuffix(path, ".slt")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// runFile runs one file, on a new database named db if fresh, else on the
// database of cfg. Errors of the setup are reported in the result's Err.
func runFile(ctx context.Context, cfg *pgx.ConnConfig, fresh bool, db, file string, opts sqllogic.Options) sqllogic.FileResult {
	fail := func(err error) sqllogic.FileResult { return sqllogic.FileResult{File: file, Err: err} }
	cfg = cfg.Copy()
	if fresh {
		admin, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return fail(err)
		}
		defer admin.Close(context.WithoutCancel(ctx))
		if err := createDatabase(ctx, admin, db); err != nil {
			return fail(err)
		}
		defer func() {
			// Dropped even after an interrupt: a fresh context.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if _, err := admin.PgConn().Exec(dctx, "DROP DATABASE "+db).ReadAll(); err != nil {
				fmt.Fprintf(os.Stderr, "slt: drop database %s: %v\n", db, err)
			}
		}()
		cfg.Database = db
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return sqllogic.Run(ctx, sqllogic.NewConn(conn), file, opts)
}

// createDatabase creates db, first dropping a database of that name that
// an earlier, interrupted run left behind.
func createDatabase(ctx context.Context, admin *pgx.Conn, db string) error {
	_, err := admin.PgConn().Exec(ctx, "CREATE DATABASE "+db).ReadAll()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		if _, err := admin.PgConn().Exec(ctx, "DROP DATABASE "+db).ReadAll(); err != nil {
			return err
		}
		_, err = admin.PgConn().Exec(ctx, "CREATE DATABASE "+db).ReadAll()
	}
	return err
}
