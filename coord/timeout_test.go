package coord

import (
	"testing"
	"time"

	"freshet/sqlerr"
)

// TestStatementTimeout: a statement that runs past the session's
// statement_timeout ends with 57014 and PostgreSQL's message, the session
// goes on, and a bad value is refused with 22023. A blocked worker makes
// the read wait as long as the test likes, so nothing depends on speed.
func TestStatementTimeout(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "INSERT INTO t VALUES (1)")
	env.fails(s, "SET statement_timeout = 'soon'", sqlerr.InvalidParameterValue, `invalid value for parameter "statement_timeout": "soon"`, "")
	env.exec(s, "SET statement_timeout = '20ms'")

	unblock := env.blockWorker()
	defer unblock()
	err := env.queryErr(s, "SELECT * FROM t")
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.QueryCanceled || e.Message != "canceling statement due to statement timeout" {
		t.Fatalf("a read past statement_timeout: %v", err)
	}
	unblock()
	env.exec(s, "SET statement_timeout = 0")
	if got := env.query(s, "SELECT * FROM t"); got != "1" {
		t.Fatalf("after the timeout: %s", got)
	}
	for v, want := range map[string]time.Duration{"100": 100 * time.Millisecond, "2s": 2 * time.Second, "1 min": time.Minute, "0": 0, "": 0, "500us": time.Millisecond} {
		if got, err := parseTimeout(v); err != nil || got != want {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
}
