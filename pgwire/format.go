package pgwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"freshet/repr"

	"freshet/sqlerr"
)

// Values cross the Session interface in PostgreSQL's text format only.
// This file converts them to and from the binary format that a client
// may ask for in Bind, per type OID, with pgx's pgtype: a result value's
// text is parsed and encoded in binary, and a binary parameter is decoded
// and printed as text the way PostgreSQL prints it, so that the session
// parses every parameter with the same text input functions.

// The OIDs this file treats specially.
const (
	oidBool        = 16
	oidBytea       = 17
	oidChar        = 18
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidJSON        = 114
	oidXML         = 142
	oidFloat4      = 700
	oidFloat8      = 701
	oidUnknown     = 705
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
	oidInterval    = 1186
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// textIsBinary reports whether the binary format of oid's values is their
// text: the string types, json and xml.
func textIsBinary(oid uint32) bool {
	switch oid {
	case oidText, oidVarchar, oidBpchar, oidName, oidChar, oidUnknown, oidJSON, oidXML:
		return true
	}
	return false
}

// jsonbVersion is the first byte of jsonb's binary format.
const jsonbVersion = 1

// typeSize returns pg_type.typlen for the built-in types, -1 otherwise.
func typeSize(oid uint32) int16 {
	switch oid {
	case oidBool, oidChar:
		return 1
	case oidInt2:
		return 2
	case oidInt4, oidFloat4, oidOID, oidDate:
		return 4
	case oidInt8, oidFloat8, oidTime, oidTimestamp, oidTimestampTZ:
		return 8
	case oidInterval, oidUUID:
		return 16
	case oidName:
		return 64
	}
	return -1
}

// formats converts values of one connection between the text and binary
// formats. The zero value is ready to use; it builds its pgtype.Map, whose
// plan caches are not safe for concurrent use, on first need.
type formats struct {
	m *pgtype.Map
	// textual holds the OIDs of the catalog types learned whose binary
	// format is their text (enums).
	textual map[uint32]bool
}

// learn makes the catalog type with OID oid known to f, as lookup
// describes it, unless f knows oid already or lookup is nil. An array
// is learned with its element type, which must be a built-in type or a
// catalog type that is not an array; an array whose element type has no
// binary format here is not learned, so that canBinary refuses it. The
// pgtype.Map converts a learned array as it does a built-in one: the
// same array_send layout, with the element type's OID.
func (f *formats) learn(oid uint32, lookup TypeLookup) {
	if lookup == nil || f.known(oid) {
		return
	}
	t, ok := lookup(oid)
	if !ok {
		return
	}
	if t.Elem == 0 {
		f.register(oid, t)
		return
	}
	if !f.known(t.Elem) {
		et, ok := lookup(t.Elem)
		if !ok || et.Elem != 0 {
			return
		}
		f.register(t.Elem, et)
	}
	m := f.typeMap()
	if elem, ok := m.TypeForOID(t.Elem); ok && f.canBinary(t.Elem) {
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: oid, Codec: &pgtype.ArrayCodec{ElementType: elem}})
	}
}

// known reports whether f converts values of oid, or knows that it
// cannot, without asking the catalog.
func (f *formats) known(oid uint32) bool {
	if textIsBinary(oid) || oid == oidJSONB {
		return true
	}
	_, ok := f.typeMap().TypeForOID(oid)
	return ok
}

// register makes the catalog type t, which is not an array, known to f
// under oid.
func (f *formats) register(oid uint32, t CatalogType) {
	if !t.TextIsBinary {
		return
	}
	// TextCodec rather than EnumCodec, which keeps every string it reads
	// for the life of the connection.
	f.typeMap().RegisterType(&pgtype.Type{Name: t.Name, OID: oid, Codec: pgtype.TextCodec{}})
	if f.textual == nil {
		f.textual = map[uint32]bool{}
	}
	f.textual[oid] = true
}

// textIsBinary reports whether the binary format of oid's values is their
// text: a built-in string type's, or a learned catalog type's.
func (f *formats) textIsBinary(oid uint32) bool {
	return textIsBinary(oid) || f.textual[oid]
}

func (f *formats) typeMap() *pgtype.Map {
	if f.m == nil {
		f.m = pgtype.NewMap()
	}
	return f.m
}

// typeName returns a type's name for error messages.
func (f *formats) typeName(oid uint32) string {
	if t, ok := f.typeMap().TypeForOID(oid); ok {
		return t.Name
	}
	return "with OID " + strconv.FormatUint(uint64(oid), 10)
}

// canBinary reports whether values of type oid can be converted to and
// from the binary format.
func (f *formats) canBinary(oid uint32) bool {
	if f.textIsBinary(oid) || oid == oidJSONB {
		return true
	}
	t, ok := f.typeMap().TypeForOID(oid)
	return ok && t.Codec.FormatSupported(pgtype.BinaryFormatCode)
}

// appendBinary appends the binary format of the non-NULL value whose text
// format is text to buf.
func (f *formats) appendBinary(buf []byte, oid uint32, text []byte) ([]byte, error) {
	if f.textIsBinary(oid) {
		return append(buf, text...), nil
	}
	if oid == oidJSONB {
		return append(append(buf, jsonbVersion), text...), nil
	}
	if oid == oidTime {
		// Microseconds since midnight; pgtype's time codec refuses
		// 24:00:00, which PostgreSQL allows.
		d, err := repr.ParseTextIn(repr.Time, string(text), repr.UTC)
		if err != nil {
			return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "cannot convert %s value %q to binary", f.typeName(oid), text)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(d.Time())), nil
	}
	if out, ok := appendBinaryScalar(buf, oid, text); ok {
		return out, nil
	}
	m := f.typeMap()
	var v any
	var err error
	isArray := false
	switch oid {
	// The time types scan into their pgtype structs, which keep
	// 'infinity'; DecodeValue would turn it into a value that cannot be
	// encoded.
	case oidDate:
		var d pgtype.Date
		err = m.Scan(oid, pgtype.TextFormatCode, text, &d)
		v = d
	case oidTimestamp:
		var ts pgtype.Timestamp
		err = m.Scan(oid, pgtype.TextFormatCode, text, &ts)
		v = ts
	case oidTimestampTZ:
		var ts pgtype.Timestamptz
		err = m.Scan(oid, pgtype.TextFormatCode, text, &ts)
		v = ts
	default:
		t, ok := m.TypeForOID(oid)
		if !ok {
			return nil, errNoBinaryOutput(f.typeName(oid))
		}
		v, err = t.Codec.DecodeValue(m, oid, pgtype.TextFormatCode, text)
		_, isArray = t.Codec.(*pgtype.ArrayCodec)
	}
	if err == nil {
		var out []byte
		out, err = m.Encode(oid, pgtype.BinaryFormatCode, v, buf)
		if err == nil && out != nil && isArray {
			return withoutEmptyDimension(out, len(buf)), nil
		}
		if err == nil && out != nil {
			return out, nil
		}
		if err == nil {
			err = errors.New("encoded as NULL")
		}
	}
	// The session printed a value that pgtype cannot read back: a bug on
	// one side or the other, not the client's.
	return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "cannot convert %s value %q to binary", f.typeName(oid), text)
}

// appendBinaryScalar appends the binary format of the integer, float and
// boolean types straight from their text, the common case of a result
// row, which pgtype's generic decode and encode make several times
// dearer. It reports false for any other type, or a text it does not
// read, which then takes the general path (and its error).
func appendBinaryScalar(buf []byte, oid uint32, text []byte) ([]byte, bool) {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidOID:
		bits := 8 * int(typeSize(oid))
		if oid == oidOID {
			u, err := strconv.ParseUint(string(text), 10, 32)
			if err != nil {
				return nil, false
			}
			return binary.BigEndian.AppendUint32(buf, uint32(u)), true
		}
		n, err := strconv.ParseInt(string(text), 10, bits)
		if err != nil {
			return nil, false
		}
		switch bits {
		case 16:
			return binary.BigEndian.AppendUint16(buf, uint16(n)), true
		case 32:
			return binary.BigEndian.AppendUint32(buf, uint32(n)), true
		}
		return binary.BigEndian.AppendUint64(buf, uint64(n)), true
	case oidFloat4, oidFloat8:
		bits := 32
		if oid == oidFloat8 {
			bits = 64
		}
		x, err := strconv.ParseFloat(string(text), bits)
		if err != nil {
			return nil, false
		}
		if bits == 32 {
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(x))), true
		}
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(x)), true
	case oidBool:
		switch string(text) {
		case "t":
			return append(buf, 1), true
		case "f":
			return append(buf, 0), true
		}
	case oidNumeric:
		return appendBinaryNumeric(buf, text)
	}
	return nil, false
}

// appendBinaryNumeric appends numeric_send's format of a finite numeric
// in its text form ([-]digits[.digits]): the number of base-10,000
// digits, the weight of the first, the sign, the display scale (the
// decimal digits after the point), then the digits, with zero digits
// before the first nonzero one and after the last left out. NaN and the
// infinities are left to the generic path (ok false).
func appendBinaryNumeric(buf []byte, text []byte) ([]byte, bool) {
	const (
		signPos = 0x0000
		signNeg = 0x4000
	)
	sign := uint16(signPos)
	if len(text) > 0 && text[0] == '-' {
		sign, text = signNeg, text[1:]
	}
	intPart, frac := text, []byte(nil)
	if i := bytes.IndexByte(text, '.'); i >= 0 {
		intPart, frac = text[:i], text[i+1:]
	}
	if len(intPart) == 0 || len(intPart)+len(frac) > 1<<16 {
		return nil, false
	}
	for _, part := range [][]byte{intPart, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return nil, false
			}
		}
	}
	// Digit groups of four, aligned on the point: the integer part is
	// padded on the left, the fraction on the right.
	lead := (4 - len(intPart)%4) % 4
	intGroups := (lead + len(intPart)) / 4
	groups := intGroups + (len(frac)+3)/4
	digit := func(g int) uint16 {
		var d uint16
		for k := range 4 {
			pos := g*4 + k - lead // index into intPart, then frac
			var c byte = '0'
			switch {
			case pos < 0:
			case pos < len(intPart):
				c = intPart[pos]
			case pos-len(intPart) < len(frac):
				c = frac[pos-len(intPart)]
			}
			d = d*10 + uint16(c-'0')
		}
		return d
	}
	first, last := 0, groups
	for first < last && digit(first) == 0 {
		first++
	}
	for last > first && digit(last-1) == 0 {
		last--
	}
	weight := intGroups - 1 - first
	if first == last {
		weight, sign = 0, signPos
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(last-first))
	buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(frac)))
	for g := first; g < last; g++ {
		buf = binary.BigEndian.AppendUint16(buf, digit(g))
	}
	return buf, true
}

// withoutEmptyDimension returns out with the binary array that starts at
// out[at:] written as array_send writes an empty array, without
// dimensions, if it is one dimension of no elements, as pgtype writes
// the empty array read from '{}'.
func withoutEmptyDimension(out []byte, at int) []byte {
	const header = 12 // ndim, has-null flag, element OID
	a := out[at:]
	if len(a) == header+8 && binary.BigEndian.Uint32(a) == 1 && binary.BigEndian.Uint32(a[header:]) == 0 {
		binary.BigEndian.PutUint32(a, 0)
		return out[:at+header]
	}
	return out
}

// numericBinaryToText reads numeric_recv's format (see
// appendBinaryNumeric) and prints the value as numeric_out does, with
// exactly the display scale's digits after the point: a zero sent as
// 0.00 stays 0.00.
func numericBinaryToText(bin []byte) ([]byte, error) {
	bad := errBadBinary("numeric")
	if len(bin) < 8 {
		return nil, bad
	}
	ndigits := int(binary.BigEndian.Uint16(bin))
	weight := int(int16(binary.BigEndian.Uint16(bin[2:])))
	sign := binary.BigEndian.Uint16(bin[4:])
	dscale := int(binary.BigEndian.Uint16(bin[6:]))
	if len(bin) != 8+2*ndigits {
		return nil, bad
	}
	switch sign {
	case 0xC000:
		return []byte("NaN"), nil
	case 0xD000:
		return []byte("Infinity"), nil
	case 0xF000:
		return []byte("-Infinity"), nil
	case 0x0000, 0x4000:
	default:
		return nil, sqlerr.New(sqlerr.InvalidBinaryRepresentation, "invalid sign in external \"numeric\" value")
	}
	if dscale > 0x3FFF {
		return nil, sqlerr.New(sqlerr.InvalidBinaryRepresentation, "invalid scale in external \"numeric\" value")
	}
	digit := func(i int) int {
		if i < 0 || i >= ndigits {
			return 0
		}
		return int(binary.BigEndian.Uint16(bin[8+2*i:]))
	}
	for i := range ndigits {
		if digit(i) >= 10000 {
			return nil, sqlerr.New(sqlerr.InvalidBinaryRepresentation, "invalid digit in external \"numeric\" value")
		}
	}
	// Digit i has weight weight-i: the integer part is digits 0..weight,
	// the fraction those after, cut to the display scale.
	var out []byte
	if weight < 0 {
		out = append(out, '0')
	} else {
		out = strconv.AppendInt(out, int64(digit(0)), 10)
		for i := 1; i <= weight; i++ {
			out = appendDigitGroup(out, digit(i))
		}
	}
	if dscale > 0 {
		out = append(out, '.')
		at := len(out)
		for i := weight + 1; len(out)-at < dscale; i++ {
			out = appendDigitGroup(out, digit(i))
		}
		out = out[:at+dscale]
	}
	if sign == 0x4000 && bytes.ContainsFunc(out, func(r rune) bool { return r >= '1' && r <= '9' }) {
		out = append([]byte{'-'}, out...)
	}
	return out, nil
}

// appendDigitGroup appends a base-10,000 digit as four decimal digits.
func appendDigitGroup(out []byte, d int) []byte {
	return append(out, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
}

// binaryToText returns the text format of a non-NULL binary parameter of
// type oid, as PostgreSQL's output function prints it.
func (f *formats) binaryToText(oid uint32, bin []byte) ([]byte, error) {
	if f.textIsBinary(oid) {
		return bin, nil
	}
	m := f.typeMap()
	var text []byte
	var err error
	switch oid {
	case oidNumeric:
		return numericBinaryToText(bin)
	case oidJSONB:
		if len(bin) == 0 || bin[0] != jsonbVersion {
			return nil, errBadBinary(f.typeName(oid))
		}
		return bin[1:], nil
	case oidTime:
		if len(bin) != 8 {
			return nil, errBadBinary("time without time zone")
		}
		us := int64(binary.BigEndian.Uint64(bin))
		if us < 0 || us > 24*3600*1_000_000 {
			// time_recv's check.
			return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "time out of range")
		}
		return []byte(repr.FormatText(repr.NewTime(us))), nil
	case oidFloat4:
		if len(bin) != 4 {
			return nil, errBadBinary("real")
		}
		return appendFloat(nil, float64(math.Float32frombits(binary.BigEndian.Uint32(bin))), 32), nil
	case oidFloat8:
		if len(bin) != 8 {
			return nil, errBadBinary("double precision")
		}
		return appendFloat(nil, math.Float64frombits(binary.BigEndian.Uint64(bin)), 64), nil
	case oidDate:
		var d pgtype.Date
		if err = m.Scan(oid, pgtype.BinaryFormatCode, bin, &d); err == nil {
			text = appendDate(nil, d)
		}
	case oidTimestamp:
		var ts pgtype.Timestamp
		if err = m.Scan(oid, pgtype.BinaryFormatCode, bin, &ts); err == nil {
			text = appendTimestamp(nil, ts.Time, ts.InfinityModifier, false)
		}
	case oidTimestampTZ:
		var ts pgtype.Timestamptz
		if err = m.Scan(oid, pgtype.BinaryFormatCode, bin, &ts); err == nil {
			text = appendTimestamp(nil, ts.Time.UTC(), ts.InfinityModifier, true)
		}
	case oidInterval:
		var iv pgtype.Interval
		if err = m.Scan(oid, pgtype.BinaryFormatCode, bin, &iv); err == nil {
			text = appendInterval(nil, iv)
		}
	default:
		t, ok := m.TypeForOID(oid)
		if !ok || !t.Codec.FormatSupported(pgtype.BinaryFormatCode) {
			return nil, errNoBinaryInput(f.typeName(oid))
		}
		if err := f.checkElementType(t, bin); err != nil {
			return nil, err
		}
		var v any
		if v, err = t.Codec.DecodeValue(m, oid, pgtype.BinaryFormatCode, bin); err == nil {
			text, err = m.Encode(oid, pgtype.TextFormatCode, v, nil)
		}
	}
	// A value that decodes to NULL (some codecs read an empty value so)
	// is as wrong as one that does not decode: the parameter was not
	// NULL.
	if err != nil || text == nil {
		return nil, errBadBinary(f.typeName(oid))
	}
	return text, nil
}

// checkElementType refuses, as PostgreSQL's array_recv does, a binary
// array whose header names an element type other than t's (42804). An
// array of a learned catalog type is not checked: PostgreSQL 15 takes an
// array of an enum whatever element type its header names.
func (f *formats) checkElementType(t *pgtype.Type, bin []byte) error {
	ac, ok := t.Codec.(*pgtype.ArrayCodec)
	if !ok || len(bin) < 12 || f.textual[ac.ElementType.OID] {
		return nil
	}
	got, want := binary.BigEndian.Uint32(bin[8:]), ac.ElementType.OID
	if got == want {
		return nil
	}
	name := func(oid uint32) string {
		if t, ok := repr.TypeFromOID(oid); ok {
			return t.String()
		}
		return "???"
	}
	return sqlerr.New(sqlerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)", got, name(got), want, name(want))
}

func errNoBinaryOutput(typeName string) error {
	return sqlerr.New(sqlerr.UndefinedFunction, "no binary output function available for type %s", typeName)
}

func errNoBinaryInput(typeName string) error {
	return sqlerr.New(sqlerr.UndefinedFunction, "no binary input function available for type %s", typeName)
}

func errBadBinary(typeName string) error {
	return sqlerr.New(sqlerr.InvalidBinaryRepresentation, "incorrect binary data format for type %s", typeName)
}

// appendFloat appends f as PostgreSQL 15 prints a float of the given bit
// size: the shortest text that reads back exactly, in positional
// notation for decimal exponents from -4 up to the type's precision (15
// digits for float8, 6 for float4), in scientific notation otherwise.
func appendFloat(buf []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(buf, "-0"...)
		}
		return append(buf, '0')
	}
	// The scientific form is the shortest digits and the exponent; the
	// positional form is used when the exponent is small.
	sci := strconv.AppendFloat(nil, f, 'e', -1, bits)
	exp, _ := strconv.Atoi(string(sci[strings.LastIndexByte(string(sci), 'e')+1:]))
	digits := 15
	if bits == 32 {
		digits = 6
	}
	if exp >= -4 && exp < digits {
		return strconv.AppendFloat(buf, f, 'f', -1, bits)
	}
	return append(buf, sci...)
}

// appendDate appends d in the ISO date style: 2024-01-31, 0044-03-15 BC,
// infinity.
func appendDate(buf []byte, d pgtype.Date) []byte {
	switch d.InfinityModifier {
	case pgtype.Infinity:
		return append(buf, "infinity"...)
	case pgtype.NegativeInfinity:
		return append(buf, "-infinity"...)
	}
	buf, bc := appendYMD(buf, d.Time)
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendTimestamp appends t in the ISO style of PostgreSQL with
// DateStyle ISO and TimeZone UTC: 2024-01-31 12:34:56.789+00 for a
// timestamptz, without the zone for a timestamp.
func appendTimestamp(buf []byte, t time.Time, inf pgtype.InfinityModifier, zone bool) []byte {
	switch inf {
	case pgtype.Infinity:
		return append(buf, "infinity"...)
	case pgtype.NegativeInfinity:
		return append(buf, "-infinity"...)
	}
	buf, bc := appendYMD(buf, t)
	buf = append(buf, ' ')
	buf = appendTwo(buf, t.Hour())
	buf = append(buf, ':')
	buf = appendTwo(buf, t.Minute())
	buf = append(buf, ':')
	buf = appendTwo(buf, t.Second())
	buf = appendMicros(buf, int64(t.Nanosecond()/1000))
	if zone {
		buf = append(buf, "+00"...)
	}
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendYMD appends t's date as YYYY-MM-DD and reports whether the year
// is BC (year 0 is 1 BC).
func appendYMD(buf []byte, t time.Time) ([]byte, bool) {
	y, bc := t.Year(), false
	if y <= 0 {
		y, bc = 1-y, true
	}
	s := strconv.Itoa(y)
	for i := len(s); i < 4; i++ {
		buf = append(buf, '0')
	}
	buf = append(buf, s...)
	buf = append(buf, '-')
	buf = appendTwo(buf, int(t.Month()))
	buf = append(buf, '-')
	buf = appendTwo(buf, t.Day())
	return buf, bc
}

func appendTwo(buf []byte, v int) []byte {
	return append(buf, byte('0'+v/10%10), byte('0'+v%10))
}

// appendMicros appends a fraction of a second of us microseconds, without
// trailing zeros, or nothing if us is 0.
func appendMicros(buf []byte, us int64) []byte {
	if us == 0 {
		return buf
	}
	frac := strconv.FormatInt(1000000+us, 10)[1:]
	return append(append(buf, '.'), strings.TrimRight(frac, "0")...)
}

// appendInterval appends iv in IntervalStyle postgres: 1 year 2 mons
// -3 days +04:05:06.5. Every field carries its own sign, as PostgreSQL
// prints it; a field after a negative one is signed explicitly.
func appendInterval(buf []byte, iv pgtype.Interval) []byte {
	zero, negative := true, false
	field := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !zero {
			buf = append(buf, ' ')
		}
		if negative && v > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		zero, negative = false, v < 0
	}
	field(int64(iv.Months/12), "year")
	field(int64(iv.Months%12), "mon")
	field(int64(iv.Days), "day")
	if zero || iv.Microseconds != 0 {
		if !zero {
			buf = append(buf, ' ')
		}
		us := uint64(iv.Microseconds)
		if iv.Microseconds < 0 {
			us = -us
			buf = append(buf, '-')
		} else if negative {
			buf = append(buf, '+')
		}
		const usPerSecond = 1000000
		secs := us / usPerSecond
		hours := secs / 3600
		if hours < 10 {
			buf = append(buf, '0')
		}
		buf = strconv.AppendUint(buf, hours, 10)
		buf = append(buf, ':')
		buf = appendTwo(buf, int(secs/60%60))
		buf = append(buf, ':')
		buf = appendTwo(buf, int(secs%60))
		buf = appendMicros(buf, int64(us%usPerSecond))
	}
	return buf
}
