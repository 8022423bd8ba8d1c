package planner

import (
	"unicode/utf8"

	"freshet/sqlerr"
)

// SQLSTATEs the planner raises that sqlerr does not name yet. They belong
// in sqlerr/codes.go; until they move there they are spelled once, here.
const (
	codeAmbiguousColumn         = "42702"
	codeAmbiguousFunction       = "42725"
	codeDuplicateAlias          = "42712"
	codeDuplicateColumn         = "42701"
	codeGroupingError           = "42803"
	codeInvalidColumnReference  = "42P10"
	codeInvalidTableDefinition  = "42P16"
	codeUndefinedParameter      = "42P02"
	codeWrongObjectType         = "42809"
	codeInvalidRowCountInLimit  = "2201W"
	codeInvalidRowCountInOffset = "2201X"
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
