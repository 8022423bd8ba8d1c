package coord

import (
	"crypto/rand"
	"fmt"
	"time"

	"freshet/expr"
	"freshet/pgwire"
	"freshet/repr"
	"freshet/sqlerr"
)

// bindSession returns plan with every session function (current_user,
// current_setting(), set_config(), ...) replaced by its value in s, and
// apply, which makes the statement's set_config() calls take effect (nil
// when it has none): the caller runs it once the statement has
// succeeded, since a failed statement changes no setting.
//
// set_config() changes the session, so it must run exactly as often as
// PostgreSQL would run it; Freshet allows it only where that is once: in
// a statement that reads no relation and computes one row.
func (s *Session) bindSession(plan expr.Relation) (expr.Relation, func(), error) {
	var err error
	var sets []func()
	out := expr.MapCalls(plan, func(c expr.CallVariadic) expr.Scalar {
		if !c.Func.IsSession() || err != nil {
			return c
		}
		if isSizeFunc(c.Func) {
			// Each row's call measures its relation as it is then.
			return s.newSizeCall(c)
		}
		if isSequenceFunc(c.Func) {
			// Each row's call acts on the sequence.
			return sequenceCall{s: s, f: c.Func, args: c.Args}
		}
		if c.Func == expr.CancelBackend || c.Func == expr.TerminateBackend {
			if _, ok := c.Args[0].(expr.Literal); !ok {
				// pg_terminate_backend(pid) FROM pg_stat_activity WHERE
				// ...: the call runs for each row, as in PostgreSQL.
				return signalCall{arg: c.Args[0], s: s, terminate: c.Func == expr.TerminateBackend}
			}
		}
		args := make([]repr.Datum, len(c.Args))
		for i, a := range c.Args {
			l, ok := a.(expr.Literal)
			if !ok {
				err = sqlerr.New(sqlerr.FeatureNotSupported, "%s with an argument that is not a constant is not supported", c.Func.CallName())
				return c
			}
			args[i] = l.Value
		}
		var v repr.Datum
		var set func()
		v, set, err = s.sessionValue(c.Func, args)
		if set != nil {
			if !evaluatedOnce(plan) {
				err = sqlerr.New(sqlerr.FeatureNotSupported, "set_config() is supported only in a query of one row that reads no relation, such as SELECT set_config(...)")
			}
			sets = append(sets, set)
		}
		return expr.Literal{Value: v, Type: c.Typ(nil).Type}
	})
	if err != nil {
		return nil, nil, err
	}
	if len(sets) == 0 {
		return out, nil, nil
	}
	return out, func() {
		for _, set := range sets {
			set()
		}
	}, nil
}

// bindScalars returns scs, scalars over no columns (column defaults, the
// arguments of EXECUTE), bound for one statement as a query's plan is:
// their session functions replaced by their values, now() by the
// statement's time, and random() and gen_random_uuid() keyed for the
// statement. The caller evaluates them once per row it makes; if row is
// not nil, it numbers those rows, so that each draws random values of
// its own (expr.CountCopies). set_config() has no place in them; where
// names them in its error.
func (s *Session) bindScalars(scs []expr.Scalar, row *int64, where string) ([]expr.Scalar, error) {
	if len(scs) == 0 {
		return nil, nil
	}
	unit := expr.Constant{Rows: []expr.Row{{Diff: 1}}}
	out, apply, err := s.bindSession(expr.Map{Input: unit, Scalars: scs})
	if err != nil {
		return nil, err
	}
	if apply != nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "set_config() is not supported in %s", where)
	}
	_, now, release := s.readTime()
	release()
	bound := withNow(withRandomKeys(out), now)
	if row != nil {
		bound = expr.CountCopies([]expr.Relation{bound}, row)[0]
	}
	return bound.(expr.Map).Scalars, nil
}

// evaluatedOnce reports whether plan computes its scalars exactly once:
// maps and projections over a constant of one row.
func evaluatedOnce(plan expr.Relation) bool {
	for {
		switch r := plan.(type) {
		case expr.Map:
			plan = r.Input
		case expr.Project:
			plan = r.Input
		case expr.Constant:
			return len(r.Rows) == 1 && r.Rows[0].Diff == 1
		default:
			return false
		}
	}
}

// sessionValue computes session function f of args; set, if not nil,
// applies what the call changes.
func (s *Session) sessionValue(f expr.VariadicFunc, args []repr.Datum) (v repr.Datum, set func(), err error) {
	switch f {
	case expr.CurrentUser, expr.SessionUser:
		return repr.NewText(s.startup.User), nil, nil
	case expr.CurrentDatabase:
		return repr.NewText(s.database), nil, nil
	case expr.CurrentSchema:
		return s.currentSchema(), nil, nil
	case expr.BackendPID:
		return repr.NewInt4(int32(s.key.ProcessID)), nil, nil
	case expr.PostmasterStartTime:
		var started uint64
		if s.backend != nil {
			started = s.backend.started
		}
		return repr.NewTimestampTZ(repr.TimestampFromTime(time.UnixMilli(int64(started)))), nil, nil
	case expr.CurrentSetting:
		if args[0].IsNull() || len(args) > 1 && args[1].IsNull() {
			return repr.Null, nil, nil
		}
		_, val, err := s.settings.value(args[0].Text())
		if err != nil {
			if len(args) > 1 && args[1].Bool() && sqlerr.Code(err) == sqlerr.UndefinedObject {
				return repr.Null, nil, nil
			}
			return repr.Null, nil, err
		}
		return repr.NewText(val), nil, nil
	case expr.SetConfig:
		return s.setConfig(args)
	case expr.CancelBackend, expr.TerminateBackend:
		if args[0].IsNull() {
			return repr.Null, nil, nil
		}
		other := s.backend.sessionByPID(uint32(args[0].Int()))
		if other == nil {
			return repr.NewBool(false), nil, nil
		}
		if f == expr.TerminateBackend {
			other.terminate()
		} else {
			other.cancelRunning()
		}
		return repr.NewBool(true), nil, nil
	}
	return repr.Null, nil, sqlerr.AssertionFailedf("%s is not a session function", f)
}

// setConfig is set_config(name, value, is_local): SET, or with a NULL
// value RESET, returning the setting's new value. is_local outside a
// transaction block lasts only for the statement, so it changes nothing.
func (s *Session) setConfig(args []repr.Datum) (repr.Datum, func(), error) {
	if args[0].IsNull() {
		return repr.Null, nil, sqlerr.New(sqlerr.NullValueNotAllowed, "SET requires parameter name")
	}
	local := !args[2].IsNull() && args[2].Bool()
	var name, v string
	var err error
	if args[1].IsNull() {
		name, v, err = resetValue(args[0].Text(), s.startup)
	} else {
		name, v, err = checked(args[0].Text(), args[1].Text())
	}
	if err != nil {
		return repr.Null, nil, err
	}
	set := func() {
		if !local || s.tx.status != pgwire.TxIdle {
			s.assign(name, &v, local)
		}
	}
	return repr.NewText(v), set, nil
}

// signalCall is pg_cancel_backend or pg_terminate_backend of a pid that
// each row gives: evaluating it signals the session of that pid, and is
// true if there is one. Views refuse session functions, so it runs only
// in the statement of the session that asked.
type signalCall struct {
	arg       expr.Scalar
	s         *Session
	terminate bool
}

// RewriteScalars implements expr.ScalarRewriter.
func (c signalCall) RewriteScalars(f func(expr.Scalar) expr.Scalar) expr.Scalar {
	return signalCall{arg: f(c.arg), s: c.s, terminate: c.terminate}
}

func (c signalCall) Eval(row []repr.Datum) (repr.Datum, error) {
	pid, err := c.arg.Eval(row)
	if err != nil {
		return repr.Null, err
	}
	f := expr.CancelBackend
	if c.terminate {
		f = expr.TerminateBackend
	}
	v, _, err := c.s.sessionValue(f, []repr.Datum{pid})
	return v, err
}

func (c signalCall) Typ(input []expr.ColumnType) expr.ColumnType {
	return expr.ColumnType{Type: repr.Bool, Nullable: true}
}

func (c signalCall) Columns(dst []int) []int { return c.arg.Columns(dst) }

func (c signalCall) String() string {
	if c.terminate {
		return fmt.Sprintf("pg_terminate_backend(%s)", c.arg)
	}
	return fmt.Sprintf("pg_cancel_backend(%s)", c.arg)
}

// withRandomKeys returns plan with each gen_random_uuid() call keyed with
// 16 fresh random bytes (expr.KeyRandomCalls), so that the statement's
// uuids are random and yet the same wherever its dataflow meets a row
// again.
func withRandomKeys(plan expr.Relation) expr.Relation {
	return expr.KeyRandomCalls(plan, func() []byte {
		key := make([]byte, 16)
		rand.Read(key) // never returns an error (Go 1.24 and later)
		return key
	})
}
