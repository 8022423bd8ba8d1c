package pgwire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"freshet/sqlerr"
)

// pgCopyOut is what PostgreSQL 15 sends for COPY t TO STDOUT (FORMAT
// binary) of a table (a int, b text) holding (1, 'x') and (NULL, NULL).
const pgCopyOut = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x02\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00\x01x" +
	"\x00\x02\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff"

func TestBinaryCopyMatchesPostgres(t *testing.T) {
	c, err := NewBinaryCopy([]uint32{oidInt4, oidText}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := c.AppendHeader(nil)
	for _, row := range [][][]byte{{[]byte("1"), []byte("x")}, {nil, nil}} {
		if buf, err = c.AppendRow(buf, row); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(c.AppendTrailer(buf)); got != pgCopyOut {
		t.Errorf("wrote %q\nwant  %q", got, pgCopyOut)
	}
	rows, err := readAll(c, pgCopyOut)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%q", rows); got != `[["1" "x"] ["NULL" "NULL"]]` {
		t.Errorf("read %s", got)
	}
}

// readAll reads every tuple of data, NULLs as "NULL".
func readAll(c *BinaryCopy, data string) ([][]string, error) {
	r := c.NewReader(strings.NewReader(data))
	var rows [][]string
	for {
		vals, err := r.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = "NULL"
			if v != nil {
				row[i] = string(v)
			}
		}
		rows = append(rows, row)
	}
}

// copyTypes are the column types of a binary COPY, each with a generator
// of random values in the text format in which the session prints them.
var copyTypes = []struct {
	oid  uint32
	rand func(*rand.Rand) string
}{
	{oidBool, func(r *rand.Rand) string { return pick(r, []string{"t", "f"}) }},
	{oidInt2, func(r *rand.Rand) string { return strconv.Itoa(int(int16(r.Uint32()))) }},
	{oidInt4, func(r *rand.Rand) string { return strconv.Itoa(int(int32(r.Uint32()))) }},
	{oidInt8, func(r *rand.Rand) string { return strconv.FormatInt(int64(r.Uint64()), 10) }},
	{oidFloat4, func(r *rand.Rand) string {
		f := pick(r, []float32{float32(r.NormFloat64() * 1e6), float32(math.Inf(-1)), float32(math.NaN()), 0})
		return string(appendFloat(nil, float64(f), 32))
	}},
	{oidFloat8, func(r *rand.Rand) string {
		return string(appendFloat(nil, pick(r, []float64{r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)), math.Inf(1), math.NaN()}), 64))
	}},
	{oidNumeric, randNumeric},
	{oidText, randText},
	{oidVarchar, randText},
	{oidBpchar, randText},
	{oidName, func(r *rand.Rand) string { return "n" + strconv.Itoa(r.IntN(1000)) }},
	{oidChar, func(r *rand.Rand) string { return string(rune('a' + r.IntN(26))) }},
	{oidOID, func(r *rand.Rand) string { return strconv.FormatUint(uint64(r.Uint32()), 10) }},
	{oidDate, func(r *rand.Rand) string {
		return string(appendDate(nil, pgtype.Date{Time: randTime(r).Truncate(24 * time.Hour), Valid: true}))
	}},
	{oidTimestamp, func(r *rand.Rand) string {
		return string(appendTimestamp(nil, randTime(r), pgtype.Finite, false))
	}},
	{oidTimestampTZ, func(r *rand.Rand) string {
		return string(appendTimestamp(nil, randTime(r), pgtype.Finite, true))
	}},
	{oidInterval, func(r *rand.Rand) string {
		return string(appendInterval(nil, pgtype.Interval{Months: int32(r.IntN(400) - 200), Days: int32(r.IntN(100) - 50),
			Microseconds: r.Int64N(1e12) - 5e11, Valid: true}))
	}},
	{oidUUID, func(r *rand.Rand) string {
		b := appendRandomBytes(r, nil, 16)
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
	}},
	{oidBytea, func(r *rand.Rand) string { return fmt.Sprintf(`\x%x`, appendRandomBytes(r, nil, r.IntN(20))) }},
	{oidJSON, func(r *rand.Rand) string { return fmt.Sprintf(`{"k":  %d, "s": %q}`, r.IntN(100), randText(r)) }},
	{oidJSONB, func(r *rand.Rand) string { return fmt.Sprintf(`{"a": [%d, null, true], "b": "x"}`, r.IntN(100)) }},
	{1007, func(r *rand.Rand) string { return fmt.Sprintf("{%d,NULL,%d}", int32(r.Uint32()), r.IntN(9)) }},
	{1009, func(r *rand.Rand) string { return pick(r, []string{`{a,"b c","",NULL,"\"q\"","x\\\\y"}`, "{}", "{z}"}) }},
	{1231, func(r *rand.Rand) string { return "{" + randNumeric(r) + ",NULL}" }},
}

func randNumeric(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return pick(r, []string{"NaN", "Infinity", "-Infinity", "0"})
	}
	s := strconv.FormatUint(r.Uint64()>>r.IntN(64), 10)
	if scale := r.IntN(8); scale > 0 {
		s += "." + strconv.FormatUint(1e8+r.Uint64N(1e8), 10)[9-scale:]
	}
	// Numeric has no negative zero.
	if r.IntN(2) == 0 && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// randText returns a string of letters, spaces, quotes, backslashes,
// tabs, line breaks and characters outside ASCII: every byte COPY's text
// format would have to escape.
func randText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pick(r, []string{"a", "Z", " ", `"`, `\`, "\t", "\n", ",", "{", "é", "☃"}))
	}
	return b.String()
}

func randTime(r *rand.Rand) time.Time {
	return time.Date(1+r.IntN(3000), time.January, 1, 0, 0, 0, 0, time.UTC).
		Add(time.Duration(r.Int64N(365*24*3600*1e6)) * time.Microsecond)
}

// TestBinaryCopyRoundTrip writes seeded random rows of every type with a
// binary format, NULLs among them, and reads them back: each value must
// come back as the text it was written from.
func TestBinaryCopyRoundTrip(t *testing.T) {
	t.Logf("seed %d; replay with: go test ./pgwire -run TestBinaryCopyRoundTrip -seed %d", *seed, *seed)
	rng := rand.New(rand.NewPCG(*seed, 13))
	for trial := range 20 {
		ncols := 1 + rng.IntN(2*len(copyTypes))
		cols := make([]int, ncols)
		oids := make([]uint32, ncols)
		for i := range cols {
			cols[i] = rng.IntN(len(copyTypes))
			if i < len(copyTypes) && trial == 0 {
				cols[i] = i // every type at least once
			}
			oids[i] = copyTypes[cols[i]].oid
		}
		c, err := NewBinaryCopy(oids, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]string
		buf := c.AppendHeader(nil)
		for range rng.IntN(50) {
			row := make([][]byte, ncols)
			text := make([]string, ncols)
			for i, ci := range cols {
				text[i] = "NULL"
				if rng.IntN(5) > 0 {
					v := copyTypes[ci].rand(rng)
					row[i], text[i] = []byte(v), v
				}
			}
			if buf, err = c.AppendRow(buf, row); err != nil {
				t.Fatalf("oids %v: writing %q: %v", oids, text, err)
			}
			want = append(want, text)
		}
		data := string(c.AppendTrailer(buf))
		got, err := readAll(c, data)
		if err != nil {
			t.Fatalf("oids %v: %v", oids, err)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			for i := range min(len(got), len(want)) {
				for j := range got[i] {
					if got[i][j] != want[i][j] {
						t.Fatalf("row %d, column %d of type %d: wrote %q, read %q", i, j, oids[j], want[i][j], got[i][j])
					}
				}
			}
			t.Fatalf("oids %v: read %d rows, wrote %d", oids, len(got), len(want))
		}
	}
}

// TestBinaryCopyMalformed reads broken binary COPY data of rows (int4,
// text): each error, its SQLSTATE and where it was found are what
// PostgreSQL 15 reports for the same bytes (its context's line and
// column: tuple and field here, field -1 for none); some oddities
// PostgreSQL accepts are accepted.
func TestBinaryCopyMalformed(t *testing.T) {
	hdr := func(flags, ext uint32, extData string) string {
		return copySignature + string(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, flags), ext)) + extData
	}
	i32 := func(v int32) string { return string(binary.BigEndian.AppendUint32(nil, uint32(v))) }
	i16 := func(v int16) string { return string(binary.BigEndian.AppendUint16(nil, uint16(v))) }
	field := func(v string) string { return i32(int32(len(v))) + v }
	tuple := func(fields ...string) string { return i16(int16(len(fields))) + strings.Join(fields, "") }
	dropLast := func(s string, n int) string { return s[:len(s)-n] }
	ok := hdr(0, 0, "")
	one := field(i32(1))
	trailer := i16(-1)
	tests := []struct {
		name, data string
		// rows read before the error, or in all if code is empty.
		rows         int
		code, msg    string
		tuple, field int
	}{
		{"empty", "", 0, "22P04", "COPY file signature not recognized", 0, -1},
		{"bad signature", "PGCOPY\n\xff\r\n\x01" + strings.Repeat("\x00", 8), 0, "22P04", "COPY file signature not recognized", 0, -1},
		{"short signature", copySignature[:5], 0, "22P04", "COPY file signature not recognized", 0, -1},
		{"no flags", copySignature + "\x00\x00", 0, "22P04", "invalid COPY file header (missing flags)", 0, -1},
		{"oids", hdr(1<<16, 0, ""), 0, "22P04", "invalid COPY file header (WITH OIDS)", 0, -1},
		{"critical flag", hdr(1<<17, 0, ""), 0, "22P04", "unrecognized critical flags in COPY file header", 0, -1},
		{"no extension length", copySignature + i32(0), 0, "22P04", "invalid COPY file header (missing length)", 0, -1},
		{"negative extension length", copySignature + i32(0) + i32(-1), 0, "22P04", "invalid COPY file header (missing length)", 0, -1},
		{"short extension", hdr(0, 5, "ab"), 0, "22P04", "invalid COPY file header (wrong length)", 0, -1},
		{"low flags and an extension", hdr(1, 5, "hello") + tuple(one, field("x")) + trailer, 1, "", "", 0, 0},
		{"header only", ok, 0, "", "", 0, 0},
		{"no trailer", ok + tuple(one, field("y")), 1, "", "", 0, 0},
		{"stray byte at the end", ok + tuple(one, field("y")) + "\x00", 1, "", "", 0, 0},
		{"too few fields", ok + tuple(one) + trailer, 0, "22P04", "row field count is 1, expected 2", 1, -1},
		{"too many fields", ok + tuple(one, one, one) + trailer, 0, "22P04", "row field count is 3, expected 2", 1, -1},
		{"truncated value", dropLast(ok+tuple(one, field("xyz")), 2), 0, "22P04", "unexpected EOF in COPY data", 1, 1},
		{"truncated length", ok + tuple(one, one)[:len(tuple(one))+2], 0, "22P04", "unexpected EOF in COPY data", 1, 1},
		{"huge length", ok + i16(2) + one + i32(math.MaxInt32) + "abc", 0, "22P04", "unexpected EOF in COPY data", 1, 1},
		{"negative length", ok + i16(2) + i32(-2) + trailer, 0, "22P04", "invalid field size", 1, 0},
		{"int4 of 3 bytes", ok + tuple(field("\x00\x00\x01"), field("x")) + trailer, 0, "22P03", "incorrect binary data format for type int4", 1, 0},
		{"int4 of 5 bytes", ok + tuple(field("\x00\x00\x00\x00\x01"), field("x")) + trailer, 0, "22P03", "incorrect binary data format for type int4", 1, 0},
		{"second row bad", ok + tuple(one, field("ok")) + tuple(field("\x00"), field("x")) + trailer, 1, "22P03", "incorrect binary data format for type int4", 2, 0},
		{"data after the trailer", ok + tuple(one, field("x")) + trailer + "junk", 1, "22P04", "received copy data after EOF marker", 2, -1},
	}
	c, err := NewBinaryCopy([]uint32{oidInt4, oidText}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		r := c.NewReader(strings.NewReader(tt.data))
		rows := 0
		var err error
		for {
			if _, err = r.Next(); err != nil {
				break
			}
			rows++
		}
		if tt.code == "" {
			if err != io.EOF || rows != tt.rows {
				t.Errorf("%s: %d rows, %v; want %d rows", tt.name, rows, err, tt.rows)
			}
			continue
		}
		e := sqlerr.From(err)
		if e.Code != tt.code || e.Message != tt.msg || rows != tt.rows || r.Tuple() != tt.tuple || r.Field() != tt.field {
			t.Errorf("%s: %d rows, %s %q at tuple %d field %d; want %d rows, %s %q at %d %d",
				tt.name, rows, e.Code, e.Message, r.Tuple(), r.Field(), tt.rows, tt.code, tt.msg, tt.tuple, tt.field)
		}
	}
}

// TestBinaryCopyReaderErrors: an error of the underlying stream (a
// CopyFail, a lost connection) is returned as it is, not taken for the
// end of the data.
func TestBinaryCopyReaderErrors(t *testing.T) {
	c, err := NewBinaryCopy([]uint32{oidInt4}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	fail := sqlerr.New(sqlerr.QueryCanceled, "COPY from stdin failed: stop")
	data := c.AppendHeader(nil)
	data, _ = c.AppendRow(data, [][]byte{[]byte("7")})
	for cut := 0; cut <= len(data); cut++ {
		r := c.NewReader(io.MultiReader(bytes.NewReader(data[:cut]), errReader{fail}))
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if err != fail {
			t.Errorf("cut at %d: %v, want the stream's error", cut, err)
		}
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestBinaryCopyTypes: a type without a binary format here is refused
// up front, as the extended protocol refuses binary results of it.
func TestBinaryCopyTypes(t *testing.T) {
	for in, want := range map[bool]string{false: "no binary output function available for type with OID 2205",
		true: "no binary input function available for type with OID 2205"} {
		_, err := NewBinaryCopy([]uint32{oidInt4, 2205}, in, nil)
		if e := sqlerr.From(err); e == nil || e.Code != sqlerr.UndefinedFunction || e.Message != want {
			t.Errorf("regclass, in %v: %v", in, err)
		}
	}
	c, err := NewBinaryCopy([]uint32{oidInt4}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppendRow(nil, nil); sqlerr.Code(err) != sqlerr.InternalError {
		t.Errorf("row of the wrong width: %v", err)
	}
}
