package coord

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestCopyEnum copies enums and arrays of enums in and out in the text,
// CSV and binary formats; the data and errors are PostgreSQL 15's for
// the same statements (checked with psql against a PostgreSQL 15
// server). A bad label fails the whole COPY, which writes nothing.
func TestCopyEnum(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TYPE feel AS ENUM ('low', 'mid', 'high')")
	env.exec(s, "CREATE TABLE fc (id int, f feel, fs feel[])")
	env.exec(s, "CREATE MATERIALIZED VIEW fc_n AS SELECT f, count(*) AS n FROM fc GROUP BY f")
	if err := env.copyIn(s, "COPY fc FROM STDIN", "1\tlow\t{low,high}\n2\t\\N\t{}\n"); err != nil {
		t.Fatal(err)
	}
	err := env.copyIn(s, "COPY fc FROM STDIN (FORMAT csv)", "3,\"high\",\"{mid}\"\n4,x,\n")
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.InvalidTextRepresentation ||
		e.Message != `invalid input value for enum feel: "x"` || e.Detail != "COPY fc, line 2, column f" {
		t.Errorf("bad label: %v (%s, detail %q)", err, e.Code, e.Detail)
	}
	err = env.copyIn(s, "COPY fc FROM STDIN", "5\tmid\t{mid,nope}\n")
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.InvalidTextRepresentation ||
		e.Message != `invalid input value for enum feel: "nope"` || e.Detail != "COPY fc, line 1, column fs" {
		t.Errorf("bad label in an array: %v (%s, detail %q)", err, e.Code, e.Detail)
	}
	if got := env.query(s, "SELECT count(*) FROM fc"); got != "2" {
		t.Errorf("failed COPYs wrote: %s rows", got)
	}
	if err := env.copyIn(s, "COPY fc FROM STDIN (FORMAT csv)", "3,\"high\",\"{mid}\"\n4,,\n"); err != nil {
		t.Fatal(err)
	}
	if got := env.copyOut(s, "COPY (SELECT * FROM fc ORDER BY id) TO STDOUT"); got != "1\tlow\t{low,high}\n2\t\\N\t{}\n3\thigh\t{mid}\n4\t\\N\t\\N\n" {
		t.Errorf("text: %q", got)
	}
	if got := env.copyOut(s, "COPY (SELECT * FROM fc ORDER BY id) TO STDOUT (FORMAT csv)"); got != "1,low,\"{low,high}\"\n2,,{}\n3,high,{mid}\n4,,\n" {
		t.Errorf("csv: %q", got)
	}
	if got := env.query(s, "SELECT f, n FROM fc_n"); got != "NULL,2 high,1 low,1" {
		t.Errorf("view: %s", got)
	}

	// Binary: an enum's value is its label's bytes, as text's is.
	data := env.copyOut(s, "COPY (SELECT id, f FROM fc ORDER BY id) TO STDOUT (FORMAT binary)")
	want := binaryRows(t, []uint32{23, 25}, []string{"1", "low"}, []string{"2", "NULL"}, []string{"3", "high"}, []string{"4", "NULL"})
	if data != want {
		t.Errorf("binary:\n%q\nwant\n%q", data, want)
	}
	env.exec(s, "CREATE TABLE fc2 (id int, f feel)")
	if err := env.copyIn(s, "COPY fc2 FROM STDIN (FORMAT binary)", data); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT id, f FROM fc2 WHERE f > 'low' OR f IS NULL "); got != "2,NULL 3,high 4,NULL" {
		t.Errorf("binary COPY FROM: %s", got)
	}
	err = env.copyIn(s, "COPY fc2 FROM STDIN (FORMAT binary)", binaryRows(t, []uint32{23, 25}, []string{"5", "Low"}))
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.InvalidTextRepresentation ||
		e.Message != `invalid input value for enum feel: "Low"` || e.Detail != "COPY fc2, line 1, column f" {
		t.Errorf("binary bad label: %v (%s, detail %q)", err, e.Code, e.Detail)
	}

	// Binary arrays of the enum: array_send's layout with the enum's
	// OID as the element type, as PostgreSQL 15 writes it.
	oid, err := strconv.ParseUint(env.query(s, "SELECT oid FROM pg_type WHERE typname = 'feel'"), 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	elem := fmt.Sprintf("%08x", oid)
	data = env.copyOut(s, "COPY (SELECT fs FROM fc WHERE id < 4 ORDER BY id) TO STDOUT (FORMAT binary)")
	want = "5047434f50590aff0d0a00" + "00000000" + "00000000" +
		"0001" + "00000023" + "00000001" + "00000000" + elem + "00000002" + "00000001" + "000000036c6f77" + "0000000468696768" +
		"0001" + "0000000c" + "00000000" + "00000000" + elem +
		"0001" + "0000001b" + "00000001" + "00000000" + elem + "00000001" + "00000001" + "000000036d6964" +
		"ffff"
	if got := fmt.Sprintf("%x", data); got != want {
		t.Errorf("binary feel[]:\n%s\nwant\n%s", got, want)
	}
	env.exec(s, "CREATE TABLE fc3 (fs feel[])")
	if err := env.copyIn(s, "COPY fc3 FROM STDIN (FORMAT binary)", data); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT fs FROM fc3"); got != "{low,high} {mid} {}" {
		t.Errorf("binary COPY FROM of feel[]: %s", got)
	}
	bad, _ := hex.DecodeString(strings.Replace(want, "000000036d6964", "000000036d6978", 1))
	err = env.copyIn(s, "COPY fc3 FROM STDIN (FORMAT binary)", string(bad))
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.InvalidTextRepresentation ||
		e.Message != `invalid input value for enum feel: "mix"` || e.Detail != "COPY fc3, line 3, column fs" {
		t.Errorf("binary bad label in an array: %v (%s, detail %q)", err, e.Code, e.Detail)
	}

	// A label added after the COPY was planned is read by the next one.
	env.exec(s, "ALTER TYPE feel ADD VALUE 'wild'")
	if err := env.copyIn(s, "COPY fc2 FROM STDIN", "6\twild\n"); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT id FROM fc2 WHERE f > 'high'"); got != "6" {
		t.Errorf("added label: %s", got)
	}
}
