package pgwire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"freshet/sqlerr"
)

// testCertificate makes a self-signed certificate for localhost.
func testCertificate(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func withTLS(t *testing.T, required bool) func(*Server) {
	cert := testCertificate(t)
	return func(s *Server) {
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.RequireTLS = required
	}
}

func tlsConnString(ts *testServer, sslmode string) string {
	return fmt.Sprintf("postgres://u@%s/freshet?sslmode=%s&connect_timeout=10", ts.addr, sslmode)
}

// TestTLS: with a certificate the server accepts SSLRequest, and a
// session runs over TLS (sslmode=require, as Grafana's PostgreSQL data
// source sends by default); without one, sslmode=require is refused by
// the client and prefer falls back to the clear.
func TestTLS(t *testing.T) {
	ts := startServer(t, newFakeBackend(), withTLS(t, false))
	for _, mode := range []string{"require", "prefer", "disable"} {
		conn, err := pgx.Connect(testContext(t), tlsConnString(ts, mode))
		if err != nil {
			t.Fatalf("sslmode=%s: %v", mode, err)
		}
		if _, isTLS := conn.PgConn().Conn().(*tls.Conn); isTLS != (mode != "disable") {
			t.Errorf("sslmode=%s: connection over TLS is %v", mode, isTLS)
		}
		var n int
		if err := conn.QueryRow(testContext(t), "select 1").Scan(&n); err != nil || n != 1 {
			t.Fatalf("sslmode=%s: select 1 gave %d, %v", mode, n, err)
		}
		conn.Close(testContext(t))
	}

	// A query long enough to be watched: the watcher's read through TLS
	// is interrupted by its deadline when the query ends, and the
	// connection reads on from where it stopped.
	watched, err := pgx.Connect(testContext(t), tlsConnString(ts, "require"))
	if err != nil {
		t.Fatal(err)
	}
	defer watched.Close(testContext(t))
	for _, q := range []string{"select pg_sleep(1)", "select 1", "select pg_sleep(1)", "select 2"} {
		if _, err := watched.Exec(testContext(t), q); err != nil {
			t.Fatalf("%s over TLS: %v", q, err)
		}
	}

	plain := startServer(t, newFakeBackend())
	if _, err := pgx.Connect(testContext(t), tlsConnString(plain, "require")); err == nil {
		t.Fatal("sslmode=require connected to a server without a certificate")
	}
	conn, err := pgx.Connect(testContext(t), tlsConnString(plain, "prefer"))
	if err != nil {
		t.Fatalf("sslmode=prefer without a certificate: %v", err)
	}
	conn.Close(testContext(t))
}

// TestRequireTLS: a server that requires TLS refuses a session in the
// clear with FATAL 28000 and serves one over TLS.
func TestRequireTLS(t *testing.T) {
	ts := startServer(t, newFakeBackend(), withTLS(t, true))
	_, err := pgx.Connect(testContext(t), tlsConnString(ts, "disable"))
	if err == nil {
		t.Fatal("a session in the clear was served")
	}
	if e := pgError(t, err); e.Code != sqlerr.InvalidAuthorizationSpecification || e.Severity != "FATAL" {
		t.Fatalf("got %s %s %q, want FATAL 28000", e.Severity, e.Code, e.Message)
	}
	conn, err := pgx.Connect(testContext(t), tlsConnString(ts, "require"))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(testContext(t))
}

// TestTLSRefusesDataBeforeHandshake: bytes sent after SSLRequest but
// before the server's answer were sent in the clear; the server ends the
// connection instead of reading them as the startup packet.
func TestTLSRefusesDataBeforeHandshake(t *testing.T) {
	ts := startServer(t, newFakeBackend(), withTLS(t, false))
	nc, err := net.DialTimeout("tcp", ts.addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	ssl := []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}
	// SSLRequest and the start of a startup packet in one write.
	if _, err := nc.Write(append(ssl, 0, 0, 0, 8, 0, 3, 0, 0)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := nc.Read(buf); err != nil {
		t.Fatal(err)
	}
	if buf[0] != 'E' {
		t.Fatalf("got %q, want an ErrorResponse", buf[0])
	}
}
