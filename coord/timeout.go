package coord

import (
	"context"
	"time"

	"freshet/pgwire"
	"freshet/sqlerr"
)

// errStatementTimeout is how a statement ends when it runs past the
// session's statement_timeout, in PostgreSQL's words.
var errStatementTimeout = sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to statement timeout")

// withStatementTimeout bounds ctx by the session's statement_timeout, if
// one is set; the context's cause is then errStatementTimeout.
func (s *Session) withStatementTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	d, err := parseTimeout(s.settings["statement_timeout"])
	if err != nil || d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, errStatementTimeout)
}

// IdleInTransactionTimeout implements pgwire.IdleTimeouter: the
// session's idle_in_transaction_session_timeout.
func (s *Session) IdleInTransactionTimeout() time.Duration {
	d, _ := pgwire.ParseDurationSetting("idle_in_transaction_session_timeout", s.settings["idle_in_transaction_session_timeout"])
	return d
}

// timedOut turns the error of a statement whose context ran out of time
// into errStatementTimeout: whatever layer noticed the end of ctx
// reported it as a cancel.
func timedOut(ctx context.Context, err error) error {
	if err != nil && context.Cause(ctx) == errStatementTimeout && sqlerr.Code(err) == sqlerr.QueryCanceled {
		return errStatementTimeout
	}
	return err
}

// parseTimeout reads statement_timeout's value.
func parseTimeout(v string) (time.Duration, error) {
	return pgwire.ParseDurationSetting("statement_timeout", v)
}
