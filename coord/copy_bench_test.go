package coord

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkCopyFrom runs the load's COPY, 100,000 rows of text format
// into orders (id int, customer int, amount numeric(10,2)), a new range
// each time, and reports the process's CPU time per op as well as wall
// time (the machine these run on is shared).
func BenchmarkCopyFrom(b *testing.B) {
	for _, format := range []string{"text", "csv"} {
		b.Run(format, func(b *testing.B) {
			env := openSQL(b, b.TempDir())
			defer func() { env.e.Close() }()
			s := env.session()
			env.exec(s, "CREATE TABLE orders (id int, customer int, amount numeric(10,2))")
			sep := "\t"
			if format == "csv" {
				sep = ","
			}
			data := func(lo int) string {
				var sb strings.Builder
				for g := lo; g < lo+100_000; g++ {
					fmt.Fprintf(&sb, "%d%s%d%s%d.%d\n", g, sep, (g*37)%10000+1, sep, g%1000/10, g%10)
				}
				return sb.String()
			}
			sql := fmt.Sprintf("COPY orders FROM STDIN (FORMAT %s)", format)
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				text := data(i*100_000 + 1)
				b.StartTimer()
				before := processCPU(b)
				if err := env.copyIn(s, sql, text); err != nil {
					b.Fatal(err)
				}
				cpu += processCPU(b) - before
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
