package e2e

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestPgxTime writes and reads time and time[] with pgx: parameters and
// results in the binary format (int64 microseconds since midnight), a
// binary COPY in, then the text format as PostgreSQL 15 prints it.
func TestPgxTime(t *testing.T) {
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "")
	if _, err := conn.Exec(ctx, `CREATE TABLE tt (id int, at time, ats time[])`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE MATERIALIZED VIEW tt_max AS SELECT max(at) AS m FROM tt`); err != nil {
		t.Fatal(err)
	}
	noon := pgtype.Time{Microseconds: 12*3600e6 + 1, Valid: true}
	end := pgtype.Time{Microseconds: 24 * 3600e6, Valid: true}
	if _, err := conn.Exec(ctx, `INSERT INTO tt VALUES (1, $1, $2)`, noon, []pgtype.Time{noon, {}}); err != nil {
		t.Fatal(err)
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"tt"}, []string{"id", "at"}, pgx.CopyFromRows([][]any{{2, end}, {3, nil}}))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	var got pgtype.Time
	var gots []pgtype.Time
	if err := conn.QueryRow(ctx, `SELECT at, ats FROM tt WHERE at = $1`, noon).Scan(&got, &gots); err != nil {
		t.Fatal(err)
	}
	if got != noon || !reflect.DeepEqual(gots, []pgtype.Time{noon, {}}) {
		t.Errorf("binary: read %v %v", got, gots)
	}
	if err := conn.QueryRow(ctx, `SELECT m FROM tt_max`).Scan(&got); err != nil || got != end {
		t.Errorf("view: %v %v", got, err)
	}
	rows, err := conn.Query(ctx, `SELECT at, ats FROM tt ORDER BY id`, pgx.QueryResultFormats{pgx.TextFormatCode})
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
	want := []string{"12:00:00.000001", "{12:00:00.000001,NULL}", "24:00:00", "", "", ""}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("text format: %q, want %q", texts, want)
	}
}
