package repr

import "github.com/cockroachdb/apd/v3"

// Display scales as types. A numeric datum carries its display scale in
// its exponent, and the arithmetic in numeric_arith.go gives results
// PostgreSQL's scales. A row does not carry it: rows hold the canonical
// value, so that equal values have equal bytes (see doc.go). What a
// value read back from a row prints with is therefore decided by its
// column's type, and the functions here give an expression's type the
// display scale its values have:
//
//   - a + b, a - b and a % b: the larger scale of the operands;
//   - a * b: the sum of the operands' scales;
//   - a / b: a quotient, which prints with at least the larger scale of
//     the operands and at least the scale that select_div_scale gives a
//     quotient of its size (see quotientScale);
//   - a cast to unconstrained numeric: the operand's scale;
//   - CASE, COALESCE, GREATEST, LEAST and UNION: the smaller scale of
//     their alternatives, so that no value gets zeros PostgreSQL would not
//     print.
//
// A type's display scale is a lower bound: decoding pads a value to it,
// and never drops digits the value has. So an expression over a quotient
// (avg(x) + 1) has only the static scales of its operands: where the
// quotient terminated early (1.5000000000000000 + 1), it prints fewer
// zeros than PostgreSQL (2.5), never more.

// ArithType returns the type of a op b where a and b have types ta and
// tb. For numerics it is unconstrained numeric with the display scale
// that PostgreSQL gives the result; for other operands, ta without its
// modifiers, the type the planner casts both operands to.
func ArithType(op ArithOp, ta, tb Type) Type {
	if (op == OpMul || op == OpDiv) && (ta.kind == KindInterval || tb.kind == KindInterval) {
		return Interval
	}
	if t, ok := dateTimeArithType(op, ta.kind, tb.kind); ok {
		return t
	}
	if ta.kind != KindNumeric || tb.kind != KindNumeric {
		return ta.Base()
	}
	sa, sb := ta.DisplayScale(), tb.DisplayScale()
	switch op {
	case OpMul:
		return Numeric.WithDisplayScale(sa + sb)
	case OpDiv:
		t := Numeric.WithDisplayScale(max(sa, sb))
		t.rule = scaleQuotient
		return t
	}
	return Numeric.WithDisplayScale(max(sa, sb))
}

// dateTimeArithType returns the type of the date and time operators
// whose result is not their left operand's type (timeArith): time -
// time and timestamp - timestamp are intervals, date - date an integer,
// date ± time a timestamp, interval + timestamp or time and integer +
// date the right operand's type.
func dateTimeArithType(op ArithOp, a, b Kind) (Type, bool) {
	stamp := func(k Kind) bool { return k == KindTimestamp || k == KindTimestampTZ }
	switch {
	case op == OpSub && (a == KindTime && b == KindTime || stamp(a) && stamp(b)):
		return Interval, true
	case op == OpSub && a == KindDate && b == KindDate:
		return Int4, true
	case a == KindDate && b == KindTime || a == KindTime && b == KindDate:
		return Timestamp, true
	case a == KindInterval && (b == KindTime || stamp(b)), a.IsInt() && b == KindDate:
		return b.Type(), true
	}
	return Type{}, false
}

// EitherType returns the type of a value that is either of type ta or of
// type tb, the two types the planner made one: ta when they are equal or
// not both numeric, otherwise unconstrained numeric with the smaller
// display scale, a quotient only if both are.
func EitherType(ta, tb Type) Type {
	if ta == tb || ta.kind != KindNumeric || tb.kind != KindNumeric {
		return ta
	}
	t := Numeric.WithDisplayScale(min(ta.DisplayScale(), tb.DisplayScale()))
	if ta.rule == tb.rule {
		t.rule = ta.rule
	}
	return t
}

// CastType returns the type of a value of type from cast to type to.
// It is to, except for a cast to unconstrained numeric, whose display
// scale is the value's: a numeric keeps its own, as in PostgreSQL, so the
// result has from's display scale; any other value gets none from to.
func CastType(from, to Type) Type {
	if to.kind != KindNumeric || to.width > 0 {
		return to
	}
	if from.kind != KindNumeric {
		return Numeric
	}
	if from.width > 0 {
		return Numeric.WithDisplayScale(from.DisplayScale())
	}
	return from
}

// NumericScale returns the display scale of a finite numeric datum: the
// number of fractional digits it prints. It reports false for NULL, NaN,
// the infinities and datums of other kinds.
func (d Datum) NumericScale() (int, bool) {
	if !d.valid || d.kind != KindNumeric {
		return 0, false
	}
	if _, s, ok := d.SmallNumeric(); ok {
		return int(s), true
	}
	if d.dec().Form != apd.Finite {
		return 0, false
	}
	return int(dscale(d.dec())), true
}

// rowScale returns the display scale that a finite value d read from a
// row of type t is given: t's display scale, or for a quotient the scale
// PostgreSQL's division gives a quotient of d's size, if that is larger.
// d is the canonical value, without trailing zeros.
func (t Type) rowScale(d *apd.Decimal) int32 {
	s := int32(t.DisplayScale())
	switch t.rule {
	case scaleQuotient:
		s = max(s, quotientScale(d))
	case scaleVariance, scaleStddev:
		// PostgreSQL's variance and standard deviation of a group whose
		// numerator is not positive is a plain 0.
		if d.IsZero() {
			return 0
		}
		q := d
		if t.rule == scaleStddev {
			// The root was taken at the scale of the variance, its
			// square.
			q = new(apd.Decimal)
			q.Coeff.Mul(&d.Coeff, &d.Coeff)
			q.Exponent = 2 * d.Exponent
		}
		s = max(s, quotientScale(q))
	}
	return s
}

// scaleRule is how a numeric read from a row gets the digits its value
// had beyond its type's display scale (Type.rule).
type scaleRule uint8

const (
	// scaleStatic: the type's display scale only.
	scaleStatic scaleRule = iota
	// scaleQuotient: a quotient's, from its size (quotientScale).
	scaleQuotient
	// scaleVariance: a variance's, a quotient but 0 for zero.
	scaleVariance
	// scaleStddev: a standard deviation's, the root of a variance taken
	// at the variance's scale.
	scaleStddev
)

// StatsType is the type of a numeric variance (stddev false) or standard
// deviation (stddev true) whose sum of squares has display scale s.
func StatsType(stddev bool, s int) Type {
	t := Numeric.WithDisplayScale(s)
	t.rule = scaleVariance
	if stddev {
		t.rule = scaleStddev
	}
	return t
}

// quotientScale is select_div_scale (see selectDivScale) as far as it can
// be judged from the quotient q alone, the operands being gone: enough
// fractional digits for 16 significant digits at q's weight in base-10000
// digits, at most 1000, without the operands' own display scales (the
// type supplies those). PostgreSQL estimates the weight from the
// operands' leading base-10000 digits and, when those are equal, takes
// the smaller of the two weights the quotient can have. Where that
// estimate and q's weight differ, q tells which way it went only in part:
//
//   - q a power of 10000 (1, 10000, 0.0001): the operands' digits are the
//     same, shifted, so the estimate is one below q's weight. Exact.
//   - q zero: the dividend was zero, and the estimate depends on the
//     divisor, which is gone. The scale is that for a divisor from 1 to
//     9999 (20 digits), as for avg of zeros; 0/0.5 gets 16 and 0/30000
//     gets 24 in PostgreSQL.
//   - q otherwise starting with base-10000 digit 1 (1.5, 12500): the
//     estimate is q's weight, unless the operands start with the same
//     digit, as in 15000/10000 or avg(12000, 13000) = 25000/2, where
//     PostgreSQL prints 4 zeros more. It is q's weight whenever both
//     operands lie below 10000, which covers avg of few small numbers.
//
// Every other quotient gets its scale exactly, and a quotient that does
// not terminate carries all its digits in the row anyway.
func quotientScale(q *apd.Decimal) int32 {
	if q.Form != apd.Finite {
		return 0
	}
	qweight := int64(-1)
	if !q.IsZero() {
		var first int64
		qweight, first = weightAndFirstDigit(q)
		if first == 1 && isPowerOfTen(&q.Coeff) {
			qweight--
		}
	}
	return int32(min(max(minSigDigits-4*qweight, 0), maxDisplayScale))
}

// isPowerOfTen reports whether c is 10^n for some n >= 0.
func isPowerOfTen(c *apd.BigInt) bool {
	var tmp [48]byte
	digits := c.Append(tmp[:0], 10)
	if len(digits) == 0 || digits[0] != '1' {
		return false
	}
	for _, d := range digits[1:] {
		if d != '0' {
			return false
		}
	}
	return true
}
