package repr

import "math"

// AppendTextFast appends to buf the encoding of s read as a value of
// type t, for the commonest bulk-load input: an integer (int2, int4,
// int8) written as an optional sign and decimal digits, or a numeric
// written as an optional sign, digits and at most one point, with at
// most 18 digits in all and no exponent. It reports false, with buf
// unchanged, for any other type or form, for a value out of its type's
// range and for a numeric that does not fit its precision: the caller
// then reads s with ParseTextIn, which knows every form and reports
// every error.
//
// Invariant: when it reports true, the bytes appended are those that
// AppendDatum appends for the datum ParseTextIn(t, string(s), z)
// returns, whatever z. TestAppendTextFast checks this against the
// general path on random input.
func AppendTextFast(buf []byte, t Type, s []byte) ([]byte, bool) {
	switch t.kind {
	case KindInt2:
		return appendIntText(buf, s, math.MinInt16, math.MaxInt16)
	case KindInt4:
		return appendIntText(buf, s, math.MinInt32, math.MaxInt32)
	case KindInt8:
		return appendIntText(buf, s, math.MinInt64, math.MaxInt64)
	case KindNumeric:
		return appendNumericText(buf, t, s)
	}
	return buf, false
}

// maxFastDigits is the most digits the fast paths read: any number of
// 18 decimal digits fits an int64, with room to round up once.
const maxFastDigits = 18

// appendIntText is AppendTextFast for an integer type of range [lo, hi].
func appendIntText(buf []byte, s []byte, lo, hi int64) ([]byte, bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	if i == len(s) || len(s)-i > maxFastDigits {
		return buf, false
	}
	var v int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return buf, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if v < lo || v > hi {
		return buf, false
	}
	return appendInt(buf, v), true
}

// plainDecimal reads the plain form most numbers are written in: an
// optional sign, then at most maxFastDigits digits with at most one
// point among or around them, and nothing else. The value is coeff ×
// 10^-frac, negated if neg, frac being the digits after the point, as
// parseDecimal reads it; ok is false for any other text (white space,
// an exponent, NaN, the infinities, a bad number), which parseDecimal
// reads.
func plainDecimal[S string | []byte](s S) (neg bool, coeff uint64, frac int, ok bool) {
	i := 0
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	digits, sawPoint := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > maxFastDigits {
				return false, 0, 0, false
			}
			coeff = coeff*10 + uint64(c-'0')
			if sawPoint {
				frac++
			}
		case c == '.' && !sawPoint:
			sawPoint = true
		default:
			return false, 0, 0, false
		}
	}
	return neg, coeff, frac, digits > 0
}

// appendNumericText is AppendTextFast for numeric and numeric(p, s).
func appendNumericText(buf []byte, t Type, s []byte) ([]byte, bool) {
	neg, coeff, frac, ok := plainDecimal(s)
	if !ok {
		return buf, false
	}
	if p, scale, ok := t.NumericPrecision(); ok {
		if scale < 0 {
			return buf, false
		}
		if frac > scale {
			// Round half away from zero to scale fractional digits, as
			// roundToScale does.
			div := pow10Uint64(frac - scale)
			q, rem := coeff/div, coeff%div
			if 2*rem >= div {
				q++
			}
			coeff, frac = q, scale
		}
		// The value must have fewer than p - scale integer digits:
		// coeff < 10^(p - scale + frac).
		if coeff != 0 {
			limit := p - scale + frac
			if limit <= maxFastDigits && coeff >= pow10Uint64(limit) {
				return buf, false
			}
		}
	}
	return appendNumericKeyUint(buf, neg, coeff, frac), true
}

// pow10Uint64 returns 10^n for 0 <= n <= 19.
func pow10Uint64(n int) uint64 {
	v := uint64(1)
	for ; n > 0; n-- {
		v *= 10
	}
	return v
}

// appendNumericKeyUint appends the numeric key (appendNumericKey) of
// the value coeff × 10^-frac, negated if neg.
func appendNumericKeyUint(buf []byte, neg bool, coeff uint64, frac int) []byte {
	if coeff == 0 {
		return append(buf, tagNumZero)
	}
	var tmp [20]byte
	n := len(tmp)
	for v := coeff; v > 0; v /= 10 {
		n--
		tmp[n] = byte('0' + v%10)
	}
	digits := tmp[n:]
	// Value = 0.digits × 10^e.
	e := int64(len(digits) - frac)
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return appendNumericDigits(buf, neg, e, digits)
}
