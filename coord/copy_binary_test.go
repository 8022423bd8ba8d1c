package coord

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"freshet/pgwire"
	"freshet/sqlerr"
)

// copyOut runs a COPY TO STDOUT on s and returns what it sent.
func (env *sqlEnv) copyOut(s *Session, sql string) string {
	env.t.Helper()
	r := &recorder{}
	if err := s.Query(context.Background(), sql, r); err != nil {
		env.t.Fatalf("%s: %v", sql, err)
	}
	return r.copied.String()
}

// copyIn runs a COPY FROM STDIN on s with data and returns its error.
func (env *sqlEnv) copyIn(s *Session, sql, data string) error {
	return s.Query(context.Background(), sql, &recorder{copyData: data})
}

const copyAllTypes = `(id int NOT NULL, b bool, i2 int2, i8 int8, f4 real, f8 float8, n numeric(10,2), nu numeric,
	t text, vc varchar(5), ch char(3), d date, ts timestamp, tz timestamptz, iv interval, u uuid, by bytea,
	j json, jb jsonb, o oid, nm name, c "char", ia int[], ta text[], tm time)`

// TestCopyBinaryRoundTrip copies a table of every type with a binary
// format out in the binary format, in a session whose time zone is not
// UTC, and into a table of the same columns: the second table then holds
// what the first does, and a materialized view over it sees the rows.
func TestCopyBinaryRoundTrip(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE src "+copyAllTypes)
	env.exec(s, "CREATE TABLE dst "+copyAllTypes)
	env.exec(s, "CREATE MATERIALIZED VIEW dst_sum AS SELECT count(*) AS n, sum(i8) AS s, count(tz) AS tzs FROM dst")
	env.exec(s, `INSERT INTO src VALUES
		(1, true, -32768, 9223372036854775807, 1.5, -0.1, 12.30, 1e-20, E'tab\there "q" \\ é', 'abc', 'x', '2024-02-29', '2024-02-29 12:34:56.789',
		 '2024-07-01 08:00:00+00', '1 year 2 mons -3 days 04:05:06.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x00ff5c', '{"b":1,  "a":2}',
		 '{"a": [1, null]}', 4294967295, 'pg_class', 'r', '{1,NULL,3}', '{"a b","",NULL,"\\"}', '24:00:00'),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		(3, false, 0, -1, 'NaN', '-Infinity', -0.01, 'NaN', '', '', '', '0044-03-15 BC', 'infinity', '-infinity', '00:00:00', '00000000-0000-0000-0000-000000000000', '',
		 '[]', 'null', 0, '', '', '{}', '{}', '00:00:00.5')`)
	env.exec(s, "SET TIME ZONE 'Asia/Kolkata'")
	data := env.copyOut(s, "COPY (SELECT * FROM src ORDER BY id) TO STDOUT (FORMAT binary)")
	if !strings.HasPrefix(data, "PGCOPY\n\xff\r\n\x00") || !strings.HasSuffix(data, "\xff\xff") {
		t.Fatalf("not binary COPY data: %q", data)
	}
	if err := env.copyIn(s, "COPY dst FROM STDIN (FORMAT binary)", data); err != nil {
		t.Fatal(err)
	}
	want := env.copyOut(s, "COPY (SELECT * FROM src ORDER BY id) TO STDOUT")
	if got := env.copyOut(s, "COPY (SELECT * FROM dst ORDER BY id) TO STDOUT"); got != want {
		t.Errorf("copied table:\n%s\nwant\n%s", got, want)
	}
	if got := env.query(s, "SELECT * FROM dst_sum"); got != "3,9223372036854775806,2" {
		t.Errorf("view over the copied table: %s", got)
	}
	// A table of no rows is the header and the trailer.
	if got := env.copyOut(s, "COPY (SELECT id FROM src WHERE false) TO STDOUT (FORMAT binary)"); got != "PGCOPY\n\xff\r\n\x00"+strings.Repeat("\x00", 8)+"\xff\xff" {
		t.Errorf("no rows: %q", got)
	}
}

// binaryRows is the binary COPY data of rows whose columns have the given
// types, each row's values in text format.
func binaryRows(t *testing.T, oids []uint32, rows ...[]string) string {
	t.Helper()
	c, err := pgwire.NewBinaryCopy(oids, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := c.AppendHeader(nil)
	for _, row := range rows {
		vals := make([][]byte, len(row))
		for i, v := range row {
			if v != "NULL" {
				vals[i] = []byte(v)
			}
		}
		if buf, err = c.AppendRow(buf, vals); err != nil {
			t.Fatal(err)
		}
	}
	return string(c.AppendTrailer(buf))
}

// TestCopyBinaryFrom reads binary COPY data into some of a table's
// columns (the others take their defaults), in a transaction block that
// rolls back, and fails on bad data with PostgreSQL's SQLSTATEs and
// context, having written nothing.
func TestCopyBinaryFrom(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE cb (id int NOT NULL, v varchar(3), k int DEFAULT 7)")
	env.exec(s, "CREATE MATERIALIZED VIEW cb_k AS SELECT k, count(*) AS n FROM cb GROUP BY k")
	int4Text := []uint32{23, 1043}
	if err := env.copyIn(s, "COPY cb (id, v) FROM STDIN BINARY", binaryRows(t, int4Text, []string{"1", "ab"}, []string{"2", "NULL"})); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT * FROM cb"); got != "1,ab,7 2,NULL,7" {
		t.Errorf("rows: %s", got)
	}
	if got := env.query(s, "SELECT * FROM cb_k"); got != "7,2" {
		t.Errorf("view: %s", got)
	}
	env.exec(s, "BEGIN")
	if err := env.copyIn(s, "COPY cb (v, id) FROM STDIN (FORMAT binary)", binaryRows(t, []uint32{1043, 23}, []string{"z", "3"})); err != nil {
		t.Fatal(err)
	}
	env.exec(s, "ROLLBACK")

	goodRow := binaryRows(t, int4Text, []string{"5", "x"})
	body := goodRow[19 : len(goodRow)-2] // one tuple, without header and trailer
	header, trailer := goodRow[:19], "\xff\xff"
	badInt := "\x00\x02" + "\x00\x00\x00\x02\x00\x01" + "\x00\x00\x00\x01y"
	for _, tc := range []struct {
		name, data, code, msg, detail string
	}{
		{"bad signature", "PGCOPY\n\xff\r\n\x01" + goodRow[11:], sqlerr.BadCopyFileFormat, "COPY file signature not recognized", ""},
		{"oids", "PGCOPY\n\xff\r\n\x00\x00\x01\x00\x00" + goodRow[15:], sqlerr.BadCopyFileFormat, "invalid COPY file header (WITH OIDS)", ""},
		{"bad value in the second row", header + body + badInt + trailer, sqlerr.InvalidBinaryRepresentation,
			"incorrect binary data format for type int4", "COPY cb, line 2, column id"},
		{"field count", header + body + "\x00\x01\x00\x00\x00\x01a" + trailer, sqlerr.BadCopyFileFormat,
			"row field count is 1, expected 2", "COPY cb, line 2"},
		{"truncated", header + body + body[:12], sqlerr.BadCopyFileFormat, "unexpected EOF in COPY data", "COPY cb, line 2, column v"},
		{"too long", header + body + binaryRows(t, int4Text, []string{"6", "long"})[19:], sqlerr.StringDataRightTruncation,
			"value too long for type character varying(3)", "COPY cb, line 2, column v"},
		{"not null", header + body + binaryRows(t, int4Text, []string{"NULL", "a"})[19:], sqlerr.NotNullViolation,
			`null value in column "id" of relation "cb" violates not-null constraint`, ""},
		{"after the trailer", header + body + trailer + "x", sqlerr.BadCopyFileFormat, "received copy data after EOF marker", "COPY cb, line 2"},
	} {
		err := env.copyIn(s, "COPY cb (id, v) FROM STDIN (FORMAT binary)", tc.data)
		e := sqlerr.From(err)
		if err == nil || e.Code != tc.code || e.Message != tc.msg || e.Detail != tc.detail {
			t.Errorf("%s: %v (%s, detail %q), want %s %q detail %q", tc.name, err, e.Code, e.Detail, tc.code, tc.msg, tc.detail)
		}
	}
	if got := env.query(s, "SELECT * FROM cb"); got != "1,ab,7 2,NULL,7" {
		t.Errorf("failed COPYs wrote: %s", got)
	}
	if got := env.query(s, "SELECT * FROM cb_k"); got != "7,2" {
		t.Errorf("view after failed COPYs: %s", got)
	}
	// The text format reports a bad value in the same words.
	err := env.copyIn(s, "COPY cb (id, v) FROM STDIN", "8\tok\nx\tbad\n")
	if e := sqlerr.From(err); e == nil || e.Code != sqlerr.InvalidTextRepresentation ||
		e.Message != `invalid input syntax for type integer: "x"` || e.Detail != "COPY cb, line 2, column id" {
		t.Errorf("text COPY of a bad value: %v (%s, detail %q)", err, e.Code, e.Detail)
	}
	// A type without a binary format is refused before any data.
	env.exec(s, "CREATE TABLE creg (r regclass)")
	env.fails(s, "COPY creg FROM STDIN (FORMAT binary)", sqlerr.UndefinedFunction, "no binary input function available for type with OID 2205", "")
	if binary.BigEndian.Uint16([]byte(goodRow[19:21])) != 2 {
		t.Fatalf("test data: %q", goodRow)
	}
}
