package e2e

import (
	"context"
	"fmt"
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
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/freshet?sslmode=disable&timezone=America/New_York", s.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
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
	err = conn.QueryRow(ctx, `SELECT ints, texts, o, n, ch, ts, current_setting('TimeZone') FROM pt WHERE id = $1`, 1).
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
