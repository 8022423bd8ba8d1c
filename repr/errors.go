package repr

import "freshet/sqlerr"

// The errors below are PostgreSQL's, word for word. Values are quoted
// with plain double quotes, as PostgreSQL does, never with Go's %q, which
// would escape them differently.

// errInvalidSyntax is the error of a type's input function for text it
// cannot read. Date and time types report it as 22007, others as 22P02.
func errInvalidSyntax(t Type, s string) error {
	code := sqlerr.InvalidTextRepresentation
	switch t.kind {
	case KindDate, KindTimestamp, KindTimestampTZ, KindInterval, KindTime:
		code = sqlerr.InvalidDatetimeFormat
	}
	return sqlerr.New(code, "invalid input syntax for type %s: \"%s\"", syntaxName(t), s)
}

// syntaxName is the type name that input-syntax errors use: format_type's
// name, except that PostgreSQL's date/time parser names "timestamp"
// plainly.
func syntaxName(t Type) string {
	switch t.kind {
	case KindTimestamp:
		return "timestamp"
	case KindTime:
		return "time"
	}
	return kinds[t.kind].display
}

// errValueOutOfRange is the error of an integer input function for a
// value that does not fit.
func errValueOutOfRange(t Type, s string) error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", s, kinds[t.kind].display)
}

// errIntOutOfRange is the error of integer arithmetic and casts that
// overflow kind k: "integer out of range".
func errIntOutOfRange(k Kind) error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "%s out of range", kinds[k].display)
}

var (
	errDivisionByZero    = sqlerr.New(sqlerr.DivisionByZero, "division by zero")
	errFloatOverflow     = sqlerr.New(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
	errFloatUnderflow    = sqlerr.New(sqlerr.NumericValueOutOfRange, "value out of range: underflow")
	errNumericOverflow   = sqlerr.New(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
	errTimestampRange    = sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
	errDateRange         = sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range")
	errIntervalRange     = sqlerr.New(sqlerr.DatetimeFieldOverflow, "interval out of range")
	errDateRangeForStamp = sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range for timestamp")
)

// errFieldOverflow is the error of date/time input with a field out of
// its range, such as a 13th month.
func errFieldOverflow(s string) error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
}

// errOutOfRangeInput is the error of date/time input that denotes a value
// beyond the type's range: "date out of range: "...""
func errOutOfRangeInput(what, s string) error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "%s out of range: \"%s\"", what, s)
}

// errTooLong is the error of a string longer than varchar(n) or char(n).
func errTooLong(t Type) error {
	return sqlerr.New(sqlerr.StringDataRightTruncation, "value too long for type %s", t.String())
}
