package coord

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"freshet/catalog"
	"freshet/expr"
	"freshet/repr"
)

// BenchmarkFreshness measures what a user waits for: from an INSERT's
// acknowledgement to a read of a materialized view that shows it, with
// the table already holding rows rows. Each iteration writes one row
// (durably) and then reads the view (SELECT k, count(*), sum(v) GROUP BY
// k) at a time that includes the write. The cost should follow the
// change, not the table's size.
func BenchmarkFreshness(b *testing.B) {
	for _, rows := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			tb := tableObj("t")
			if err := e.CreateTable(ctx, tb, nil); err != nil {
				b.Fatal(err)
			}
			loadRows(b, e, tb, rows)
			mv := &catalog.Object{Kind: catalog.MaterializedView, Name: "m", Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
				DependsOn: []uint64{tb.ID}, Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "sum", Type: repr.Int8}}}
			if err := e.CreateMaterializedView(ctx, mv, sumByKey(tb), nil); err != nil {
				b.Fatal(err)
			}
			// One point lookup per iteration keeps the read small: a
			// filter on the view, read at the write's time.
			read := expr.Filter{Input: expr.Get{ID: expr.GlobalID(mv.ID), Types: mv.ColumnTypes()},
				Predicates: []expr.Scalar{expr.CallBinary{Func: expr.Eq, Left: expr.Column{Index: 0}, Right: expr.Literal{Value: repr.NewInt4(7), Type: repr.Int4}}}}
			if _, err := e.Read(ctx, read, e.ReadTime()); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ts, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(7, 1), Diff: 1}})
				if err != nil {
					b.Fatal(err)
				}
				got, err := e.Read(ctx, read, ts)
				if err != nil || len(got) != 1 {
					b.Fatalf("read: %v %v", got, err)
				}
			}
		})
	}
}

// BenchmarkWrite measures one durable single-row INSERT (a transaction at
// its own timestamp, fsynced, fed to the table's dataflow): the part of
// BenchmarkFreshness that is the write.
func BenchmarkWrite(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tb := tableObj("t")
	if err := e.CreateTable(ctx, tb, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(int32(i), 1), Diff: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteUnique is BenchmarkWrite into a table with a primary key
// that already holds rows rows: the uniqueness check looks up the
// written key values only, so the cost should not follow the table's
// size.
func BenchmarkWriteUnique(b *testing.B) {
	for _, rows := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			tb := tableObj("t")
			tb.UniqueKeys = []catalog.UniqueKey{{Name: "t_pkey", Columns: []int{0}, Primary: true}}
			if err := e.CreateTable(ctx, tb, nil); err != nil {
				b.Fatal(err)
			}
			const batch = 50_000
			for i := 0; i < rows; i += batch {
				ws := make([]TableWrite, 0, batch)
				for j := i; j < min(i+batch, rows); j++ {
					ws = append(ws, TableWrite{Table: tb.ID, Row: row(int32(j), 1), Diff: 1})
				}
				if _, err := e.Write(ctx, ws); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Write(ctx, []TableWrite{{Table: tb.ID, Row: row(int32(rows+i), 1), Diff: 1}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDropLatency measures DROP MATERIALIZED VIEW of a view over a
// table of rows rows (its dataflow holds a 1000-group reduction), and
// what a writer to an unrelated table sees meanwhile: each iteration
// creates the view (untimed), then times the drop while another
// goroutine writes single rows to the other table without pause. It
// reports the drop's p50 and p99 and the longest single write seen
// during any drop (max-write-during-drop-ms).
func BenchmarkDropLatency(b *testing.B) {
	for _, rows := range []int{10_000, 200_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Workers: 2, DataDir: b.TempDir()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			tb, other := tableObj("t"), tableObj("u")
			for _, o := range []*catalog.Object{tb, other} {
				if err := e.CreateTable(ctx, o, nil); err != nil {
					b.Fatal(err)
				}
			}
			loadRows(b, e, tb, rows)
			var drops []time.Duration
			var worstWrite time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				mv := &catalog.Object{Kind: catalog.MaterializedView, Name: fmt.Sprintf("m%d", i), Database: catalog.DefaultDatabase, Schema: catalog.DefaultSchema,
					DependsOn: []uint64{tb.ID}, Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "sum", Type: repr.Int8}}}
				if err := e.CreateMaterializedView(ctx, mv, sumByKey(tb), nil); err != nil {
					b.Fatal(err)
				}
				stop := make(chan struct{})
				worst := make(chan time.Duration)
				go func() {
					var w time.Duration
					for n := int32(0); ; n++ {
						select {
						case <-stop:
							worst <- w
							return
						default:
						}
						start := time.Now()
						if _, err := e.Write(ctx, []TableWrite{{Table: other.ID, Row: row(n, 1), Diff: 1}}); err != nil {
							panic(err)
						}
						w = max(w, time.Since(start))
					}
				}()
				b.StartTimer()
				start := time.Now()
				if _, err := e.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
					return c.PlanDrop(catalog.MaterializedView, mv, false)
				}); err != nil {
					b.Fatal(err)
				}
				drops = append(drops, time.Since(start))
				b.StopTimer()
				close(stop)
				worstWrite = max(worstWrite, <-worst)
				b.StartTimer()
			}
			slices.Sort(drops)
			b.ReportMetric(float64(drops[len(drops)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(drops[(len(drops)*99)/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(worstWrite.Microseconds())/1000, "max-write-during-drop-ms")
		})
	}
}

// loadRows writes rows rows (k = j % 1000, v = j) into tb in large
// transactions.
func loadRows(b *testing.B, e *Engine, tb *catalog.Object, rows int) {
	b.Helper()
	const batch = 50_000
	for i := 0; i < rows; i += batch {
		ws := make([]TableWrite, 0, batch)
		for j := i; j < min(i+batch, rows); j++ {
			ws = append(ws, TableWrite{Table: tb.ID, Row: row(int32(j%1000), int32(j)), Diff: 1})
		}
		if _, err := e.Write(context.Background(), ws); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFreshnessBesideExpensiveView measures the freshness of a
// small view (one INSERT into its table, then a read of the view that
// shows it) while another session keeps feeding a view whose every update
// is expensive: a LIKE with many wildcards over 190-character strings,
// and a join that fans each new row out to 2,000 partners. The
// freshness p50 and p99 are what an unrelated user sees while one
// expensive dataflow runs: with fuelled steps it stays in milliseconds.
func BenchmarkFreshnessBesideExpensiveView(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s, feeder := env.session(), env.session()
	env.exec(s, "CREATE TABLE small (k int, v int)")
	env.exec(s, "CREATE MATERIALIZED VIEW small_sum AS SELECT k, sum(v) AS total FROM small GROUP BY k")
	env.exec(s, "CREATE TABLE lt (id int, s text)")
	env.exec(s, "CREATE MATERIALIZED VIEW lmv AS SELECT count(*) AS n FROM lt WHERE s LIKE '%a%a%a%a%a%a%ab'")
	env.exec(s, "CREATE TABLE fan (k int, v int)")
	env.exec(s, "INSERT INTO fan SELECT 1, g FROM generate_series(1, 2000) g")
	env.exec(s, "CREATE MATERIALIZED VIEW fanout AS SELECT a.k, count(*) AS n FROM fan a JOIN fan b ON a.k = b.k GROUP BY a.k")

	stop := make(chan struct{})
	fed := make(chan int, 1)
	go func() {
		long := strings.Repeat("a", 190)
		n := 0
		for {
			select {
			case <-stop:
				fed <- n
				return
			default:
			}
			ctx := context.Background()
			stmt := fmt.Sprintf("INSERT INTO lt VALUES (%d, '%s')", n, long)
			if n%2 == 1 {
				stmt = fmt.Sprintf("INSERT INTO fan VALUES (1, %d)", -n)
			}
			if err := feeder.Query(ctx, stmt, &recorder{}); err != nil {
				b.Errorf("feeding: %v", err)
				fed <- n
				return
			}
			n++
		}
	}()
	smallSumFreshness(b, env, s)
	close(stop)
	b.ReportMetric(float64(<-fed), "expensive-writes")
}

// smallSumFreshness writes b.N rows to small and reads each back through
// small_sum on s, and reports the write-to-read latency's p50, p99 and
// max, and the write's own (the INSERT's acknowledgement) p50 and p99.
func smallSumFreshness(b *testing.B, env *sqlEnv, s *Session) {
	var lat, writes []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		env.exec(s, fmt.Sprintf("INSERT INTO small VALUES (%d, 1)", i%10))
		writes = append(writes, time.Since(start))
		if got := env.query(s, fmt.Sprintf("SELECT total FROM small_sum WHERE k = %d", i%10)); got != fmt.Sprint(i/10+1) {
			b.Fatalf("small_sum for %d: %s, want %d", i%10, got, i/10+1)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	slices.Sort(writes)
	b.ReportMetric(float64(writes[len(writes)/2].Microseconds())/1000, "write-p50-ms")
	b.ReportMetric(float64(writes[(len(writes)*99)/100].Microseconds())/1000, "write-p99-ms")
}

// BenchmarkFreshnessBesideHydration is BenchmarkFreshnessBesideExpensiveView
// while another session creates a materialized view over a 400M-row
// cross join (slowView), whose hydration keeps both workers busy for
// minutes: the freshness of an unrelated view then depends on how long
// the hydrating operators hold a worker at a time (the cluster's slice).
func BenchmarkFreshnessBesideHydration(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s, creator := env.session(), env.session()
	env.exec(s, "CREATE TABLE small (k int, v int)")
	env.exec(s, "CREATE MATERIALIZED VIEW small_sum AS SELECT k, sum(v) AS total FROM small GROUP BY k")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- creator.Query(ctx, slowView, &recorder{}) }()
	env.awaitCreating("big")
	smallSumFreshness(b, env, s)
	cancel()
	if err := <-done; err == nil {
		b.Fatal("the cross join's create finished")
	}
}

// BenchmarkHydrate times the CREATE of the join + GROUP BY view of
// freshet-bench over 300k orders, and reports the process's CPU time
// for it (getrusage): the measure of a change to hydration that wall
// time on a shared machine cannot separate.
func BenchmarkHydrate(b *testing.B) {
	hydrate(b, "g % 10000 + 1", "int", "g % 100")
}

// BenchmarkHydrateNumeric is BenchmarkHydrate with freshet-bench's
// amounts, numeric(10,2): their sum is kept in limbs.
func BenchmarkHydrateNumeric(b *testing.B) {
	hydrate(b, "(g * 37) % 10000 + 1", "numeric(10,2)", "(g % 1000) / 10.0")
}

// hydrate times the view's CREATE over 300k orders whose amount column
// has type typ; row g has the customer and the amount given.
func hydrate(b *testing.B, customer, typ, amount string) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE customers (id int, region int)")
	env.exec(s, "CREATE TABLE orders (id int, customer int, amount "+typ+")")
	env.exec(s, "INSERT INTO customers SELECT g, g % 50 FROM generate_series(1, 10000) g")
	env.exec(s, "INSERT INTO orders SELECT g, "+customer+", "+amount+" FROM generate_series(1, 300000) g")
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := processCPU(b)
		env.exec(s, "CREATE MATERIALIZED VIEW v AS SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region")
		cpu += processCPU(b) - before
		b.StopTimer()
		env.exec(s, "DROP MATERIALIZED VIEW v")
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU returns the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSelectExpressions measures a query of expressions and no
// FROM, as drivers and tools send to check a connection or read a
// setting, through a session: folded to a constant, it builds no
// dataflow and waits for no worker.
func BenchmarkSelectExpressions(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	for b.Loop() {
		if got := env.query(s, "SELECT 1 + 1, 'freshet' || '!'"); got != "2,freshet!" {
			b.Fatalf("got %q", got)
		}
	}
}
