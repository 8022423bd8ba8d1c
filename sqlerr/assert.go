package sqlerr

import "fmt"

// AssertionFailedf reports a broken invariant: a bug in this program,
// never a user's mistake. It returns an XX000 ERROR whose message starts
// with "assertion failed: ". When the package is built with the
// invariants tag it panics with that error instead, so that tests stop
// at the bug rather than at its consequences; panics are recovered only
// at the connection and dataflow boundaries.
func AssertionFailedf(format string, args ...any) *Error {
	e := &Error{
		Code:     InternalError,
		Severity: SeverityError,
		Message:  "assertion failed: " + fmt.Sprintf(format, args...),
	}
	if Invariants {
		panic(e)
	}
	return e
}
