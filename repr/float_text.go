package repr

import (
	"math"
	"math/bits"
	"strconv"
)

// AppendFloat appends f as PostgreSQL's float4out (bitSize 32) or
// float8out (bitSize 64) prints it under the given extra_float_digits.
//
// With extra_float_digits > 0, the default, the output is the shortest
// decimal that reads back as f and lies strictly inside f's rounding
// interval (PostgreSQL's Ryu never picks a decimal exactly halfway to a
// neighbouring float, even where round-half-even would read it back
// correctly, so it prints 6.0564032e+07 where Go's shortest form is
// 6.056403e+07), closest to f among those. It is written in %g style:
// plain for decimal exponents from -4 up to, but excluding, 6 for
// float4 and 15 for float8, scientific with at least two exponent
// digits otherwise ("1e+20", "1.5e-07").
//
// With extra_float_digits <= 0 it is %g with 6 (float4) or 15 (float8)
// significant digits plus extra_float_digits, at least 1.
func AppendFloat(buf []byte, f float64, bitSize, extraFloatDigits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	maxPlain := 15
	if bitSize == 32 {
		maxPlain = 6
	}
	if extraFloatDigits <= 0 {
		return strconv.AppendFloat(buf, f, 'g', max(1, maxPlain+extraFloatDigits), bitSize)
	}
	if math.Signbit(f) {
		buf = append(buf, '-')
		f = -f
	}
	var tmp [32]byte
	digits, exp := shortestDigits(tmp[:0], f, bitSize)
	if exp < -4 || exp >= maxPlain {
		buf = append(buf, digits[0])
		if len(digits) > 1 {
			buf = append(buf, '.')
			buf = append(buf, digits[1:]...)
		}
		buf = append(buf, 'e')
		if exp < 0 {
			buf = append(buf, '-')
			exp = -exp
		} else {
			buf = append(buf, '+')
		}
		if exp < 10 {
			buf = append(buf, '0')
		}
		return strconv.AppendInt(buf, int64(exp), 10)
	}
	// Plain notation: the point goes after digit exp+1.
	point := exp + 1
	switch {
	case point <= 0:
		buf = append(buf, '0', '.')
		for range -point {
			buf = append(buf, '0')
		}
		buf = append(buf, digits...)
	case point >= len(digits):
		buf = append(buf, digits...)
		for range point - len(digits) {
			buf = append(buf, '0')
		}
	default:
		buf = append(buf, digits[:point]...)
		buf = append(buf, '.')
		buf = append(buf, digits[point:]...)
	}
	return buf
}

// shortestDigits returns the significant digits and decimal exponent
// (f = d.ddd × 10^exp) of the shortest decimal strictly inside the
// rounding interval of the finite, non-negative f. It starts from
// strconv's shortest form, which may lie on the interval's edge, and
// lengthens it in that case.
func shortestDigits(buf []byte, f float64, bitSize int) ([]byte, int) {
	for prec := -1; ; prec++ {
		s := strconv.AppendFloat(buf, f, 'e', prec, bitSize)
		digits, exp := splitExponent(s)
		if !onRoundingEdge(f, bitSize, digits, exp) {
			return digits, exp
		}
		if prec < 0 {
			prec = len(digits) - 1
		}
	}
}

// splitExponent splits strconv's 'e' format, "d.ddde±xx", into its
// digits (the point removed, in place) and exponent.
func splitExponent(s []byte) ([]byte, int) {
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp, _ := strconv.Atoi(string(s[e+1:]))
	digits := s[:e]
	if len(digits) > 1 {
		digits = append(digits[:1], digits[2:]...)
	}
	return digits, exp
}

// onRoundingEdge reports whether the decimal digits × 10^(exp-len+1) is
// exactly halfway between f and one of its neighbours in the float
// format of bitSize. Both sides are compared as odd × 2^p exactly, in
// integers.
func onRoundingEdge(f float64, bitSize int, digits []byte, exp int) bool {
	if len(digits) > 19 || f == 0 {
		return false
	}
	// The decimal: D × 10^k.
	var d uint64
	for _, c := range digits {
		d = d*10 + uint64(c-'0')
	}
	k := exp - len(digits) + 1
	// f = m × 2^e with m the integer significand.
	var m uint64
	var e int
	var lowerCloser bool // f is a power of two: the gap below is half
	if bitSize == 32 {
		b := math.Float32bits(float32(f))
		raw, frac := int(b>>23&0xff), uint64(b&(1<<23-1))
		if raw == 0 {
			m, e = frac, -149
		} else {
			m, e = frac|1<<23, raw-150
			lowerCloser = frac == 0 && raw > 1
		}
	} else {
		b := math.Float64bits(f)
		raw, frac := int(b>>52&0x7ff), b&(1<<52-1)
		if raw == 0 {
			m, e = frac, -1074
		} else {
			m, e = frac|1<<52, raw-1075
			lowerCloser = frac == 0 && raw > 1
		}
	}
	// The decimal as odd × 2^p, if it is a dyadic rational at all.
	tz := bits.TrailingZeros64(d)
	odd, p := d>>tz, tz+k
	if k >= 0 {
		for range k {
			hi, lo := bits.Mul64(odd, 5)
			if hi != 0 {
				return false
			}
			odd = lo
		}
	} else {
		for range -k {
			if odd%5 != 0 {
				return false
			}
			odd /= 5
		}
	}
	// The midpoints above and below f.
	if odd == 2*m+1 && p == e-1 {
		return true
	}
	if lowerCloser {
		return odd == 4*m-1 && p == e-2
	}
	return odd == 2*m-1 && p == e-1
}
