package repr

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"freshet/sqlerr"
)

// A bytea datum holds its bytes in s. PostgreSQL orders bytea with
// memcmp and then by length, so a prefix sorts first: Go's string order.
// Its row encoding is the string encoding's escaping behind tagBytea, so
// that the bytes keep that order.

// hexDigits are the digits bytea and uuid print.
const hexDigits = "0123456789abcdef"

// NewBytea returns a bytea datum holding the bytes of b.
func NewBytea(b string) Datum { return stringDatum(KindBytea, b) }

// Bytes returns the bytes of a bytea datum.
func (d Datum) Bytes() string { return d.str() }

// hexValue returns the value of a hex digit in either case.
func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseBytea reads a bytea as byteain does: after \x, hex digits (see
// decodeHex); otherwise the escape format, where \\ is a backslash,
// \ooo (first digit 0-3) the byte of three octal digits, and every
// other byte itself.
func parseBytea(s string) (Datum, error) {
	if len(s) >= 2 && s[0] == '\\' && s[1] == 'x' {
		b, err := decodeHex(s[2:])
		if err != nil {
			return Null, err
		}
		return NewBytea(b), nil
	}
	b, err := decodeEscape(s)
	if err != nil {
		return Null, err
	}
	return NewBytea(b), nil
}

// decodeHex reads pairs of hex digits, with white space (space, tab,
// newline, carriage return) allowed before each pair, as PostgreSQL's
// hex_decode does.
func decodeHex(s string) (string, error) {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i < len(s); {
		if c := s[i]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		hi, err := hexDigit(s, i)
		if err != nil {
			return "", err
		}
		if i+1 >= len(s) {
			return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		lo, err := hexDigit(s, i+1)
		if err != nil {
			return "", err
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return string(out), nil
}

// hexDigit returns the value of the hex digit at s[i], or PostgreSQL's
// error naming the character there.
func hexDigit(s string, i int) (byte, error) {
	if v, ok := hexValue(s[i]); ok {
		return v, nil
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+n])
}

// decodeEscape reads bytea's escape format: \\ is a backslash, \ooo with
// a first digit 0-3 the byte of three octal digits, and any other
// backslash an error (22P02).
func decodeEscape(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return "", sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
	}
	return string(out), nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// appendByteaHex appends a bytea as byteaout prints it with bytea_output
// hex, PostgreSQL's default: \x and two lower-case hex digits a byte.
func appendByteaHex(buf []byte, s string) []byte {
	buf = append(buf, '\\', 'x')
	return appendHex(buf, s)
}

func appendHex(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		buf = append(buf, hexDigits[s[i]>>4], hexDigits[s[i]&15])
	}
	return buf
}

// EncodeBytea is encode(b, format): the text of bytes b in format hex
// (two digits a byte), escape (NUL and bytes above 0x7f as \ooo, a
// backslash doubled) or base64 (with a newline after every 76
// characters), as PostgreSQL writes them. Another format is 22023.
func EncodeBytea(b, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return string(appendHex(nil, b)), nil
	case "escape":
		out := make([]byte, 0, len(b))
		for i := 0; i < len(b); i++ {
			switch c := b[i]; {
			case c == 0 || c >= 0x80:
				out = append(out, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
			case c == '\\':
				out = append(out, '\\', '\\')
			default:
				out = append(out, c)
			}
		}
		return string(out), nil
	case "base64":
		enc := base64.StdEncoding.EncodeToString([]byte(b))
		const line = 76
		var sb strings.Builder
		for len(enc) > line {
			sb.WriteString(enc[:line])
			sb.WriteByte('\n')
			enc = enc[line:]
		}
		sb.WriteString(enc)
		return sb.String(), nil
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

// DecodeBytea is decode(s, format), the inverse of EncodeBytea, with
// PostgreSQL's errors: hex skips white space between pairs, escape is
// bytea's escape input format, and base64 skips white space and checks
// the padding.
func DecodeBytea(s, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return decodeHex(s)
	case "escape":
		return decodeEscape(s)
	case "base64":
		return decodeBase64(s)
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

// decodeBase64 reads base64 as PostgreSQL's decoder does: white space is
// skipped anywhere; "=" may only stand third or fourth in a group of
// four and ends the data (what follows is still read, as PostgreSQL
// reads it); a group left unfinished is an error.
func decodeBase64(s string) (string, error) {
	out := make([]byte, 0, len(s)*3/4)
	var acc uint32
	pos, end := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		var v uint32
		if c == '=' {
			if end == 0 {
				switch pos {
				case 2:
					end = 1
				case 3:
					end = 2
				default:
					return "", sqlerr.New(sqlerr.InvalidParameterValue, "unexpected \"=\" while decoding base64 sequence")
				}
			}
		} else {
			b, ok := base64Value(c)
			if !ok {
				_, n := utf8.DecodeRuneInString(s[i:])
				return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid symbol \"%s\" found while decoding base64 sequence", s[i:i+n])
			}
			v = uint32(b)
		}
		acc = acc<<6 | v
		pos++
		if pos == 4 {
			out = append(out, byte(acc>>16))
			if end == 0 || end > 1 {
				out = append(out, byte(acc>>8))
			}
			if end == 0 || end > 2 {
				out = append(out, byte(acc))
			}
			acc, pos = 0, 0
		}
	}
	if pos != 0 {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid base64 end sequence").
			WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
	}
	return string(out), nil
}

// base64Value returns the value of a base64 digit.
func base64Value(c byte) (byte, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A', true
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26, true
	case c >= '0' && c <= '9':
		return c - '0' + 52, true
	case c == '+':
		return 62, true
	case c == '/':
		return 63, true
	}
	return 0, false
}
