package coord

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The two ways freshet-bench writes orders, measured by the process's
// CPU time (cpu-ms/op) as well as wall time: the machine these run on
// is shared, and CPU time is what a change to the write path saves.

// BenchmarkInsertSelect runs the load's statement, 100,000 rows of
// INSERT … SELECT … FROM generate_series into orders (id int, customer
// int, amount numeric(10,2)), a new range each time.
func BenchmarkInsertSelect(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int, customer int, amount numeric(10,2))")
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lo := i*100_000 + 1
		before := processCPU(b)
		env.exec(s, fmt.Sprintf("INSERT INTO orders SELECT g, (g * 37) %% 10000 + 1, (g %% 1000) / 10.0 FROM generate_series(%d, %d) g", lo, lo+99_999))
		cpu += processCPU(b) - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkInsertValues runs the write phase's statement, a 1,000-row
// INSERT … VALUES into orders, with freshet-bench's join + GROUP BY view
// over 100,000 orders maintained.
func BenchmarkInsertValues(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE customers (id int, region int)")
	env.exec(s, "CREATE TABLE orders (id int, customer int, amount numeric(10,2))")
	env.exec(s, "INSERT INTO customers SELECT g, g % 50 FROM generate_series(1, 10000) g")
	env.exec(s, "INSERT INTO orders SELECT g, (g * 37) % 10000 + 1, (g % 1000) / 10.0 FROM generate_series(1, 100000) g")
	env.exec(s, "CREATE MATERIALIZED VIEW v AS SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region")
	next := 100_001
	stmt := func() string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO orders VALUES ")
		for g := next; g < next+1000; g++ {
			if g > next {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d,%d,%d.%d)", g, (g*37)%10000+1, g%1000/10, g%10)
		}
		next += 1000
		return sb.String()
	}
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sql := stmt()
		b.StartTimer()
		before := processCPU(b)
		env.exec(s, sql)
		cpu += processCPU(b) - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "rows/s")
}
