package planner

import (
	"unicode/utf8"

	"freshet/sqlerr"
)

// unsupported returns 0A000 naming what is not supported: "window
// functions not supported".
func unsupported(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(sqlerr.FeatureNotSupported, format+" not supported", args...)
}

// errorAt attaches the position of a pg_query byte offset to err if err is
// a *sqlerr.Error without one. loc < 0 means unknown.
func errorAt(err error, sql string, loc int32) error {
	e, ok := err.(*sqlerr.Error)
	if !ok || e.Position != 0 || loc < 0 || int(loc) > len(sql) {
		return err
	}
	return e.WithPosition(utf8.RuneCountInString(sql[:loc]) + 1)
}
