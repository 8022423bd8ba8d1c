package repr

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
		c := body[i]
		if neg {
			c = ^c
		}
		if c == 0 || c%2 == 0 || c > 199 {
			return 0, errCorrupt("bad numeric digit byte 0x%02x", c)
		}
		pair := int64(c-1) / 2
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
