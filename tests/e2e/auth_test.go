package e2e

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestPsqlSCRAM: a role made over the trust that --auth auto gives a
// loopback client logs in with its password through psql once the
// server runs with --auth scram; a wrong password, a role without
// LOGIN, an unknown user and no password at all get 28P01; and the
// server refuses to start with --auth trust on a non-loopback address
// unless given --insecure.
func TestPsqlSCRAM(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is required (apt-get install postgresql-client)")
	}
	s := startBinary(t)
	s.must("CREATE ROLE app LOGIN PASSWORD 'app pw'")
	s.must("CREATE ROLE nologin PASSWORD 'x'")
	s.stop(syscall.SIGTERM)
	s.flags = []string{"--auth", "scram"}
	s.start()
	host, port, _ := net.SplitHostPort(s.addr)
	login := func(user, password string) (string, error) {
		cmd := exec.Command("psql", "-X", "-A", "-t", "-w", "-h", host, "-p", port, "-U", user, "-d", "freshet", "-c", "SELECT current_user")
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGPASSWORD="+password)
		if password == "" {
			cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
		}
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := login("app", "app pw"); err != nil || out != "app" {
		t.Fatalf("app with its password: %v %s", err, out)
	}
	for _, tc := range []struct{ user, password string }{
		{"app", "wrong"}, {"nologin", "x"}, {"mallory", "app pw"}, {"app", ""},
	} {
		out, err := login(tc.user, tc.password)
		want := `password authentication failed for user "` + tc.user + `"`
		if tc.password == "" {
			want = "no password supplied"
		}
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("%s with %q: %v %s", tc.user, tc.password, err, out)
		}
	}
	s.stop(syscall.SIGTERM)

	out, err := exec.Command(s.bin, "--listen", "0.0.0.0:0", "--data-dir", t.TempDir(), "--auth", "trust").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--insecure") {
		t.Errorf("--auth trust on 0.0.0.0 started, or said nothing of --insecure: %v\n%s", err, out)
	}
}
