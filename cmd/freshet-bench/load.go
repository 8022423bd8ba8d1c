package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// loadResult is the rate of each way to load rows.
type loadResult struct {
	rows                             int
	selectRate, valuesRate, copyRate float64 // rows/s
}

// maxLoad bounds the rows each way loads, so that the largest size
// does not spend minutes here.
const maxLoad = 1000000

// loadWorkload loads min(N, 1M) orders into a scratch table with
// orders' schema each way a user loads: INSERT … SELECT generate_series
// in 100,000-row statements, 1,000-row INSERT … VALUES, and COPY FROM
// STDIN in text format, as psql's \copy sends it. It checks the three
// tables hold the same rows and drops them, so that they leave nothing
// for the figures after it.
func (s *session) loadWorkload(ctx context.Context) (*loadResult, error) {
	m := min(s.n, maxLoad)
	r := &loadResult{rows: m}
	tables := []string{"load_select", "load_values", "load_copy"}
	for _, t := range tables {
		if err := execAll(ctx, s.c, "CREATE TABLE "+t+" (id int, customer int, amount numeric(10,2))"); err != nil {
			return nil, err
		}
	}

	start := time.Now()
	for lo := 1; lo <= m; lo += loadBatch {
		if err := execAll(ctx, s.c, orderInsert("load_select", lo, min(lo+loadBatch-1, m))); err != nil {
			return nil, err
		}
	}
	r.selectRate = float64(m) / time.Since(start).Seconds()

	start = time.Now()
	for lo := 1; lo <= m; lo += 1000 {
		if err := execAll(ctx, s.c, orderValues("load_values", lo, min(lo+999, m))); err != nil {
			return nil, err
		}
	}
	r.valuesRate = float64(m) / time.Since(start).Seconds()

	// The text is made before the clock starts, as a file \copy reads.
	var text bytes.Buffer
	for g := 1; g <= m; g++ {
		fmt.Fprintf(&text, "%d\t%d\t%d.%d\n", g, (g*37)%customers+1, g%1000/10, g%10)
	}
	start = time.Now()
	tag, err := s.c.PgConn().CopyFrom(ctx, &text, "COPY load_copy FROM STDIN")
	if err != nil {
		return nil, fmt.Errorf("COPY load_copy FROM STDIN: %w", err)
	}
	r.copyRate = float64(m) / time.Since(start).Seconds()
	if tag.RowsAffected() != int64(m) {
		return nil, fmt.Errorf("COPY load_copy FROM STDIN answered %q, want %d rows", tag, m)
	}
	s.logf("  load: INSERT … SELECT %.0f, INSERT … VALUES %.0f, COPY %.0f rows/s", r.selectRate, r.valuesRate, r.copyRate)

	var want string
	for i, t := range tables {
		got, err := contents(ctx, s.c, "count(*)::text || ':' || sum(id)::text || ':' || sum(customer)::text || ':' || sum(amount)::text", t)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			want = got
			if !strings.HasPrefix(got, strconv.Itoa(m)+":") {
				return nil, fmt.Errorf("%s holds %s, want %d rows", t, got, m)
			}
		} else if got != want {
			return nil, fmt.Errorf("%s holds %s, %s holds %s", t, got, tables[0], want)
		}
	}
	for _, t := range tables {
		if err := execAll(ctx, s.c, "DROP TABLE "+t); err != nil {
			return nil, err
		}
	}
	return r, nil
}
