package repr

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// FormatText returns d's text representation exactly as PostgreSQL 15
// prints it with the settings a session starts with (DateStyle ISO,
// IntervalStyle postgres, extra_float_digits 1, TimeZone UTC): the text
// format of the wire protocol and of COPY. NULL has no text form:
// FormatText returns "" and callers must check IsNull first.
func FormatText(d Datum) string { return string(AppendText(nil, d)) }

// FormatTextIn is FormatText in the session time zone z, which decides
// how a timestamp with time zone prints.
func FormatTextIn(d Datum, z *Zone) string { return string(AppendTextIn(nil, d, z)) }

// AppendText appends FormatText(d) to buf and returns the extended
// buffer. It does not allocate when buf has room, except for numerics.
func AppendText(buf []byte, d Datum) []byte { return AppendTextIn(buf, d, UTC) }

// AppendTextIn appends FormatTextIn(d, z) to buf.
func AppendTextIn(buf []byte, d Datum, z *Zone) []byte {
	if !d.valid {
		return buf
	}
	switch d.kind {
	case KindBool:
		if d.Bool() {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case KindInt2, KindInt4, KindInt8, KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		return strconv.AppendInt(buf, d.i, 10)
	case KindFloat4:
		return AppendFloat(buf, d.Float(), 32, 1)
	case KindFloat8:
		return AppendFloat(buf, d.Float(), 64, 1)
	case KindNumeric:
		if c, s, ok := d.SmallNumeric(); ok {
			return appendSmallNumeric(buf, c, s)
		}
		return appendNumeric(buf, d.dec())
	case KindText, KindVarchar, KindBpchar, KindUnknown, KindJSON, KindName, KindEnum:
		return append(buf, d.str()...)
	case KindChar:
		return appendChar(buf, d.str())
	case KindDate:
		return appendDate(buf, int64(d.Date()))
	case KindTimestamp:
		return appendTimestamp(buf, d.i, false)
	case KindTimestampTZ:
		return appendTimestampTZ(buf, d.i, z)
	case KindInterval:
		return appendInterval(buf, d.Interval())
	case KindTime:
		return appendTime(buf, d.i)
	case KindArray:
		return appendArrayText(buf, d, z)
	case KindUUID:
		return appendUUID(buf, d.str())
	case KindJSONB:
		v, err := d.JSONB()
		if err != nil {
			// A datum built by this package always decodes.
			panic(err)
		}
		return AppendJSONBText(buf, &v)
	case KindBytea:
		return appendByteaHex(buf, d.str())
	}
	return buf
}

// appendNumeric appends a numeric in plain notation with exactly its
// display scale of fractional digits, as numeric_out does.
func appendNumeric(buf []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(buf, "NaN"...)
	case apd.Infinite:
		if d.Negative {
			return append(buf, "-Infinity"...)
		}
		return append(buf, "Infinity"...)
	}
	if d.Negative && !d.IsZero() {
		buf = append(buf, '-')
	}
	start := len(buf)
	buf = d.Coeff.Append(buf, 10)
	if d.Exponent >= 0 {
		if d.IsZero() {
			return buf[:start+1]
		}
		for range d.Exponent {
			buf = append(buf, '0')
		}
		return buf
	}
	scale := int(-d.Exponent)
	n := len(buf) - start
	if n <= scale {
		// Make room for "0." and leading zeros: 5E-3 is 0.005.
		pad := scale - n + 1
		for range pad {
			buf = append(buf, 0)
		}
		copy(buf[start+pad:], buf[start:start+n])
		for i := range pad {
			buf[start+i] = '0'
		}
		n += pad
	}
	buf = append(buf, 0)
	point := start + n - scale
	copy(buf[point+1:], buf[point:start+n])
	buf[point] = '.'
	return buf
}
