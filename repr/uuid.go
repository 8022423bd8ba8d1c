package repr

import "freshet/sqlerr"

// A uuid datum holds its 16 bytes in s. PostgreSQL compares uuids with
// memcmp, so bytewise order is its order, and the row encoding is the 16
// bytes behind tagUUID.

// uuidLen is the size of a uuid in bytes.
const uuidLen = 16

// NewUUID returns a uuid datum.
func NewUUID(b [uuidLen]byte) Datum { return stringDatum(KindUUID, string(b[:])) }

// UUID returns the bytes of a uuid datum.
func (d Datum) UUID() (b [uuidLen]byte) {
	copy(b[:], d.str())
	return b
}

// parseUUID reads a uuid as uuid_in does: 32 hex digits in either case,
// with a hyphen allowed after any group of four digits but the last, and
// the whole optionally in braces. No white space is allowed.
func parseUUID(s string) (Datum, error) {
	src := s
	braces := len(src) > 0 && src[0] == '{'
	if braces {
		src = src[1:]
	}
	var b [uuidLen]byte
	for i := range uuidLen {
		if len(src) < 2 {
			return Null, errInvalidSyntax(UUID, s)
		}
		hi, ok1 := hexValue(src[0])
		lo, ok2 := hexValue(src[1])
		if !ok1 || !ok2 {
			return Null, errInvalidSyntax(UUID, s)
		}
		b[i] = hi<<4 | lo
		src = src[2:]
		if len(src) > 0 && src[0] == '-' && i%2 == 1 && i < uuidLen-1 {
			src = src[1:]
		}
	}
	if braces {
		if len(src) == 0 || src[0] != '}' {
			return Null, errInvalidSyntax(UUID, s)
		}
		src = src[1:]
	}
	if src != "" {
		return Null, errInvalidSyntax(UUID, s)
	}
	return NewUUID(b), nil
}

// appendUUID appends a uuid as uuid_out prints it: lower-case hex in
// groups of 8, 4, 4, 4 and 12 digits joined by hyphens.
func appendUUID(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[s[i]>>4], hexDigits[s[i]&15])
	}
	return buf
}

// UUIDFromBytes returns the uuid datum whose 16 bytes are b, for uuids
// read from rows or made by functions (gen_random_uuid).
func UUIDFromBytes(b []byte) (Datum, error) {
	if len(b) != uuidLen {
		return Null, sqlerr.AssertionFailedf("uuid of %d bytes", len(b))
	}
	return stringDatum(KindUUID, string(b)), nil
}
