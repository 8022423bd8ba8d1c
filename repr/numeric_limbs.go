package repr

import "math/bits"

// NumericForm is the kind of value a numeric's encoding holds.
type NumericForm uint8

const (
	NumericFinite NumericForm = iota
	NumericNaN
	NumericPosInf
	NumericNegInf
)

// numericLimbBase is the base of EachNumericLimb's limbs.
const numericLimbBase = 1_000_000_000

// EachNumericLimb reads b, the encoding of a non-NULL numeric datum as a
// row holds it (tag first), without decoding it, and returns the form of
// its value. For a finite value it calls give with each non-zero limb
// of its base-10^9 digits, most significant first: the value is the sum
// of w × 10^(9·pos), each w with the value's sign and |w| < 10^9. Bytes
// that are not a numeric's encoding are an error.
func EachNumericLimb(b []byte, give func(pos int, w int64)) (NumericForm, error) {
	if len(b) == 0 {
		return 0, errCorrupt("empty numeric")
	}
	switch b[0] {
	case tagNumNaN:
		return NumericNaN, nil
	case tagNumPosInf:
		return NumericPosInf, nil
	case tagNumNegInf:
		return NumericNegInf, nil
	case tagNumZero:
		return NumericFinite, nil
	case tagNumPos, tagNumNeg:
	default:
		return 0, errCorrupt("numeric key tag 0x%02x", b[0])
	}
	body := b[1:]
	if len(body) < 2 {
		return 0, errCorrupt("numeric key of %d bytes", len(body))
	}
	neg := b[0] == tagNumNeg
	e, i, err := numericExponent(body, neg)
	if err != nil {
		return 0, err
	}
	sign := int64(1)
	if neg {
		sign = -1
	}
	// The k-th digit (from 0) weighs 10^(e-1-k): it adds digit ×
	// 10^(w-9p) to the limb at p = floor(w/9), w its weight. A byte
	// holds two digits, of weights w and w-1, most significant first, so
	// limbs are finished one after another, and the two digits of a byte
	// fall in one limb unless w is a limb's lowest weight.
	w := e - 1
	pos := floorDiv9(w)
	limb := int64(0)
	digits := 0
	for ; i < len(body)-1; i++ {
		c, ok := digitPair(body[i], neg)
		if !ok {
			return 0, errCorrupt("bad numeric digit byte 0x%02x", digitByte(body[i], neg))
		}
		pair := int64(c)
		if r := w - 1 - 9*pos; r >= 0 {
			limb += pair * pow10Small[r]
		} else {
			limb += pair / 10
			if limb != 0 {
				give(int(pos), sign*limb)
			}
			pos--
			limb = pair % 10 * pow10Small[8]
		}
		digits += 2
		if w -= 2; w < 9*pos {
			if limb != 0 {
				give(int(pos), sign*limb)
			}
			pos, limb = floorDiv9(w), 0
		}
	}
	if digits == 0 {
		return 0, errCorrupt("numeric without digits")
	}
	if limb != 0 {
		give(int(pos), sign*limb)
	}
	return NumericFinite, nil
}

// pow10Small holds 10^0 … 10^8.
var pow10Small = [9]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// floorDiv9 returns floor(w / 9).
func floorDiv9(w int64) int64 {
	q := w / 9
	if w%9 < 0 {
		q--
	}
	return q
}

// maxScaled bounds the magnitude of ScaledNumeric's counts.
const maxScaled = 1_000_000_000_000_000_000

// ScaledNumeric reads b, the encoding of a non-NULL numeric datum as a
// row holds it (tag first), as a count of 10^-scale (scale at most 18):
// 12.3 at scale 2 is 1230. It reports false for NaN and the
// infinities, a value with a non-zero digit below 10^-scale, one whose
// count would be 10^18 or more in magnitude, and bytes that are not a
// numeric's encoding (which EachNumericLimb reports as an error).
func ScaledNumeric(b []byte, scale int) (int64, bool) {
	if len(b) == 0 || scale < 0 || scale > 18 {
		return 0, false
	}
	if b[0] == tagNumZero {
		return 0, true
	}
	v, exp, neg, ok := numericWord(b[0], b[1:])
	if !ok || -exp > int64(scale) {
		return 0, false
	}
	up := int64(scale) + exp
	if up >= 18 {
		return 0, false
	}
	hi, lo := bits.Mul64(v, wordPow10[up])
	if hi != 0 || lo >= maxScaled {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

// NumericPlaces returns how many digits b, the encoding of a non-NULL
// numeric datum as a row holds it, has after the point (0.5 has one,
// 100 none), for a finite value of at most 18 digits; false for any
// other value.
func NumericPlaces(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	if b[0] == tagNumZero {
		return 0, true
	}
	_, exp, _, ok := numericWord(b[0], b[1:])
	if !ok {
		return 0, false
	}
	return int(max(0, -exp)), true
}
