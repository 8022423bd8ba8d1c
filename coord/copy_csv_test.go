package coord

import (
	"testing"

	"freshet/sqlerr"
)

// TestCopyCSVFrom copies CSV data into a table under a materialized
// view; the rows and errors are PostgreSQL 15's for the same input
// (checked with psql against a PostgreSQL 15 server).
func TestCopyCSVFrom(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE tc (a int NOT NULL, b text, k int DEFAULT 7)")
	env.exec(s, "CREATE MATERIALIZED VIEW tc_n AS SELECT count(*) AS n, count(b) AS nb FROM tc")

	for _, tc := range []struct {
		name, sql, data, want string
	}{
		{"quotes, doubled quotes, empty and NULL", "COPY tc (a, b) FROM STDIN (FORMAT csv)",
			"1,\"he said \"\"hi\"\"\"\n2,\n3,\"\"\n\"4\",x\"y\"z\n",
			`1,he said "hi" 2,NULL 3, 4,xyz`},
		{"old spelling with a header and a line break in quotes", "COPY tc (a, b) FROM STDIN WITH CSV HEADER",
			"a,b\n5,\"two\nlines, and a comma\"\n\\.\n",
			"5,two\nlines, and a comma"},
		{"header match, CRLF line ends", "COPY tc (a, b) FROM STDIN (FORMAT csv, HEADER match)",
			"a,b\r\n6,x\r\n", "6,x"},
		{"escape, delimiter, NULL string", "COPY tc (a, b) FROM STDIN (FORMAT csv, ESCAPE '\\', DELIMITER ';', NULL 'N')",
			"7;\"a\\\"b\\\\c\"\n8;N\n9;\"N\"\n10;\n", `10, 7,a"b\c 8,NULL 9,N`},
		{"force_not_null and force_null", "COPY tc (a, b) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (b))",
			"11,\n", "11,"},
		{"force_null", "COPY tc (b, a) FROM STDIN (FORMAT csv, NULL 'N', FORCE_NULL (b))",
			"\"N\",12\n\"\",13\n", "12,NULL 13,"},
		{"\\. with more on its line is data", "COPY tc (b, a) FROM STDIN (FORMAT csv)",
			"\\.x,14\n", `14,\.x`},
		{"header without match, no rows", "COPY tc (a, b) FROM STDIN (FORMAT csv, HEADER true)",
			"anything,at all\n", ""},
		{"only quoted empty strings, the first record", "COPY tc (b, a) FROM STDIN (FORMAT csv)",
			"\"\",15\n", "15,"},
	} {
		before := env.query(s, "SELECT coalesce(max(a), 0) FROM tc")
		if err := env.copyIn(s, tc.sql, tc.data); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := env.query(s, "SELECT a, b FROM tc WHERE a > "+before)
		if got != tc.want {
			t.Errorf("%s: rows %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := env.query(s, "SELECT * FROM tc_n"); got != "15,12" {
		t.Errorf("view: %s", got)
	}
	if got := env.query(s, "SELECT count(*) FROM tc WHERE k = 7"); got != "15" {
		t.Errorf("defaults: %s", got)
	}

	for _, tc := range []struct {
		name, sql, data, code, msg, detail string
	}{
		{"extra", "COPY tc (a, b) FROM STDIN (FORMAT csv)", "20,a\n21,\"b\nc\"\n22,3,4\n",
			sqlerr.BadCopyFileFormat, "extra data after last expected column", "COPY tc, line 4"},
		{"missing", "COPY tc (a, b) FROM STDIN (FORMAT csv)", "20,a\n21\n",
			sqlerr.BadCopyFileFormat, `missing data for column "b"`, "COPY tc, line 2"},
		{"unterminated", "COPY tc (a, b) FROM STDIN (FORMAT csv)", "20,a\n21,\"x\ny\n",
			sqlerr.BadCopyFileFormat, "unterminated CSV quoted field", "COPY tc, line 4"},
		{"bad value", "COPY tc (a, b) FROM STDIN (FORMAT csv)", "20,a\nx,a\n",
			sqlerr.InvalidTextRepresentation, `invalid input syntax for type integer: "x"`, "COPY tc, line 2, column a"},
		{"null into not null", "COPY tc (a, b) FROM STDIN (FORMAT csv)", "20,a\n,b\n",
			sqlerr.NotNullViolation, `null value in column "a" of relation "tc" violates not-null constraint`, ""},
		{"header names", "COPY tc (a, b) FROM STDIN (FORMAT csv, HEADER MATCH)", "\"a\",B\n",
			sqlerr.BadCopyFileFormat, `column name mismatch in header line field 2: got "B", expected "b"`, "COPY tc, line 1"},
		{"header count", "COPY tc (a, b) FROM STDIN (FORMAT csv, HEADER MATCH)", "a\n",
			sqlerr.BadCopyFileFormat, "wrong number of fields in header line: got 1, expected 2", "COPY tc, line 1"},
		{"header null", "COPY tc (a, b) FROM STDIN (FORMAT csv, HEADER MATCH, NULL 'a')", "a,b\n",
			sqlerr.BadCopyFileFormat, `column name mismatch in header line field 1: got null value ("a"), expected "a"`, "COPY tc, line 1"},
		{"unquoted CR", "COPY tc (a, b) FROM STDIN (FORMAT csv)", "20,a\n21,b\rc\n",
			sqlerr.BadCopyFileFormat, "unquoted carriage return found in data", "COPY tc, line 2"},
		{"header value", "COPY tc FROM STDIN (FORMAT csv, HEADER 'foo')", "",
			sqlerr.SyntaxError, `header requires a Boolean value or "match"`, ""},
		{"force null column", "COPY tc (a) FROM STDIN (FORMAT csv, FORCE_NULL (b))", "",
			sqlerr.InvalidColumnReference, `FORCE_NULL column "b" not referenced by COPY`, ""},
		{"force null unknown column", "COPY tc FROM STDIN (FORMAT csv, FORCE_NOT_NULL (zz))", "",
			sqlerr.UndefinedColumn, `column "zz" of relation "tc" does not exist`, ""},
		{"force null in text", "COPY tc FROM STDIN (FORCE_NULL (b))", "",
			sqlerr.FeatureNotSupported, "COPY force null available only in CSV mode", ""},
		{"quote length", "COPY tc FROM STDIN (FORMAT csv, QUOTE 'ab')", "",
			sqlerr.FeatureNotSupported, "COPY quote must be a single one-byte character", ""},
		{"quote is delimiter", "COPY tc FROM STDIN (FORMAT csv, QUOTE ',')", "",
			sqlerr.InvalidParameterValue, "COPY delimiter and quote must be different", ""},
		{"quote in null", "COPY tc FROM STDIN (FORMAT csv, NULL '\"')", "",
			sqlerr.FeatureNotSupported, "CSV quote character must not appear in the NULL specification", ""},
		{"delimiter in null", "COPY tc FROM STDIN (FORMAT csv, NULL ',')", "",
			sqlerr.FeatureNotSupported, "COPY delimiter must not appear in the NULL specification", ""},
		{"match in COPY TO", "COPY tc TO STDOUT (FORMAT csv, HEADER match)", "",
			sqlerr.FeatureNotSupported, `cannot use "match" with HEADER in COPY TO`, ""},
	} {
		err := env.copyIn(s, tc.sql, tc.data)
		e := sqlerr.From(err)
		if err == nil || e.Code != tc.code || e.Message != tc.msg || e.Detail != tc.detail {
			t.Errorf("%s: %v (%s, detail %q), want %s %q detail %q", tc.name, err, e.Code, e.Detail, tc.code, tc.msg, tc.detail)
		}
	}
	if got := env.query(s, "SELECT * FROM tc_n"); got != "15,12" {
		t.Errorf("view after failed COPYs: %s", got)
	}
	// A text COPY skips and checks a header too (PostgreSQL 15).
	if err := env.copyIn(s, "COPY tc (a, b) FROM STDIN (HEADER match)", "a\tb\n30\tx\n"); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT b FROM tc WHERE a = 30"); got != "x" {
		t.Errorf("text COPY with a header: %s", got)
	}
}
