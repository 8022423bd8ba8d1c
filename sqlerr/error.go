package sqlerr

import (
	"errors"
	"fmt"
)

// Severities of an Error, as PostgreSQL sends them in the S and V fields
// of an ErrorResponse or NoticeResponse.
const (
	SeverityError   = "ERROR"
	SeverityFatal   = "FATAL"
	SeverityPanic   = "PANIC"
	SeverityWarning = "WARNING"
	SeverityNotice  = "NOTICE"
)

// Error is an error with a SQLSTATE and the other fields of a PostgreSQL
// ErrorResponse. The zero value is not useful; create errors with New,
// Wrap, Wrapf or AssertionFailedf.
type Error struct {
	// Code is the SQLSTATE, one of the constants of this package.
	// Invariant: five characters of [0-9A-Z].
	Code string
	// Severity is one of the Severity constants; empty means ERROR.
	Severity string
	// Message is the primary message: PostgreSQL's wording, lowercase,
	// no final period.
	Message string
	// Detail is an optional secondary message, in full sentences.
	Detail string
	// Hint is an optional suggestion, in full sentences.
	Hint string
	// Position is the 1-based character offset into the statement text
	// where the error was found, or 0 if unknown.
	Position int
	// Routine names the source routine that reported the error, or is
	// empty. Some drivers branch on it (pgjdbc re-prepares a statement on
	// 0A000 only when Routine is "RevalidateCachedQuery").
	Routine string

	// cause is the wrapped error, returned by Unwrap, or nil.
	cause error
}

// New returns an ERROR with the given SQLSTATE and a message formatted
// as by fmt.Sprintf; pass a message made elsewhere as New(code, "%s",
// msg), so that a % in it stays text.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an ERROR with the given SQLSTATE whose message is err's
// and which unwraps to err. It gives a code to an error born outside the
// SQL layers (an I/O error, say). Wrap returns nil if err is nil.
func Wrap(err error, code string) *Error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Severity: SeverityError, Message: err.Error(), cause: err}
}

// Wrapf returns an error whose message is the formatted text, a colon and
// err's message, and which unwraps to err. If code is empty, the result
// keeps the code, severity, detail, hint and position of the *Error in
// err's chain (XX000 if there is none), so that context can be added
// without losing what the client needs. Wrapf returns nil if err is nil.
func Wrapf(err error, code, format string, args ...any) *Error {
	if err == nil {
		return nil
	}
	e := &Error{
		Code:     code,
		Severity: SeverityError,
		Message:  fmt.Sprintf(format, args...) + ": " + err.Error(),
		cause:    err,
	}
	if code == "" {
		inner := From(err)
		e.Code, e.Severity = inner.Code, inner.Severity
		e.Detail, e.Hint, e.Position, e.Routine = inner.Detail, inner.Hint, inner.Position, inner.Routine
	}
	return e
}

// Error returns the primary message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the error e wraps, or nil.
func (e *Error) Unwrap() error { return e.cause }

// WithDetail returns a copy of e with the detail message set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	c := *e
	c.Detail = fmt.Sprintf(format, args...)
	return &c
}

// WithHint returns a copy of e with the hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Hint = fmt.Sprintf(format, args...)
	return &c
}

// WithPosition returns a copy of e with the 1-based character position
// of the error in the statement text.
func (e *Error) WithPosition(pos int) *Error {
	c := *e
	c.Position = pos
	return &c
}

// WithSeverity returns a copy of e with the given severity.
func (e *Error) WithSeverity(severity string) *Error {
	c := *e
	c.Severity = severity
	return &c
}

// WithRoutine returns a copy of e with the given routine name.
func (e *Error) WithRoutine(routine string) *Error {
	c := *e
	c.Routine = routine
	return &c
}

// Code returns the SQLSTATE of err: the code of the outermost *Error in
// its chain, XX000 if the chain holds none, and 00000 if err is nil.
func Code(err error) string {
	if err == nil {
		return SuccessfulCompletion
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	return InternalError
}

// From returns the fields a client should see for err: the outermost
// *Error in err's chain, or a new XX000 ERROR carrying err's message if
// there is none. Its Message is err's full message, so that context added
// by wrapping is kept, and its Severity is never empty. From returns nil
// if err is nil. It is the one function through which the wire protocol
// turns errors into ErrorResponses.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var inner *Error
	if !errors.As(err, &inner) {
		return &Error{Code: InternalError, Severity: SeverityError, Message: err.Error(), cause: err}
	}
	e := *inner
	e.Message = err.Error()
	if e.Code == "" {
		e.Code = InternalError
	}
	if e.Severity == "" {
		e.Severity = SeverityError
	}
	e.cause = err
	return &e
}
