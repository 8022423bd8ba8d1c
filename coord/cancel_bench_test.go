package coord

import (
	"context"
	"testing"
	"time"

	"freshet/sqlerr"
)

// BenchmarkCancelLatency measures how long a statement takes to answer a
// CancelRequest once it is deep in its work: a query joining 400M rows, a
// CREATE MATERIALIZED VIEW hydrating the same join, a COPY TO of a
// 9M-row join, and a SUBSCRIBE to the first join's count, still
// computing its snapshot. Each statement runs 50 ms before the cancel; the figure is
// the time from the cancel to the statement's 57014.
func BenchmarkCancelLatency(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	inFlight := func() bool {
		env.e.readsMu.Lock()
		defer env.e.readsMu.Unlock()
		return len(env.e.reads) > 0
	}
	for _, c := range []struct{ name, sql string }{
		{"select", "SELECT count(*) FROM generate_series(1, 20000) AS a(x), generate_series(1, 20000) AS b(x)"},
		{"create", slowView},
		{"copy", "COPY (SELECT a.x, b.x FROM generate_series(1, 3000) AS a(x), generate_series(1, 3000) AS b(x)) TO STDOUT"},
		{"subscribe", "COPY (SUBSCRIBE (SELECT count(*) FROM generate_series(1, 20000) AS a(x), generate_series(1, 20000) AS b(x))) TO STDOUT"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := env.session()
			var total, worst time.Duration
			for range b.N {
				done := make(chan error, 1)
				go func() { done <- s.Query(context.Background(), c.sql, &recorder{}) }()
				for !inFlight() {
					time.Sleep(100 * time.Microsecond)
				}
				time.Sleep(50 * time.Millisecond)
				start := time.Now()
				env.b.Cancel(s.key)
				err := <-done
				d := time.Since(start)
				if sqlerr.Code(err) != sqlerr.QueryCanceled {
					b.Fatalf("%s: %v, want 57014", c.name, err)
				}
				total += d
				worst = max(worst, d)
				env.settled()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/cancel")
			b.ReportMetric(float64(worst.Microseconds())/1000, "ms-worst")
		})
	}
}
