package main

import (
	"context"
	"fmt"
	"time"
)

// viewResult is the figures of a workload of one view: the threeway
// join and the distinct count.
type viewResult struct {
	hydrate            time.Duration
	freshP50, freshP99 time.Duration
	writeRowsPerSec    float64
	viewRows           string // the view's contents at the end, for a cross-check
}

const threewayQuery = `SELECT r.name, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id JOIN regions r ON c.region = r.id GROUP BY r.name`

// threewayWorkload joins a third table, regions (50 rows, a name each),
// to main's join and groups by the region's name.
func (s *session) threewayWorkload(ctx context.Context) (*viewResult, error) {
	if err := execAll(ctx, s.c,
		"CREATE TABLE regions (id int, name text)",
		fmt.Sprintf("INSERT INTO regions SELECT g, 'region ' || g FROM generate_series(0, %d) g", regions-1),
	); err != nil {
		return nil, err
	}
	if err := analyze(ctx, s.c, "regions", "orders"); err != nil {
		return nil, err
	}
	r, err := s.viewWorkload(ctx, "threeway", threewayQuery, `name || ':' || n::text || ':' || total::text`,
		func(i int) (string, string, []any, error) {
			cust := i%customers + 1
			return fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, 1.50)", s.next, cust),
				"SELECT n FROM threeway WHERE name = $1", []any{fmt.Sprintf("region %d", cust%regions)}, nil
		})
	if err != nil {
		return nil, err
	}
	return r, execAll(ctx, s.c, "DROP TABLE regions")
}

const distinctQuery = `SELECT c.region, count(DISTINCT o.customer) AS n FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region`

// distinctWorkload counts distinct customers with orders per region.
// Each timed write is the first order of a new customer, so that it
// changes the count.
func (s *session) distinctWorkload(ctx context.Context) (*viewResult, error) {
	var newCust int
	if err := s.c.QueryRow(ctx, "SELECT max(id) FROM customers").Scan(&newCust); err != nil {
		return nil, err
	}
	return s.viewWorkload(ctx, "distinct_customers", distinctQuery, `region::text || ':' || n::text`,
		func(int) (string, string, []any, error) {
			newCust++
			err := execAll(ctx, s.c, fmt.Sprintf("INSERT INTO customers VALUES (%d, %d)", newCust, newCust%regions))
			return fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, 1.50)", s.next, newCust),
				"SELECT n FROM distinct_customers WHERE region = $1", []any{newCust % regions}, err
		})
}

// viewWorkload hydrates view name over query, times --fresh-samples
// writes from sample (a one-row write to orders, and the read of one
// integer that it raises by one), times 1,000-row writes, checks the
// view against its query (as the text of row) and drops it.
func (s *session) viewWorkload(ctx context.Context, name, query, row string, sample func(i int) (write, read string, args []any, err error)) (*viewResult, error) {
	r := &viewResult{}
	var err error
	if r.hydrate, _, err = s.hydrate(ctx, name, query); err != nil {
		return nil, err
	}
	s.logf("  %s: hydrate %v", name, r.hydrate)
	var fresh []time.Duration
	for i := 0; i < s.cfg.freshSamples; i++ {
		write, read, args, err := sample(i)
		if err != nil {
			return nil, err
		}
		d, err := s.fresh(ctx, name, write, read, args...)
		if err != nil {
			return nil, err
		}
		s.next++
		fresh = append(fresh, d)
	}
	r.freshP50, r.freshP99 = percentile(fresh, 50), percentile(fresh, 99)
	s.logf("  %s: fresh p50 %v p99 %v", name, r.freshP50, r.freshP99)
	if r.writeRowsPerSec, err = s.writeOrders(ctx, name); err != nil {
		return nil, err
	}
	s.logf("  %s: writes %.0f rows/s", name, r.writeRowsPerSec)
	if r.viewRows, err = s.checkView(ctx, name, query, row); err != nil {
		return nil, err
	}
	return r, s.t.dropView(ctx, s.c, name)
}
