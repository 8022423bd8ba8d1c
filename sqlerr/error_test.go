package sqlerr

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestCode(t *testing.T) {
	base := New(UndefinedTable, "relation %q does not exist", "t")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, SuccessfulCompletion},
		{"plain error", io.EOF, InternalError},
		{"new", base, UndefinedTable},
		{"fmt wrapped", fmt.Errorf("planning: %w", base), UndefinedTable},
		{"doubly wrapped", fmt.Errorf("a: %w", fmt.Errorf("b: %w", base)), UndefinedTable},
		{"wrap plain", Wrap(io.ErrUnexpectedEOF, ProtocolViolation), ProtocolViolation},
		{"wrapf keeps code", Wrapf(base, "", "loading view %s", "v"), UndefinedTable},
		{"wrapf new code", Wrapf(base, DependentObjectsStillExist, "cannot drop"), DependentObjectsStillExist},
		{"wrapf plain, no code", Wrapf(io.EOF, "", "reading"), InternalError},
		{"outermost wins", New(QueryCanceled, "x").wrapping(base), QueryCanceled},
		{"empty code", &Error{Message: "x"}, InternalError},
		{"joined", errors.Join(io.EOF, base), UndefinedTable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Code(tt.err); got != tt.want {
				t.Errorf("Code = %q, want %q", got, tt.want)
			}
		})
	}
}

// wrapping returns a copy of e that unwraps to cause; only tests need it.
func (e *Error) wrapping(cause error) *Error {
	c := *e
	c.cause = cause
	return &c
}

func TestMessages(t *testing.T) {
	base := New(InvalidTextRepresentation, "invalid input syntax for type %s: %q", "integer", "x")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"new", base, `invalid input syntax for type integer: "x"`},
		{"no args", New(DivisionByZero, "division by zero"), "division by zero"},
		{"wrap", Wrap(io.EOF, ProtocolViolation), "EOF"},
		{"wrapf", Wrapf(io.EOF, ProtocolViolation, "reading message %d", 3), "reading message 3: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWithCopies(t *testing.T) {
	base := New(DependentObjectsStillExist, "cannot drop table t because other objects depend on it")
	withHint := base.WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	full := withHint.WithDetail("materialized view %s depends on table t", "v").
		WithPosition(12).WithSeverity(SeverityFatal).WithRoutine("r")
	if base.Hint != "" || base.Detail != "" || base.Position != 0 || base.Severity != SeverityError {
		t.Fatalf("With methods changed the original: %+v", base)
	}
	if withHint.Detail != "" {
		t.Fatalf("WithDetail changed its receiver: %+v", withHint)
	}
	want := Error{
		Code:     DependentObjectsStillExist,
		Severity: SeverityFatal,
		Message:  base.Message,
		Detail:   "materialized view v depends on table t",
		Hint:     "Use DROP ... CASCADE to drop the dependent objects too.",
		Position: 12,
		Routine:  "r",
	}
	if *full != want {
		t.Fatalf("got %+v\nwant %+v", *full, want)
	}
}

func TestFrom(t *testing.T) {
	base := New(UndefinedColumn, "column %q does not exist", "x").WithHint("Perhaps you meant %q.", "y")
	tests := []struct {
		name string
		err  error
		want Error
	}{
		{"plain", io.EOF, Error{Code: InternalError, Severity: SeverityError, Message: "EOF"}},
		{"sqlerr", base, Error{Code: UndefinedColumn, Severity: SeverityError,
			Message: `column "x" does not exist`, Hint: `Perhaps you meant "y".`}},
		{"fmt wrapped keeps context", fmt.Errorf("in view v: %w", base), Error{Code: UndefinedColumn,
			Severity: SeverityError, Message: `in view v: column "x" does not exist`, Hint: `Perhaps you meant "y".`}},
		{"wrapf keeps hint", Wrapf(base, "", "in view v"), Error{Code: UndefinedColumn,
			Severity: SeverityError, Message: `in view v: column "x" does not exist`, Hint: `Perhaps you meant "y".`}},
		{"empty fields filled", &Error{Message: "m"}, Error{Code: InternalError, Severity: SeverityError, Message: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.err)
			if !errors.Is(got, tt.err) {
				t.Errorf("From(err) does not unwrap to err")
			}
			c := *got
			c.cause = nil
			if c != tt.want {
				t.Errorf("got %+v\nwant %+v", c, tt.want)
			}
		})
	}
	if From(nil) != nil {
		t.Errorf("From(nil) != nil")
	}
}

func TestErrorsAsAndIs(t *testing.T) {
	wrapped := Wrap(io.ErrUnexpectedEOF, ProtocolViolation)
	outer := fmt.Errorf("session 3: %w", wrapped)
	if !errors.Is(outer, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is does not reach the wrapped cause")
	}
	var e *Error
	if !errors.As(outer, &e) || e != wrapped {
		t.Errorf("errors.As did not find the *Error")
	}
	if Wrap(nil, InternalError) != nil || Wrapf(nil, InternalError, "x") != nil {
		t.Errorf("wrapping nil must give nil")
	}
}

func TestAssertionFailedf(t *testing.T) {
	defer func() {
		r := recover()
		if Invariants {
			e, ok := r.(*Error)
			if !ok || e.Code != InternalError {
				t.Errorf("with invariants, AssertionFailedf must panic with an XX000 *Error; got %v", r)
			}
		} else if r != nil {
			t.Errorf("without invariants, AssertionFailedf must not panic; got %v", r)
		}
	}()
	e := AssertionFailedf("frontier moved back from %d to %d", 5, 3)
	if Code(e) != InternalError || e.Severity != SeverityError ||
		e.Message != "assertion failed: frontier moved back from 5 to 3" {
		t.Errorf("got %+v", e)
	}
}
