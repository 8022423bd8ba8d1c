package coord

import (
	"strconv"
	"testing"
	"time"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// TestCancelAndTerminateBackend: pg_cancel_backend(pid) cancels another
// session's running statement (57014) and leaves the session usable;
// pg_terminate_backend(pid) ends it (its Terminated context is done, which
// pgwire turns into FATAL 57P01); both return false for a pid that is no
// session and NULL for NULL. A blocked worker keeps the victim's read
// running for as long as the test needs.
func TestCancelAndTerminateBackend(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	admin, victim := env.session(), env.session()
	env.exec(admin, "CREATE TABLE t (k int)")
	env.exec(admin, "INSERT INTO t VALUES (1)")
	pid := env.query(victim, "SELECT pg_backend_pid()")
	pidNum, _ := strconv.Atoi(pid)
	if got := env.query(admin, "SELECT pg_cancel_backend(99999), pg_terminate_backend(NULL)"); got != "f,NULL" {
		t.Fatalf("for no such session: %s", got)
	}

	unblock := env.blockWorker()
	defer unblock()
	res := make(chan error, 1)
	go func() { res <- env.queryErr(victim, "SELECT * FROM t") }()
	// The read registers before it waits on the worker; cancel until it
	// is seen to end (a cancel before it starts cancels nothing).
	deadline := time.Now().Add(hangLimit)
	var err error
wait:
	for {
		// Any SELECT waits for the blocked worker, so the function is
		// called as a SELECT would call it after binding.
		v, _, cerr := admin.sessionValue(expr.CancelBackend, []repr.Datum{repr.NewInt4(int32(pidNum))})
		if cerr != nil || !v.Bool() {
			t.Fatalf("pg_cancel_backend of a live session: %v %v", v, cerr)
		}
		select {
		case err = <-res:
			break wait
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled read never ended")
		}
	}
	if sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("the cancelled read: %v, want 57014", err)
	}
	unblock()
	if got := env.query(victim, "SELECT * FROM t"); got != "1" {
		t.Fatalf("the session after its cancel: %s", got)
	}
	if victim.Terminated().Err() != nil {
		t.Fatal("a cancel terminated the session")
	}
	if got := env.query(admin, "SELECT pg_terminate_backend("+pid+")"); got != "t" {
		t.Fatalf("pg_terminate_backend: %s", got)
	}
	if victim.Terminated().Err() == nil {
		t.Fatal("pg_terminate_backend did not end the session")
	}
	env.fails(admin, "CREATE MATERIALIZED VIEW bad AS SELECT pg_cancel_backend(1)", sqlerr.FeatureNotSupported,
		"pg_cancel_backend() is not supported in views: its value depends on the session", "")
}

// pg_terminate_backend of each row's pid: the form Superset sends,
// SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE ...,
// signals the sessions the rows name, and no other.
func TestTerminateBackendPerRow(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	admin, victim, bystander := env.session(), env.sessionAs("victim"), env.session()
	if got := env.query(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = 0"); got != "" {
		t.Fatalf("no row: %q", got)
	}
	if got := env.query(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'victim'"); got != "t" {
		t.Fatalf("the victim's row: %q", got)
	}
	if victim.Terminated().Err() == nil {
		t.Fatal("the victim's session was not terminated")
	}
	if bystander.Terminated().Err() != nil || admin.Terminated().Err() != nil {
		t.Fatal("a session the query did not name was terminated")
	}
}
