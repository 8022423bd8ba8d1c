package compute

import (
	"encoding/binary"
	"math/bits"

	"github.com/cockroachdb/apd/v3"

	"freshet/repr"
)

// A decimal sum (accDecimal) is kept as base-10^9 limbs: a finite value
// v is the sum over positions p of digit_p × 10^(9p), each digit_p in
// (-10^9, 10^9) with v's sign, and the sum of many values is the sum over
// p of (the sum of their digit_p) × 10^(9p). Each position is one
// contribution whose weight, the digit times the row's diff, rides in
// the diff, so a group keeps one val per position in use and an update
// costs O(digits), whatever the size of the group. A limb sum stays
// within int64 for any group of fewer than 9 × 10^9 rows.

// limbBase is the base of a limb, 10^9: the largest power of ten whose
// limbs, times a diff, leave an int64 room to add many.
const limbBase = 1_000_000_000

// Positions that count the special values of a numeric: a sum holding
// NaN, or both infinities, is NaN; one holding one infinity is that
// infinity.
const (
	limbNaN    int16 = 0x7fff
	limbPosInf int16 = 0x7ffe
	limbNegInf int16 = 0x7ffd
)

// limb is the consolidated contribution at one position.
type limb struct {
	pos int16
	sum int64
}

// limbVals holds the vals of limb contributions, one per accumulator and
// position, shared by every update that uses them: nothing downstream
// modifies a val it receives.
type limbVals map[uint32][]byte

func (m limbVals) get(i uint16, pos int16) []byte {
	k := uint32(i)<<16 | uint32(uint16(pos))
	v, ok := m[k]
	if !ok {
		v = binary.BigEndian.AppendUint16(make([]byte, 0, accIndexLen+2), i)
		v = binary.BigEndian.AppendUint16(v, uint16(pos))
		m[k] = v
	}
	return v
}

// pow10 holds 10^0 … 10^8.
var pow10 = [9]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// eachLimb calls give with the position and weight of each non-zero limb
// of a non-NULL int8 or numeric v.
func eachLimb(v repr.Datum, give func(pos int16, w int64)) {
	if v.Kind() == repr.KindInt8 {
		n := v.Int()
		// Digits of a negative value are negative: Go's % keeps the
		// dividend's sign.
		for pos := int16(0); n != 0; pos++ {
			if w := n % limbBase; w != 0 {
				give(pos, w)
			}
			n /= limbBase
		}
		return
	}
	if c, scale, ok := v.SmallNumeric(); ok {
		// The common case: a numeric held in words, read without a
		// decimal.
		mag, neg := uint64(c), c < 0
		if neg {
			mag = uint64(-c)
		}
		eachWordLimb(mag, neg, -int64(scale), give)
		return
	}
	d := v.Numeric()
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		give(limbNaN, 1)
		return
	case apd.Infinite:
		if d.Negative {
			give(limbNegInf, 1)
		} else {
			give(limbPosInf, 1)
		}
		return
	}
	exp := int64(d.Exponent)
	if d.Coeff.IsUint64() {
		eachWordLimb(d.Coeff.Uint64(), d.Negative, exp, give)
		return
	}
	q, r := limbAlign(exp)
	var c apd.BigInt
	c.Set(&d.Coeff)
	if r > 0 {
		var scale apd.BigInt
		scale.Exp(apd.NewBigInt(10), apd.NewBigInt(r), nil)
		c.Mul(&c, &scale)
	}
	base := apd.NewBigInt(limbBase)
	var rem apd.BigInt
	for pos := q; c.Sign() != 0; pos++ {
		c.QuoRem(&c, base, &rem)
		w := rem.Int64()
		if d.Negative {
			w = -w
		}
		if w != 0 {
			give(int16(pos), w)
		}
	}
	return
}

// limbAlign splits the exponent of coeff × 10^exp into exp = 9q + r,
// 0 <= r < 9, so that the limbs of coeff × 10^r sit at positions q,
// q+1, ...
func limbAlign(exp int64) (q, r int64) {
	q = exp / 9
	if exp%9 < 0 {
		q--
	}
	return q, exp - 9*q
}

// eachWordLimb is eachLimb for the finite value coeff × 10^exp, negated
// if neg, without big integers: coeff × 10^r fits in 128 bits, and
// dividing it by 10^9 one limb at a time is two 64-bit divisions.
func eachWordLimb(coeff uint64, neg bool, exp int64, give func(pos int16, w int64)) {
	q, r := limbAlign(exp)
	sign := int64(1)
	if neg {
		sign = -1
	}
	hi, lo := bits.Mul64(coeff, pow10[r])
	for pos := q; hi != 0 || lo != 0; pos++ {
		var rem uint64
		hi, rem = bits.Div64(0, hi, limbBase)
		lo, rem = bits.Div64(rem, lo, limbBase)
		if rem != 0 {
			give(int16(pos), sign*int64(rem))
		}
	}
}

// limbTotal adds limb sums into the value they stand for.
func limbTotal(ls []limb) *apd.Decimal {
	var nan, pos, neg bool
	total := new(apd.Decimal)
	for _, l := range ls {
		if l.sum == 0 {
			continue
		}
		switch l.pos {
		case limbNaN:
			nan = true
			continue
		case limbPosInf:
			pos = pos || l.sum > 0
			continue
		case limbNegInf:
			neg = neg || l.sum > 0
			continue
		}
		term := apd.New(l.sum, 9*int32(l.pos))
		if _, err := apd.BaseContext.Add(total, total, term); err != nil {
			// Exact addition of finite decimals does not fail.
			panic(err)
		}
	}
	switch {
	case nan || (pos && neg):
		return &apd.Decimal{Form: apd.NaN}
	case pos:
		return &apd.Decimal{Form: apd.Infinite}
	case neg:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}
	}
	total.Reduce(total)
	return total
}
