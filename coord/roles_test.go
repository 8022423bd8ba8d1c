package coord

import (
	"context"
	"net"
	"testing"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/scram"
)

// Roles: CREATE, ALTER and DROP ROLE by a superuser, refused to other
// roles, kept across a restart, listed by pg_roles; the authenticator
// asks for a password by SCRAM where the mode says so and knows a
// role's verifier only if it may log in with a password.
func TestRoles(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE ROLE app LOGIN PASSWORD 's3cret'")
	env.exec(s, "CREATE USER reader")
	env.exec(s, "CREATE ROLE grp")
	env.exec(s, "ALTER ROLE reader PASSWORD 'r'")
	env.exec(s, "ALTER ROLE freshet PASSWORD 'admin'")
	env.failsWith(s, "CREATE ROLE app", "42710", `role "app" already exists`)
	env.failsWith(s, "CREATE ROLE freshet", "42710")
	env.failsWith(s, "ALTER ROLE nosuch PASSWORD 'x'", "42704")
	env.failsWith(s, "DROP ROLE freshet", "2BP01")
	env.failsWith(s, "ALTER ROLE freshet NOSUPERUSER", "0A000")
	env.failsWith(s, "CREATE ROLE x CREATEDB", "0A000", "CREATEDB")
	env.failsWith(s, "CREATE ROLE x PASSWORD ''", "22023")
	want := "app,f,t freshet,t,t grp,f,f reader,f,t"
	if got := env.query(s, "SELECT rolname, rolsuper, rolcanlogin FROM pg_roles"); got != want {
		t.Fatalf("pg_roles: %q, want %q", got, want)
	}

	// A role that is not a superuser manages no roles.
	app := env.sessionAs("app")
	env.failsWith(app, "CREATE ROLE y", "42501", "permission denied to create roles")
	env.failsWith(app, "DROP ROLE grp", "42501")

	env.restart()
	s = env.session()
	if got := env.query(s, "SELECT rolname, rolsuper, rolcanlogin FROM pg_roles"); got != want {
		t.Fatalf("pg_roles after a restart: %q, want %q", got, want)
	}
	env.exec(s, "DROP ROLE IF EXISTS nosuch, grp")
	env.failsWith(s, "DROP ROLE grp", "42704")

	auth := NewBackend(env.e).Authenticator(AuthAuto)
	remote := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 5000}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}
	if m, _, _ := auth.Authenticate("app", local, false); m != pgwire.AuthTrust {
		t.Errorf("auto on loopback: method %d, want trust", m)
	}
	for _, tc := range []struct {
		user, password string
		ok             bool
	}{{"app", "s3cret", true}, {"reader", "r", true}, {"freshet", "admin", true}, {"grp", "", false}, {"nosuch", "", false}} {
		m, v, ok := auth.Authenticate(tc.user, remote, false)
		if m != pgwire.AuthSCRAM || ok != tc.ok {
			t.Errorf("%s from afar: method %d, ok %t; want SCRAM, %t", tc.user, m, ok, tc.ok)
			continue
		}
		if ok {
			if again, _ := scram.NewVerifier(tc.password, v.Salt, v.Iterations); again.String() != v.String() {
				t.Errorf("%s: the stored verifier is not the password's", tc.user)
			}
		}
	}
	if m, _, _ := NewBackend(env.e).Authenticator(AuthSCRAM).Authenticate("app", local, false); m != pgwire.AuthSCRAM {
		t.Errorf("scram on loopback: method %d", m)
	}
	var stored string
	env.e.Catalog(func(c *catalog.Catalog) error {
		stored = c.RoleNamed("app").Password
		return nil
	})
	if !scram.IsVerifier(stored) {
		t.Errorf("app's password is stored as %q, not as a verifier", stored)
	}
}

// sessionAs opens a session of user.
func (env *sqlEnv) sessionAs(user string) *Session {
	env.t.Helper()
	s, err := env.b.NewSession(context.Background(), pgwire.Startup{User: user, Database: catalog.DefaultDatabase})
	if err != nil {
		env.t.Fatal(err)
	}
	return s.(*Session)
}
