package pgwire

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"freshet/scram"
)

// passwords is an Authenticator over fixed users: SCRAM for everyone,
// trust for the user "trusted".
type passwords map[string]string

func (p passwords) Authenticate(user string, _ net.Addr, _ bool) (AuthMethod, scram.Verifier, bool) {
	if user == "trusted" {
		return AuthTrust, scram.Verifier{}, false
	}
	pw, ok := p[user]
	if !ok {
		return AuthSCRAM, scram.Verifier{}, false
	}
	v, err := scram.NewVerifier(pw, []byte("salt of "+user), scram.Iterations)
	if err != nil {
		panic(err)
	}
	return AuthSCRAM, v, true
}

// TestSCRAMAuthentication: pgx's SCRAM-SHA-256 client gets in with the
// right password and gets 28P01 with a wrong one, with none, or as a
// user the Authenticator does not know, which looks the same as a wrong
// password; a trusted user needs none.
func TestSCRAMAuthentication(t *testing.T) {
	ts := startServer(t, newFakeBackend(), func(s *Server) { s.Auth = passwords{"alice": "s3cret", "bob": "other"} })
	url := func(user, password string) string {
		return fmt.Sprintf("postgres://%s:%s@%s/freshet?sslmode=disable&connect_timeout=10", user, password, ts.addr)
	}
	conn, err := pgx.Connect(testContext(t), url("alice", "s3cret"))
	if err != nil {
		t.Fatalf("alice with her password: %v", err)
	}
	conn.Close(testContext(t))
	for _, tc := range []struct{ user, password string }{
		{"alice", "wrong"}, {"alice", ""}, {"bob", "s3cret"}, {"mallory", "s3cret"},
	} {
		_, err := pgx.Connect(testContext(t), url(tc.user, tc.password))
		if err == nil {
			t.Fatalf("%s with password %q got in", tc.user, tc.password)
		}
		if e := pgError(t, err); e.Code != "28P01" || !strings.Contains(e.Message, `password authentication failed for user "`+tc.user+`"`) {
			t.Errorf("%s with password %q: %s %s", tc.user, tc.password, e.Code, e.Message)
		}
	}
	conn, err = pgx.Connect(testContext(t), url("trusted", ""))
	if err != nil {
		t.Fatalf("a trusted user: %v", err)
	}
	conn.Close(testContext(t))
}
