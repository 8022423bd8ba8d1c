// Command freshet-bench measures what a user meets first: loading data,
// creating a view over it, keeping it fresh under writes, and the memory
// that takes. It runs one workload against a Freshet server it starts
// (or one at --freshet), and, given --postgres, against PostgreSQL with
// REFRESH MATERIALIZED VIEW and, when the extension is installed, with
// pg_ivm, and prints one table.
//
//	go run ./cmd/freshet-bench [--n 100000,1000000] [--postgres postgres://...]
//
// The workload: customers (10,000 rows in 50 regions), orders (N rows),
// and the view
//
//	SELECT c.region, count(*) AS n, sum(o.amount) AS total
//	FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region
//
// Figures: load (INSERT … SELECT generate_series in 100,000-row
// statements, rows/s), hydrate (CREATE MATERIALIZED VIEW over the loaded
// tables until its first read answers), fresh p50/p99 (from the start of a one-row INSERT to a read of
// the view that shows it), peek p50 (a read of the whole view), writes
// (1,000-row INSERT … VALUES with the view maintained, rows/s), restart (stop,
// start, first read of the view answered) and the server's RSS after the
// run with bytes per stored row. docs/benchmarks.md has the figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
)

// config is what the command line chose.
type config struct {
	sizes        []int
	freshetURL   string
	postgresURL  string
	serverBin    string
	workers      int
	freshSamples int
	peekSamples  int
	writeFor     time.Duration
	skipFreshet  bool
}

func main() {
	var cfg config
	sizes := flag.String("n", "100000,1000000", "orders table sizes, comma-separated")
	flag.StringVar(&cfg.freshetURL, "freshet", "", "URL of a running Freshet server (default: start one in a temporary directory)")
	flag.StringVar(&cfg.postgresURL, "postgres", "", "URL of a PostgreSQL database to compare with (REFRESH, and pg_ivm when installed)")
	flag.StringVar(&cfg.serverBin, "server-bin", "", "Freshet server binary to start (default: go build ./cmd/server)")
	flag.IntVar(&cfg.workers, "workers", 0, "--workers of the started server (default: its own)")
	flag.IntVar(&cfg.freshSamples, "fresh-samples", 200, "one-row writes timed for freshness")
	flag.IntVar(&cfg.peekSamples, "peek-samples", 200, "reads of the view timed")
	flag.DurationVar(&cfg.writeFor, "write-for", 5*time.Second, "how long 1,000-row INSERTs run with the view maintained")
	flag.BoolVar(&cfg.skipFreshet, "skip-freshet", false, "measure only --postgres")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			log.Fatalf("bad --n %q", *sizes)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	results, err := run(context.Background(), cfg, os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	printTable(os.Stdout, results)
}

// result is one row of the table: one system at one size.
type result struct {
	system             string
	n                  int
	loadRowsPerSec     float64
	hydrate            time.Duration
	freshP50, freshP99 time.Duration
	peekP50            time.Duration
	writeRowsPerSec    float64
	restart            time.Duration // 0: not measured
	rssBytes           int64         // 0: not measured
	storedRows         int
	viewRows           string // the view's contents at the end, for a cross-check
}

// target is one system under test.
type target struct {
	name string
	// connect opens a connection to a clean database for size n.
	connect func(ctx context.Context, n int) (*pgx.Conn, error)
	// create makes the view (CREATE MATERIALIZED VIEW, or pg_ivm's
	// create_immv).
	create func(ctx context.Context, c *pgx.Conn) error
	// refresh brings the view up to date after a write (REFRESH for
	// PostgreSQL's own views; nothing where views stay fresh).
	refresh func(ctx context.Context, c *pgx.Conn) error
	// restart stops and starts the server, if the bench owns it.
	restart func(ctx context.Context) error
	// rss returns the server's resident memory, if the bench owns it.
	rss func() int64
	// close ends the target at size n.
	close func()
}

const viewQuery = `SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region`

const (
	customers = 10000
	regions   = 50
	loadBatch = 100000
)

func run(ctx context.Context, cfg config, logw io.Writer) ([]result, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, format+"\n", args...) }
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

func measure(ctx context.Context, cfg config, t *target, n int, logf func(string, ...any)) (result, error) {
	r := result{system: t.name, n: n}
	c, err := t.connect(ctx, n)
	if err != nil {
		return r, err
	}
	defer func() { c.Close(context.Background()) }()
	for _, s := range []string{
		"CREATE TABLE customers (id int, region int)",
		"CREATE TABLE orders (id int, customer int, amount numeric(10,2))",
		fmt.Sprintf("INSERT INTO customers SELECT g, g %% %d FROM generate_series(1, %d) g", regions, customers),
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			return r, fmt.Errorf("%s: %w", s, err)
		}
	}

	start := time.Now()
	for lo := 1; lo <= n; lo += loadBatch {
		hi := min(lo+loadBatch-1, n)
		if _, err := c.Exec(ctx, orderInsert(lo, hi)); err != nil {
			return r, fmt.Errorf("loading orders: %w", err)
		}
	}
	r.loadRowsPerSec = float64(n) / time.Since(start).Seconds()
	logf("  load %.0f rows/s", r.loadRowsPerSec)

	// Hydration ends when the view answers a read: a server may return
	// from CREATE before its dataflow has caught up.
	start = time.Now()
	if err := t.create(ctx, c); err != nil {
		return r, fmt.Errorf("creating the view: %w", err)
	}
	var groups int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&groups); err != nil {
		return r, fmt.Errorf("reading the new view: %w", err)
	}
	r.hydrate = time.Since(start)
	if groups != regions {
		return r, fmt.Errorf("the new view has %d groups, want %d", groups, regions)
	}
	logf("  hydrate %v", r.hydrate)

	next := n + 1
	var fresh []time.Duration
	for i := 0; i < cfg.freshSamples; i++ {
		region := i % regions
		cust := region
		if cust == 0 {
			cust = regions
		}
		var before int64
		if err := c.QueryRow(ctx, "SELECT n FROM v WHERE region = $1", region).Scan(&before); err != nil {
			return r, fmt.Errorf("reading the view: %w", err)
		}
		start := time.Now()
		if _, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, 1.50)", next, cust)); err != nil {
			return r, err
		}
		next++
		if err := t.refresh(ctx, c); err != nil {
			return r, err
		}
		for {
			var now int64
			if err := c.QueryRow(ctx, "SELECT n FROM v WHERE region = $1", region).Scan(&now); err != nil {
				return r, err
			}
			if now == before+1 {
				break
			}
			if time.Since(start) > time.Minute {
				return r, fmt.Errorf("a write was not visible in the view after a minute (region %d: %d, want %d)", region, now, before+1)
			}
		}
		fresh = append(fresh, time.Since(start))
	}
	r.freshP50, r.freshP99 = percentile(fresh, 50), percentile(fresh, 99)
	logf("  fresh p50 %v p99 %v", r.freshP50, r.freshP99)

	var peeks []time.Duration
	for i := 0; i < cfg.peekSamples; i++ {
		start := time.Now()
		rows, err := c.Query(ctx, "SELECT * FROM v")
		if err != nil {
			return r, err
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return r, err
		}
		peeks = append(peeks, time.Since(start))
	}
	r.peekP50 = percentile(peeks, 50)
	logf("  peek p50 %v", r.peekP50)

	written := 0
	start = time.Now()
	for time.Since(start) < cfg.writeFor {
		if _, err := c.Exec(ctx, orderValues(next, next+999)); err != nil {
			return r, err
		}
		next += 1000
		written += 1000
	}
	if err := t.refresh(ctx, c); err != nil {
		return r, err
	}
	r.writeRowsPerSec = float64(written) / time.Since(start).Seconds()
	logf("  writes %.0f rows/s", r.writeRowsPerSec)
	r.storedRows = customers + next - 1

	if t.restart != nil {
		c.Close(ctx)
		start = time.Now()
		if err := t.restart(ctx); err != nil {
			return r, fmt.Errorf("restarting: %w", err)
		}
		if c, err = t.connect(ctx, 0); err != nil {
			return r, err
		}
		var k int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&k); err != nil {
			return r, fmt.Errorf("reading the view after the restart: %w", err)
		}
		r.restart = time.Since(start)
		logf("  restart %v", r.restart)
	}
	if t.rss != nil {
		r.rssBytes = t.rss()
	}
	// The view maintained through all of that must be the query's
	// answer computed now from scratch.
	if r.viewRows, err = contents(ctx, c, "v"); err != nil {
		return r, err
	}
	want, err := contents(ctx, c, "("+viewQuery+") q")
	if err != nil {
		return r, err
	}
	if r.viewRows != want {
		return r, fmt.Errorf("the view differs from its query computed from scratch:\n view  %s\n query %s", r.viewRows, want)
	}
	return r, nil
}

// orderInsert inserts orders lo..hi: customers spread over every region,
// amounts from 0.00 to 99.90.
func orderInsert(lo, hi int) string {
	return fmt.Sprintf("INSERT INTO orders SELECT g, (g * 37) %% %d + 1, (g %% 1000) / 10.0 FROM generate_series(%d, %d) g", customers, lo, hi)
}

// orderValues inserts orders lo..hi as one multi-row INSERT … VALUES,
// the way applications write.
func orderValues(lo, hi int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO orders VALUES ")
	for g := lo; g <= hi; g++ {
		if g > lo {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d,%d,%d.%d)", g, (g*37)%customers+1, g%1000/10, g%10)
	}
	return b.String()
}

// contents returns the rows of from (the view, or its query as a
// subquery) in one string.
func contents(ctx context.Context, c *pgx.Conn, from string) (string, error) {
	rows, err := c.Query(ctx, "SELECT region::text || ':' || n::text || ':' || total::text FROM "+from+" ORDER BY region")
	if err != nil {
		return "", err
	}
	vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(vals, " "), err
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

// freshetTarget starts a server per size (each on a fresh data directory,
// so that RSS is this size's), or uses cfg.freshetURL.
func freshetTarget(ctx context.Context, cfg config, logf func(string, ...any)) (*target, error) {
	t := &target{
		name: "Freshet",
		create: func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "CREATE MATERIALIZED VIEW v AS "+viewQuery)
			return err
		},
		refresh: func(context.Context, *pgx.Conn) error { return nil },
	}
	if cfg.freshetURL != "" {
		t.connect = func(ctx context.Context, n int) (*pgx.Conn, error) {
			c, err := pgx.Connect(ctx, cfg.freshetURL)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				for _, s := range []string{"DROP MATERIALIZED VIEW IF EXISTS v", "DROP TABLE IF EXISTS orders", "DROP TABLE IF EXISTS customers"} {
					if _, err := c.Exec(ctx, s); err != nil {
						return nil, err
					}
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
	t.rss = s.rss
	t.close = func() {
		s.stop()
		os.RemoveAll(tmp)
	}
	return t, nil
}

// server is a Freshet server process the bench started.
type server struct {
	bin, dataDir, addr string
	workers            int
	cmd                *exec.Cmd
	exited             chan struct{}
	logs               strings.Builder
}

func (s *server) url() string {
	return fmt.Sprintf("postgres://bench@%s/freshet?sslmode=disable", s.addr)
}

func (s *server) start(ctx context.Context) error {
	if s.addr == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.addr = ln.Addr().String()
		ln.Close()
	}
	args := []string{"--listen", s.addr, "--data-dir", s.dataDir}
	if s.workers > 0 {
		args = append(args, "--workers", strconv.Itoa(s.workers))
	}
	s.logs.Reset()
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if c, err := pgx.Connect(ctx, s.url()); err == nil {
			c.Close(ctx)
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("the server exited:\n%s", s.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not accept connections:\n%s", s.logs.String())
		}
	}
}

func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// rss reads the server's resident set size from /proc.
func (s *server) rss() int64 {
	if s.cmd == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

var errNoIVM = errors.New("pg_ivm is not installed")

// postgresTarget measures PostgreSQL: with REFRESH MATERIALIZED VIEW
// after every write, or, with ivm, with pg_ivm's incrementally
// maintained view.
func postgresTarget(ctx context.Context, url string, ivm bool) (*target, error) {
	t := &target{name: "PostgreSQL (REFRESH)"}
	t.connect = func(ctx context.Context, n int) (*pgx.Conn, error) {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return nil, err
		}
		for _, s := range []string{"DROP MATERIALIZED VIEW IF EXISTS v", "DROP TABLE IF EXISTS v", "DROP TABLE IF EXISTS orders", "DROP TABLE IF EXISTS customers"} {
			if _, err := c.Exec(ctx, s); err != nil {
				// pg_ivm's view is a table: the first DROP fails on it
				// with 42809, the second takes it.
				if !strings.Contains(err.Error(), "42809") {
					return nil, err
				}
			}
		}
		return c, nil
	}
	t.create = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "CREATE MATERIALIZED VIEW v AS "+viewQuery)
		return err
	}
	t.refresh = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "REFRESH MATERIALIZED VIEW v")
		return err
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
	t.create = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SELECT create_immv('v', $1)", viewQuery)
		return err
	}
	t.refresh = func(context.Context, *pgx.Conn) error { return nil }
	return t, nil
}

func printTable(w io.Writer, rs []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "system\tN\tload rows/s\thydrate\tfresh p50\tfresh p99\tpeek p50\twrites rows/s\trestart\tRSS\tbytes/row\t")
	for _, r := range rs {
		restart, rss, per := "—", "—", "—"
		if r.restart > 0 {
			restart = round(r.restart)
		}
		if r.rssBytes > 0 {
			rss = fmt.Sprintf("%.0f MB", float64(r.rssBytes)/1e6)
			per = fmt.Sprintf("%.0f", float64(r.rssBytes)/float64(r.storedRows))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0fk\t%s\t%s\t%s\t%s\t%.0fk\t%s\t%s\t%s\t\n", r.system, r.n, r.loadRowsPerSec/1000,
			round(r.hydrate), round(r.freshP50), round(r.freshP99), round(r.peekP50), r.writeRowsPerSec/1000, restart, rss, per)
	}
	tw.Flush()
}

// round shows a duration with three significant digits at most.
func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
