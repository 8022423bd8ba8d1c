// Command freshet-bench measures what a user meets first: loading data,
// creating views over it, keeping them fresh under writes, and the memory
// that takes. It runs its workloads against a Freshet server it starts
// (or one at --freshet), and, given --postgres, against PostgreSQL with
// REFRESH MATERIALIZED VIEW and, when the extension is installed, with
// pg_ivm, and prints a table per workload.
//
//	go run ./cmd/freshet-bench [--n 100000,1000000] [--postgres postgres://...] [--workloads all]
//
// Every workload runs over customers (10,000 rows in 50 regions) and
// orders (N rows, loaded by INSERT … SELECT generate_series in
// 100,000-row statements). --workloads chooses among (default main):
//
//   - main: the view
//     SELECT c.region, count(*) AS n, sum(o.amount) AS total
//     FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region
//     and its figures: load (rows/s), hydrate (CREATE MATERIALIZED VIEW
//     until its first read answers), fresh p50/p99 (from the start of a
//     one-row INSERT to a read of the view that shows it), peek p50 (a
//     read of the whole view), writes (1,000-row INSERT … VALUES with the
//     view maintained, rows/s), restart (stop, start, first read of the
//     view answered) and the server's RSS after the run with bytes per
//     stored row.
//   - load: rows/s of each way to load min(N, 1M) rows into a scratch
//     table with orders' schema: INSERT … SELECT, 1,000-row INSERT …
//     VALUES, and COPY FROM STDIN in text format.
//   - threeway: a view joining orders, customers and a 50-row regions
//     table, grouped by region name: hydrate, fresh p50/p99, writes.
//   - distinct: count(DISTINCT o.customer) per region over the join:
//     hydrate, fresh p50/p99, writes.
//   - shared-index: an index that 10 views could share, on orders'
//     join column and on a view of the join; each view's hydration and
//     growth of RSS and live heap, and how many of them import the
//     index.
//   - many-views: --views small views over one table: create time, RSS
//     per view, fresh p50/p99 and writes with all of them alive.
//   - memory: where the server's memory goes after main (arrangements'
//     records and bytes, dataflows' bytes, Go's heap against RSS), and
//     how much comes back when everything is dropped.
//
// Every view is checked at the end against its query computed from
// scratch. docs/benchmarks.md has the figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// config is what the command line chose.
type config struct {
	sizes        []int
	workloads    []string
	freshetURL   string
	postgresURL  string
	serverBin    string
	workers      int
	freshSamples int
	peekSamples  int
	writeFor     time.Duration
	views        int
	skipFreshet  bool
}

// workloads are the names --workloads takes, in the order they run.
var workloads = []string{"main", "load", "threeway", "distinct", "shared-index", "many-views", "memory"}

func main() {
	var cfg config
	sizes := flag.String("n", "100000,1000000", "orders table sizes, comma-separated")
	chosen := flag.String("workloads", "main", "workloads to run, comma-separated, or all: "+strings.Join(workloads, ","))
	flag.StringVar(&cfg.freshetURL, "freshet", "", "URL of a running Freshet server (default: start one in a temporary directory)")
	flag.StringVar(&cfg.postgresURL, "postgres", "", "URL of a PostgreSQL database to compare with (REFRESH, and pg_ivm when installed)")
	flag.StringVar(&cfg.serverBin, "server-bin", "", "Freshet server binary to start (default: go build ./cmd/server)")
	flag.IntVar(&cfg.workers, "workers", 0, "--workers of the started server (default: its own)")
	flag.IntVar(&cfg.freshSamples, "fresh-samples", 200, "one-row writes timed for freshness")
	flag.IntVar(&cfg.peekSamples, "peek-samples", 200, "reads of the view timed")
	flag.DurationVar(&cfg.writeFor, "write-for", 5*time.Second, "how long 1,000-row INSERTs run with a view maintained")
	flag.IntVar(&cfg.views, "views", 1000, "views the many-views workload creates")
	flag.BoolVar(&cfg.skipFreshet, "skip-freshet", false, "measure only --postgres")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			log.Fatalf("bad --n %q", *sizes)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	var err error
	if cfg.workloads, err = parseWorkloads(*chosen); err != nil {
		log.Fatal(err)
	}
	if cfg.views <= 0 {
		log.Fatalf("bad --views %d", cfg.views)
	}
	results, err := run(context.Background(), cfg, os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	printTables(os.Stdout, results)
}

func parseWorkloads(s string) ([]string, error) {
	if s == "all" {
		return workloads, nil
	}
	var out []string
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if !slices.Contains(workloads, w) {
			return nil, fmt.Errorf("bad --workloads %q: want all or some of %s", s, strings.Join(workloads, ","))
		}
		out = append(out, w)
	}
	return out, nil
}

// result is what one system measured at one size; a workload that did
// not run is nil.
type result struct {
	system   string
	n        int
	main     *mainResult
	load     *loadResult
	threeway *viewResult
	distinct *viewResult
	shared   []sharedResult
	many     *manyResult
	memory   *memoryResult
}

const (
	customers = 10000
	regions   = 50
	loadBatch = 100000
)

func run(ctx context.Context, cfg config, logw io.Writer) ([]result, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, format+"\n", args...) }
	if len(cfg.workloads) == 0 {
		cfg.workloads = []string{"main"}
	}
	var targets []func() (*target, error)
	if !cfg.skipFreshet {
		targets = append(targets, func() (*target, error) { return freshetTarget(ctx, cfg, logf) })
	}
	if cfg.postgresURL != "" {
		targets = append(targets,
			func() (*target, error) { return postgresTarget(ctx, cfg.postgresURL, false) },
			func() (*target, error) { return postgresTarget(ctx, cfg.postgresURL, true) })
	}
	var out []result
	for _, mk := range targets {
		t, err := mk()
		if errors.Is(err, errNoIVM) {
			logf("pg_ivm is not installed in the PostgreSQL database: skipped")
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, n := range cfg.sizes {
			logf("%s, N = %d", t.name, n)
			r, err := measure(ctx, cfg, t, n, logf)
			if err != nil {
				t.close()
				return nil, fmt.Errorf("%s at N = %d: %w", t.name, n, err)
			}
			out = append(out, r)
		}
		t.close()
	}
	return out, nil
}

// session is one system at one size: its connection, and the next
// order id to write.
type session struct {
	cfg  config
	t    *target
	n    int
	c    *pgx.Conn
	next int
	// mainView reports whether main's view v exists.
	mainView bool
	logf     func(string, ...any)
	// loadRowsPerSec is the rate orders were loaded at.
	loadRowsPerSec float64
}

// measure loads the tables and runs each chosen workload in turn. Each
// drops what it created, except memory, whose second half drops
// everything and runs last.
func measure(ctx context.Context, cfg config, t *target, n int, logf func(string, ...any)) (result, error) {
	r := result{system: t.name, n: n}
	c, err := t.connect(ctx, n)
	if err != nil {
		return r, err
	}
	s := &session{cfg: cfg, t: t, n: n, c: c, next: n + 1, logf: logf}
	defer func() { s.c.Close(context.Background()) }()
	if err := s.setup(ctx); err != nil {
		return r, err
	}
	chose := func(w string) bool { return slices.Contains(cfg.workloads, w) }
	memory := chose("memory") && t.memStats != nil
	if chose("memory") && !memory {
		logf("  memory: needs a server the bench starts: skipped")
	}
	// A step on N starts from the N orders of the load: the orders main
	// and the others wrote are deleted first. main and memory measure
	// the tables as main leaves them.
	steps := []struct {
		run, onN bool
		do       func() error
	}{
		{chose("main"), false, func() (err error) { r.main, err = s.mainWorkload(ctx); return err }},
		{memory, false, func() (err error) { r.memory, err = s.memoryBreakdown(ctx); return err }},
		{chose("load"), false, func() (err error) { r.load, err = s.loadWorkload(ctx); return err }},
		{chose("threeway"), true, func() (err error) { r.threeway, err = s.threewayWorkload(ctx); return err }},
		{chose("distinct"), true, func() (err error) { r.distinct, err = s.distinctWorkload(ctx); return err }},
		{chose("shared-index"), true, func() (err error) { r.shared, err = s.sharedIndexWorkload(ctx); return err }},
		{chose("many-views"), false, func() (err error) { r.many, err = s.manyViewsWorkload(ctx); return err }},
		{memory, false, func() error { return s.dropAll(ctx, r.memory) }},
	}
	for _, st := range steps {
		if !st.run {
			continue
		}
		if st.onN {
			if err := s.trimOrders(ctx); err != nil {
				return r, err
			}
		}
		if err := st.do(); err != nil {
			return r, err
		}
	}
	return r, nil
}

// trimOrders deletes the orders written since the load, so that orders
// holds N rows again (and, where the system needs it, vacuums).
func (s *session) trimOrders(ctx context.Context) error {
	if s.next == s.n+1 {
		return nil
	}
	if err := execAll(ctx, s.c, fmt.Sprintf("DELETE FROM orders WHERE id > %d", s.n)); err != nil {
		return err
	}
	if s.t.vacuum != "" {
		if err := execAll(ctx, s.c, s.t.vacuum+" orders"); err != nil {
			return err
		}
	}
	// The next workload's first figure is a hydration: it starts once
	// the deletion has reached the table and main's view, whose upkeep
	// would otherwise be counted in it.
	waitFor := []string{"SELECT count(*) FROM orders"}
	if s.mainView {
		if err := s.t.refresh(ctx, s.c, "v"); err != nil {
			return err
		}
		waitFor = append(waitFor, "SELECT sum(n) FROM v")
	}
	start := time.Now()
	for _, q := range waitFor {
		for {
			var n int64
			if err := s.c.QueryRow(ctx, q).Scan(&n); err != nil {
				return fmt.Errorf("after trimming orders: %s: %w", q, err)
			}
			if n == int64(s.n) {
				break
			}
			if time.Since(start) > time.Minute {
				return fmt.Errorf("after trimming orders: %s gives %d after a minute, want %d", q, n, s.n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	s.next = s.n + 1
	s.logf("  orders trimmed back to %d rows in %v", s.n, time.Since(start))
	return nil
}

// setup creates customers and orders and loads N orders.
func (s *session) setup(ctx context.Context) error {
	if err := execAll(ctx, s.c,
		"CREATE TABLE customers (id int, region int)",
		"CREATE TABLE orders (id int, customer int, amount numeric(10,2))",
		fmt.Sprintf("INSERT INTO customers SELECT g, g %% %d FROM generate_series(1, %d) g", regions, customers),
	); err != nil {
		return err
	}
	start := time.Now()
	for lo := 1; lo <= s.n; lo += loadBatch {
		hi := min(lo+loadBatch-1, s.n)
		if err := execAll(ctx, s.c, orderInsert("orders", lo, hi)); err != nil {
			return fmt.Errorf("loading orders: %w", err)
		}
	}
	s.loadRowsPerSec = float64(s.n) / time.Since(start).Seconds()
	s.logf("  load %.0f rows/s", s.loadRowsPerSec)
	return analyze(ctx, s.c, "customers", "orders")
}

// analyze gathers the statistics of tables. PostgreSQL plans a view's
// query from them, and autovacuum would gather them soon after a load;
// without them it may choose nested loops over the new tables.
func analyze(ctx context.Context, c *pgx.Conn, tables ...string) error {
	for _, t := range tables {
		if err := execAll(ctx, c, "ANALYZE "+t); err != nil {
			return err
		}
	}
	return nil
}

// orderInsert inserts orders lo..hi into table: customers spread over
// every region, amounts from 0.00 to 99.90.
func orderInsert(table string, lo, hi int) string {
	return fmt.Sprintf("INSERT INTO %s SELECT g, (g * 37) %% %d + 1, (g %% 1000) / 10.0 FROM generate_series(%d, %d) g", table, customers, lo, hi)
}

// orderValues inserts the same orders lo..hi into table as one
// multi-row INSERT … VALUES, the way applications write.
func orderValues(table string, lo, hi int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " VALUES ")
	for g := lo; g <= hi; g++ {
		if g > lo {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d,%d,%d.%d)", g, (g*37)%customers+1, g%1000/10, g%10)
	}
	return b.String()
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(i, len(s))-1)]
}
