package sqllogic

import "context"

// DB is the engine under test, as the runner sees it: a session that
// runs one SQL text at a time. Run calls it from one goroutine, in file
// order, so that a record sees the effects of every record before it.
type DB interface {
	// Exec runs a statement and reports whether it failed.
	Exec(ctx context.Context, sql string) error
	// Query runs a query and returns its number of columns (known even
	// when there are no rows) and its rows, each with one Value per
	// column.
	Query(ctx context.Context, sql string) (columns int, rows [][]Value, err error)
}
