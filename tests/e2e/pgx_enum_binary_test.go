package e2e

import (
	"context"
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxEnumBinary has pgx send and read an enum and an array of it in
// the binary format, with the types registered on the connection as an
// application registers them: CopyFrom (binary COPY), results that pgx
// is told to take in binary, and binary parameters. The values, bytes
// and SQLSTATEs are PostgreSQL 15's for the same exchanges (checked
// against a PostgreSQL 15 server), and so are the messages but one.
func TestPgxEnumBinary(t *testing.T) {
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "")
	for _, sql := range []string{
		"CREATE TYPE mood AS ENUM ('sad', 'ok', 'a b', 'NULL')",
		"CREATE TABLE pb (id int, m mood, ms mood[])",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	var enumOID, arrayOID uint32
	if err := conn.QueryRow(ctx, "SELECT 'mood'::regtype::oid, 'mood[]'::regtype::oid").Scan(&enumOID, &arrayOID); err != nil {
		t.Fatal(err)
	}
	mood := &pgtype.Type{Name: "mood", OID: enumOID, Codec: &pgtype.EnumCodec{}}
	conn.TypeMap().RegisterType(mood)
	conn.TypeMap().RegisterType(&pgtype.Type{Name: "_mood", OID: arrayOID, Codec: &pgtype.ArrayCodec{ElementType: mood}})

	sad, ab, null := "sad", "a b", "NULL"
	rows := [][]any{
		{1, "ok", []*string{&sad, nil, &ab}},
		{2, nil, []*string{}},
		{3, "NULL", nil},
		{4, "a b", []*string{&null}},
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"pb"}, []string{"id", "m", "ms"}, pgx.CopyFromRows(rows))
	if err != nil || n != 4 {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	var text string
	if err := conn.QueryRow(ctx, "SELECT string_agg(coalesce(m::text, '-') || ' ' || coalesce(ms::text, '-'), '; ' ORDER BY id) FROM pb").Scan(&text); err != nil {
		t.Fatal(err)
	}
	if want := `ok {sad,NULL,"a b"}; - {}; NULL -; a b {"NULL"}`; text != want {
		t.Errorf("copied rows: %s, want %s", text, want)
	}

	// Results in binary, read through the registered codecs.
	got, err := conn.Query(ctx, "SELECT m, ms FROM pb ORDER BY id", pgx.QueryResultFormats{pgx.BinaryFormatCode})
	if err != nil {
		t.Fatal(err)
	}
	var read [][]any
	for got.Next() {
		var m pgtype.Text
		var ms pgtype.FlatArray[pgtype.Text]
		if err := got.Scan(&m, &ms); err != nil {
			t.Fatal(err)
		}
		read = append(read, []any{m, ms})
	}
	if err := got.Err(); err != nil {
		t.Fatal(err)
	}
	txt := func(s string) pgtype.Text { return pgtype.Text{String: s, Valid: true} }
	want := [][]any{
		{txt("ok"), pgtype.FlatArray[pgtype.Text]{txt("sad"), {}, txt("a b")}},
		{pgtype.Text{}, pgtype.FlatArray[pgtype.Text]{}},
		{txt("NULL"), pgtype.FlatArray[pgtype.Text](nil)},
		{txt("a b"), pgtype.FlatArray[pgtype.Text]{txt("NULL")}},
	}
	if !reflect.DeepEqual(read, want) {
		t.Errorf("binary results %v, want %v", read, want)
	}

	// The raw bytes of a binary result: array_send's layout.
	pc := conn.PgConn()
	res := pc.ExecParams(ctx, "SELECT m, ms FROM pb WHERE id = 1", nil, nil, nil, []int16{1}).Read()
	if res.Err != nil || len(res.Rows) != 1 {
		t.Fatalf("raw binary result: %v", res.Err)
	}
	array := binary.BigEndian.AppendUint32([]byte{0, 0, 0, 1, 0, 0, 0, 1}, enumOID)
	array = append(array, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 3, 's', 'a', 'd', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3, 'a', ' ', 'b')
	if string(res.Rows[0][0]) != "ok" || string(res.Rows[0][1]) != string(array) {
		t.Errorf("raw binary result %x %x, want %x %x", res.Rows[0][0], res.Rows[0][1], "ok", array)
	}

	// Binary parameters: the same bytes back in, typed by the client.
	res = pc.ExecParams(ctx, "INSERT INTO pb VALUES (5, $1, $2)", [][]byte{[]byte("sad"), array},
		[]uint32{enumOID, arrayOID}, []int16{1, 1}, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// Parameters typed by their use: the enum and its array, so that pgx
	// encodes them with the registered codecs.
	sd, err := pc.Prepare(ctx, "", "INSERT INTO pb VALUES (6, $1, $2)", nil)
	if err != nil || !reflect.DeepEqual(sd.ParamOIDs, []uint32{enumOID, arrayOID}) {
		t.Errorf("parameter OIDs %v, %v; want [%d %d]", sd, err, enumOID, arrayOID)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO pb VALUES (6, $1, $2)", "ok", []string{"a b", "NULL"}); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT string_agg(m::text || ' ' || ms::text, '; ' ORDER BY id) FROM pb WHERE id >= 5").Scan(&text); err != nil {
		t.Fatal(err)
	}
	if want := `sad {sad,NULL,"a b"}; ok {"a b","NULL"}`; text != want {
		t.Errorf("rows from binary parameters: %s, want %s", text, want)
	}
	for _, tt := range []struct {
		params [][]byte
		code   string
		msg    string
	}{
		{[][]byte{[]byte("meh"), nil}, "22P02", `invalid input value for enum mood: "meh"`},
		{[][]byte{nil, append(array[:len(array)-3:len(array)-3], 'm', 'e', 'h')}, "22P02", `invalid input value for enum mood: "meh"`},
		// PostgreSQL's message says "insufficient data left in message".
		{[][]byte{nil, array[:len(array)-1]}, "22P03", "incorrect binary data format in bind parameter 2"},
	} {
		res = pc.ExecParams(ctx, "INSERT INTO pb VALUES (7, $1, $2)", tt.params, []uint32{enumOID, arrayOID}, []int16{1, 1}, nil).Read()
		if pe, ok := res.Err.(*pgconn.PgError); !ok || pe.Code != tt.code || pe.Message != tt.msg {
			t.Errorf("bad binary parameters: %v, want %s %s", res.Err, tt.code, tt.msg)
		}
	}
}
