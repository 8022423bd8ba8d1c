package coord

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/sqlerr"
)

// TestStorageFaultRecoversInPlace fills the disk under a supervised
// engine: writes fail with 53100 and reads go on while it is full, and
// once space is back the supervisor restarts the engine by itself,
// ending the old sessions with 57P02; the new engine has every
// acknowledged write, none of the refused ones, and takes writes again.
func TestStorageFaultRecoversInPlace(t *testing.T) {
	defer func(d time.Duration) { storageCheckEvery = d }(storageCheckEvery)
	storageCheckEvery = 5 * time.Millisecond
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !full.Load() {
			return nil
		}
		switch op.Kind {
		case errorfs.OpCreate, errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
	ctx := context.Background()
	var opens atomic.Int64
	sup, err := Supervise(ctx, Config{Workers: 2, DataDir: "data", StorageFS: fs, OnOpen: func() { opens.Add(1) }}, AuthTrust)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	newSession := func() *Session {
		t.Helper()
		s, err := sup.NewSession(ctx, pgwire.Startup{User: "u", Database: catalog.DefaultDatabase})
		if err != nil {
			t.Fatal(err)
		}
		return s.(*Session)
	}
	env := &sqlEnv{t: t, e: sup.Engine()}
	s := newSession()
	env.exec(s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	env.exec(s, "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(v) AS s FROM t")
	env.exec(s, "INSERT INTO t VALUES (1, 10), (2, 20)")

	full.Store(true)
	env.failsWith(s, "INSERT INTO t VALUES (3, 30)", sqlerr.DiskFull)
	// Probes fail while the disk is full: the engine keeps serving reads.
	for range 10 {
		time.Sleep(storageCheckEvery)
		if got := env.query(s, "SELECT n, s FROM totals"); got != "2,30" {
			t.Fatalf("the view read on a full disk: %s", got)
		}
	}
	if sup.Restarts() != 0 || opens.Load() != 1 {
		t.Fatalf("the engine restarted while the disk was still full (%d restarts, %d opens)", sup.Restarts(), opens.Load())
	}

	full.Store(false)
	select {
	case <-s.Terminated().Done():
	case <-time.After(hangLimit):
		t.Fatal("the engine never restarted once space was back")
	}
	var fatal *sqlerr.Error
	if cause := context.Cause(s.Terminated()); !errors.As(cause, &fatal) || fatal.Code != sqlerr.CrashShutdown || fatal.Severity != sqlerr.SeverityFatal {
		t.Fatalf("the old session ended with %v, want FATAL 57P02", cause)
	}
	s.Close()
	var e *Engine
	for e == nil {
		if e = sup.Engine(); e == nil {
			if _, err := sup.NewSession(ctx, pgwire.Startup{User: "u", Database: catalog.DefaultDatabase}); sqlerr.Code(err) != sqlerr.CannotConnectNow {
				t.Fatalf("a connection during the restart: %v, want 57P03", err)
			}
			time.Sleep(time.Millisecond)
		}
	}
	env = &sqlEnv{t: t, e: e}
	s = newSession()
	if got := env.query(s, "SELECT k, v FROM t ORDER BY k"); got != "1,10 2,20" {
		t.Fatalf("the table after recovery: %s", got)
	}
	env.exec(s, "INSERT INTO t VALUES (3, 30)")
	if got := env.query(s, "SELECT n, s FROM totals"); got != "3,60" {
		t.Fatalf("the view after recovery and a write: %s", got)
	}
	if sup.Restarts() != 1 {
		t.Fatalf("restarts = %d, want 1", sup.Restarts())
	}
	// The server hands back a restart's garbage after each open.
	if n := opens.Load(); n != 2 {
		t.Fatalf("OnOpen was called %d times, want 2: the start and the restart", n)
	}
}
