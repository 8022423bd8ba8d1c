package e2e

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPgxCatalogTypes reads arrays, oid, name, "char", int2vector and a
// timestamptz in a session time zone with pgx, which asks for the
// binary format of every type it knows, and checks the Go values: what
// PostgreSQL 15 gives for the same statements.
func TestPgxCatalogTypes(t *testing.T) {
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "&timezone=America/New_York")
	if _, err := conn.Exec(ctx, `CREATE TABLE pt (id int PRIMARY KEY, ints int[], texts text[], o oid, n name, ch "char", ts timestamptz)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO pt VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		1, []int32{3, 1, 2}, []string{"a", "b c", ""}, uint32(4294967295), "orders", "r", "2024-07-01 08:00"); err != nil {
		t.Fatal(err)
	}
	var (
		ints  []int32
		texts []string
		o     uint32
		n, ch string
		ts    time.Time
		zone  string
	)
	err := conn.QueryRow(ctx, `SELECT ints, texts, o, n, ch, ts, current_setting('TimeZone') FROM pt WHERE id = $1`, 1).
		Scan(&ints, &texts, &o, &n, &ch, &ts, &zone)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ints, []int32{3, 1, 2}) || !reflect.DeepEqual(texts, []string{"a", "b c", ""}) ||
		o != 4294967295 || n != "orders" || ch != "r" || zone != "America/New_York" {
		t.Errorf("read %v %q %d %q %q %s", ints, texts, o, n, ch, zone)
	}
	// A timestamptz written without an offset is a wall-clock time in
	// the session's zone (the startup parameter): 08:00 EDT is 12:00 UTC.
	if want := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC); !ts.Equal(want) {
		t.Errorf("timestamptz %s, want %s", ts.UTC(), want)
	}
	var indkey []int16
	var relname string
	err = conn.QueryRow(ctx, `SELECT i.indkey::int2[], c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = 'pt'`).Scan(&indkey, &relname)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(indkey, []int16{1}) || relname != "pt" {
		t.Errorf("pg_index of pt's key: %v %q", indkey, relname)
	}
}

// TestPgxUUIDBytea writes and reads uuid, bytea and their arrays with
// pgx: parameters and results in the binary format (uuid as its 16
// bytes, bytea as its bytes), and then the same values in the text
// format, as PostgreSQL 15 prints them.
func TestPgxUUIDBytea(t *testing.T) {
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "")
	if _, err := conn.Exec(ctx, `CREATE TABLE ub (id uuid PRIMARY KEY, b bytea, ids uuid[], bs bytea[])`); err != nil {
		t.Fatal(err)
	}
	id := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	blob := []byte{0, 1, '\\', 'x', 0xff}
	if _, err := conn.Exec(ctx, `INSERT INTO ub VALUES ($1, $2, $3, $4), ($5, $6, NULL, NULL)`,
		id, blob, [][16]byte{id, {}}, [][]byte{blob, {}},
		[16]byte{15: 1}, []byte{}); err != nil {
		t.Fatal(err)
	}
	var (
		gotID  [16]byte
		gotB   []byte
		gotIDs [][16]byte
		gotBs  [][]byte
	)
	err := conn.QueryRow(ctx, `SELECT id, b, ids, bs FROM ub WHERE b = $1`, blob).Scan(&gotID, &gotB, &gotIDs, &gotBs)
	if err != nil {
		t.Fatal(err)
	}
	if gotID != id || !reflect.DeepEqual(gotB, blob) || !reflect.DeepEqual(gotIDs, [][16]byte{id, {}}) ||
		!reflect.DeepEqual(gotBs, [][]byte{blob, {}}) {
		t.Errorf("binary: read %x %x %x %x", gotID, gotB, gotIDs, gotBs)
	}
	var empty []byte
	if err := conn.QueryRow(ctx, `SELECT b FROM ub WHERE id = $1`, "00000000-0000-0000-0000-000000000001").Scan(&empty); err != nil {
		t.Fatal(err)
	}
	if empty == nil || len(empty) != 0 {
		t.Errorf("empty bytea read as %#v", empty)
	}
	// The text format, as PostgreSQL prints it (bytea_output hex).
	rows, err := conn.Query(ctx, `SELECT id, b, ids, bs FROM ub ORDER BY id`, pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for rows.Next() {
		for _, v := range rows.RawValues() {
			texts = append(texts, string(v))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"00000000-0000-0000-0000-000000000001", `\x`, "", "",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `\x00015c78ff`,
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,00000000-0000-0000-0000-000000000000}", `{"\\x00015c78ff","\\x"}`}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("text format: %q, want %q", texts, want)
	}
}
