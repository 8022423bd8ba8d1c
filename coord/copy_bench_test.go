package coord

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
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

// BenchmarkSegmentParse parses segments of 15,000 of the load's rows
// (about 250 KB), one at a time and two at once on two goroutines, each
// with a parser of its own, as a COPY's segments are parsed: two at once
// should take little longer than one, unless the parsers share memory
// they write (ownLines).
func BenchmarkSegmentParse(b *testing.B) {
	st := &planner.Copy{
		Table: planner.Target{ID: 1, Columns: []planner.Column{
			{Name: "id", Type: repr.Int4, Nullable: true},
			{Name: "customer", Type: repr.Int4, Nullable: true},
			{Name: "amount", Type: repr.NumericOf(10, 2), Nullable: true},
		}},
		Columns: []int{0, 1, 2},
		Options: planner.CopyOptions{Format: "text"},
	}
	var sb strings.Builder
	for g := 1; g <= 15_000; g++ {
		fmt.Fprintf(&sb, "%d\t%d\t%d.%d\n", g, (g*37)%10000+1, g%1000/10, g%10)
	}
	seg := textSegment{data: []byte(sb.String())}
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			parsers := make([]*segmentParser, n)
			for i := range parsers {
				parsers[i] = newSegmentParser(st, repr.UTC, make([]expr.Scalar, len(st.Table.Columns)))
			}
			var stop atomic.Bool
			for b.Loop() {
				var wg sync.WaitGroup
				for _, p := range parsers {
					wg.Go(func() {
						if rows := p.parse(seg, &stop); rows.err != nil || rows.lines != 15_000 {
							b.Errorf("parse: %d lines, %v", rows.lines, rows.err)
						}
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*15_000), "ns/row")
		})
	}
}
