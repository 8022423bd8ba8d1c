package repr

import (
	"math"

	"freshet/sqlerr"
)

// The arithmetic operators of SQL on datums, with PostgreSQL's results
// and errors: integer overflow is 22003 "integer out of range" (named for
// the result type), a zero divisor is 22012 "division by zero", float
// overflow and underflow are 22003 "value out of range: overflow" and
// "...: underflow", numerics are exact with PostgreSQL's result scales.
//
// Operands are normally of one kind; the planner casts them to a common
// type first. Integers of different widths are also accepted (the wider
// width is the result's, as for PostgreSQL's int24pl and friends), and
// so are float4 with float8 (computed in float8). The date and time
// combinations are in timearith.go. The operators are strict: a NULL
// operand gives NULL.

// Add returns a + b.
func Add(a, b Datum) (Datum, error) { return arith(OpAdd, a, b) }

// Sub returns a - b.
func Sub(a, b Datum) (Datum, error) { return arith(OpSub, a, b) }

// Mul returns a * b.
func Mul(a, b Datum) (Datum, error) { return arith(OpMul, a, b) }

// Div returns a / b. Integer division truncates toward zero (-7/2 is -3).
func Div(a, b Datum) (Datum, error) { return arith(OpDiv, a, b) }

// Mod returns a % b, with the sign of a (-7 % 2 is -1). Floats have no
// remainder operator in PostgreSQL.
func Mod(a, b Datum) (Datum, error) { return arith(OpMod, a, b) }

// Neg returns -a.
func Neg(a Datum) (Datum, error) {
	if !a.valid {
		return Null, nil
	}
	switch {
	case a.kind.IsInt():
		lo, _ := intRange(a.kind)
		if a.i == lo {
			return Null, errIntOutOfRange(a.kind)
		}
		return newInt(a.kind, -a.i), nil
	case a.kind.IsFloat():
		return newFloat(a.kind, -a.Float()), nil
	case a.kind == KindNumeric:
		if c, s, ok := a.SmallNumeric(); ok {
			return newSmallNumeric(-c, s), nil
		}
		return NewNumeric(negNumeric(a.dec())), nil
	case a.kind == KindInterval:
		return negInterval(a.Interval())
	}
	return Null, errNoOperator("-", Null, a)
}

// ArithOp names an arithmetic operator, for ArithType.
type ArithOp uint8

// The arithmetic operators: +, -, *, / and %.
const (
	OpAdd ArithOp = iota
	OpSub
	OpMul
	OpDiv
	OpMod
)

var opNames = [...]string{"+", "-", "*", "/", "%"}

func arith(op ArithOp, a, b Datum) (Datum, error) {
	if !a.valid || !b.valid {
		return Null, nil
	}
	switch {
	case a.kind.IsInt() && b.kind.IsInt():
		return intArith(op, max(a.kind, b.kind), a.i, b.i)
	case a.kind.IsFloat() && b.kind.IsFloat() && op != OpMod:
		if a.kind == KindFloat4 && b.kind == KindFloat4 {
			return float4Arith(op, float32(a.Float()), float32(b.Float()))
		}
		return float8Arith(op, a.Float(), b.Float())
	case a.kind == KindNumeric && b.kind == KindNumeric:
		if a.p == nil && b.p == nil {
			if r, ok, err := smallArith(op, a, b); ok || err != nil {
				return r, err
			}
		}
		r, err := numericArith(op, a.decimal(), b.decimal())
		if err != nil {
			return Null, err
		}
		return NewNumeric(r), nil
	}
	return timeArith(op, a, b)
}

// errNoOperator is the planner's error for operand types without the
// operator; the evaluator sees it only if the planner let such a call
// through.
func errNoOperator(op string, a, b Datum) error {
	if !a.valid {
		return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s", op, kinds[b.kind].display)
	}
	return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s %s",
		kinds[a.kind].display, op, kinds[b.kind].display)
}

// AddInt64 returns x + y, wrapped as Go's addition wraps, and reports
// whether it did not overflow: it did if both addends have one sign and
// the sum the other.
func AddInt64(x, y int64) (int64, bool) {
	r := x + y
	return r, (x >= 0) != (y >= 0) || (r >= 0) == (x >= 0)
}

// MulInt64 returns x × y, wrapped as Go's multiplication wraps, and
// reports whether it did not overflow.
func MulInt64(x, y int64) (int64, bool) {
	r := x * y
	return r, x == 0 || r/x == y && !(x == -1 && y == math.MinInt64)
}

// intArith computes on integers of kind k with PostgreSQL's overflow
// checks.
func intArith(op ArithOp, k Kind, x, y int64) (Datum, error) {
	lo, hi := intRange(k)
	var r int64
	switch op {
	case OpAdd:
		var ok bool
		if r, ok = AddInt64(x, y); k == KindInt8 && !ok {
			return Null, errIntOutOfRange(k)
		}
	case OpSub:
		r = x - y
		if k == KindInt8 && (x >= 0) != (y >= 0) && (r >= 0) != (x >= 0) {
			return Null, errIntOutOfRange(k)
		}
	case OpMul:
		var ok bool
		if r, ok = MulInt64(x, y); k == KindInt8 && !ok {
			return Null, errIntOutOfRange(k)
		}
	case OpDiv:
		if y == 0 {
			return Null, errDivisionByZero
		}
		if y == -1 && x == lo {
			return Null, errIntOutOfRange(k)
		}
		r = x / y
	case OpMod:
		if y == 0 {
			return Null, errDivisionByZero
		}
		if y == -1 {
			return newInt(k, 0), nil
		}
		r = x % y
	}
	if r < lo || r > hi {
		return Null, errIntOutOfRange(k)
	}
	return newInt(k, r), nil
}

// float8Arith computes in double precision, failing where PostgreSQL's
// float8 operators do: a finite result from finite operands may not
// overflow to infinity, nor a nonzero product or quotient underflow to 0.
func float8Arith(op ArithOp, x, y float64) (Datum, error) {
	var r float64
	switch op {
	case OpAdd:
		r = x + y
	case OpSub:
		r = x - y
	case OpMul:
		r = x * y
	case OpDiv:
		if y == 0 && !math.IsNaN(x) {
			return Null, errDivisionByZero
		}
		r = x / y
	}
	if err := checkFloat(op, r, x, y); err != nil {
		return Null, err
	}
	return NewFloat8(r), nil
}

// float4Arith computes in single precision, as PostgreSQL's float4
// operators do.
func float4Arith(op ArithOp, x, y float32) (Datum, error) {
	var r float32
	switch op {
	case OpAdd:
		r = x + y
	case OpSub:
		r = x - y
	case OpMul:
		r = x * y
	case OpDiv:
		if y == 0 && x == x {
			return Null, errDivisionByZero
		}
		r = x / y
	}
	if err := checkFloat(op, float64(r), float64(x), float64(y)); err != nil {
		return Null, err
	}
	return NewFloat4(r), nil
}

// checkFloat applies PostgreSQL's float_overflow_error and
// float_underflow_error checks to r = x op y.
func checkFloat(op ArithOp, r, x, y float64) error {
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !(op != OpDiv && math.IsInf(y, 0)) {
		return errFloatOverflow
	}
	switch op {
	case OpMul:
		if r == 0 && x != 0 && y != 0 {
			return errFloatUnderflow
		}
	case OpDiv:
		if r == 0 && x != 0 && !math.IsInf(y, 0) {
			return errFloatUnderflow
		}
	}
	return nil
}
