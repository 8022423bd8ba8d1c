package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// manyResult is the figures of --views small views over one table.
type manyResult struct {
	views  int
	create time.Duration // all of them
	// rssPerView and heapPerView are the growth of the server's RSS and
	// of its live heap (HeapAlloc after a collection) with the views,
	// divided by their number; 0: not measured.
	rssPerView, heapPerView int64
	freshP50, freshP99      time.Duration
	writeRowsPerSec         float64
}

// rowsPerView is how many rows of t each view starts with.
const rowsPerView = 10

func manyView(k int) string { return fmt.Sprintf("many_%d", k) }

func manyQuery(k int) string {
	return fmt.Sprintf("SELECT count(*) AS n, sum(v) AS s FROM t WHERE k = %d", k)
}

// manyViewsWorkload creates --views views, view k counting and summing
// the rows of t with key k, and times one-row writes to t read back
// from the view they change, and 1,000-row writes that change every
// view, with all of them alive.
func (s *session) manyViewsWorkload(ctx context.Context) (*manyResult, error) {
	views := s.cfg.views
	r := &manyResult{views: views}
	if err := execAll(ctx, s.c,
		"CREATE TABLE t (k int, v int)",
		fmt.Sprintf("INSERT INTO t SELECT g %% %d, g %% 100 FROM generate_series(1, %d) g", views, rowsPerView*views),
	); err != nil {
		return nil, err
	}
	if err := analyze(ctx, s.c, "t"); err != nil {
		return nil, err
	}
	if err := s.restart(ctx); err != nil {
		return nil, err
	}
	freshet := s.t.memStats != nil
	var rss0, heap0 int64
	if freshet {
		var err error
		if heap0, rss0, err = s.liveHeapAndRSS(ctx); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	for k := 0; k < views; k++ {
		if err := s.t.create(ctx, s.c, manyView(k), manyQuery(k)); err != nil {
			return nil, fmt.Errorf("creating view %d of %d: %w", k+1, views, err)
		}
	}
	// A server may answer CREATE before its view is hydrated: the time
	// runs until every view has answered a read.
	for k := 0; k < views; k++ {
		var n int64
		if err := s.c.QueryRow(ctx, "SELECT n FROM "+manyView(k)).Scan(&n); err != nil {
			return nil, err
		}
	}
	r.create = time.Since(start)
	if freshet {
		heap, rss, err := s.liveHeapAndRSS(ctx)
		if err != nil {
			return nil, err
		}
		r.rssPerView = (rss - rss0) / int64(views)
		r.heapPerView = (heap - heap0) / int64(views)
	}
	s.logf("  many views: %d created in %v, %d bytes RSS a view", views, r.create, r.rssPerView)

	var fresh []time.Duration
	for i := 0; i < s.cfg.freshSamples; i++ {
		// Spread over the views, not one after the other.
		k := i * 7919 % views
		d, err := s.fresh(ctx, manyView(k), fmt.Sprintf("INSERT INTO t VALUES (%d, 1)", k), "SELECT n FROM "+manyView(k))
		if err != nil {
			return nil, err
		}
		fresh = append(fresh, d)
	}
	r.freshP50, r.freshP99 = percentile(fresh, 50), percentile(fresh, 99)
	s.logf("  many views: fresh p50 %v p99 %v", r.freshP50, r.freshP99)

	all := make([]string, views)
	for k := range all {
		all[k] = manyView(k)
	}
	var err error
	if r.writeRowsPerSec, err = s.writeRate(ctx, func() string {
		var b strings.Builder
		b.WriteString("INSERT INTO t VALUES ")
		for j := 0; j < 1000; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d,%d)", j%views, j%100)
		}
		return b.String()
	}, all...); err != nil {
		return nil, err
	}
	s.logf("  many views: writes %.0f rows/s", r.writeRowsPerSec)

	for k := 0; k < views; k++ {
		if _, err := s.checkView(ctx, manyView(k), manyQuery(k), "n::text || ':' || s::text"); err != nil {
			return nil, err
		}
	}
	for k := 0; k < views; k++ {
		if err := s.t.dropView(ctx, s.c, manyView(k)); err != nil {
			return nil, err
		}
	}
	return r, execAll(ctx, s.c, "DROP TABLE t")
}
