package pgwire

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"freshet/sqlerr"
)

// ParseDurationSetting reads a time setting (statement_timeout,
// idle_in_transaction_session_timeout) as PostgreSQL does: a number of
// milliseconds, or a number with a unit (us, ms, s, min, h, d). Empty and
// 0 mean no limit; a positive value under a millisecond counts as one.
// A bad value is 22023 naming the setting.
func ParseDurationSetting(name, v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	i := len(v)
	for i > 0 && (v[i-1] < '0' || v[i-1] > '9') && v[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(v[:i]), strings.TrimSpace(v[i:])
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v)
	}
	scale := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := scale[unit]
	if !ok {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
			WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
	}
	d := time.Duration(n * float64(u))
	if d > 0 && d < time.Millisecond {
		d = time.Millisecond
	}
	return d, nil
}

// IdleTimeouter is a Session that bounds how long its client may stay
// silent inside a transaction block (PostgreSQL's
// idle_in_transaction_session_timeout); zero means no limit. pgwire asks
// at every ReadyForQuery in a block and ends the connection with FATAL
// 25P03 when the client says nothing for that long.
type IdleTimeouter interface {
	IdleInTransactionTimeout() time.Duration
}

// Terminator is a Session that can be ended from elsewhere
// (pg_terminate_backend): once its Terminated context is done, pgwire
// ends the connection with FATAL 57P01 "terminating connection due to
// administrator command", at once if the client is idle and otherwise
// when the running statement (which the session cancels) has ended.
//
// A session may end it with an error of its own instead: a FATAL
// *sqlerr.Error as the context's cause (context.WithCancelCause) is what
// the client receives, as PostgreSQL sends 57P02 to the sessions it ends
// to recover from a crash.
type Terminator interface {
	Terminated() context.Context
}

// terminationError is the error that ends the connection of a terminated
// session: its context's cause if that is a FATAL error, else 57P01.
func terminationError(ctx context.Context) error {
	if cause := context.Cause(ctx); isTermination(cause) {
		return cause
	}
	return errServerShutdown
}

// isTermination reports whether err is a FATAL error a session chose to
// end its connection with.
func isTermination(err error) bool {
	var e *sqlerr.Error
	return errors.As(err, &e) && e.Severity == sqlerr.SeverityFatal
}

// errIdleInTransaction ends a connection left idle in a transaction block
// past its idle_in_transaction_session_timeout, in PostgreSQL's words.
var errIdleInTransaction = sqlerr.New(sqlerr.IdleInTransactionSessionTimeout,
	"terminating connection due to idle-in-transaction timeout").WithSeverity(sqlerr.SeverityFatal)
