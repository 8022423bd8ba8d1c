package pgwire

import (
	"errors"
	"strings"
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

// TestIdleInTransactionTimeout: a client silent inside a transaction
// block for longer than idle_in_transaction_session_timeout is
// disconnected with FATAL 25P03; outside a block, silence is free.
func TestIdleInTransactionTimeout(t *testing.T) {
	ts := startServer(t, newFakeBackend())
	ctx := testContext(t)
	c, err := pgx.Connect(ctx, ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "SET idle_in_transaction_session_timeout = '30ms'"); err != nil {
		t.Fatal(err)
	}
	// Idle outside a block: never ended.
	time.Sleep(100 * time.Millisecond)
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatalf("after idling outside a block: %v", err)
	}
	// Idle inside: the server ends the connection; the client's next
	// command finds it gone.
	deadline := time.Now().Add(10 * time.Second)
	for !c.PgConn().IsClosed() {
		_, err = c.Exec(ctx, "SELECT 1")
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a session idle in a transaction block was never ended")
		}
		time.Sleep(60 * time.Millisecond)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != sqlerr.IdleInTransactionSessionTimeout || pe.Severity != "FATAL" {
		t.Fatalf("the session ended with %v, want FATAL 25P03", err)
	}
}

// TestSuperuserReservedConnections: the last slots of MaxConnections are
// kept for superusers, as PostgreSQL's superuser_reserved_connections.
func TestSuperuserReservedConnections(t *testing.T) {
	ts := startServer(t, newFakeBackend(), func(s *Server) { s.MaxConnections, s.SuperuserReservedConnections = 3, 1 })
	ctx := testContext(t)
	admin := strings.Replace(ts.connString(), "postgres://u@", "postgres://admin@", 1)
	var conns []*pgx.Conn
	defer func() {
		for _, c := range conns {
			c.Close(ctx)
		}
	}()
	connect := func(url string) error {
		c, err := pgx.Connect(ctx, url)
		if err == nil {
			conns = append(conns, c)
		}
		return err
	}
	for range 2 {
		if err := connect(ts.connString()); err != nil {
			t.Fatal(err)
		}
	}
	var pe *pgconn.PgError
	if err := connect(ts.connString()); !errors.As(err, &pe) || pe.Code != sqlerr.TooManyConnections ||
		pe.Message != "remaining connection slots are reserved for non-replication superuser connections" || pe.Severity != "FATAL" {
		t.Fatalf("a third ordinary connection: %v, want FATAL 53300 for the reserve", err)
	}
	if err := connect(admin); err != nil {
		t.Fatalf("a superuser in the reserved slot: %v", err)
	}
	if err := connect(admin); !errors.As(err, &pe) || pe.Code != sqlerr.TooManyConnections || pe.Message != "sorry, too many clients already" {
		t.Fatalf("a superuser past max_connections: %v, want 53300", err)
	}
}
