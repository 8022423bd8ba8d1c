package pgwire

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/sqlerr"
)

// errorResponse turns any error into the ErrorResponse the client sees.
// It is the one place where errors meet the wire: the fields come from
// sqlerr.From, which finds the SQLSTATE where the error was born (XX000
// for an error that carries none), and no code is guessed from a message.
func errorResponse(err error) *pgproto3.ErrorResponse {
	e := sqlerr.From(err)
	if e == nil {
		e = sqlerr.AssertionFailedf("error response for a nil error")
	}
	return &pgproto3.ErrorResponse{
		Severity:            e.Severity,
		SeverityUnlocalized: e.Severity,
		Code:                e.Code,
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Position:            int32(e.Position),
		Routine:             e.Routine,
	}
}

// fatal returns err as a FATAL error: the last message of a connection.
func fatal(err error) *sqlerr.Error {
	return sqlerr.From(err).WithSeverity(sqlerr.SeverityFatal)
}

// isFatal reports whether the client must be disconnected after err.
func isFatal(resp *pgproto3.ErrorResponse) bool {
	return resp.Severity == sqlerr.SeverityFatal || resp.Severity == sqlerr.SeverityPanic
}

// protocolViolation returns the 08P01 error of a client that broke the
// protocol.
func protocolViolation(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(sqlerr.ProtocolViolation, format, args...)
}

// errPanic is the XX000 error a recovered panic becomes.
func errPanic(r any) error {
	if err, ok := r.(error); ok {
		var e *sqlerr.Error
		if errors.As(err, &e) {
			// An assertion failure of a build with invariants: report it as
			// it is.
			return err
		}
		return sqlerr.Wrapf(err, sqlerr.InternalError, "internal error")
	}
	return sqlerr.New(sqlerr.InternalError, "internal error: %s", fmt.Sprint(r))
}
