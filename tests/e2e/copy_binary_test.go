package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// copyRow is one row of TestPgxCopyBinary's table, as Go values; nil is
// NULL.
type copyRow []any

const copyColumns = "id, i, f, n, t, ts, d, b, u, by, ia, j"

// randomCopyRows returns n seeded random rows of mixed types, about one
// value in six NULL.
func randomCopyRows(rng *rand.Rand, n int) []copyRow {
	rows := make([]copyRow, n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := range rows {
		var u [16]byte
		for j := range u {
			u[j] = byte(rng.UintN(256))
		}
		row := copyRow{
			int64(k),
			int32(rng.IntN(2000) - 1000),
			rng.NormFloat64() * 1e3,
			pgtype.Numeric{Int: big.NewInt(rng.Int64N(2e6) - 1e6), Exp: -2, Valid: true},
			fmt.Sprintf("row %d\t\"%c\" é", k, 'a'+rune(rng.IntN(26))),
			base.Add(time.Duration(rng.Int64N(1e15)) * time.Microsecond),
			base.AddDate(0, 0, rng.IntN(5000)-2500),
			rng.IntN(2) == 0,
			u,
			[]byte{byte(k), 0, 0x5c, byte(rng.UintN(256))},
			[]int32{int32(k), int32(rng.IntN(10))},
			map[string]any{"k": float64(k), "s": "x"},
		}
		for i := 1; i < len(row); i++ {
			if rng.IntN(6) == 0 {
				row[i] = nil
			}
		}
		rows[k] = row
	}
	return rows
}

// TestPgxCopyBinary loads 10,000 rows of mixed types and NULLs with
// pgx's CopyFrom, which sends the binary COPY format, into a table under
// a materialized view; checks the view against the rows; reads the table
// back with COPY … TO STDOUT (FORMAT binary), decoded with pgx's codecs;
// and sends a COPY with a bad value, which fails with 22P03 and writes
// nothing.
func TestPgxCopyBinary(t *testing.T) {
	const seed = 20240601
	t.Logf("seed %d", seed)
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "")
	for _, sql := range []string{
		`CREATE TABLE cf (id int8 NOT NULL, i int4, f float8, n numeric(12,2), t text, ts timestamptz, d date, b bool,
			u uuid, by bytea, ia int4[], j jsonb)`,
		`CREATE MATERIALIZED VIEW cf_by_b AS SELECT b, count(*) AS rows, count(t) AS texts, sum(i) AS si, sum(n) AS sn FROM cf GROUP BY b`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	rows := randomCopyRows(rand.New(rand.NewPCG(seed, 1)), 10000)
	src := make([][]any, len(rows))
	for i, r := range rows {
		src[i] = r
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"cf"}, strings.Split(copyColumns, ", "), pgx.CopyFromRows(src))
	if err != nil || n != int64(len(rows)) {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}

	// The view, computed in Go from the rows.
	type group struct{ rows, texts, si, sn int64 }
	want := map[string]*group{}
	for _, r := range rows {
		key := "NULL"
		if r[7] != nil {
			key = fmt.Sprint(r[7])
		}
		g := want[key]
		if g == nil {
			g = &group{}
			want[key] = g
		}
		g.rows++
		if r[4] != nil {
			g.texts++
		}
		if r[1] != nil {
			g.si += int64(r[1].(int32))
		}
		if r[3] != nil {
			g.sn += r[3].(pgtype.Numeric).Int.Int64()
		}
	}
	var wantView, gotView []string
	for _, k := range []string{"false", "true", "NULL"} {
		if g := want[k]; g != nil {
			wantView = append(wantView, fmt.Sprintf("%s %d %d %d %s", k, g.rows, g.texts, g.si, centsText(g.sn)))
		}
	}
	vr, err := conn.Query(ctx, "SELECT coalesce(b::text, 'NULL'), rows, texts, si, sn::text FROM cf_by_b ORDER BY b")
	if err != nil {
		t.Fatal(err)
	}
	for vr.Next() {
		var b, sn string
		var nrows, texts, si int64
		if err := vr.Scan(&b, &nrows, &texts, &si, &sn); err != nil {
			t.Fatal(err)
		}
		gotView = append(gotView, fmt.Sprintf("%s %d %d %d %s", b, nrows, texts, si, sn))
	}
	if err := vr.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotView, wantView) {
		t.Errorf("view:\n got %q\nwant %q", gotView, wantView)
	}

	// COPY TO STDOUT in the binary format, decoded with pgx's codecs.
	var out bytes.Buffer
	tag, err := conn.PgConn().CopyTo(ctx, &out, "COPY (SELECT "+copyColumns+" FROM cf ORDER BY id) TO STDOUT (FORMAT binary)")
	if err != nil || tag.String() != "COPY 10000" {
		t.Fatalf("CopyTo: %s, %v", tag, err)
	}
	oids := []uint32{pgtype.Int8OID, pgtype.Int4OID, pgtype.Float8OID, pgtype.NumericOID, pgtype.TextOID, pgtype.TimestamptzOID,
		pgtype.DateOID, pgtype.BoolOID, pgtype.UUIDOID, pgtype.ByteaOID, pgtype.Int4ArrayOID, pgtype.JSONBOID}
	got, err := decodeBinaryCopy(conn.TypeMap(), out.Bytes(), oids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, want %d", len(got), len(rows))
	}
	for k := range rows {
		if !sameRow(got[k], rows[k]) {
			t.Fatalf("row %d read back as %v, want %v", k, got[k], rows[k])
		}
	}

	// A value that does not decode fails the whole COPY: 22P03, nothing
	// written, the session usable.
	var bad []byte
	bad = append(bad, "PGCOPY\n\xff\r\n\x00"...)
	bad = binary.BigEndian.AppendUint64(bad, 0)
	for k := range 3 {
		bad = binary.BigEndian.AppendUint16(bad, 2)
		bad = binary.BigEndian.AppendUint32(bad, 8)
		bad = binary.BigEndian.AppendUint64(bad, uint64(20000+k))
		size := uint32(4)
		if k == 2 {
			size = 3 // an int4 of three bytes
		}
		bad = binary.BigEndian.AppendUint32(bad, size)
		bad = append(bad, make([]byte, size)...)
	}
	bad = binary.BigEndian.AppendUint16(bad, 0xFFFF)
	_, err = conn.PgConn().CopyFrom(ctx, bytes.NewReader(bad), "COPY cf (id, i) FROM STDIN (FORMAT binary)")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22P03" || pgErr.Detail != "COPY cf, line 3, column i" {
		t.Fatalf("bad COPY: %v", err)
	}
	var count int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM cf").Scan(&count); err != nil || count != int64(len(rows)) {
		t.Fatalf("after the failed COPY: %d rows, %v", count, err)
	}
	if err := conn.QueryRow(ctx, "SELECT sum(rows) FROM cf_by_b").Scan(&count); err != nil || count != int64(len(rows)) {
		t.Fatalf("view after the failed COPY: %d rows, %v", count, err)
	}
}

// centsText prints an amount of cents as numeric(12,2) prints it.
func centsText(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// decodeBinaryCopy reads binary COPY data: the signature, flags and
// header extension, then tuples up to the trailer, each field decoded by
// its type's binary codec.
func decodeBinaryCopy(m *pgtype.Map, data []byte, oids []uint32) ([][]any, error) {
	const sig = "PGCOPY\n\xff\r\n\x00"
	if !bytes.HasPrefix(data, []byte(sig)) || len(data) < len(sig)+8 {
		return nil, fmt.Errorf("no COPY header: %q", data[:min(len(data), 19)])
	}
	if flags := binary.BigEndian.Uint32(data[11:]); flags != 0 {
		return nil, fmt.Errorf("flags %x", flags)
	}
	p := 19 + int(binary.BigEndian.Uint32(data[15:]))
	var rows [][]any
	for {
		if p+2 > len(data) {
			return nil, errors.New("no trailer")
		}
		count := int16(binary.BigEndian.Uint16(data[p:]))
		p += 2
		if count == -1 {
			if p != len(data) {
				return nil, errors.New("data after the trailer")
			}
			return rows, nil
		}
		if int(count) != len(oids) {
			return nil, fmt.Errorf("tuple of %d fields", count)
		}
		row := make([]any, count)
		for i, oid := range oids {
			size := int32(binary.BigEndian.Uint32(data[p:]))
			p += 4
			if size == -1 {
				continue
			}
			v, err := decodeValue(m, oid, data[p:p+int(size)])
			if err != nil {
				return nil, fmt.Errorf("tuple %d field %d: %w", len(rows)+1, i, err)
			}
			row[i] = v
			p += int(size)
		}
		rows = append(rows, row)
	}
}

func decodeValue(m *pgtype.Map, oid uint32, b []byte) (any, error) {
	var err error
	switch oid {
	case pgtype.Int8OID:
		var v int64
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.Int4OID:
		var v int32
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.Float8OID:
		var v float64
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.NumericOID:
		var v pgtype.Numeric
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.TextOID:
		var v string
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.TimestamptzOID, pgtype.DateOID:
		var v time.Time
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.BoolOID:
		var v bool
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.UUIDOID:
		var v [16]byte
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.ByteaOID:
		var v []byte
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.Int4ArrayOID:
		var v []int32
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	case pgtype.JSONBOID:
		var v map[string]any
		err = m.Scan(oid, pgtype.BinaryFormatCode, b, &v)
		return v, err
	}
	return nil, fmt.Errorf("no decoder for OID %d", oid)
}

// sameRow reports whether a row read back equals the row written:
// numerics by value, times as instants.
func sameRow(got []any, want copyRow) bool {
	for i := range want {
		switch w := want[i].(type) {
		case pgtype.Numeric:
			g, ok := got[i].(pgtype.Numeric)
			if !ok || numericRat(g).Cmp(numericRat(w)) != 0 {
				return false
			}
		case time.Time:
			g, ok := got[i].(time.Time)
			if !ok || !g.Equal(w) {
				return false
			}
		default:
			if !reflect.DeepEqual(got[i], want[i]) {
				return false
			}
		}
	}
	return true
}

func numericRat(n pgtype.Numeric) *big.Rat {
	r := new(big.Rat).SetInt(n.Int)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(n.Exp))), nil))
	if n.Exp < 0 {
		return r.Quo(r, scale)
	}
	return r.Mul(r, scale)
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// TestPsycopg2CopyBinary: psycopg2's copy_expert, with data it builds
// itself in the binary format, into a table and back out.
func TestPsycopg2CopyBinary(t *testing.T) {
	if err := exec.Command(systemPython, "-c", "import psycopg2").Run(); err != nil {
		t.Fatalf("psycopg2 is required (apt-get install python3-psycopg2): %v", err)
	}
	s := startBinary(t)
	s.must("CREATE TABLE pc (a int, b text, c float8)")
	script := `
import io, struct, sys, psycopg2
conn = psycopg2.connect(sys.argv[1]); conn.autocommit = True
cur = conn.cursor()
def field(b): return struct.pack("!i", len(b)) + b
data = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
data += struct.pack("!h", 3) + field(struct.pack("!i", 7)) + field("héllo".encode()) + field(struct.pack("!d", 2.5))
data += struct.pack("!h", 3) + struct.pack("!i", -1) + field(b"") + struct.pack("!i", -1)
data += struct.pack("!h", -1)
cur.copy_expert("COPY pc FROM STDIN (FORMAT binary)", io.BytesIO(data))
print(cur.rowcount)
cur.execute("SELECT a, b, c FROM pc ORDER BY a")
print(cur.fetchall())
out = io.BytesIO()
cur.copy_expert("COPY (SELECT a, b, c FROM pc ORDER BY a) TO STDOUT (FORMAT binary)", out)
raw = out.getvalue()
assert raw[:11] == b"PGCOPY\n\xff\r\n\x00", raw
p = 19
rows = []
while True:
    (n,) = struct.unpack_from("!h", raw, p); p += 2
    if n == -1: break
    row = []
    for fmt in ("!i", None, "!d"):
        (size,) = struct.unpack_from("!i", raw, p); p += 4
        if size == -1: row.append(None); continue
        b = raw[p:p+size]; p += size
        row.append(struct.unpack(fmt, b)[0] if fmt else b.decode())
    rows.append(tuple(row))
print(rows, p == len(raw))
try:
    cur.copy_expert("COPY pc FROM STDIN (FORMAT binary)", io.BytesIO(b"PGCOPY\n\xff\r\n\x01"))
except psycopg2.Error as e:
    print(e.pgcode, e.pgerror.splitlines()[0])
`
	out, err := exec.Command(systemPython, "-c", script, "postgresql://u@"+s.addr+"/freshet").CombinedOutput()
	if err != nil {
		t.Fatalf("psycopg2: %v\n%s", err, out)
	}
	want := "2\n[(7, 'héllo', 2.5), (None, '', None)]\n[(7, 'héllo', 2.5), (None, '', None)] True\n22P04 ERROR:  COPY file signature not recognized\n"
	if string(out) != want {
		t.Errorf("psycopg2:\n got %q\nwant %q", out, want)
	}
}
