package repr

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// errCorrupt reports bytes that are not a valid row of the expected
// types. Rows are built only by this package, so this is a bug.
func errCorrupt(format string, args ...any) error {
	return sqlerr.AssertionFailedf("corrupt row: "+format, args...)
}

// family returns the tag family of a kind: the tag of its encoding, or
// the lowest tag of its range.
func family(k Kind) byte {
	switch k {
	case KindBool:
		return tagFalse
	case KindInt2, KindInt4, KindInt8, KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		return tagIntMin
	case KindFloat4, KindFloat8:
		return tagFloat
	case KindNumeric:
		return tagNumNegInf
	case KindText, KindVarchar, KindBpchar, KindUnknown, KindJSON, KindName, KindChar:
		return tagString
	case KindDate:
		return tagDate
	case KindTimestamp:
		return tagTimestamp
	case KindTimestampTZ:
		return tagTimestampTZ
	case KindTime:
		return tagTime
	case KindInterval:
		return tagInterval
	case KindArray:
		return tagArray
	case KindBytea:
		return tagBytea
	case KindUUID:
		return tagUUID
	case KindEnum:
		return tagEnum
	case KindJSONB:
		return tagJSONB
	}
	return tagNull
}

// tagFamily returns the family of a tag byte.
func tagFamily(tag byte) byte {
	switch {
	case tag == tagFalse || tag == tagTrue:
		return tagFalse
	case tag >= tagIntMin && tag <= tagIntMax:
		return tagIntMin
	case tag >= tagNumNegInf && tag <= tagNumNaN:
		return tagNumNegInf
	}
	return tag
}

// familyType returns a type that can decode datums with tag tag, for
// printing rows whose types are unknown.
func familyType(tag byte) Type {
	switch tagFamily(tag) {
	case tagFalse:
		return Bool
	case tagIntMin:
		return Int8
	case tagFloat:
		return Float8
	case tagNumNegInf:
		return Numeric
	case tagDate:
		return Date
	case tagTimestamp:
		return Timestamp
	case tagTimestampTZ:
		return TimestampTZ
	case tagTime:
		return Time
	case tagInterval:
		return Interval
	case tagBytea:
		return Bytea
	case tagUUID:
		return UUID
	case tagEnum:
		return Type{kind: KindEnum}
	case tagJSONB:
		return JSONBType
	}
	return Text
}

// datumLen returns the length of the datum encoded at the start of b.
func datumLen(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errCorrupt("row has fewer datums than its types")
	}
	tag := b[0]
	n := 0
	switch {
	case tag == tagNull || tag == tagFalse || tag == tagTrue:
		n = 1
	case tag >= tagIntMin && tag <= tagIntMax:
		n = 1 + intLen(tag)
	case tag == tagFloat || tag == tagTimestamp || tag == tagTimestampTZ || tag == tagTime:
		n = 9
	case tag == tagDate:
		n = 5
	case tag == tagInterval:
		n = 25
	case tag == tagUUID:
		n = 1 + uuidLen
	case tag == tagArray:
		m, _, err := arrayBodyLen(b[1:])
		if err != nil {
			return 0, err
		}
		n = 1 + m
	case tag == tagJSONB:
		_, _, m, err := decodeJSONBBody(b[1:])
		if err != nil {
			return 0, err
		}
		n = 1 + m
	case tag == tagNumNeg || tag == tagNumPos:
		// Exponent, then digit bytes up to the terminator (0x00, or
		// 0xff complemented).
		i := 1
		if i >= len(b) {
			return 0, errCorrupt("truncated numeric")
		}
		mark := b[i]
		if tag == tagNumNeg {
			mark = ^mark
		}
		if mark == expMarkLow || mark == expMarkHigh {
			i += 5
		} else {
			i++
		}
		end := byte(0)
		if tag == tagNumNeg {
			end = 0xff
		}
		for i < len(b) && b[i] != end {
			i++
		}
		n = i + 1
	case tag >= tagNumNegInf && tag <= tagNumNaN:
		n = 1
	case tag == tagString || tag == tagBytea || tag == tagEnum:
		i := 1
		if tag == tagEnum {
			i = 9
		}
		for {
			if i+1 >= len(b) {
				return 0, errCorrupt("unterminated string")
			}
			if b[i] == 0 {
				if b[i+1] == 1 {
					break
				}
				i++
			}
			i++
		}
		n = i + 2
	default:
		return 0, errCorrupt("unknown tag 0x%02x", tag)
	}
	if n > len(b) {
		return 0, errCorrupt("truncated datum with tag 0x%02x", tag)
	}
	return n, nil
}

// intLen returns the number of body bytes of an integer tag.
func intLen(tag byte) int {
	if tag >= tagIntZero {
		return int(tag - tagIntZero)
	}
	return int(tagIntZero - 1 - tag)
}

// decodeDatum decodes the datum at the start of b as type t and returns
// it and its encoded length.
func decodeDatum(b []byte, t Type) (Datum, int, error) {
	n, err := datumLen(b)
	if err != nil {
		return Null, 0, err
	}
	tag := b[0]
	if tag == tagNull {
		return Null, 1, nil
	}
	if tagFamily(tag) != family(t.kind) {
		return Null, 0, errCorrupt("tag 0x%02x does not hold a value of type %s", tag, t)
	}
	body := b[1:n]
	switch t.kind {
	case KindBool:
		return NewBool(tag == tagTrue), n, nil
	case KindInt2, KindInt4, KindInt8, KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		var u uint64
		for _, c := range body {
			u = u<<8 | uint64(c)
		}
		v := int64(u)
		if tag < tagIntZero {
			// The body holds the complement of -v-1 in len(body) bytes.
			v = int64(^(^u & (1<<(8*len(body)) - 1)))
		}
		lo, hi := intRange(t.kind)
		if v < lo || v > hi {
			return Null, 0, errCorrupt("%d does not fit %s", v, t)
		}
		return newInt(t.kind, v), n, nil
	case KindFloat4, KindFloat8:
		k := binary.BigEndian.Uint64(body)
		if k>>63 != 0 {
			k &^= 1 << 63
		} else {
			k = ^k
		}
		f := math.Float64frombits(k)
		return newFloat(t.kind, f), n, nil
	case KindNumeric:
		if d, ok := decodeSmallNumeric(tag, body, t); ok {
			return d, n, nil
		}
		d, err := decodeNumericRow(tag, body, t)
		if err != nil {
			return Null, 0, err
		}
		return NewNumeric(d), n, nil
	case KindText, KindVarchar, KindBpchar, KindUnknown, KindJSON, KindName, KindChar:
		s := decodeString(body[:len(body)-2])
		if t.kind == KindBpchar {
			if l, ok := t.Length(); ok {
				if _, count := charPrefix(s, l); count < l {
					s += strings.Repeat(" ", l-count)
				}
			}
		}
		return NewString(t.kind, s), n, nil
	case KindBytea:
		return NewBytea(decodeString(body[:len(body)-2])), n, nil
	case KindUUID:
		d, err := UUIDFromBytes(body)
		return d, n, err
	case KindEnum:
		d, err := decodeEnum(body)
		return d, n, err
	case KindJSONB:
		_, key, _, err := decodeJSONBBody(body)
		if err != nil {
			return Null, 0, err
		}
		d := stringDatum(KindJSONB, string(body))
		d.i = int64(key)
		return d, n, nil
	case KindArray:
		_, count, err := arrayBodyLen(body)
		if err != nil {
			return Null, 0, err
		}
		d := stringDatum(KindArray, string(body))
		d.i, d.n = int64(t.elem), uint32(count)
		if t.vector {
			d.i |= vectorFlag
		}
		// Every element must be a value of the element type: a corrupt
		// row is an error here, never a surprise where it is printed.
		if _, err := d.ArrayElems(t.Elem()); err != nil {
			return Null, 0, err
		}
		return d, n, nil
	case KindDate:
		return NewDate(int32(binary.BigEndian.Uint32(body) ^ 1<<31)), n, nil
	case KindTimestamp, KindTimestampTZ:
		return Datum{head: head{kind: t.kind, valid: true}, i: int64(binary.BigEndian.Uint64(body) ^ 1<<63)}, n, nil
	case KindTime:
		us := binary.BigEndian.Uint64(body)
		if us > usPerDay {
			return Null, 0, errCorrupt("time %d out of range", us)
		}
		return NewTime(int64(us)), n, nil
	case KindInterval:
		hi := int64(binary.BigEndian.Uint64(body) ^ 1<<63)
		lo := binary.BigEndian.Uint64(body[8:])
		v := IntervalValue{
			Months: int32(binary.BigEndian.Uint32(body[16:]) ^ 1<<31),
			Days:   int32(binary.BigEndian.Uint32(body[20:]) ^ 1<<31),
		}
		// The microseconds are the span less the months and days.
		dh, dl := intervalSpan(v)
		l, borrow := bits.Sub64(lo, dl, 0)
		h := uint64(hi) - uint64(dh) - borrow
		v.Micros = int64(l)
		if v.Micros >= 0 && h != 0 || v.Micros < 0 && h != math.MaxUint64 {
			return Null, 0, errCorrupt("interval span out of range")
		}
		return NewInterval(v), n, nil
	}
	return Null, 0, errCorrupt("cannot decode type %s", t)
}

// decodeString undoes the escaping of 0x00 bytes.
func decodeString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			out := make([]byte, 0, len(b))
			out = append(out, b[:i]...)
			for j := i; j < len(b); j++ {
				out = append(out, b[j])
				if b[j] == 0 {
					j++ // skip the 0xff escape
				}
			}
			return string(out)
		}
	}
	return string(b)
}

// decodeNumeric rebuilds the canonical decimal of a numeric key.
// numericExponent reads the exponent at the front of a finite non-zero
// numeric's body (its bytes after the tag), complemented if neg: the
// position e of the decimal point, and the index of the first digit
// byte.
func numericExponent(body []byte, neg bool) (e int64, i int, err error) {
	get := func(i int) byte {
		if neg {
			return ^body[i]
		}
		return body[i]
	}
	switch m := get(0); m {
	case expMarkLow, expMarkHigh:
		if len(body) < 6 {
			return 0, 0, errCorrupt("numeric key of %d bytes", len(body))
		}
		var u uint32
		for k := 1; k <= 4; k++ {
			u = u<<8 | uint32(get(k))
		}
		e = int64(int32(u ^ 1<<31))
		i = 5
	default:
		e = int64(m) - expBias
		i = 1
	}
	// e is the position of the decimal point. A value outside numeric's
	// limits is never encoded, and one read back from corrupt bytes must
	// not cost a power of ten with billions of digits where it is scaled.
	if e > maxNumericIntDigits || e < -2*maxNumericDscale {
		return 0, 0, errCorrupt("numeric exponent %d out of range", e)
	}
	return e, i, nil
}

// decodeNumericRow reads the numeric key of a column of type t, at the
// display scale the type gives it.
func decodeNumericRow(tag byte, body []byte, t Type) (*apd.Decimal, error) {
	d, err := decodeNumeric(tag, body)
	if err != nil || d.Form != apd.Finite {
		return d, err
	}
	// Restore the display scale in place: a finite d is ours.
	if scale := t.rowScale(d); -d.Exponent < scale {
		var p apd.BigInt
		d.Coeff.Mul(&d.Coeff, setPow10(&p, int64(scale+d.Exponent)))
		d.Exponent = -scale
	}
	return d, nil
}

func decodeNumeric(tag byte, body []byte) (*apd.Decimal, error) {
	switch tag {
	case tagNumNaN:
		return numericNaN, nil
	case tagNumNegInf:
		return numericNegInf, nil
	case tagNumPosInf:
		return numericPosInf, nil
	case tagNumZero:
		return new(apd.Decimal), nil
	}
	if tag != tagNumNeg && tag != tagNumPos {
		return nil, errCorrupt("numeric key tag 0x%02x", tag)
	}
	if len(body) < 2 {
		return nil, errCorrupt("numeric key of %d bytes", len(body))
	}
	neg := tag == tagNumNeg
	e, i, err := numericExponent(body, neg)
	if err != nil {
		return nil, err
	}
	var tmp [48]byte
	digits := tmp[:0]
	for ; i < len(body)-1; i++ {
		pair, ok := digitPair(body[i], neg)
		if !ok {
			return nil, errCorrupt("bad numeric digit byte 0x%02x", digitByte(body[i], neg))
		}
		digits = append(digits, '0'+pair/10, '0'+pair%10)
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return nil, errCorrupt("numeric without digits")
	}
	d := new(apd.Decimal)
	if len(digits) <= 18 {
		var v int64
		for _, c := range digits {
			v = v*10 + int64(c-'0')
		}
		d.Coeff.SetInt64(v)
	} else if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return nil, errCorrupt("bad numeric digits")
	}
	d.Exponent = int32(e - int64(len(digits)))
	d.Negative = neg
	return d, nil
}
