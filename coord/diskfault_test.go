package coord

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"freshet/sqlerr"
	"freshet/storage"
)

// fullDisk is an in-memory filesystem whose write-ahead log writes and
// syncs fail with ENOSPC while full is set, as on a disk that filled up.
type fullDisk struct {
	mem  *vfs.MemFS
	fs   vfs.FS
	full atomic.Bool
}

func newFullDisk() *fullDisk {
	d := &fullDisk{mem: vfs.NewMem()}
	d.fs = errorfs.Wrap(d.mem, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !d.full.Load() || !strings.HasSuffix(op.Path, ".log") {
			return nil
		}
		switch op.Kind {
		case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
	return d
}

// openOnDisk opens a store and an engine over d.
func openOnDisk(t *testing.T, d *fullDisk) (*sqlEnv, *storage.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open("data", storage.Options{FS: d.fs})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{Workers: 2, Store: st}, Rebuild(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if err := RestoreDefaults(e); err != nil {
		t.Fatal(err)
	}
	return &sqlEnv{t: t, e: e, b: NewBackend(e)}, st
}

// TestDiskFull fills the disk under a running server: every write and
// DDL fails with 53100 disk_full and PostgreSQL's hint to restart, none
// is acknowledged, and reads of tables and materialized views go on with
// every acknowledged row. Once space is back, a restart on the same
// directory recovers every acknowledged row and nothing else, and the
// view agrees with its query.
func TestDiskFull(t *testing.T) {
	d := newFullDisk()
	env, st := openOnDisk(t, d)
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	env.exec(s, "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(v) AS s FROM t")
	env.exec(s, "INSERT INTO t VALUES (1, 10), (2, 20)")

	d.full.Store(true)
	for _, sql := range []string{
		"INSERT INTO t VALUES (3, 30)",
		"UPDATE t SET v = 0",
		"CREATE TABLE u (k int)",
		"DROP MATERIALIZED VIEW totals",
		"INSERT INTO t VALUES (4, 40)",
	} {
		err := env.queryErr(s, sql)
		e := sqlerr.From(err)
		if err == nil || e.Code != sqlerr.DiskFull {
			t.Fatalf("%s on a full disk: %v (%s), want 53100", sql, err, e.Code)
		}
		if !strings.Contains(e.Hint, "the server restarts") {
			t.Errorf("%s on a full disk: hint %q", sql, e.Hint)
		}
	}
	reader := env.session()
	if got := env.query(reader, "SELECT k, v FROM t ORDER BY k"); got != "1,10 2,20" {
		t.Fatalf("the table read on a full disk: %s", got)
	}
	if got := env.query(reader, "SELECT n, s FROM totals"); got != "2,30" {
		t.Fatalf("the view read on a full disk: %s", got)
	}
	// The catalog is read from memory too, and the refused DDL left no
	// trace in it.
	if got := env.query(reader, "SELECT relname FROM pg_class WHERE relname IN ('t', 'u', 'totals') ORDER BY 1"); got != "t totals" {
		t.Fatalf("the catalog read on a full disk: %s", got)
	}

	// Space comes back; the store stays refused until a restart, since
	// nothing is known of what the failed sync left on disk.
	d.full.Store(false)
	if err := env.queryErr(s, "INSERT INTO t VALUES (5, 50)"); sqlerr.From(err).Code != sqlerr.DiskFull {
		t.Fatalf("a write after space came back, before a restart: %v", err)
	}
	env.e.Close()
	_ = st.Close() // a poisoned store may report its failure again

	env, st = openOnDisk(t, d)
	defer func() {
		env.e.Close()
		_ = st.Close()
	}()
	s = env.session()
	if got := env.query(s, "SELECT k, v FROM t ORDER BY k"); got != "1,10 2,20" {
		t.Fatalf("the table after a restart: %s", got)
	}
	if got := env.query(s, "SELECT n, s FROM totals"); got != "2,30" {
		t.Fatalf("the view after a restart: %s", got)
	}
	env.exec(s, "INSERT INTO t VALUES (3, 30)")
	env.exec(s, "CREATE TABLE u (k int)")
	if got := env.query(s, "SELECT n, s FROM totals"); got != "3,60" {
		t.Fatalf("the view after a write that follows the restart: %s", got)
	}
}
