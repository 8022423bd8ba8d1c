package coord

import (
	"context"
	"testing"
	"time"

	"freshet/sqlerr"
)

// TestLockTimeout holds the engine's write lock (dmlMu, which an UPDATE
// holds across its read of the table) as a long statement of another
// session would, and checks that a statement queued behind it ends with
// 55P03 after lock_timeout, with 57014 after statement_timeout, and with
// 57014 when canceled, leaving nothing written; that a write that reads
// nothing does not wait; and that once the lock is free the same
// statements run. The lock is held for the whole of each check, so every
// outcome is decided by the settings, not by timing.
func TestLockTimeout(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	env.exec(s, "INSERT INTO t VALUES (1, 10)")
	env.fails(s, "SET lock_timeout = 'later'", sqlerr.InvalidParameterValue, `invalid value for parameter "lock_timeout": "later"`, "")
	if got := env.query(s, "SHOW lock_timeout"); got != "0" {
		t.Fatalf("lock_timeout by default: %s", got)
	}

	env.e.dmlMu.Lock()
	held := true
	defer func() {
		if held {
			env.e.dmlMu.Unlock()
		}
	}()
	env.exec(s, "SET lock_timeout = '20ms'")
	for _, sql := range []string{
		"UPDATE t SET v = v + 1",
		"DELETE FROM t WHERE k = 1",
		"INSERT INTO t SELECT k + 1, v FROM t",
		"INSERT INTO t VALUES (1, 0) ON CONFLICT (k) DO UPDATE SET v = 0",
	} {
		env.fails(s, sql, sqlerr.LockNotAvailable, "canceling statement due to lock timeout", "")
	}
	// A block's writes wait at COMMIT, which fails as a whole.
	env.exec(s, "BEGIN")
	env.exec(s, "UPDATE t SET v = 99")
	env.fails(s, "COMMIT", sqlerr.LockNotAvailable, "canceling statement due to lock timeout", "")
	// A write of constant rows reads nothing and does not take the lock.
	env.exec(s, "INSERT INTO t VALUES (2, 20)")

	env.exec(s, "SET lock_timeout = 0")
	env.exec(s, "SET statement_timeout = '20ms'")
	env.fails(s, "UPDATE t SET v = v + 1", sqlerr.QueryCanceled, "canceling statement due to statement timeout", "")
	env.exec(s, "SET statement_timeout = 0")

	// With no timeout, a cancel ends the wait.
	res := make(chan error, 1)
	go func() { res <- env.queryErr(s, "UPDATE t SET v = v + 1") }()
	deadline := time.Now().Add(hangLimit)
	var err error
wait:
	for {
		// A cancel before the statement starts cancels nothing: repeat
		// it until the statement ends.
		s.cancelRunning()
		select {
		case err = <-res:
			break wait
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("a canceled UPDATE waiting for the lock did not end")
		}
	}
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.QueryCanceled {
		t.Fatalf("a canceled wait: %v", err)
	}

	// The engine lock that DDL and writes take: a write waiting for it
	// gives up after lock_timeout too.
	env.e.mu.Lock()
	ctx := context.WithValue(context.Background(), lockTimeoutKey{}, 20*time.Millisecond)
	_, err = env.e.Write(ctx, []TableWrite{})
	env.e.mu.Unlock()
	if e := sqlerr.From(err); err == nil || e.Code != sqlerr.LockNotAvailable {
		t.Fatalf("a write waiting for the engine lock: %v", err)
	}

	env.e.dmlMu.Unlock()
	held = false
	if got := env.query(s, "SELECT k, v FROM t ORDER BY k"); got != "1,10 2,20" {
		t.Fatalf("after the refused statements: %s", got)
	}
	env.exec(s, "SET lock_timeout = '20ms'")
	env.exec(s, "UPDATE t SET v = v + 1")
	if got := env.query(s, "SELECT k, v FROM t ORDER BY k"); got != "1,11 2,21" {
		t.Fatalf("with the lock free: %s", got)
	}
}

// TestWaitLock checks the lock on its own: a waiter gets it when it is
// released, a waiter whose context ends or whose lock_timeout passes
// does not hold it afterwards, and Unlock of a free lock is a bug.
func TestWaitLock(t *testing.T) {
	l := newWaitLock()
	if err := l.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.acquire(ctx); sqlerr.Code(err) != sqlerr.QueryCanceled {
		t.Fatalf("a canceled wait: %v", err)
	}
	short := context.WithValue(context.Background(), lockTimeoutKey{}, time.Millisecond)
	if err := l.acquire(short); err != errLockTimeout {
		t.Fatalf("a wait past lock_timeout: %v", err)
	}
	got := make(chan error, 1)
	go func() { got <- l.acquire(context.Background()) }()
	l.Unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	// Free again: the failed waiters took nothing.
	if err := l.acquire(short); err != nil {
		t.Fatalf("the lock after failed waits: %v", err)
	}
	l.Unlock()
	defer func() {
		if recover() == nil {
			t.Fatal("Unlock of a free lock did not panic")
		}
	}()
	l.Unlock()
}
