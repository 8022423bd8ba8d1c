package pgwire

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"freshet/sqlerr"
)

// TestMaxConnections: past MaxConnections sessions a new client gets
// FATAL 53300 with PostgreSQL's message and nothing else changes; a
// session that ends makes room again; cancel requests are never counted.
func TestMaxConnections(t *testing.T) {
	ts := startServer(t, newFakeBackend(), func(s *Server) { s.MaxConnections = 2 })
	ctx := testContext(t)
	var conns []*pgx.Conn
	for range 2 {
		c, err := pgx.Connect(ctx, ts.connString())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	_, err := pgx.Connect(ctx, ts.connString())
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != sqlerr.TooManyConnections || pe.Message != "sorry, too many clients already" || pe.Severity != "FATAL" {
		t.Fatalf("a third connection: %v, want FATAL 53300", err)
	}
	// The sessions let in are unaffected, and can still be canceled.
	if _, err := conns[0].Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if err := conns[1].PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	conns[0].Close(ctx)
	// The server counts the session out when its connection ends, which
	// follows the client's Terminate.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := pgx.Connect(ctx, ts.connString())
		if err == nil {
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a session ended: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	conns[1].Close(ctx)
}
