package repr

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// The encoding of one datum is a tag byte, which names the type family
// (and for some families part of the value), followed by a body whose
// length the tag and body determine. Tags increase with the families'
// order, and NULL has the largest tag, so that NULL sorts last.
//
//	bool         0x10 false, 0x11 true; no body
//	int2/4/8     0x20..0x31: 0x29 is zero; 0x29+n a positive value in n
//	             big-endian bytes; 0x28-n a negative value v whose n
//	             bytes hold ^(-v-1), so that small magnitudes are short
//	float4/8     0x40, then the float64 bits big-endian, with the sign
//	             bit flipped for positives and all bits for negatives;
//	             -0 is written as 0 and every NaN as one NaN above +Inf
//	numeric      0x50 -Infinity, 0x51 negative, 0x52 zero, 0x53
//	             positive, 0x54 +Infinity, 0x55 NaN. A finite nonzero
//	             value is 0.d1d2...dn × 10^E with d1 != 0 and dn != 0
//	             (trailing zeros dropped: the canonical value); the body
//	             is E (see appendExponent), then the digits in pairs,
//	             one byte 2*pair+1 each (the last pair padded with 0),
//	             then 0x00. Negatives complement every body byte, so
//	             larger magnitudes sort first.
//	strings      0x60, then the bytes with 0x00 escaped as 0x00 0xFF,
//	             then 0x00 0x01. char(n) drops its trailing spaces.
//	bytea        0x62, then the bytes escaped and terminated as a
//	             string's, so that a prefix sorts first
//	date         0x70, then the days as int32, sign bit flipped
//	timestamp    0x80, then microseconds as int64, sign bit flipped
//	timestamptz  0x81, likewise
//	time         0x82, then microseconds since midnight as uint64 (never
//	             negative, so no bit needs flipping)
//	interval     0x90, then the 128-bit span (months*30 days + days +
//	             microseconds, as PostgreSQL compares intervals), sign
//	             bit flipped, then months and days as int32, sign bits
//	             flipped. The fields after the span keep '1 mon' and
//	             '30 days' apart (see Compare).
//	array        0xA0, then each element's encoding preceded by 0x01,
//	             then 0x00 (see array.go)
//	jsonb        0xA8, then its key and trailer (see jsonb_key.go)
//	uuid         0xB0, then the 16 bytes
//	enum         0xB8, then the label's sort position as a float's
//	             (8 bytes), then the label as a string's body (enum.go)
//	NULL         0xFF; no body
const (
	tagFalse       = 0x10
	tagTrue        = 0x11
	tagIntMin      = 0x20
	tagIntZero     = 0x29
	tagIntMax      = 0x31
	tagFloat       = 0x40
	tagNumNegInf   = 0x50
	tagNumNeg      = 0x51
	tagNumZero     = 0x52
	tagNumPos      = 0x53
	tagNumPosInf   = 0x54
	tagNumNaN      = 0x55
	tagString      = 0x60
	tagBytea       = 0x62
	tagDate        = 0x70
	tagTimestamp   = 0x80
	tagTimestampTZ = 0x81
	tagTime        = 0x82
	tagInterval    = 0x90
	tagUUID        = 0xB0
	tagEnum        = 0xB8
	tagNull        = 0xFF
)

// canonicalNaN is the one NaN that rows hold.
const canonicalNaN = 0x7ff8000000000000

// AppendDatum appends the encoding of d to buf and returns the extended
// buffer.
func AppendDatum(buf []byte, d Datum) []byte {
	if !d.valid {
		return append(buf, tagNull)
	}
	switch d.kind {
	case KindBool:
		if d.Bool() {
			return append(buf, tagTrue)
		}
		return append(buf, tagFalse)
	case KindInt2, KindInt4, KindInt8, KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		return appendInt(buf, d.i)
	case KindFloat4, KindFloat8:
		return binary.BigEndian.AppendUint64(append(buf, tagFloat), floatKey(d.Float()))
	case KindNumeric:
		if c, s, ok := d.SmallNumeric(); ok {
			return appendNumericKeyUint(buf, c < 0, absSmall(c), int(s))
		}
		return appendNumericKey(buf, d.dec())
	case KindText, KindVarchar, KindUnknown, KindJSON, KindName, KindChar:
		return appendString(buf, d.str())
	case KindBpchar:
		return appendString(buf, trimTrailingSpaces(d.str()))
	case KindBytea:
		return appendEscaped(append(buf, tagBytea), d.str())
	case KindUUID:
		return append(append(buf, tagUUID), d.str()...)
	case KindEnum:
		return appendEnum(buf, d)
	case KindDate:
		return binary.BigEndian.AppendUint32(append(buf, tagDate), uint32(d.i)^1<<31)
	case KindTimestamp:
		return binary.BigEndian.AppendUint64(append(buf, tagTimestamp), uint64(d.i)^1<<63)
	case KindTimestampTZ:
		return binary.BigEndian.AppendUint64(append(buf, tagTimestampTZ), uint64(d.i)^1<<63)
	case KindTime:
		return binary.BigEndian.AppendUint64(append(buf, tagTime), uint64(d.i))
	case KindArray:
		return append(append(buf, tagArray), d.str()...)
	case KindJSONB:
		return append(append(buf, tagJSONB), d.str()...)
	case KindInterval:
		v := d.Interval()
		hi, lo := intervalSpan(v)
		buf = append(buf, tagInterval)
		buf = binary.BigEndian.AppendUint64(buf, uint64(hi)^1<<63)
		buf = binary.BigEndian.AppendUint64(buf, lo)
		buf = binary.BigEndian.AppendUint32(buf, uint32(v.Months)^1<<31)
		return binary.BigEndian.AppendUint32(buf, uint32(v.Days)^1<<31)
	}
	// Unreachable for datums built by this package; encode as NULL
	// rather than panic, and let decoding report the mismatch.
	return append(buf, tagNull)
}

// appendInt appends the variable-length integer encoding.
func appendInt(buf []byte, v int64) []byte {
	if v >= 0 {
		n := (bits.Len64(uint64(v)) + 7) / 8
		buf = append(buf, byte(tagIntZero+n))
		for i := n - 1; i >= 0; i-- {
			buf = append(buf, byte(uint64(v)>>(8*i)))
		}
		return buf
	}
	u := ^uint64(v) // -v-1
	n := (bits.Len64(u) + 7) / 8
	buf = append(buf, byte(tagIntZero-1-n))
	for i := n - 1; i >= 0; i-- {
		buf = append(buf, ^byte(u>>(8*i)))
	}
	return buf
}

// floatKey returns the order-preserving key of a float: -0 and 0 share
// one, and every NaN maps to one key above +Inf.
func floatKey(f float64) uint64 {
	b := math.Float64bits(f)
	switch {
	case f == 0:
		b = 0
	case f != f:
		b = canonicalNaN
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// appendString appends the escaped, terminated string encoding.
func appendString(buf []byte, s string) []byte {
	return appendEscaped(append(buf, tagString), s)
}

// appendEscaped appends s with 0x00 escaped as 0x00 0xFF, then the
// terminator 0x00 0x01, which sorts below every escaped byte, so that a
// prefix sorts first.
func appendEscaped(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			buf = append(buf, 0, 0xff)
		} else {
			buf = append(buf, s[i])
		}
	}
	return append(buf, 0, 1)
}

// trimTrailingSpaces drops the padding of a char(n) value, which
// PostgreSQL ignores when comparing them.
func trimTrailingSpaces(s string) string {
	i := len(s)
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	return s[:i]
}

// appendNumericKey appends the canonical encoding of a numeric.
func appendNumericKey(buf []byte, d *apd.Decimal) []byte {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return append(buf, tagNumNaN)
	case d.Form == apd.Infinite && d.Negative:
		return append(buf, tagNumNegInf)
	case d.Form == apd.Infinite:
		return append(buf, tagNumPosInf)
	case d.IsZero():
		return append(buf, tagNumZero)
	}
	var tmp [48]byte
	digits := d.Coeff.Append(tmp[:0], 10)
	if digits[0] == '-' {
		digits = digits[1:]
	}
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	// Value = 0.digits × 10^e.
	return appendNumericDigits(buf, d.Negative, int64(d.Exponent)+d.NumDigits(), digits)
}

// appendNumericDigits appends the key of the finite, non-zero numeric
// 0.digits × 10^e, negated if neg; digits are ASCII, without trailing
// zeros.
func appendNumericDigits(buf []byte, neg bool, e int64, digits []byte) []byte {
	if neg {
		buf = append(buf, tagNumNeg)
	} else {
		buf = append(buf, tagNumPos)
	}
	start := len(buf)
	buf = appendExponent(buf, e)
	for i := 0; i < len(digits); i += 2 {
		pair := int(digits[i]-'0') * 10
		if i+1 < len(digits) {
			pair += int(digits[i+1] - '0')
		}
		buf = append(buf, byte(2*pair+1))
	}
	buf = append(buf, 0)
	if neg {
		for i := start; i < len(buf); i++ {
			buf[i] = ^buf[i]
		}
	}
	return buf
}

// The exponent of a numeric key: one byte 128+e for |e| <= 110, which
// covers every value from 1e-110 to 1e110; otherwise a marker byte below
// (0x08) or above (0xf8) that range and four bytes of e with its sign
// bit flipped.
const (
	expSmall    = 110
	expBias     = 128
	expMarkLow  = 0x08
	expMarkHigh = 0xf8
)

func appendExponent(buf []byte, e int64) []byte {
	switch {
	case e >= -expSmall && e <= expSmall:
		return append(buf, byte(expBias+e))
	case e < 0:
		buf = append(buf, expMarkLow)
	default:
		buf = append(buf, expMarkHigh)
	}
	return binary.BigEndian.AppendUint32(buf, uint32(int32(e))^1<<31)
}

// intervalSpan returns PostgreSQL's comparison value of an interval,
// months*30 days plus days plus microseconds, as a 128-bit integer.
func intervalSpan(v IntervalValue) (hi int64, lo uint64) {
	days := int64(v.Months)*30 + int64(v.Days)
	// days * usPerDay, signed 128-bit.
	mag := uint64(days)
	if days < 0 {
		mag = -mag
	}
	h, l := bits.Mul64(mag, usPerDay)
	if days < 0 {
		l = ^l + 1
		h = ^h
		if l == 0 {
			h++
		}
	}
	// Add the sign-extended microseconds.
	us := v.Micros
	var carry uint64
	l, carry = bits.Add64(l, uint64(us), 0)
	ext := uint64(0)
	if us < 0 {
		ext = math.MaxUint64
	}
	h, _ = bits.Add64(h, ext, carry)
	return int64(h), l
}
