// Package sqlerr carries a SQLSTATE with every error from the place the
// error is born to the client that sees it.
//
// An error is created where its cause is known (the planner, the catalog,
// storage, value parsing) with New and one of the code constants, in
// PostgreSQL's wording: lowercase, no final period, values quoted the way
// PostgreSQL quotes them. Layers above may wrap it with fmt.Errorf("...:
// %w", err) or Wrap; Code still finds the SQLSTATE through the chain. The
// wire protocol layer turns any error into an ErrorResponse with Code and
// As and never guesses a code from a message.
//
// # Glossary
//
//   - SQLSTATE: the five-character error code of the SQL standard and
//     PostgreSQL (Appendix A of the PostgreSQL manual). The first two
//     characters are the class (22 data exception, 42 syntax error or
//     access rule violation, XX internal error, ...).
//   - Severity: ERROR, FATAL or PANIC for errors (NOTICE, WARNING and the
//     like for notices). An Error whose Severity is empty is an ERROR.
//   - Assertion failure: a broken invariant, that is a bug in this
//     program, never bad input. It is reported as XX000 internal_error.
//
// # Invariants
//
//   - Code(err) is a valid five-character SQLSTATE for every non-nil
//     error: the code of the outermost *Error in err's chain, or XX000 if
//     the chain holds none.
//   - An *Error is not changed after it is returned: WithDetail, WithHint
//     and the other With methods return a modified copy, so an error
//     stored in a variable can be shared.
//   - AssertionFailedf panics when the package is built with the
//     invariants build tag (go test -tags invariants), so that tests stop
//     at the bug; otherwise it returns an XX000 error and the session or
//     dataflow that hit it fails alone.
//
// This package imports only the standard library: every other package of
// the module may import it, so it must import none of them.
package sqlerr
