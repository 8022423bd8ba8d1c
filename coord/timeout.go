package coord

import (
	"context"
	"strconv"
	"strings"
	"time"

	"freshet/sqlerr"
)

// errStatementTimeout is how a statement ends when it runs past the
// session's statement_timeout, in PostgreSQL's words.
var errStatementTimeout = sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to statement timeout")

// withStatementTimeout bounds ctx by the session's statement_timeout, if
// one is set; the context's cause is then errStatementTimeout.
func (s *Session) withStatementTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	d, err := parseTimeout(s.params["statement_timeout"])
	if err != nil || d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, errStatementTimeout)
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

// parseTimeout reads a time setting as PostgreSQL does: a number of
// milliseconds, or a number with a unit (us, ms, s, min, h, d); empty
// and 0 mean no limit.
func parseTimeout(v string) (time.Duration, error) {
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
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"statement_timeout\": %q", v)
	}
	scale := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := scale[unit]
	if !ok {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"statement_timeout\": %q", v).
			WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
	}
	d := time.Duration(n * float64(u))
	if d > 0 && d < time.Millisecond {
		// PostgreSQL rounds a positive value below its unit up to it.
		d = time.Millisecond
	}
	return d, nil
}
