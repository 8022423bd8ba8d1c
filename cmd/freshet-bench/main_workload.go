package main

import (
	"context"
	"fmt"
	"time"
)

// mainResult is the main workload's figures.
type mainResult struct {
	loadRowsPerSec     float64
	hydrate            time.Duration
	freshP50, freshP99 time.Duration
	peekP50            time.Duration
	writeRowsPerSec    float64
	// restart is the server's restart over the N loaded rows, before
	// the writes (0: not measured); PostgreSQL's view, stored, needs no
	// rebuild at a restart, and the figure to hold it against is its
	// REFRESH over the same rows, fresh.
	restart time.Duration
	// rssBytes is the server's resident memory at rest after the run,
	// and rssPeak the largest it was during it (0: not measured).
	rssBytes, rssPeak int64
	storedRows        int
	viewRows          string // the view's contents at the end, for a cross-check
}

const viewQuery = `SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region`

// viewRow is the text of a row of viewQuery, for comparisons.
const viewRow = `region::text || ':' || n::text || ':' || total::text`

// mainWorkload is the command's first workload: view v over the join,
// hydrated, kept fresh, read, written to, restarted.
func (s *session) mainWorkload(ctx context.Context) (*mainResult, error) {
	r := &mainResult{loadRowsPerSec: s.loadRowsPerSec}
	var groups int64
	var err error
	if r.hydrate, groups, err = s.hydrate(ctx, "v", viewQuery); err != nil {
		return nil, err
	}
	s.mainView = true
	if groups != regions {
		return nil, fmt.Errorf("the new view has %d groups, want %d", groups, regions)
	}
	s.logf("  hydrate %v", r.hydrate)

	var fresh []time.Duration
	for i := 0; i < s.cfg.freshSamples; i++ {
		region := i % regions
		cust := region
		if cust == 0 {
			cust = regions
		}
		d, err := s.fresh(ctx, "v", fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, 1.50)", s.next, cust), "SELECT n FROM v WHERE region = $1", region)
		if err != nil {
			return nil, err
		}
		s.next++
		fresh = append(fresh, d)
	}
	r.freshP50, r.freshP99 = percentile(fresh, 50), percentile(fresh, 99)
	s.logf("  fresh p50 %v p99 %v", r.freshP50, r.freshP99)

	var peeks []time.Duration
	for i := 0; i < s.cfg.peekSamples; i++ {
		start := time.Now()
		rows, err := s.c.Query(ctx, "SELECT * FROM v")
		if err != nil {
			return nil, err
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		peeks = append(peeks, time.Since(start))
	}
	r.peekP50 = percentile(peeks, 50)
	s.logf("  peek p50 %v", r.peekP50)

	if s.t.restart != nil {
		if r.restart, err = s.timedRestart(ctx); err != nil {
			return nil, err
		}
	}

	if r.writeRowsPerSec, err = s.writeOrders(ctx, "v"); err != nil {
		return nil, err
	}
	s.logf("  writes %.0f rows/s", r.writeRowsPerSec)
	r.storedRows = customers + s.next - 1

	if s.t.restart != nil {
		// Restarted again, so that the memory at rest is what the data
		// needs, not the heap the writes left; timed and logged only.
		if _, err := s.timedRestart(ctx); err != nil {
			return nil, err
		}
	}
	if s.t.rss != nil {
		r.rssBytes, r.rssPeak = s.restingRSS(ctx), s.t.peakRSS()
	}
	// The view maintained through all of that must be the query's
	// answer computed now from scratch.
	if r.viewRows, err = s.checkView(ctx, "v", viewQuery, viewRow); err != nil {
		return nil, err
	}
	return r, nil
}

// timedRestart restarts the server and returns the time from the new
// process's start (open, and rebuild every table and view) to the first
// read of view v answered; the old server's shutdown before it is
// logged apart.
func (s *session) timedRestart(ctx context.Context) (time.Duration, error) {
	stop := time.Now()
	if err := s.restart(ctx); err != nil {
		return 0, err
	}
	var k int64
	if err := s.c.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&k); err != nil {
		return 0, fmt.Errorf("reading the view after the restart: %w", err)
	}
	started := s.t.started()
	d := time.Since(started)
	s.logf("  restart %v over %d stored rows (the old server's shutdown took %v before it)", d, customers+s.next-1, started.Sub(stop))
	return d, nil
}

// restWait is how long the server may take to hand back the memory a
// burst left free (it does so after a quiet second).
const restWait = 3 * time.Second

// restingRSS returns the server's resident memory once it is at rest:
// the least of readings over restWait, with nothing asked of it.
func (s *session) restingRSS(ctx context.Context) int64 {
	least := s.t.rss()
	for end := time.Now().Add(restWait); time.Now().Before(end) && ctx.Err() == nil; {
		time.Sleep(100 * time.Millisecond)
		least = min(least, s.t.rss())
	}
	return least
}
