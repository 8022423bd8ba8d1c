package sqllogic

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestRender covers the README's rendering rules: %d with truncation
// toward zero for I, %.3f for R, text for T, NULL, (empty), '@' for
// non-printable bytes, booleans as 1/0.
func TestRender(t *testing.T) {
	const (
		boolOID    = pgtype.BoolOID
		int4OID    = pgtype.Int4OID
		int8OID    = pgtype.Int8OID
		float8OID  = pgtype.Float8OID
		float4OID  = pgtype.Float4OID
		numericOID = pgtype.NumericOID
		textOID    = pgtype.TextOID
		varcharOID = pgtype.VarcharOID
	)
	for _, tc := range []struct {
		v    Value
		typ  ColumnType
		want string
	}{
		// NULL is NULL in every column type, and is not the text "NULL".
		{NullValue(int4OID), Integer, "NULL"},
		{NullValue(float8OID), Real, "NULL"},
		{NullValue(textOID), Text, "NULL"},
		{TextValue(varcharOID, "NULL"), Text, "NULL"},
		{TextValue(varcharOID, "NULL"), Integer, "0"},

		// Integers.
		{TextValue(int4OID, "42"), Integer, "42"},
		{TextValue(int4OID, "-7"), Integer, "-7"},
		{TextValue(int8OID, "-9223372036854775808"), Integer, "-9223372036854775808"},
		{TextValue(int4OID, "42"), Real, "42.000"},
		{TextValue(int4OID, "42"), Text, "42"},

		// Floats in an I column are truncated toward zero.
		{TextValue(float8OID, "1.9"), Integer, "1"},
		{TextValue(float8OID, "-1.9"), Integer, "-1"},
		{TextValue(float8OID, "-0.5"), Integer, "0"},
		{TextValue(float4OID, "2.5"), Integer, "2"},
		{TextValue(float8OID, "1e+20"), Integer, "100000000000000000000"},
		{TextValue(float8OID, "-1.5e-07"), Integer, "0"},
		{TextValue(float8OID, "Infinity"), Integer, "9223372036854775807"},
		{TextValue(float8OID, "-Infinity"), Integer, "-9223372036854775808"},
		{TextValue(float8OID, "NaN"), Integer, "0"},
		{TextValue(float8OID, "1.23456"), Real, "1.235"},
		{TextValue(float8OID, "-2.5"), Real, "-2.500"},
		{TextValue(float8OID, "-0.0001"), Real, "-0.000"},
		{TextValue(float8OID, "1e+20"), Real, "100000000000000000000.000"},
		{TextValue(float8OID, "1.5"), Text, "1.5"},

		// Numerics are truncated exactly, beyond float64 precision.
		{TextValue(numericOID, "123.999"), Integer, "123"},
		{TextValue(numericOID, "-123.999"), Integer, "-123"},
		{TextValue(numericOID, "-0.999"), Integer, "0"},
		{TextValue(numericOID, "99999999999999999999.5"), Integer, "99999999999999999999"},
		{TextValue(numericOID, "7"), Integer, "7"},
		{TextValue(numericOID, "NaN"), Integer, "0"},
		{TextValue(numericOID, "123.4567"), Real, "123.457"},
		{TextValue(numericOID, "0.0005"), Real, "0.001"},

		// Booleans are 1 and 0 in I and R columns, text in T columns.
		{TextValue(boolOID, "t"), Integer, "1"},
		{TextValue(boolOID, "f"), Integer, "0"},
		{TextValue(boolOID, "t"), Real, "1.000"},
		{TextValue(boolOID, "f"), Real, "0.000"},
		{TextValue(boolOID, "t"), Text, "t"},

		// Text in I and R columns: its numeric prefix, as SQLite reads it.
		{TextValue(textOID, "12abc"), Integer, "12"},
		{TextValue(textOID, "  7.9xyz"), Integer, "7"},
		{TextValue(textOID, "-3e2x"), Integer, "-300"},
		{TextValue(textOID, "1.5e-1"), Integer, "0"},
		{TextValue(textOID, "2.5E+1"), Integer, "25"},
		{TextValue(textOID, ".5"), Integer, "0"},
		{TextValue(textOID, "+8"), Integer, "8"},
		{TextValue(textOID, "007"), Integer, "7"},
		{TextValue(textOID, "-"), Integer, "0"},
		{TextValue(textOID, "abc"), Integer, "0"},
		{TextValue(textOID, ""), Integer, "0"},
		{TextValue(textOID, "1e99999"), Integer, "9223372036854775807"},
		{TextValue(textOID, "3.14159abc"), Real, "3.142"},
		{TextValue(textOID, "abc"), Real, "0.000"},
		{TextValue(0, "5.5"), Integer, "5"},

		// Text in T columns.
		{TextValue(textOID, "hello world"), Text, "hello world"},
		{TextValue(textOID, ""), Text, "(empty)"},
		{TextValue(textOID, " "), Text, " "},
		{TextValue(textOID, "a\tb\nc"), Text, "a@b@c"},
		{TextValue(textOID, "\x7f~"), Text, "@~"},
		{TextValue(textOID, "é"), Text, "@@"},
		{TextValue(0, "x"), Text, "x"},
	} {
		if got := tc.v.Render(tc.typ); got != tc.want {
			t.Errorf("%v (oid %d) as %c: got %q, want %q", tc.v, tc.v.OID, tc.typ, got, tc.want)
		}
	}
}
