package repr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// ParseText reads s as a value of type t exactly as PostgreSQL 15's input
// function for t does with t's typmod (a literal '...'::t, a text-format
// parameter, a COPY field, an INSERT of a string literal into a column
// of type t): surrounding white space is ignored where PostgreSQL
// ignores it, numerics are rounded to numeric(p,s), char(n) is padded,
// and a string too long for varchar(n) or char(n) is an error unless
// the excess is spaces. Errors carry PostgreSQL's SQLSTATE and wording:
// 22P02 invalid input syntax, 22003 out of range, 22007 and 22008 for
// dates and times, 22001 too long, 22021 bad UTF-8.
func ParseText(t Type, s string) (Datum, error) { return ParseTextIn(t, s, UTC) }

// ParseTextIn is ParseText in the session time zone z: a timestamp with
// time zone written without an offset or zone is read as a wall-clock
// time in z.
func ParseTextIn(t Type, s string, z *Zone) (Datum, error) { return parseText(t, s, z, nil) }

// ParseTextLabels is ParseTextIn for a type that may be an enum or an
// array of one: l is the enum's labels as the statement was planned
// (nil for other types), which reading a label needs.
func ParseTextLabels(t Type, s string, z *Zone, l *EnumLabels) (Datum, error) {
	return parseText(t, s, z, l)
}

func parseText(t Type, s string, z *Zone, l *EnumLabels) (Datum, error) {
	switch t.kind {
	case KindBool:
		return parseBool(s)
	case KindInt2:
		return parseInt(t, s, math.MinInt16, math.MaxInt16)
	case KindInt4:
		return parseInt(t, s, math.MinInt32, math.MaxInt32)
	case KindInt8:
		return parseInt(t, s, math.MinInt64, math.MaxInt64)
	case KindFloat4:
		return parseFloat(t, s, 32)
	case KindFloat8:
		return parseFloat(t, s, 64)
	case KindNumeric:
		return parseNumeric(t, s)
	case KindText, KindVarchar, KindBpchar, KindUnknown, KindName, KindChar:
		if err := checkEncoding(s); err != nil {
			return Null, err
		}
		return stringInput(t, s)
	case KindDate:
		return parseDate(s)
	case KindTimestamp, KindTimestampTZ:
		return parseTimestamp(t, s, z)
	case KindInterval:
		return parseInterval(s)
	case KindTime:
		return parseTime(t, s)
	case KindArray:
		return parseArray(t, s, z, l)
	case KindJSON:
		return parseJSON(s)
	case KindJSONB:
		v, err := ParseJSONB(s)
		if err != nil {
			return Null, err
		}
		return NewJSONB(&v), nil
	case KindUUID:
		return parseUUID(s)
	case KindEnum:
		// The labels are the catalog's, which the planner copies into
		// the plan; without them there is nothing to read against.
		if l != nil && l.Type.enumOID == t.enumOID {
			return l.Parse(s)
		}
		return Null, sqlerr.New(sqlerr.FeatureNotSupported, "input of enum %s is supported only in SQL expressions", t.String())
	case KindBytea:
		return parseBytea(s)
	case KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		return parseOID(t, s)
	}
	return Null, sqlerr.AssertionFailedf("ParseText: unknown kind %d", t.kind)
}

// isSpace reports whether c is white space for C's isspace, which
// PostgreSQL's input functions use.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// trimSpace removes C white space from both ends of s.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// checkEncoding reports 22021 unless s is valid UTF-8 without NUL, the
// only strings a PostgreSQL UTF8 database stores. The message shows the
// bytes of the first bad character, as PostgreSQL's does.
func checkEncoding(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if c != 0 && (r != utf8.RuneError || size > 1) {
			i += size
			continue
		}
		// Show as many bytes as the lead byte announces.
		n := 1
		switch {
		case c >= 0xf0:
			n = 4
		case c >= 0xe0:
			n = 3
		case c >= 0xc0:
			n = 2
		}
		n = min(n, len(s)-i)
		var b strings.Builder
		for k := range n {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("0x")
			b.WriteString(strconv.FormatUint(uint64(s[i+k])|0x100, 16)[1:])
		}
		return sqlerr.New(sqlerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", b.String())
	}
	return nil
}

// parseBool reads a boolean as boolin does: any unique prefix of "true",
// "false", "yes", "no", "on" or "off" (at least two letters for the
// last two), or "1" or "0", in any case, with white space around it.
func parseBool(s string) (Datum, error) {
	v := strings.ToLower(trimSpace(s))
	if v != "" {
		switch {
		case strings.HasPrefix("true", v), strings.HasPrefix("yes", v), v == "1",
			len(v) >= 2 && strings.HasPrefix("on", v):
			return NewBool(true), nil
		case strings.HasPrefix("false", v), strings.HasPrefix("no", v), v == "0",
			len(v) >= 2 && strings.HasPrefix("off", v):
			return NewBool(false), nil
		}
	}
	return Null, errInvalidSyntax(Bool, s)
}

// parseInt reads an integer of type t in [lo, hi] as PostgreSQL 15's
// pg_strtoint does: white space, an optional sign, decimal digits, white
// space. A value that overflows is out of range even if junk follows it.
func parseInt(t Type, s string, lo, hi int64) (Datum, error) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) || s[i] < '0' || s[i] > '9' {
		return Null, errInvalidSyntax(t, s)
	}
	// Accumulate as a negative number, which reaches lo.
	var v int64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digit := int64(s[i] - '0')
		if v < (lo+digit)/10 {
			return Null, errValueOutOfRange(t, s)
		}
		v = v*10 - digit
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return Null, errInvalidSyntax(t, s)
	}
	if !neg {
		if v < -hi {
			return Null, errValueOutOfRange(t, s)
		}
		v = -v
	}
	return newInt(t.kind, v), nil
}

// parseFloat reads a float as float4in and float8in do: white space, a
// decimal number or NaN, Infinity, inf with optional sign, white space.
// A finite number too large for the type, or so small that it becomes
// zero, is out of range.
func parseFloat(t Type, s string, bitSize int) (Datum, error) {
	v := trimSpace(s)
	if v == "" || strings.Contains(v, "_") {
		// strconv would accept digit separators.
		return Null, errInvalidSyntax(t, s)
	}
	num := v
	if hex := strings.TrimLeft(v, "+-"); len(hex) > 2 && hex[0] == '0' && hex[1]|0x20 == 'x' &&
		!strings.ContainsAny(hex, "pP") {
		// C's strtod reads hexadecimal without a binary exponent; Go
		// requires one.
		num += "p0"
	}
	f, err := strconv.ParseFloat(num, bitSize)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return Null, sqlerr.New(sqlerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", v, kinds[t.kind].display)
		}
		return Null, errInvalidSyntax(t, s)
	}
	if f == 0 && hasNonzeroMantissa(v) {
		return Null, sqlerr.New(sqlerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", v, kinds[t.kind].display)
	}
	if math.IsNaN(f) {
		f = math.NaN()
	}
	return newFloat(t.kind, f), nil
}

// hasNonzeroMantissa reports whether the decimal number v has a nonzero
// digit before its exponent.
func hasNonzeroMantissa(v string) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// parseNumeric reads a numeric as numeric_in does, then applies t's
// precision and scale.
func parseNumeric(t Type, s string) (Datum, error) {
	// A plain number is read in words, with no decimal object.
	if neg, coeff, frac, ok := plainDecimal(s); ok {
		c := int64(coeff) // at most 18 digits
		if neg {
			c = -c
		}
		if d, ok, err := smallTypmod(c, int32(frac), t); ok {
			return d, err
		}
	}
	d, err := parseDecimal(s)
	if err != nil {
		return Null, err
	}
	if d, err = applyNumericTypmod(d, t); err != nil {
		return Null, err
	}
	return NewNumeric(d), nil
}

// parseDecimal reads PostgreSQL numeric text: white space, then NaN,
// [+-]Infinity or [+-]inf in any case, or a sign, digits with at most one
// point and at least one digit, and an optional exponent; then white
// space. The result keeps the written scale: "1.50" is 150E-2.
func parseDecimal(s string) (*apd.Decimal, error) {
	v := trimSpace(s)
	switch strings.ToLower(v) {
	case "nan":
		return numericNaN, nil
	case "infinity", "+infinity", "inf", "+inf":
		return numericPosInf, nil
	case "-infinity", "-inf":
		return numericNegInf, nil
	}
	bad := func() (*apd.Decimal, error) { return nil, errInvalidSyntax(Numeric, s) }
	i := 0
	neg := false
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		neg = v[i] == '-'
		i++
	}
	var digits []byte
	var buf [40]byte
	digits = buf[:0]
	fracDigits, sawDigit, sawPoint := 0, false, false
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			sawDigit = true
			if sawPoint {
				fracDigits++
			}
			continue
		case c == '.' && !sawPoint:
			sawPoint = true
			continue
		}
		break
	}
	if !sawDigit {
		return bad()
	}
	exp := int64(0)
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		expNeg := false
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			expNeg = v[i] == '-'
			i++
		}
		if i == len(v) || v[i] < '0' || v[i] > '9' {
			return bad()
		}
		for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
			exp = exp*10 + int64(v[i]-'0')
			if exp > 2*maxNumericIntDigits {
				// Far beyond what fits; finish checking the syntax.
				exp = 2*maxNumericIntDigits + 1
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(v) {
		return bad()
	}
	exp -= int64(fracDigits)
	if exp > 2*maxNumericIntDigits || exp < -2*maxNumericIntDigits {
		return nil, errNumericOverflow
	}
	d := new(apd.Decimal)
	if len(digits) <= 18 {
		n, _ := strconv.ParseInt(string(digits), 10, 64)
		d.Coeff.SetInt64(n)
	} else if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return bad()
	}
	d.Exponent = int32(exp)
	d.Negative = neg && d.Coeff.Sign() != 0
	if err := checkNumericLimits(d); err != nil {
		return nil, err
	}
	return d, nil
}

// stringInput applies the length of varchar(n) and char(n) to input s:
// text longer than n characters is an error unless the excess is spaces,
// which are cut off; char(n) pads shorter text with spaces.
func stringInput(t Type, s string) (Datum, error) {
	switch t.kind {
	case KindName:
		return NewString(KindName, truncateName(s)), nil
	case KindChar:
		return NewString(KindChar, charInput(s)), nil
	}
	n, ok := t.Length()
	if !ok {
		return NewString(t.kind, s), nil
	}
	cut, count := charPrefix(s, n)
	if cut < len(s) {
		if strings.Trim(s[cut:], " ") != "" {
			return Null, errTooLong(t)
		}
		s = s[:cut]
	}
	if t.kind == KindBpchar && count < n {
		s += strings.Repeat(" ", n-count)
	}
	return NewString(t.kind, s), nil
}

// charPrefix returns the byte length of the first n characters of s (all
// of s if it is shorter) and how many characters that is.
func charPrefix(s string, n int) (bytes, chars int) {
	for bytes < len(s) && chars < n {
		if s[bytes] < utf8.RuneSelf {
			bytes++
		} else {
			_, size := utf8.DecodeRuneInString(s[bytes:])
			bytes += size
		}
		chars++
	}
	return bytes, chars
}

// CheckEncoding reports 22021 unless s is valid UTF-8 without NUL, with
// PostgreSQL's message, for functions that make text of bytes
// (convert_from).
func CheckEncoding(s string) error { return checkEncoding(s) }
