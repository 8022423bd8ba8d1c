package sqllogic

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
)

// Value is one field of a query result as a PostgreSQL-wire server sends
// it in text format. The zero value is the empty string of unknown type.
type Value struct {
	// Null reports whether the value is SQL NULL. Text is then empty.
	Null bool
	// Text is the value in PostgreSQL's text output format ("t" and "f"
	// for booleans, "1.5" or "1e+20" for floats, and so on).
	Text string
	// OID is the PostgreSQL type OID of the value's column, as in the
	// RowDescription (pgtype.Int4OID and the like). It tells rendering
	// how to read Text; zero means unknown, which reads like text.
	OID uint32
}

// NullValue returns SQL NULL in a column of type oid.
func NullValue(oid uint32) Value { return Value{Null: true, OID: oid} }

// TextValue returns the value whose text output is s in a column of type
// oid.
func TextValue(oid uint32, s string) Value { return Value{Text: s, OID: oid} }

func (v Value) String() string {
	if v.Null {
		return "NULL"
	}
	return strconv.Quote(v.Text)
}

// Render returns the value as a sqllogictest file writes it in a column
// of type t, the way SQLite's reference runner prints it:
//
//   - NULL is "NULL" in every column type.
//   - Integer: the value as an integer printed with %d. Booleans are 1
//     and 0; floats, numerics and text are truncated toward zero, text
//     read as SQLite reads it (its longest numeric prefix after leading
//     spaces, 0 if there is none; so "" and "abc" are 0).
//   - Real: the value as a float64 printed with %.3f, read as above
//     (booleans 1 and 0).
//   - Text: the text output as it is, "(empty)" for the empty string,
//     and every byte outside the printable ASCII range ' '..'~' replaced
//     by '@' (so a two-byte UTF-8 character gives "@@").
func (v Value) Render(t ColumnType) string {
	if v.Null {
		return "NULL"
	}
	switch t {
	case Integer:
		return v.integer()
	case Real:
		return fmt.Sprintf("%.3f", v.real())
	default:
		return printable(v.Text)
	}
}

func (v Value) integer() string {
	switch v.OID {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID:
		// PostgreSQL's output of these types is already %d.
		return v.Text
	case pgtype.BoolOID:
		return boolDigit(v.Text)
	case pgtype.Float4OID, pgtype.Float8OID:
		f, err := strconv.ParseFloat(v.Text, 64)
		if err != nil && !isRangeErr(err) {
			return "0"
		}
		return truncFloat(f)
	}
	return truncNumber(v.Text)
}

func (v Value) real() float64 {
	if v.OID == pgtype.BoolOID {
		if boolDigit(v.Text) == "1" {
			return 1
		}
		return 0
	}
	s := v.Text
	switch v.OID {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID,
		pgtype.Float4OID, pgtype.Float8OID, pgtype.NumericOID:
		// Whole text, so that "NaN" and "Infinity" are read too.
	default:
		s = numberPrefix.FindString(strings.TrimLeft(s, " \t\n\r\f\v"))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0
	}
	return f
}

func boolDigit(s string) string {
	switch s {
	case "t", "true", "1":
		return "1"
	}
	return "0"
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// truncFloat returns f truncated toward zero as a decimal integer. NaN is
// 0 and infinities are clamped to the int64 range, as SQLite converts
// them.
func truncFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "0"
	case math.IsInf(f, 1):
		return strconv.FormatInt(math.MaxInt64, 10)
	case math.IsInf(f, -1):
		return strconv.FormatInt(math.MinInt64, 10)
	}
	i, _ := big.NewFloat(f).Int(nil)
	return i.String()
}

// numberPrefix matches the numeric prefix SQLite reads from text.
var numberPrefix = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`)

// maxExponent bounds the decimal exponent truncNumber expands digit by
// digit; a larger one is read through float64 (and so is infinite or 0).
const maxExponent = 1000

// truncNumber returns the numeric prefix of s (after leading spaces)
// truncated toward zero, exactly, as a decimal integer; "0" if s has no
// numeric prefix. It reads numeric output and text alike.
func truncNumber(s string) string {
	m := numberPrefix.FindStringSubmatch(strings.TrimLeft(s, " \t\n\r\f\v"))
	if m == nil {
		return "0"
	}
	num, exp := m[0][:len(m[0])-len(m[2])], 0
	if m[2] != "" {
		e, err := strconv.Atoi(strings.TrimPrefix(m[2][1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			// Beyond any exact use: an enormous or a vanishing magnitude.
			f, _ := strconv.ParseFloat(m[0], 64)
			return truncFloat(f)
		}
		exp = e
	}
	neg := strings.HasPrefix(num, "-")
	num = strings.TrimLeft(num, "+-")
	intPart, frac, _ := strings.Cut(num, ".")
	digits := intPart + frac
	// The point sits after len(intPart)+exp digits of digits.
	n := len(intPart) + exp
	switch {
	case n <= 0:
		digits = ""
	case n <= len(digits):
		digits = digits[:n]
	default:
		digits += strings.Repeat("0", n-len(digits))
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0"
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// printable renders text for a Text column.
func printable(s string) string {
	if s == "" {
		return "(empty)"
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '@'
		}
	}
	return string(b)
}
