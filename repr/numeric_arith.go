package repr

import (
	"math/big"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// Numeric arithmetic is exact, with PostgreSQL's result scales: a sum or
// difference keeps the larger display scale of its operands (0.1 + 0.20
// is 0.30), a product the sum of theirs (2.50 * 1.5 is 3.750), a
// remainder the larger. A quotient gets select_div_scale's scale: at
// least 16 significant digits, and no less than either operand's display
// scale (1/3 is 0.33333333333333333333), rounded half away from zero.
// NaN and the infinities follow PostgreSQL 14 and later: NaN is
// contagious, Infinity - Infinity and Infinity * 0 are NaN, x / Infinity
// is 0.

// The scale rules of select_div_scale.
const (
	minSigDigits    = 16   // NUMERIC_MIN_SIG_DIGITS
	maxDisplayScale = 1000 // NUMERIC_MAX_DISPLAY_SCALE
)

// numericArith computes x op y.
func numericArith(op ArithOp, x, y *apd.Decimal) (*apd.Decimal, error) {
	if isNaN(x) || isNaN(y) {
		return numericNaN, nil
	}
	if x.Form == apd.Infinite || y.Form == apd.Infinite {
		return numericSpecialArith(op, x, y)
	}
	x, y = plainForm(x), plainForm(y)
	var r *apd.Decimal
	switch op {
	case OpAdd, OpSub:
		r = new(apd.Decimal)
		var ys apd.Decimal
		ys.Set(y)
		if op == OpSub {
			ys.Negative = !ys.Negative
		}
		e := min(x.Exponent, ys.Exponent)
		var a, b apd.BigInt
		signedCoeff(&a, x, x.Exponent-e)
		signedCoeff(&b, &ys, ys.Exponent-e)
		a.Add(&a, &b)
		setSigned(r, &a, e)
	case OpMul:
		r = new(apd.Decimal)
		r.Coeff.Mul(&x.Coeff, &y.Coeff)
		r.Exponent = x.Exponent + y.Exponent
		r.Negative = x.Negative != y.Negative && r.Coeff.Sign() != 0
		if dscale(r) > maxNumericDscale {
			r = roundToScale(r, maxNumericDscale)
		}
	case OpDiv:
		if y.IsZero() {
			return nil, errDivisionByZero
		}
		r = divRound(x, y, selectDivScale(x, y))
	case OpMod:
		if y.IsZero() {
			return nil, errDivisionByZero
		}
		e := min(x.Exponent, y.Exponent)
		var a, b apd.BigInt
		signedCoeff(&a, x, x.Exponent-e)
		signedCoeff(&b, y, y.Exponent-e)
		a.Rem(&a, &b)
		r = new(apd.Decimal)
		setSigned(r, &a, e)
	}
	if err := checkNumericLimits(r); err != nil {
		return nil, err
	}
	return r, nil
}

// numericSpecialArith handles an infinite operand (neither is NaN).
func numericSpecialArith(op ArithOp, x, y *apd.Decimal) (*apd.Decimal, error) {
	sx, sy := x.Sign(), y.Sign()
	inf := func(sign int) *apd.Decimal {
		if sign < 0 {
			return numericNegInf
		}
		return numericPosInf
	}
	xInf, yInf := x.Form == apd.Infinite, y.Form == apd.Infinite
	switch op {
	case OpAdd, OpSub:
		if op == OpSub {
			sy = -sy
		}
		switch {
		case xInf && yInf && sx != sy:
			return numericNaN, nil
		case xInf:
			return inf(sx), nil
		}
		return inf(sy), nil
	case OpMul:
		if sx == 0 || sy == 0 {
			return numericNaN, nil
		}
		return inf(sx * sy), nil
	case OpDiv:
		switch {
		case xInf && yInf:
			return numericNaN, nil
		case xInf:
			if sy == 0 {
				return nil, errDivisionByZero
			}
			return inf(sx * sy), nil
		}
		return new(apd.Decimal), nil
	case OpMod:
		if xInf {
			if sy == 0 {
				return nil, errDivisionByZero
			}
			return numericNaN, nil
		}
		return plainForm(x), nil
	}
	return numericNaN, nil
}

// isNaN reports whether d is NaN.
func isNaN(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }

// negNumeric returns -d; zero and NaN stay as they are.
func negNumeric(d *apd.Decimal) *apd.Decimal {
	if isNaN(d) || d.Form == apd.Finite && d.IsZero() {
		return d
	}
	r := new(apd.Decimal).Set(d)
	r.Negative = !r.Negative
	return r
}

// plainForm returns d with an exponent of at most 0, so that its
// exponent is minus its display scale: rows decode 100 as 1E+2, whose
// display scale is 0, and products must add display scales, not
// exponents.
func plainForm(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite || d.Exponent <= 0 {
		return d
	}
	return roundToScale(d, 0)
}

// signedCoeff sets z to d's signed coefficient times 10^shift, shift >= 0.
func signedCoeff(z *apd.BigInt, d *apd.Decimal, shift int32) {
	z.Set(&d.Coeff)
	if shift > 0 {
		z.Mul(z, pow10(int64(shift)))
	}
	if d.Negative {
		z.Neg(z)
	}
}

// setSigned sets d to the signed coefficient c times 10^exp.
func setSigned(d *apd.Decimal, c *apd.BigInt, exp int32) {
	d.Negative = c.Sign() < 0
	d.Coeff.Abs(c)
	d.Exponent = exp
	d.Form = apd.Finite
}

// divRound returns x / y rounded half away from zero to scale
// fractional digits; y is not zero.
func divRound(x, y *apd.Decimal, scale int32) *apd.Decimal {
	if r, ok := divRoundWords(x, y, scale); ok {
		return r
	}
	return divRoundBig(x, y, scale)
}

// divRoundBig is divRound in big integers.
func divRoundBig(x, y *apd.Decimal, scale int32) *apd.Decimal {
	// x/y*10^scale = cx*10^(ex-ey+scale) / cy.
	k := int64(x.Exponent) - int64(y.Exponent) + int64(scale)
	var num, den apd.BigInt
	num.Set(&x.Coeff)
	den.Set(&y.Coeff)
	if k >= 0 {
		num.Mul(&num, pow10(k))
	} else {
		den.Mul(&den, pow10(-k))
	}
	var q, rem apd.BigInt
	q.QuoRem(&num, &den, &rem)
	rem.Add(&rem, &rem)
	if rem.CmpAbs(&den) >= 0 {
		q.Add(&q, apd.NewBigInt(1))
	}
	r := new(apd.Decimal)
	r.Coeff.Set(&q)
	r.Exponent = -scale
	r.Negative = x.Negative != y.Negative && q.Sign() != 0
	return r
}

// selectDivScale is PostgreSQL's select_div_scale: enough fractional
// digits for 16 significant digits in the quotient, judged from the
// operands' weights and leading digits in base 10000, as PostgreSQL
// stores numerics; never less than either operand's display scale, and
// at most 1000.
func selectDivScale(x, y *apd.Decimal) int32 {
	w1, f1 := weightAndFirstDigit(x)
	w2, f2 := weightAndFirstDigit(y)
	return divScale(w1, f1, w2, f2, dscale(x), dscale(y))
}

// divScale is selectDivScale from the operands' leading base-10000
// digits, their weights and their display scales.
func divScale(w1, f1, w2, f2 int64, dx, dy int32) int32 {
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := int64(minSigDigits) - qweight*4
	rscale = max(rscale, int64(dx), int64(dy), 0)
	return int32(min(rscale, maxDisplayScale))
}

// weightAndFirstDigit returns the weight of d's leading base-10000 digit
// (d lies in [10000^w, 10000^(w+1))) and that digit, 1..9999; for zero,
// 0 and 0.
func weightAndFirstDigit(d *apd.Decimal) (weight, first int64) {
	if d.IsZero() {
		return 0, 0
	}
	if weight, first, ok := leadingWord(d); ok {
		return weight, first
	}
	return leadingBig(d)
}

// leadingBig is weightAndFirstDigit for a nonzero d of any size.
func leadingBig(d *apd.Decimal) (weight, first int64) {
	adj := intDigits(d) - 1 // floor(log10 |d|)
	weight, _ = floorDiv(adj, 4)
	// The leading base-10000 digit holds the decimal digits from 10^adj
	// down to 10^(4*weight).
	n := adj - 4*weight + 1
	var tmp [48]byte
	digits := d.Coeff.Append(tmp[:0], 10)
	for i := int64(0); i < n; i++ {
		first *= 10
		if i < int64(len(digits)) {
			first += int64(digits[i] - '0')
		}
	}
	return weight, first
}

// NumericSqrt returns the square root of a non-negative numeric at its
// display scale, rounded half up, as PostgreSQL's sqrt_var at a given
// scale: the standard deviation of a group is the root of its variance
// at the variance's scale. NaN and Infinity are their own roots.
func NumericSqrt(d Datum) (Datum, error) {
	x := d.Numeric()
	if x.Form != apd.Finite {
		return d, nil
	}
	if x.Negative && !x.IsZero() {
		return Null, sqlerr.New(sqlerr.InvalidArgumentForPower, "cannot take square root of a negative number")
	}
	scale := dscale(x)
	// sqrt(c·10^e)·10^scale = sqrt(c·10^(e+2·scale)), and e+2·scale is
	// not negative since scale >= -e.
	var n big.Int
	n.Set(x.Coeff.MathBigInt())
	n.Mul(&n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Exponent)+2*int64(scale)), nil))
	r := new(big.Int).Sqrt(&n)
	// Round half up: up when n > r² + r, as n is an integer.
	var edge big.Int
	edge.Mul(r, r)
	edge.Add(&edge, r)
	if n.Cmp(&edge) > 0 {
		r.Add(r, big.NewInt(1))
	}
	out := new(apd.Decimal)
	out.Coeff.SetMathBigInt(r)
	out.Exponent = -scale
	return NewNumeric(out), nil
}
