package arrange

import "fmt"

// AssertionError reports a broken invariant or a caller that broke a
// documented precondition: a bug, not bad input. Methods without an error
// result panic with one; the dataflow boundary recovers it and fails the
// dataflow, and the SQL layer reports it as XX000.
type AssertionError struct{ msg string }

// Error returns the message, marked as a failed assertion.
func (e *AssertionError) Error() string { return "assertion failed: " + e.msg }

func assertionFailedf(format string, args ...any) *AssertionError {
	return &AssertionError{msg: fmt.Sprintf(format, args...)}
}
