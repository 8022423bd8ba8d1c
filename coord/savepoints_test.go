package coord

import (
	"context"
	"testing"

	"freshet/sqlerr"
)

// ROLLBACK TO takes back the writes made since the savepoint, their
// unique-key values included, and reopens a failed block; RELEASE keeps
// them; COMMIT writes what is left.
func TestSavepoints(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	env.exec(s, "CREATE TABLE sp (k int PRIMARY KEY, v text)")
	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO sp VALUES (1, 'a')")
	env.exec(s, "SAVEPOINT s1")
	env.exec(s, "INSERT INTO sp VALUES (2, 'b')")
	if err := s.Query(ctx, "INSERT INTO sp VALUES (2, 'again')", &recorder{}); sqlerr.Code(err) != sqlerr.UniqueViolation {
		t.Fatalf("a duplicate in the block: %v", err)
	}
	if err := s.Query(ctx, "INSERT INTO sp VALUES (9, 'z')", &recorder{}); sqlerr.Code(err) != sqlerr.InFailedSQLTransaction {
		t.Fatalf("a statement in the failed block: %v", err)
	}
	env.exec(s, "ROLLBACK TO SAVEPOINT s1")
	// 2 is free again: the rolled-back row no longer holds it.
	env.exec(s, "INSERT INTO sp VALUES (2, 'c')")
	env.exec(s, "SAVEPOINT s2")
	env.exec(s, "INSERT INTO sp VALUES (3, 'd')")
	env.exec(s, "RELEASE s2")
	env.exec(s, "COMMIT")
	if got := env.query(s, "SELECT k, v FROM sp"); got != "1,a 2,c 3,d" {
		t.Fatalf("after COMMIT: %q", got)
	}
	if err := s.Query(ctx, "ROLLBACK TO s1", &recorder{}); sqlerr.Code(err) != sqlerr.NoActiveSQLTransaction {
		t.Fatalf("ROLLBACK TO outside a block: %v", err)
	}
}
