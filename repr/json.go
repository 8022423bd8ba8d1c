package repr

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"freshet/sqlerr"
)

// json values are kept as the text they were written with, as
// PostgreSQL's json type keeps them: input is checked to be one JSON
// value and stored unchanged. (jsonb, which normalizes, is not here.)

// parseJSON reads a json value.
func parseJSON(s string) (Datum, error) {
	if !utf8.ValidString(s) || !json.Valid([]byte(s)) {
		return Null, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type json").
			WithDetail("The input %q is not a JSON value.", truncateForMessage(s))
	}
	return NewString(KindJSON, s), nil
}

func truncateForMessage(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// NewJSON returns a json datum of text that is already JSON.
func NewJSON(text string) Datum { return NewString(KindJSON, text) }

// AppendJSON appends d as a JSON value, as PostgreSQL's to_json does:
// null, numbers as themselves (NaN and the infinities as strings), true
// and false, a json value as it is, an array as a JSON array, dates and
// timestamps in ISO 8601 with a T, anything else as its text in a JSON
// string.
func AppendJSON(buf []byte, d Datum) []byte { return AppendJSONIn(buf, d, UTC) }

// AppendJSONIn is AppendJSON in the session time zone z, in which a
// timestamptz is written with its offset: "2024-01-01T09:00:00+09:00".
func AppendJSONIn(buf []byte, d Datum, z *Zone) []byte {
	if !d.valid {
		return append(buf, "null"...)
	}
	switch d.kind {
	case KindBool:
		if d.Bool() {
			return append(buf, "true"...)
		}
		return append(buf, "false"...)
	case KindInt2, KindInt4, KindInt8, KindOID:
		return strconv.AppendInt(buf, d.i, 10)
	case KindFloat4, KindFloat8, KindNumeric:
		t := FormatText(d)
		if t == "NaN" || strings.HasSuffix(t, "Infinity") {
			return appendJSONString(buf, t)
		}
		return append(buf, t...)
	case KindJSON:
		return append(buf, d.str()...)
	case KindJSONB:
		return AppendTextIn(buf, d, z)
	case KindArray:
		elems, err := d.Elems()
		if err != nil {
			return appendJSONString(buf, FormatText(d))
		}
		buf = append(buf, '[')
		for i, e := range elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSONIn(buf, e, z)
		}
		return append(buf, ']')
	case KindTimestamp, KindTimestampTZ:
		t := FormatTextIn(d, z)
		if d.i != TimestampNegInfinity && d.i != TimestampPosInfinity {
			t = strings.Replace(t, " ", "T", 1)
			// ISO 8601 writes an offset of whole hours as +09:00, where
			// PostgreSQL's text has +09.
			if n := len(t); d.kind == KindTimestampTZ && n > 3 && (t[n-3] == '+' || t[n-3] == '-') {
				t += ":00"
			}
		}
		return appendJSONString(buf, t)
	}
	return appendJSONString(buf, FormatText(d))
}

// appendJSONString appends s as a JSON string, escaping as PostgreSQL's
// escape_json does.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for _, r := range s {
		switch r {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			if r < 0x20 {
				buf = append(buf, `\u00`...)
				buf = append(buf, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
			} else {
				buf = utf8.AppendRune(buf, r)
			}
		}
	}
	return append(buf, '"')
}

// AppendJSONKey appends s as an object key.
func AppendJSONKey(buf []byte, s string) []byte { return appendJSONString(buf, s) }
