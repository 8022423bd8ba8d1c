package coord

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"freshet/sqlerr"
)

// An index on a view over a failed materialized view is refused with the
// failure's error, as a materialized view over it is, not with an
// uncoded error from importing the arrangement the failure dropped.
// Found by tests/chaos.
func TestIndexOnViewOverFailed(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b int)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT a, b FROM t")
	env.exec(s, "CREATE VIEW v AS SELECT a, b FROM m")
	if err := env.e.InjectFault(context.Background(), "m", 0); err != nil {
		t.Fatal(err)
	}
	const msg = `materialized view "m" failed: injected fault in materialized view "m"`
	// The failure is handled asynchronously; wait until a read sees it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := s.Query(context.Background(), "SELECT * FROM m", &recorder{})
		if sqlerr.Code(err) == sqlerr.InternalError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SELECT of the failed view: %v", err)
		}
	}
	env.fails(s, "CREATE INDEX i ON v (a)", sqlerr.InternalError, msg, "")
	env.fails(s, "CREATE MATERIALIZED VIEW m2 AS SELECT a FROM v", sqlerr.InternalError, msg, "")
	env.exec(s, "DROP MATERIALIZED VIEW m CASCADE")
	// A read the failure ended answers at once; its dataflow goes just
	// after.
	env.settled()
}

// A read that starts as its source fails, before the failure is marked,
// ends with the failure's error, not with an uncoded error from the
// arrangement the failed dataflow took with it. Found by tests/chaos.
func TestReadRacingFailure(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		name := fmt.Sprintf("t%d", i)
		env.exec(s, fmt.Sprintf("CREATE TABLE %s (a int)", name))
		env.exec(s, fmt.Sprintf("INSERT INTO %s VALUES (1)", name))
		if err := env.e.InjectFault(ctx, name, i%2); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 5; j++ {
			err := s.Query(ctx, "SELECT * FROM "+name, &recorder{})
			var se *sqlerr.Error
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("SELECT racing the failure of %s: error without a SQLSTATE: %v", name, err)
			}
		}
	}
}

// A second index on a view is on the view, not on the first index (which
// the planner reads the view through); it used to panic. Found by
// tests/chaos.
func TestSecondIndexOnView(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b int)")
	env.exec(s, "INSERT INTO t VALUES (1, 2), (1, 3), (2, 4)")
	env.exec(s, "CREATE VIEW v AS SELECT a, count(*) AS b FROM t GROUP BY a")
	env.exec(s, "CREATE INDEX i1 ON v (a)")
	env.exec(s, "CREATE INDEX i2 ON v (b)")
	const want = "1,2 2,1"
	if got := env.query(s, "SELECT a, b FROM v"); got != want {
		t.Fatalf("v with two indexes: %s, want %s", got, want)
	}
	env.exec(s, "DROP INDEX i1")
	env.exec(s, "INSERT INTO t VALUES (2, 5)")
	if got := env.query(s, "SELECT a, b FROM v"); got != "1,2 2,2" {
		t.Fatalf("v after dropping its first index: %s", got)
	}
	if err := env.e.Audit(); err != nil {
		t.Fatal(err)
	}
	env.restart()
	s = env.session()
	if got := env.query(s, "SELECT a, b FROM v"); got != "1,2 2,2" {
		t.Fatalf("v after a restart: %s", got)
	}
	env.exec(s, "DROP VIEW v CASCADE")
	if err := env.e.Audit(); err != nil {
		t.Fatal(err)
	}
}
