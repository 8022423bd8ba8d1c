package coord

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestNowIsTheClock: now() is the clock when the statement's read time
// is taken, not the time of the last write (which may be long ago), never
// before the read time, and fixed for a transaction block.
func TestNowIsTheClock(t *testing.T) {
	var clock atomic.Uint64
	clock.Store(1_700_000_000_000)
	ctx := context.Background()
	e, err := Open(ctx, Config{Workers: 2, DataDir: t.TempDir(), Clock: clock.Load}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	env := &sqlEnv{t: t, e: e, b: NewBackend(e)}
	s := env.session()
	const nowMs = "SELECT (extract(epoch FROM now()) * 1000)::int8"
	if got := env.query(s, nowMs); got != "1700000000000" {
		t.Fatalf("now() before any write: %s", got)
	}
	env.exec(s, "CREATE TABLE t (a int)")
	env.exec(s, "INSERT INTO t VALUES (1)")
	clock.Add(60_000)
	if got := env.query(s, nowMs); got != "1700000060000" {
		t.Fatalf("now() a minute after the last write: %s", got)
	}
	env.exec(s, "BEGIN")
	first := env.query(s, nowMs)
	clock.Add(5_000)
	if got := env.query(s, nowMs); got != first || first != "1700000060000" {
		t.Fatalf("now() in a block: %s, then %s", first, got)
	}
	env.exec(s, "COMMIT")
	if got := env.query(s, nowMs); got != "1700000065000" {
		t.Fatalf("now() after the block: %s", got)
	}
	// A clock that steps back does not make now() run backwards.
	clock.Store(1_000)
	env.exec(s, "INSERT INTO t VALUES (2)")
	if got := env.query(s, nowMs); got != "1700000065000" {
		t.Fatalf("now() after the clock stepped back: %s", got)
	}
}
