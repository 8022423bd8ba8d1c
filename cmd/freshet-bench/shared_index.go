package main

import (
	"context"
	"fmt"
	"time"
)

// sharedViews is how many views the shared-index workload creates over
// one index.
const sharedViews = 10

// sharedResult is the figures of sharedViews views created over one
// index, in the order they were created.
type sharedResult struct {
	// on is what the index is on.
	on string
	// index is CREATE INDEX's time; 0: none was created.
	index   time.Duration
	hydrate []time.Duration
	// rssGrowth and heapGrowth are the growth of the server's RSS and
	// of its live heap (HeapAlloc after a collection: heap in use also
	// counts free space in its spans) from before to after each view;
	// nil: not measured.
	rssGrowth, heapGrowth []int64
	// importers is how many of the views import the index's
	// arrangement; -1: not measured.
	importers int
}

// sharedVariant is an index and the views meant to share it.
type sharedVariant struct {
	// views is the prefix of the views' names, one per variant: a name
	// used again after a DROP would meet a cached prepared statement of
	// the dropped view, which Freshet does not plan again.
	views     string
	on, index string
	setup     []string // statements before the index (a view to index)
	create    string   // CREATE INDEX
	view      func(i int) string
	teardown  []string // statements after the views are dropped
}

var sharedVariants = []sharedVariant{
	{
		// The index a PostgreSQL user would make for the join.
		views:  "shared_table",
		on:     "orders (customer)",
		index:  "orders_customer",
		create: "CREATE INDEX orders_customer ON orders (customer)",
		view: func(i int) string {
			return fmt.Sprintf("SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id WHERE o.amount >= %d AND o.amount < %d GROUP BY c.region", 10*i, 10*i+10)
		},
		teardown: []string{"DROP INDEX orders_customer"},
	},
	{
		// The join itself as an indexed view, which Freshet keeps
		// arranged for every view over it to read.
		views:  "shared_view",
		on:     "view order_regions (customer)",
		index:  "order_regions_customer",
		setup:  []string{"CREATE VIEW order_regions AS SELECT o.id, o.customer, o.amount, c.region FROM orders o JOIN customers c ON o.customer = c.id"},
		create: "CREATE INDEX order_regions_customer ON order_regions (customer)",
		view: func(i int) string {
			return fmt.Sprintf("SELECT region, count(*) AS n, sum(amount) AS total FROM order_regions WHERE amount >= %d AND amount < %d GROUP BY region", 10*i, 10*i+10)
		},
		teardown: []string{"DROP INDEX IF EXISTS order_regions_customer", "DROP VIEW order_regions"},
	},
}

// sharedIndexWorkload creates each variant's index and then its
// sharedViews views, each with a different filter, and reports whether
// they import the index's arrangement rather than arranging orders
// again.
func (s *session) sharedIndexWorkload(ctx context.Context) ([]sharedResult, error) {
	var out []sharedResult
	for _, v := range sharedVariants {
		r, err := s.sharedIndex(ctx, v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *session) sharedIndex(ctx context.Context, v sharedVariant) (sharedResult, error) {
	r := sharedResult{on: v.on, importers: -1}
	if err := s.restart(ctx); err != nil {
		return r, err
	}
	if err := execAll(ctx, s.c, v.setup...); err != nil {
		return r, err
	}
	// PostgreSQL indexes tables only: its views over the view compute
	// the join each.
	if s.t.indexesViews || len(v.setup) == 0 {
		start := time.Now()
		if err := execAll(ctx, s.c, v.create); err != nil {
			return r, err
		}
		r.index = time.Since(start)
	}
	freshet := s.t.memStats != nil
	for i := 0; i < sharedViews; i++ {
		var rss0, heap0 int64
		if freshet {
			var err error
			if heap0, rss0, err = s.liveHeapAndRSS(ctx); err != nil {
				return r, err
			}
		}
		d, _, err := s.hydrate(ctx, fmt.Sprintf("%s_%d", v.views, i), v.view(i))
		if err != nil {
			return r, err
		}
		r.hydrate = append(r.hydrate, d)
		if freshet {
			heap, rss, err := s.liveHeapAndRSS(ctx)
			if err != nil {
				return r, err
			}
			r.rssGrowth = append(r.rssGrowth, rss-rss0)
			r.heapGrowth = append(r.heapGrowth, heap-heap0)
		}
	}
	if s.t.indexesViews {
		// Freshet's own account of who reads the index.
		if err := s.c.QueryRow(ctx, "SELECT count(DISTINCT importer) FROM freshet_internal.imports WHERE object = $1 AND importer LIKE $2", v.index, v.views+"%").Scan(&r.importers); err != nil {
			return r, fmt.Errorf("reading freshet_internal.imports: %w", err)
		}
	}
	s.logf("  shared index on %s: CREATE INDEX %v, hydrate %v … %v, %d of %d views import it", v.on, r.index, r.hydrate[0], r.hydrate[sharedViews-1], r.importers, sharedViews)
	for i := 0; i < sharedViews; i++ {
		name := fmt.Sprintf("%s_%d", v.views, i)
		if _, err := s.checkView(ctx, name, v.view(i), viewRow); err != nil {
			return r, err
		}
		if err := s.t.dropView(ctx, s.c, name); err != nil {
			return r, err
		}
	}
	return r, execAll(ctx, s.c, v.teardown...)
}
