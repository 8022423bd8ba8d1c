package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// memoryResult is where a Freshet server's memory goes after the main
// workload, and how much of it comes back once everything is dropped.
type memoryResult struct {
	arrangements []arrangementMemory
	dataflows    []dataflowMemory
	// rss and stats (runtime.MemStats by name) were read together;
	// liveHeap is HeapAlloc right after a collection.
	rss      int64
	stats    map[string]int64
	liveHeap int64
	// before and after are read around dropping every view and table,
	// each after a collection and a pause.
	before, after dropMemory
}

// arrangementMemory is one exported arrangement, summed over workers.
type arrangementMemory struct {
	object                  string
	records, batches, bytes int64
}

// dataflowMemory is one dataflow's memory account: its arrangements,
// exported or internal (a join's inputs, a reduce's state), and what
// else it counts.
type dataflowMemory struct {
	object, kind string
	bytes        int64
}

type dropMemory struct {
	rss, heapInuse, heapReleased, arrangementBytes int64
}

// dropPause is how long the drop half waits after forcing a collection,
// for the runtime to return what it freed.
const dropPause = 2 * time.Second

// memoryBreakdown reads the server's own accounts (freshet_internal)
// and Go's memory statistics as they are after the main workload.
func (s *session) memoryBreakdown(ctx context.Context) (*memoryResult, error) {
	r := &memoryResult{}
	var err error
	if r.arrangements, err = collect(ctx, s.c, `SELECT object, sum(records)::int8, sum(batches)::int8, sum(bytes)::int8
		FROM freshet_internal.arrangements GROUP BY object ORDER BY object`, func(row pgx.CollectableRow) (arrangementMemory, error) {
		var a arrangementMemory
		return a, row.Scan(&a.object, &a.records, &a.batches, &a.bytes)
	}); err != nil {
		return nil, fmt.Errorf("reading freshet_internal.arrangements: %w", err)
	}
	if r.dataflows, err = collect(ctx, s.c, `SELECT object, kind, memory_bytes FROM freshet_internal.dataflows
		WHERE object IS NOT NULL ORDER BY object`, func(row pgx.CollectableRow) (dataflowMemory, error) {
		var d dataflowMemory
		return d, row.Scan(&d.object, &d.kind, &d.bytes)
	}); err != nil {
		return nil, fmt.Errorf("reading freshet_internal.dataflows: %w", err)
	}
	// At rest: the main workload's last step computed its view's query
	// from scratch, a burst the server hands back once it is quiet.
	r.rss = s.restingRSS(ctx)
	if r.stats, err = s.t.memStats(ctx, false); err != nil {
		return nil, err
	}
	live, err := s.t.memStats(ctx, true)
	if err != nil {
		return nil, err
	}
	r.liveHeap = live["HeapAlloc"]
	s.logf("  memory: RSS %d, HeapInuse %d, live heap %d", r.rss, r.stats["HeapInuse"], r.liveHeap)
	return r, nil
}

func collect[T any](ctx context.Context, c *pgx.Conn, sql string, scan pgx.RowToFunc[T]) ([]T, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scan)
}

// dropAll drops every view and table and reads the memory before and
// after.
func (s *session) dropAll(ctx context.Context, r *memoryResult) error {
	var err error
	if r.before, err = s.dropMemory(ctx); err != nil {
		return err
	}
	if err := execAll(ctx, s.c, "DROP MATERIALIZED VIEW IF EXISTS v"); err != nil {
		return err
	}
	s.mainView = false
	if err := dropBenchTables(ctx, s.c); err != nil {
		return err
	}
	if r.after, err = s.dropMemory(ctx); err != nil {
		return err
	}
	s.logf("  drop: HeapInuse %d → %d, RSS %d → %d", r.before.heapInuse, r.after.heapInuse, r.before.rss, r.after.rss)
	return nil
}

func (s *session) dropMemory(ctx context.Context) (dropMemory, error) {
	var m dropMemory
	if _, err := s.t.memStats(ctx, true); err != nil {
		return m, err
	}
	time.Sleep(dropPause)
	st, err := s.t.memStats(ctx, true)
	if err != nil {
		return m, err
	}
	m.rss, m.heapInuse, m.heapReleased = s.restingRSS(ctx), st["HeapInuse"], st["HeapReleased"]
	err = s.c.QueryRow(ctx, "SELECT coalesce(sum(bytes), 0)::int8 FROM freshet_internal.arrangements").Scan(&m.arrangementBytes)
	return m, err
}

// liveHeapAndRSS returns the server's live heap (HeapAlloc right after a
// forced collection) and then its RSS.
func (s *session) liveHeapAndRSS(ctx context.Context) (heap, rss int64, err error) {
	st, err := s.t.memStats(ctx, true)
	if err != nil {
		return 0, 0, err
	}
	return st["HeapAlloc"], s.t.rss(), nil
}
