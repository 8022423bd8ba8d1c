package expr

import (
	"math"

	"freshet/repr"
	"freshet/sqlerr"
)

// The double precision math functions, as PostgreSQL's dsqrt, dcbrt,
// dexp, dlog1, dlog10, dpow, dsign, dtrunc, dpi, degrees and radians
// compute them, errors included: a negative square root or power base
// with a fractional exponent is 2201F, the logarithm of zero or of a
// negative number 2201E, an overflow or underflow 22003.

func (f VariadicFunc) isMath() bool { return f >= Sqrt && f <= Radians }

func errFloatOverflow() error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
}
func errFloatUnderflow() error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value out of range: underflow")
}

// checkFloat is PostgreSQL's float_overflow_error and
// float_underflow_error test of a result r of inputs that were finite
// (or, for underflow, nonzero).
func checkFloat(r float64, inputsFinite, zeroAllowed bool) error {
	if math.IsInf(r, 0) && inputsFinite {
		return errFloatOverflow()
	}
	if r == 0 && !zeroAllowed {
		return errFloatUnderflow()
	}
	return nil
}

func (c CallVariadic) evalMath(row []repr.Datum) (repr.Datum, error) {
	x := make([]float64, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil || v.IsNull() {
			return repr.Null, err
		}
		x[i] = v.Float()
	}
	var r float64
	switch c.Func {
	case Pi:
		return repr.NewFloat8(math.Pi), nil
	case Sqrt:
		if x[0] < 0 {
			return repr.Null, sqlerr.New(sqlerr.InvalidArgumentForPower, "cannot take square root of a negative number")
		}
		r = math.Sqrt(x[0])
		if err := checkFloat(r, !math.IsInf(x[0], 0), x[0] == 0); err != nil {
			return repr.Null, err
		}
	case Cbrt:
		r = math.Cbrt(x[0])
	case Exp:
		r = math.Exp(x[0])
		if math.IsNaN(x[0]) {
			break
		}
		if math.IsInf(r, 1) && !math.IsInf(x[0], 1) {
			return repr.Null, errFloatOverflow()
		}
		if r == 0 && !math.IsInf(x[0], -1) {
			return repr.Null, errFloatUnderflow()
		}
	case Ln, Log10:
		switch {
		case x[0] == 0:
			return repr.Null, sqlerr.New(sqlerr.InvalidArgumentForLog, "cannot take logarithm of zero")
		case x[0] < 0:
			return repr.Null, sqlerr.New(sqlerr.InvalidArgumentForLog, "cannot take logarithm of a negative number")
		}
		if c.Func == Ln {
			r = math.Log(x[0])
		} else {
			r = math.Log10(x[0])
		}
	case Power:
		a, b := x[0], x[1]
		switch {
		case a == 0 && b < 0:
			return repr.Null, sqlerr.New(sqlerr.InvalidArgumentForPower, "zero raised to a negative power is undefined")
		case a < 0 && b != math.Trunc(b) && !math.IsInf(b, 0):
			return repr.Null, sqlerr.New(sqlerr.InvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
		}
		r = math.Pow(a, b)
		finite := !math.IsInf(a, 0) && !math.IsInf(b, 0) && !math.IsNaN(a) && !math.IsNaN(b)
		if math.IsInf(r, 0) && finite {
			return repr.Null, errFloatOverflow()
		}
		if r == 0 && a != 0 && finite {
			return repr.Null, errFloatUnderflow()
		}
	case Sign:
		switch {
		case x[0] > 0:
			r = 1
		case x[0] < 0:
			r = -1
		default:
			r = 0
		}
	case Trunc:
		r = math.Trunc(x[0])
	case Degrees:
		r = x[0] * (180 / math.Pi)
		if math.IsInf(r, 0) && !math.IsInf(x[0], 0) {
			return repr.Null, errFloatOverflow()
		}
	case Radians:
		r = x[0] * (math.Pi / 180)
		if r == 0 && x[0] != 0 {
			return repr.Null, errFloatUnderflow()
		}
	}
	return repr.NewFloat8(r), nil
}
