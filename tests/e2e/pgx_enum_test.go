package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPgxEnumParams sends enum values as parameters: typed by the
// statement (the column's type), and typed by the client with the OID
// it read from a RowDescription, as PostgreSQL 15 takes them; a label
// the enum lacks is 22P02.
func TestPgxEnumParams(t *testing.T) {
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "")
	for _, sql := range []string{
		"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
		"CREATE TABLE pm (id int, m mood, ms mood[])",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "INSERT INTO pm VALUES ($1, $2, $3)", 1, "happy", "{sad,ok}"); err != nil {
		t.Fatal(err)
	}
	pc := conn.PgConn()
	sd, err := pc.Prepare(ctx, "", "SELECT m, ms FROM pm", nil)
	if err != nil {
		t.Fatal(err)
	}
	enumOID, arrayOID := sd.Fields[0].DataTypeOID, sd.Fields[1].DataTypeOID
	if enumOID < 16384 || arrayOID != enumOID+1 {
		t.Fatalf("result OIDs %d and %d", enumOID, arrayOID)
	}
	sd, err = pc.Prepare(ctx, "typed", "INSERT INTO pm VALUES (2, $1, $2)", []uint32{enumOID, arrayOID})
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 2 || sd.ParamOIDs[0] != enumOID || sd.ParamOIDs[1] != arrayOID {
		t.Errorf("parameter OIDs %v, want [%d %d]", sd.ParamOIDs, enumOID, arrayOID)
	}
	if _, err := pc.ExecPrepared(ctx, "typed", [][]byte{[]byte("ok"), []byte("{happy}")}, nil, nil).Close(); err != nil {
		t.Fatal(err)
	}
	_, err = pc.ExecPrepared(ctx, "typed", [][]byte{[]byte("meh"), nil}, nil, nil).Close()
	if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != "22P02" || pe.Message != `invalid input value for enum mood: "meh"` {
		t.Errorf("bad label: %v", err)
	}
	var got string
	if err := conn.QueryRow(ctx, "SELECT string_agg(m::text || ':' || ms::text, ' ' ORDER BY id) FROM pm WHERE m >= $1", "ok").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "happy:{sad,ok} ok:{happy}" {
		t.Errorf("rows %q", got)
	}
}
