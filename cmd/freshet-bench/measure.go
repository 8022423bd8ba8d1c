package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The measurements the workloads share: a view's hydration, one write's
// freshness, a rate of 1,000-row writes, and a view against its query.

// restart restarts a server the bench owns and connects again: a
// workload that measures the server's growth starts from the memory its
// data needs, not from the heap the runtime kept from the workloads
// before it.
func (s *session) restart(ctx context.Context) error {
	if s.t.restart == nil {
		return nil
	}
	s.c.Close(ctx)
	if err := s.t.restart(ctx); err != nil {
		return fmt.Errorf("restarting: %w", err)
	}
	var err error
	s.c, err = s.t.connect(ctx, 0)
	return err
}

// hydrate creates view name over query and times it until the view
// answers a read (a server may return from CREATE before its dataflow
// has caught up). It returns the rows the view has.
func (s *session) hydrate(ctx context.Context, name, query string) (time.Duration, int64, error) {
	start := time.Now()
	if err := s.t.create(ctx, s.c, name, query); err != nil {
		return 0, 0, fmt.Errorf("creating view %s: %w", name, err)
	}
	var rows int64
	if err := s.c.QueryRow(ctx, "SELECT count(*) FROM "+name).Scan(&rows); err != nil {
		return 0, 0, fmt.Errorf("reading the new view %s: %w", name, err)
	}
	return time.Since(start), rows, nil
}

// fresh times write from its start until read, which returns one
// integer of view name, shows it grew by one.
func (s *session) fresh(ctx context.Context, name, write, read string, args ...any) (time.Duration, error) {
	var before int64
	if err := s.c.QueryRow(ctx, read, args...).Scan(&before); err != nil {
		return 0, fmt.Errorf("reading view %s: %w", name, err)
	}
	start := time.Now()
	if err := execAll(ctx, s.c, write); err != nil {
		return 0, err
	}
	if err := s.t.refresh(ctx, s.c, name); err != nil {
		return 0, err
	}
	for {
		var now int64
		if err := s.c.QueryRow(ctx, read, args...).Scan(&now); err != nil {
			return 0, fmt.Errorf("reading view %s: %w", name, err)
		}
		if now == before+1 {
			return time.Since(start), nil
		}
		if time.Since(start) > time.Minute {
			return 0, fmt.Errorf("a write was not visible in view %s after a minute (%s %v: %d, want %d)", name, read, args, now, before+1)
		}
	}
}

// writeOrders runs 1,000-row INSERT … VALUES into orders for
// --write-for and returns the rate, the views named kept fresh (for
// PostgreSQL, refreshed once at the end).
func (s *session) writeOrders(ctx context.Context, views ...string) (float64, error) {
	return s.writeRate(ctx, func() string {
		stmt := orderValues("orders", s.next, s.next+999)
		s.next += 1000
		return stmt
	}, views...)
}

// writeRate runs 1,000-row statements from stmt for --write-for and
// returns the rows written a second, the views named refreshed once at
// the end where they are not kept fresh.
func (s *session) writeRate(ctx context.Context, stmt func() string, views ...string) (float64, error) {
	written := 0
	start := time.Now()
	for time.Since(start) < s.cfg.writeFor {
		if err := execAll(ctx, s.c, stmt()); err != nil {
			return 0, err
		}
		written += 1000
	}
	for _, v := range views {
		if err := s.t.refresh(ctx, s.c, v); err != nil {
			return 0, err
		}
	}
	return float64(written) / time.Since(start).Seconds(), nil
}

// contents returns the rows of from (a view, or its query as a
// subquery) as the text of row, one expression over its columns, in
// order.
func contents(ctx context.Context, c *pgx.Conn, row, from string) (string, error) {
	rows, err := c.Query(ctx, "SELECT "+row+" FROM "+from+" ORDER BY 1")
	if err != nil {
		return "", err
	}
	vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(vals, " "), err
}

// checkView compares view name with its query computed now from
// scratch, as the text of row, and returns the view's rows.
func (s *session) checkView(ctx context.Context, name, query, row string) (string, error) {
	got, err := contents(ctx, s.c, row, name)
	if err != nil {
		return "", fmt.Errorf("reading view %s: %w", name, err)
	}
	want, err := contents(ctx, s.c, row, "("+query+") q")
	if err != nil {
		return "", fmt.Errorf("computing view %s's query: %w", name, err)
	}
	if got != want {
		return "", fmt.Errorf("view %s differs from its query computed from scratch:\n view  %s\n query %s", name, got, want)
	}
	return got, nil
}
