package repr

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// Numeric values follow PostgreSQL's NUMERIC: arbitrary precision
// decimals with a display scale, plus NaN and ±Infinity. An apd.Decimal
// holds one as a coefficient and an exponent; the display scale (dscale,
// the number of fractional digits printed) is -Exponent, or 0 when the
// exponent is positive: 1.50 is 150E-2 with dscale 2, 1e2 is 1E+2 with
// dscale 0 and prints "100".

// Limits of PostgreSQL's numeric format.
const (
	// maxNumericIntDigits is the most digits before the decimal point.
	maxNumericIntDigits = 131072
	// maxNumericDscale is the largest display scale.
	maxNumericDscale = 16383
)

// dscale returns the display scale of a finite decimal.
func dscale(d *apd.Decimal) int32 { return max(0, -d.Exponent) }

// intDigits returns the number of digits before the decimal point of a
// finite, nonzero decimal: the adjusted exponent plus one. It is 0 or
// negative for values below 1 (-1 for 0.05).
func intDigits(d *apd.Decimal) int64 { return int64(d.Exponent) + numDigits(d) }

// checkNumericLimits reports 22003 if d lies outside what PostgreSQL's
// numeric format can hold.
func checkNumericLimits(d *apd.Decimal) error {
	if d.Form != apd.Finite {
		return nil
	}
	if dscale(d) > maxNumericDscale || !d.IsZero() && intDigits(d) > maxNumericIntDigits {
		return errNumericOverflow
	}
	return nil
}

var (
	numericNaN    = &apd.Decimal{Form: apd.NaN}
	numericPosInf = &apd.Decimal{Form: apd.Infinite}
	numericNegInf = &apd.Decimal{Form: apd.Infinite, Negative: true}
	bigTen        = apd.NewBigInt(10)
)

// pow10 returns 10^n as a new BigInt, n >= 0.
func pow10(n int64) *apd.BigInt { return setPow10(new(apd.BigInt), n) }

// setPow10 sets z to 10^n, n >= 0, and returns z.
func setPow10(z *apd.BigInt, n int64) *apd.BigInt {
	if n < 19 {
		p := int64(1)
		for range n {
			p *= 10
		}
		return z.SetInt64(p)
	}
	var e apd.BigInt
	return z.Exp(bigTen, e.SetInt64(n), nil)
}

// roundToScale returns d rounded half away from zero to scale fractional
// digits (to exponent -scale), as PostgreSQL rounds numerics, or padded
// with zeros when d has fewer. A negative scale rounds to tens, hundreds
// and so on, but the result still has exponent >= 0 digits after the
// point, since PostgreSQL's display scale is never negative. NaN and
// infinities are returned as they are.
func roundToScale(d *apd.Decimal, scale int32) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	var r *apd.Decimal
	switch target := -scale; {
	case d.Exponent == target:
		r = new(apd.Decimal).Set(d)
	case d.Exponent > target:
		r = new(apd.Decimal)
		r.Coeff.Mul(&d.Coeff, pow10(int64(d.Exponent-target)))
		r.Exponent = target
		r.Negative = d.Negative
	default:
		var ok bool
		if r, ok = roundDownWords(d, scale); !ok {
			r = roundDownBig(d, scale)
		}
	}
	if r.Exponent > 0 {
		// Negative scales round to a power of ten but display no
		// fraction: keep the exponent at 0.
		r.Coeff.Mul(&r.Coeff, pow10(int64(r.Exponent)))
		r.Exponent = 0
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	}
	return r
}

// roundDownBig rounds a finite d with more fractional digits than scale
// to scale, half away from zero, in big integers.
func roundDownBig(d *apd.Decimal, scale int32) *apd.Decimal {
	div := pow10(int64(-scale - d.Exponent))
	var q, rem apd.BigInt
	q.QuoRem(&d.Coeff, div, &rem)
	// Half away from zero: round up when 2*rem >= div.
	rem.Add(&rem, &rem)
	if rem.CmpAbs(div) >= 0 {
		q.Add(&q, apd.NewBigInt(1))
	}
	r := new(apd.Decimal)
	r.Coeff.Set(&q)
	r.Exponent = -scale
	r.Negative = d.Negative
	return r
}

// applyNumericTypmod coerces d to t: for numeric(p,s) it rounds to s
// fractional digits and fails with PostgreSQL's "numeric field overflow"
// if more than p-s digits remain before the point; for unconstrained
// numeric it returns d. NaN fits every numeric type; infinities fit none
// with a precision.
func applyNumericTypmod(d *apd.Decimal, t Type) (*apd.Decimal, error) {
	p, s, ok := t.NumericPrecision()
	if !ok {
		return d, nil
	}
	switch d.Form {
	case apd.NaN:
		return d, nil
	case apd.Infinite:
		return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric field overflow").WithDetail(
			"A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	r := roundToScale(d, int32(s))
	if !r.IsZero() && intDigits(r) > int64(p-s) {
		return nil, errPrecisionOverflow(p, s)
	}
	return r, nil
}

// smallTypmod is applyNumericTypmod for the numeric c × 10^-s held in
// words, and the cast to numeric that applies it. It reports false if
// the rounded value does not fit words, or t's scale is negative; the
// caller then takes the decimal path.
func smallTypmod(c int64, s int32, t Type) (Datum, bool, error) {
	p, ts, ok := t.NumericPrecision()
	if !ok {
		return newSmallNumeric(c, s), true, nil
	}
	if ts < 0 {
		return Null, false, nil
	}
	r, ok := roundSmall(c, s, int32(ts))
	if !ok {
		return Null, false, nil
	}
	if r != 0 && wordDigits(absSmall(r))-int64(ts) > int64(p-ts) {
		return Null, true, errPrecisionOverflow(p, ts)
	}
	return newSmallNumeric(r, int32(ts)), true, nil
}

// errPrecisionOverflow is PostgreSQL's error for a value with more digits
// before the point than numeric(p,s) holds.
func errPrecisionOverflow(p, s int) error {
	maxDigits := int64(p - s)
	limit := "1"
	if maxDigits != 0 {
		limit = "10^" + strconv.FormatInt(maxDigits, 10)
	}
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric field overflow").WithDetail(
		"A field with precision %d, scale %d must round to an absolute value less than %s.", p, s, limit)
}

// numericFromInt returns v as a numeric with display scale 0.
func numericFromInt(v int64) *apd.Decimal { return apd.New(v, 0) }

// RoundNumeric returns round(d, scale) of a numeric datum d: rounded half
// away from zero to scale fractional digits (to tens, hundreds and so on
// for a negative scale), with display scale max(scale, 0), as
// PostgreSQL's round does. A scale beyond PostgreSQL's limits is taken as
// the limit. NaN and the infinities are returned as they are.
func RoundNumeric(d Datum, scale int64) Datum {
	scale = min(max(scale, -(maxNumericIntDigits+1)), maxNumericDscale)
	if c, s, ok := d.SmallNumeric(); ok && scale >= 0 {
		if r, ok := roundSmall(c, s, int32(scale)); ok {
			return newSmallNumeric(r, int32(scale))
		}
	}
	return NewNumeric(roundToScale(d.decimal(), int32(scale)))
}

// FloorNumeric returns floor(d) of a numeric datum d, or ceil(d) if up:
// the nearest integer below (above) d, with display scale 0. NaN and the
// infinities are returned as they are.
func FloorNumeric(d Datum, up bool) Datum {
	x := d.decimal()
	if x.Form != apd.Finite || x.Exponent >= 0 {
		return NewNumeric(plainForm(x))
	}
	var q, rem apd.BigInt
	q.QuoRem(&x.Coeff, pow10(int64(-x.Exponent)), &rem)
	// Truncation moved d toward zero; one more step away from zero is
	// down for a negative d and up for a positive one.
	if rem.Sign() != 0 && x.Negative != up {
		q.Add(&q, apd.NewBigInt(1))
	}
	r := new(apd.Decimal)
	r.Coeff.Set(&q)
	r.Negative = x.Negative && q.Sign() != 0
	return NewNumeric(r)
}
