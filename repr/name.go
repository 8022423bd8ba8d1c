package repr

import (
	"strconv"
	"unicode/utf8"
)

// MaxNameBytes is the longest name, in bytes (NAMEDATALEN - 1).
const MaxNameBytes = 63

// truncateName cuts s to at most MaxNameBytes bytes, at a character
// boundary, as PostgreSQL's name input does.
func truncateName(s string) string {
	if len(s) <= MaxNameBytes {
		return s
	}
	cut := MaxNameBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// charInput reads a "char" as charin does: its first byte, or the byte
// that a backslash and three octal digits give; "" (the zero byte) for
// the empty string.
func charInput(s string) string {
	if len(s) == 4 && s[0] == '\\' {
		if v, err := strconv.ParseUint(s[1:], 8, 8); err == nil {
			if v == 0 {
				return "" // the zero byte, which prints as nothing
			}
			return string([]byte{byte(v)})
		}
	}
	if s == "" {
		return ""
	}
	return s[:1]
}

// appendChar appends a "char" as charout prints it: the byte itself, or
// a backslash and three octal digits for a byte outside ASCII.
func appendChar(buf []byte, s string) []byte {
	if s == "" {
		return buf
	}
	if c := s[0]; c >= utf8.RuneSelf {
		return append(buf, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
	}
	return append(buf, s[0])
}
