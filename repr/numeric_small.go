package repr

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// A finite numeric whose coefficient fits in an int64 and whose exponent
// is not positive, which is nearly every numeric a table holds (prices,
// amounts, rates, their sums and quotients), is held in the datum itself
// rather than behind an *apd.Decimal: i is the signed coefficient and j
// the display scale, so 1.50 is i = 150, j = 2. Such a datum costs no
// allocation to make, to decode or to compute with: arithmetic, rounding,
// comparison and the key and text forms of two of them work in machine
// words here, and go to apd only when a result does not fit, with the
// same result either way (TestSmallNumericsMatchBig). p is nil exactly
// when a numeric datum is held so.

// newSmallNumeric returns the numeric c × 10^-scale; c is not MinInt64,
// whose magnitude has no int64, and scale lies in 0..maxNumericDscale.
func newSmallNumeric(c int64, scale int32) Datum {
	return Datum{head: head{kind: KindNumeric, valid: true}, i: c, j: int64(scale)}
}

// decimal returns a numeric datum's value as a decimal, making one for a
// datum held in words. The caller must not modify it.
func (d Datum) decimal() *apd.Decimal {
	if d.p != nil {
		return d.dec()
	}
	r := new(apd.Decimal)
	r.Coeff.SetUint64(absSmall(d.i))
	r.Exponent = -int32(d.j)
	r.Negative = d.i < 0
	return r
}

// SmallNumeric returns the coefficient and display scale of a numeric
// datum held in words, the value c × 10^-scale, and false for one held
// as a decimal, which Numeric then gives. It costs nothing; Numeric may
// allocate.
func (d Datum) SmallNumeric() (c int64, scale int32, ok bool) {
	return d.i, int32(d.j), d.p == nil
}

// smallParts returns the coefficient and scale of a finite decimal that
// fits the words of a datum. A positive exponent is multiplied out, as
// every operation takes such a value at scale 0 (plainForm).
func smallParts(d *apd.Decimal) (int64, int32, bool) {
	if d.Form != apd.Finite || d.Exponent < -maxNumericDscale || !d.Coeff.IsUint64() {
		return 0, 0, false
	}
	c, ok := signedSmall(d.Coeff.Uint64(), d.Negative)
	if !ok {
		return 0, 0, false
	}
	if d.Exponent > 0 {
		c, ok = scaleUpSmall(c, d.Exponent)
		return c, 0, ok
	}
	return c, -d.Exponent, true
}

// absSmall returns |c|; c is not MinInt64.
func absSmall(c int64) uint64 {
	if c < 0 {
		return uint64(-c)
	}
	return uint64(c)
}

// signedSmall returns u with the sign neg, and false if the result is
// not a small coefficient.
func signedSmall(u uint64, neg bool) (int64, bool) {
	if u > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// scaleUpSmall returns c × 10^n, n >= 0, and false if it does not fit.
func scaleUpSmall(c int64, n int32) (int64, bool) {
	if n == 0 || c == 0 {
		return c, true
	}
	if n >= int32(len(wordPow10)) {
		return 0, false
	}
	hi, lo := bits.Mul64(absSmall(c), wordPow10[n])
	if hi != 0 {
		return 0, false
	}
	return signedSmall(lo, c < 0)
}

// roundSmall returns c × 10^-s rounded half away from zero to scale t
// (or padded with zeros), t >= 0, as the coefficient at scale t, and
// false if it does not fit.
func roundSmall(c int64, s, t int32) (int64, bool) {
	if s <= t {
		return scaleUpSmall(c, t-s)
	}
	m := s - t
	if m >= int32(len(wordPow10)) {
		return 0, false
	}
	// |c| < 10^19, so the quotient and its rounding fit.
	_, q := quoRoundWords(0, absSmall(c), wordPow10[m])
	return signedSmall(q, c < 0)
}

// smallArith computes x op y for two numerics held in words, and reports
// false when the result, or a step to it, does not fit them; the caller
// then computes in decimals (numericArith), which gives the same value.
func smallArith(op ArithOp, x, y Datum) (Datum, bool, error) {
	xc, xs, _ := x.SmallNumeric()
	yc, ys, _ := y.SmallNumeric()
	switch op {
	case OpAdd, OpSub, OpMod:
		// At the larger scale, as numericArith aligns them.
		s := max(xs, ys)
		a, ok := scaleUpSmall(xc, s-xs)
		if !ok {
			return Null, false, nil
		}
		b, ok := scaleUpSmall(yc, s-ys)
		if !ok {
			return Null, false, nil
		}
		var r int64
		switch op {
		case OpAdd, OpSub:
			if op == OpSub {
				b = -b
			}
			var overflow bool
			r, overflow = addOverflows(a, b)
			if overflow || r == math.MinInt64 {
				return Null, false, nil
			}
		case OpMod:
			if b == 0 {
				return Null, true, errDivisionByZero
			}
			r = a % b
		}
		return newSmallNumeric(r, s), true, nil
	case OpMul:
		s := xs + ys
		if s > maxNumericDscale {
			return Null, false, nil
		}
		hi, lo := bits.Mul64(absSmall(xc), absSmall(yc))
		if hi != 0 {
			return Null, false, nil
		}
		r, ok := signedSmall(lo, (xc < 0) != (yc < 0))
		if !ok {
			return Null, false, nil
		}
		return newSmallNumeric(r, s), true, nil
	case OpDiv:
		if yc == 0 {
			return Null, true, errDivisionByZero
		}
		w1, f1 := leadingOf(absSmall(xc), -int64(xs))
		w2, f2 := leadingOf(absSmall(yc), -int64(ys))
		scale := divScale(w1, f1, w2, f2, xs, ys)
		// x/y·10^scale = |xc|·10^(ys-xs+scale) / |yc|.
		qh, ql, ok := quoWords(0, absSmall(xc), absSmall(yc), int64(ys)-int64(xs)+int64(scale))
		if !ok {
			return Null, false, nil
		}
		neg := (xc < 0) != (yc < 0)
		if r, ok := signedSmall(ql, neg); ok && qh == 0 {
			return newSmallNumeric(r, scale), true, nil
		}
		r := new(apd.Decimal)
		setCoeffWords(&r.Coeff, qh, ql)
		r.Exponent = -scale
		r.Negative = neg
		return NewNumeric(r), true, nil
	}
	return Null, false, nil
}

// addOverflows returns a + b and whether it overflowed.
func addOverflows(a, b int64) (int64, bool) {
	r := a + b
	return r, (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0)
}

// compareSmall compares two numerics held in words, and reports false if
// aligning their scales does not fit.
func compareSmall(x, y Datum) (int, bool) {
	xc, xs, _ := x.SmallNumeric()
	yc, ys, _ := y.SmallNumeric()
	s := max(xs, ys)
	a, ok := scaleUpSmall(xc, s-xs)
	if !ok {
		return 0, false
	}
	b, ok := scaleUpSmall(yc, s-ys)
	if !ok {
		return 0, false
	}
	return cmp.Compare(a, b), true
}

// appendSmallNumeric appends the text form of c × 10^-scale, as
// appendNumeric writes the same value.
func appendSmallNumeric(buf []byte, c int64, scale int32) []byte {
	var tmp [20]byte
	n := len(tmp)
	for u := absSmall(c); u > 0 || n == len(tmp); u /= 10 {
		n--
		tmp[n] = byte('0' + u%10)
	}
	digits := tmp[n:]
	if c < 0 {
		buf = append(buf, '-')
	}
	if scale == 0 {
		return append(buf, digits...)
	}
	if int32(len(digits)) <= scale {
		// 5 at scale 3 is 0.005.
		buf = append(buf, '0', '.')
		for range int(scale) - len(digits) {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	point := len(digits) - int(scale)
	buf = append(buf, digits[:point]...)
	buf = append(buf, '.')
	return append(buf, digits[point:]...)
}

// numericWord reads the numeric key of a non-zero finite value (tag
// tagNumPos or tagNumNeg, then body) of at most 18 digits as v × 10^exp,
// negated if neg, v with no trailing zero; it reports false for any
// other value and for bytes that are not a well-formed key's digits.
func numericWord(tag byte, body []byte) (v uint64, exp int64, neg, ok bool) {
	if tag != tagNumNeg && tag != tagNumPos || len(body) < 2 {
		return 0, 0, false, false
	}
	neg = tag == tagNumNeg
	e, i, err := numericExponent(body, neg)
	if err != nil {
		return 0, 0, false, false
	}
	// At most 18 digits: nine pairs, then the terminator.
	if len(body)-1-i > 9 || len(body)-1 <= i {
		return 0, 0, false, false
	}
	digits := int64(0)
	for ; i < len(body)-1; i++ {
		pair, ok := digitPair(body[i], neg)
		if !ok {
			return 0, 0, false, false
		}
		v = v*100 + uint64(pair)
		digits += 2
	}
	// The key's last pair may end in a zero that pads an odd count.
	for v != 0 && v%10 == 0 {
		v /= 10
		digits--
	}
	if v == 0 {
		return 0, 0, false, false
	}
	// The digits are 0.v × 10^e.
	return v, e - digits, neg, true
}

// digitPair returns the two digits (0 to 99) a numeric key's digit byte
// c holds, complemented in a negative value's key, or false if c is not
// a digit byte.
func digitPair(c byte, neg bool) (byte, bool) {
	c = digitByte(c, neg)
	if c == 0 || c%2 == 0 || c > 199 {
		return 0, false
	}
	return (c - 1) / 2, true
}

// digitByte returns a numeric key's digit byte c as a positive value's
// key holds it.
func digitByte(c byte, neg bool) byte {
	if neg {
		return ^c
	}
	return c
}

// decodeSmallNumeric reads the numeric key of a column of type t into a
// datum held in words, and reports false when the value does not fit, t
// gives a scale by the value (a quotient's), or the bytes are not a
// well-formed key, all of which decodeNumeric reads or reports.
func decodeSmallNumeric(tag byte, body []byte, t Type) (Datum, bool) {
	if t.rule != scaleStatic {
		return Null, false
	}
	scale := int32(t.DisplayScale())
	if tag == tagNumZero {
		return newSmallNumeric(0, scale), true
	}
	v, exp, neg, ok := numericWord(tag, body)
	if !ok {
		return Null, false
	}
	// The value is v × 10^exp, at least at t's scale.
	if exp > 0 || -exp < int64(scale) {
		up := int64(scale) + exp
		if up >= int64(len(wordPow10)) {
			return Null, false
		}
		hi, lo := bits.Mul64(v, wordPow10[up])
		if hi != 0 {
			return Null, false
		}
		v, exp = lo, -int64(scale)
	}
	if -exp > maxNumericDscale {
		return Null, false
	}
	c, ok := signedSmall(v, neg)
	if !ok {
		return Null, false
	}
	return newSmallNumeric(c, int32(-exp)), true
}
