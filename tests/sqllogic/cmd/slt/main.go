// Command slt runs sqllogictest files against a PostgreSQL-wire server.
//
//	slt [flags] <file or folder>...
//
// A folder stands for every *.test and *.slt file under it. Each file
// runs on a server or database of its own: with --embedded, a new
// Freshet server in this process on an empty data directory; otherwise
// a new database slt_N created through --url before the file and
// dropped after it (unless --fresh=false).
//
// With --views, each file also runs in the view modes (see
// sqllogic.ViewMode), each on a fresh server or database of its own:
// "before" makes a view of every query that passed the plain run, as
// soon as its tables exist; "after" makes one right after each query
// passes; "both" runs both. A view whose contents differ from its
// query's result fails.
//
// The command prints the failures (up to --max-failures per file and
// mode), one line of counts per file and mode, the totals of each mode,
// and last a line "N passed, N failed, N skipped" that counts the
// statements and queries of the plain run together. --summary writes
// the counts as JSON as well. It exits with status 1 if any record or
// view failed or any file could not run.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"freshet/tests/sqllogic"
)

// config is what the flags say.
type config struct {
	url      *pgx.ConnConfig
	fresh    bool
	embedded bool
	workers  int
	opts     sqllogic.Options
}

// modeTotals are the counts of one mode over all files.
type modeTotals struct {
	Statements sqllogic.Counts `json:"statements"`
	Queries    sqllogic.Counts `json:"queries"`
	Views      sqllogic.Counts `json:"views"`
	// Broken counts the files that did not run to their end.
	Broken int `json:"broken"`
}

func (t *modeTotals) add(res sqllogic.FileResult) {
	t.Statements = t.Statements.Add(res.Statements)
	t.Queries = t.Queries.Add(res.Queries)
	t.Views = t.Views.Add(res.Views)
	if res.Err != nil {
		t.Broken++
	}
}

func (t *modeTotals) failed() bool {
	return t.Statements.Failed+t.Queries.Failed+t.Views.Failed > 0 || t.Broken > 0
}

// fileSummary is one file's counts in one mode, as --summary writes it.
type fileSummary struct {
	File       string          `json:"file"`
	Mode       string          `json:"mode"`
	Statements sqllogic.Counts `json:"statements"`
	Queries    sqllogic.Counts `json:"queries"`
	Views      sqllogic.Counts `json:"views"`
	Seconds    float64         `json:"seconds"`
	Error      string          `json:"error,omitempty"`
	// passed are the lines of the queries that passed.
	passed map[int]bool
}

// summary is what --summary writes.
type summary struct {
	Modes map[string]*modeTotals `json:"modes"`
	Files []fileSummary          `json:"files"`
}

func main() {
	url := flag.String("url", "postgres://u@127.0.0.1:6875/freshet", "server to test; each file's database is created through it")
	engine := flag.String("engine", sqllogic.DefaultEngine, "engine name for skipif and onlyif")
	timeout := flag.Duration("timeout", time.Minute, "time limit of each record and of each view statement (0: none)")
	maxFailures := flag.Int("max-failures", 10, "failure messages printed per file and mode (0: all)")
	fresh := flag.Bool("fresh", true, "with --url: run each file on a new database slt_N, dropped after it")
	embedded := flag.Bool("embedded", false, "run each file on a new Freshet server in this process, on an empty temporary data directory (--url is not used)")
	workers := flag.Int("workers", 2, "with --embedded: dataflow workers of each server")
	views := flag.String("views", "none", "view modes to run after the plain run: none, before, after or both")
	summaryFile := flag.String("summary", "", "write the counts per file and mode, and the totals, as JSON to this file")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (useful with --embedded)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: slt [flags] <file or folder>...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var modes []sqllogic.ViewMode
	switch *views {
	case "none":
	case "before":
		modes = []sqllogic.ViewMode{sqllogic.ViewsBefore}
	case "after":
		modes = []sqllogic.ViewMode{sqllogic.ViewsAfter}
	case "both":
		modes = []sqllogic.ViewMode{sqllogic.ViewsBefore, sqllogic.ViewsAfter}
	default:
		fmt.Fprintf(os.Stderr, "slt: --views %q: want none, before, after or both\n", *views)
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
	c := config{url: cfg, fresh: *fresh, embedded: *embedded, workers: *workers,
		opts: sqllogic.Options{Engine: *engine, Timeout: *timeout, Log: os.Stdout, MaxFailures: *maxFailures}}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "slt:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum := summary{Modes: map[string]*modeTotals{}}
	for _, m := range append([]sqllogic.ViewMode{sqllogic.NoViews}, modes...) {
		sum.Modes[m.String()] = &modeTotals{}
	}
	run := 0
	for _, file := range files {
		for _, m := range append([]sqllogic.ViewMode{sqllogic.NoViews}, modes...) {
			if ctx.Err() != nil {
				break
			}
			run++
			opts := c.opts
			opts.Views = m
			if m == sqllogic.ViewsBefore {
				opts.Candidates = passedQueries(sum.Files, file)
			}
			res := runFile(ctx, c, fmt.Sprintf("slt_%d", run), file, opts)
			sum.Modes[m.String()].add(res)
			fsum := fileSummary{File: file, Mode: m.String(), Statements: res.Statements, Queries: res.Queries,
				Views: res.Views, Seconds: res.Elapsed.Seconds()}
			line := fmt.Sprintf("%s [%s]: statements %v; queries %v", file, m, res.Statements, res.Queries)
			if m != sqllogic.NoViews {
				line += fmt.Sprintf("; views %v", res.Views)
			}
			line += fmt.Sprintf(" (%.1fs)", res.Elapsed.Seconds())
			if res.HaltLine != 0 {
				line += fmt.Sprintf(" halted at line %d", res.HaltLine)
			}
			fmt.Println(line)
			if res.Err != nil {
				fsum.Error = res.Err.Error()
				fmt.Printf("%s [%s]: did not run to the end: %v\n", file, m, res.Err)
			}
			fsum.passed = res.PassedQueries()
			sum.Files = append(sum.Files, fsum)
		}
	}
	failed := false
	for _, m := range append([]sqllogic.ViewMode{sqllogic.NoViews}, modes...) {
		t := sum.Modes[m.String()]
		fmt.Printf("[%s] statements: %v; queries: %v", m, t.Statements, t.Queries)
		if m != sqllogic.NoViews {
			fmt.Printf("; views: %v", t.Views)
		}
		fmt.Println()
		if t.Broken > 0 {
			fmt.Printf("[%s] %d of %d files did not run to the end\n", m, t.Broken, len(files))
		}
		failed = failed || t.failed()
	}
	if *summaryFile != "" {
		data, err := json.MarshalIndent(sum, "", "  ")
		if err == nil {
			err = os.WriteFile(*summaryFile, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "slt:", err)
			os.Exit(2)
		}
	}
	plain := sum.Modes[sqllogic.NoViews.String()]
	fmt.Println(plain.Statements.Add(plain.Queries))
	if failed || ctx.Err() != nil {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// passedQueries returns the lines of the queries of file that passed its
// plain run.
func passedQueries(files []fileSummary, file string) map[int]bool {
	for _, f := range files {
		if f.File == file && f.Mode == sqllogic.NoViews.String() {
			return f.passed
		}
	}
	return nil
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

// runFile runs one file on a fresh server or database. Errors of the
// setup are reported in the result's Err.
func runFile(ctx context.Context, c config, db, file string, opts sqllogic.Options) sqllogic.FileResult {
	fail := func(err error) sqllogic.FileResult { return sqllogic.FileResult{File: file, Err: err} }
	cfg := c.url.Copy()
	switch {
	case c.embedded:
		dir, err := os.MkdirTemp("", "slt-")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(dir)
		srv, err := sqllogic.StartServer(dir, c.workers)
		if err != nil {
			return fail(err)
		}
		defer srv.Close()
		if cfg, err = pgx.ParseConfig("postgres://u@" + srv.Addr + "/freshet?sslmode=disable"); err != nil {
			return fail(err)
		}
		cfg.BuildContextWatcherHandler = c.url.BuildContextWatcherHandler
	case c.fresh:
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
