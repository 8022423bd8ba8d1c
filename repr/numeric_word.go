package repr

import (
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// Numerics whose coefficients fit in two machine words, which is nearly
// every numeric a table holds and every quotient select_div_scale gives
// them, are divided, rounded and measured here in integer arithmetic:
// math/big, under apd, costs a few hundred nanoseconds a quotient
// where these take tens. Each function reports false when its operands
// do not fit, and the caller takes the general path, which gives the
// same result: TestNumericWordPathsMatchBig compares the two.

// wordPow10 holds 10^0 through 10^19, every power of ten in a uint64.
var wordPow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// coeffWords returns d's coefficient as a 128-bit number hi·2^64 + lo,
// and false if it needs more bits (or words are not 64 bits).
func coeffWords(d *apd.Decimal) (hi, lo uint64, ok bool) {
	if bits.UintSize != 64 {
		return 0, 0, false
	}
	ws := d.Coeff.Bits()
	switch len(ws) {
	case 0:
		return 0, 0, true
	case 1:
		return 0, uint64(ws[0]), true
	case 2:
		return uint64(ws[1]), uint64(ws[0]), true
	}
	return 0, 0, false
}

// setCoeffWords sets z to the 128-bit number hi·2^64 + lo.
func setCoeffWords(z *apd.BigInt, hi, lo uint64) {
	if hi == 0 {
		z.SetUint64(lo)
		return
	}
	ws := [2]big.Word{big.Word(lo), big.Word(hi)}
	z.SetBits(ws[:])
}

// wordDigits returns the number of decimal digits of v, 1 for 0.
func wordDigits(v uint64) int64 {
	n := int64(1)
	for n < int64(len(wordPow10)) && v >= wordPow10[n] {
		n++
	}
	return n
}

// numDigits returns the number of digits of d's coefficient, as apd's
// NumDigits does.
func numDigits(d *apd.Decimal) int64 {
	hi, lo, ok := coeffWords(d)
	switch {
	case !ok:
		return d.NumDigits()
	case hi == 0:
		return wordDigits(lo)
	}
	// The digits past the 19 of lo's range: v / 10^19, which is below
	// 2^64 unless v has 39 digits, the most 128 bits hold.
	const e19 = 10_000_000_000_000_000_000
	if hi >= e19 {
		return 39
	}
	q, _ := bits.Div64(hi, lo, e19)
	return 19 + wordDigits(q)
}

// mulWords returns hi·2^64 + lo times m, and false if the product needs
// more than 128 bits.
func mulWords(hi, lo, m uint64) (uint64, uint64, bool) {
	h1, l1 := bits.Mul64(lo, m)
	h2, l2 := bits.Mul64(hi, m)
	if h2 != 0 {
		return 0, 0, false
	}
	nh, carry := bits.Add64(h1, l2, 0)
	if carry != 0 {
		return 0, 0, false
	}
	return nh, l1, true
}

// quoRoundWords returns hi·2^64 + lo divided by d, rounded half away
// from zero (the value is not negative), d > 0.
func quoRoundWords(hi, lo, d uint64) (qhi, qlo uint64) {
	qhi, r := hi/d, hi%d
	qlo, r = bits.Div64(r, lo, d)
	if r >= d-r {
		// 2r >= d, without overflowing: round up.
		var c uint64
		qlo, c = bits.Add64(qlo, 1, 0)
		qhi += c
	}
	return qhi, qlo
}

// divRoundWords is divRound for coefficients that fit: x / y rounded to
// scale fractional digits. It reports false when x's coefficient times
// the power of ten the scale asks for, or y's, does not fit.
func divRoundWords(x, y *apd.Decimal, scale int32) (*apd.Decimal, bool) {
	xh, xl, ok := coeffWords(x)
	if !ok || !y.Coeff.IsUint64() {
		return nil, false
	}
	// x/y·10^scale = cx·10^(ex-ey+scale) / cy.
	qh, ql, ok := quoWords(xh, xl, y.Coeff.Uint64(), int64(x.Exponent)-int64(y.Exponent)+int64(scale))
	if !ok {
		return nil, false
	}
	r := new(apd.Decimal)
	setCoeffWords(&r.Coeff, qh, ql)
	r.Exponent = -scale
	r.Negative = x.Negative != y.Negative && (qh != 0 || ql != 0)
	return r, true
}

// quoWords returns xh·2^64 + xl times 10^k divided by den, rounded half
// away from zero, den > 0, and false when the dividend (k > 0) or the
// divisor (k < 0) scaled by the power of ten does not fit.
func quoWords(xh, xl, den uint64, k int64) (qh, ql uint64, ok bool) {
	for up := k; up > 0; up -= 19 {
		if xh, xl, ok = mulWords(xh, xl, wordPow10[min(up, 19)]); !ok {
			return 0, 0, false
		}
	}
	if k < 0 {
		if -k >= int64(len(wordPow10)) {
			return 0, 0, false
		}
		h, l := bits.Mul64(den, wordPow10[-k])
		if h != 0 {
			return 0, 0, false
		}
		den = l
	}
	qh, ql = quoRoundWords(xh, xl, den)
	return qh, ql, true
}

// roundDownWords is roundToScale's rounding of a finite d with more
// fractional digits than scale: it drops m = -scale - d.Exponent digits,
// rounding half away from zero. False if the coefficient or 10^m does
// not fit.
func roundDownWords(d *apd.Decimal, scale int32) (*apd.Decimal, bool) {
	m := int64(-scale) - int64(d.Exponent)
	if m <= 0 || m >= int64(len(wordPow10)) {
		return nil, false
	}
	hi, lo, ok := coeffWords(d)
	if !ok {
		return nil, false
	}
	qh, ql := quoRoundWords(hi, lo, wordPow10[m])
	r := new(apd.Decimal)
	setCoeffWords(&r.Coeff, qh, ql)
	r.Exponent = -scale
	r.Negative = d.Negative && (qh != 0 || ql != 0)
	return r, true
}

// leadingWord is weightAndFirstDigit for a nonzero coefficient that
// fits in a uint64.
func leadingWord(d *apd.Decimal) (weight, first int64, ok bool) {
	if !d.Coeff.IsUint64() {
		return 0, 0, false
	}
	weight, first = leadingOf(d.Coeff.Uint64(), int64(d.Exponent))
	return weight, first, true
}

// leadingOf is weightAndFirstDigit for c × 10^exp: 0 and 0 for zero.
func leadingOf(c uint64, exp int64) (weight, first int64) {
	if c == 0 {
		return 0, 0
	}
	nd := wordDigits(c)
	adj := exp + nd - 1
	weight, _ = floorDiv(adj, 4)
	n := adj - 4*weight + 1 // the leading base-10000 digit's decimal digits
	if nd >= n {
		return weight, int64(c / wordPow10[nd-n])
	}
	return weight, int64(c * wordPow10[n-nd])
}
