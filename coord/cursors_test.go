package coord

import (
	"context"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// FETCH and MOVE walk a cursor's snapshot as PostgreSQL's do (the
// positions and counts below are PostgreSQL 15's for the same script);
// cursors end with their block unless WITH HOLD.
func TestCursors(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	env.exec(s, "CREATE TABLE cr (k int)")
	env.exec(s, "INSERT INTO cr SELECT generate_series(1, 10)")
	fetch := func(sql string) string {
		t.Helper()
		r := &recorder{}
		if err := s.Query(ctx, sql, r); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return strings.Join(r.rows, " ")
	}
	if err := s.Query(ctx, "DECLARE c CURSOR FOR SELECT k FROM cr", &recorder{}); sqlerr.Code(err) != sqlerr.NoActiveSQLTransaction {
		t.Fatalf("DECLARE outside a block: %v", err)
	}
	env.exec(s, "BEGIN")
	env.exec(s, "DECLARE c CURSOR FOR SELECT k FROM cr ORDER BY k")
	// The cursor is a snapshot: a later write is not in it.
	for _, c := range []struct{ sql, want string }{
		{"FETCH 3 FROM c", "1 2 3"},
		{"FETCH NEXT FROM c", "4"},
		{"MOVE 2 c", ""},
		{"FETCH c", "7"},
		{"FETCH PRIOR FROM c", "6"},
		{"FETCH BACKWARD 2 FROM c", "5 4"},
		{"FETCH ABSOLUTE 2 FROM c", "2"},
		{"FETCH LAST FROM c", "10"},
		{"FETCH ABSOLUTE -3 FROM c", "8"},
		{"FETCH RELATIVE 2 FROM c", "10"},
		{"FETCH RELATIVE 0 FROM c", "10"},
		{"FETCH ALL FROM c", ""},
		{"FETCH BACKWARD 3 FROM c", "10 9 8"},
		{"FETCH FIRST FROM c", "1"},
	} {
		if got := fetch(c.sql); got != c.want {
			t.Errorf("%s: %q, want %q", c.sql, got, c.want)
		}
	}
	env.exec(s, "DECLARE n NO SCROLL CURSOR FOR SELECT k FROM cr")
	fetch("FETCH 2 n")
	if err := s.Query(ctx, "FETCH PRIOR n", &recorder{}); sqlerr.Code(err) != sqlerr.ObjectNotInPrerequisiteState {
		t.Fatalf("FETCH PRIOR of a NO SCROLL cursor: %v", err)
	}
	env.exec(s, "ROLLBACK")
	if err := s.Query(ctx, "FETCH c", &recorder{}); sqlerr.Code(err) != sqlerr.InvalidCursorName {
		t.Fatalf("a cursor after its block: %v", err)
	}
	env.exec(s, "DECLARE h CURSOR WITH HOLD FOR SELECT k FROM cr WHERE k > 8 ORDER BY k")
	env.exec(s, "INSERT INTO cr VALUES (11)")
	if got := fetch("FETCH ALL h"); got != "9 10" {
		t.Fatalf("FETCH ALL of a held cursor: %q", got)
	}
	env.exec(s, "CLOSE h")
	if err := s.Query(ctx, "CLOSE h", &recorder{}); sqlerr.Code(err) != sqlerr.InvalidCursorName {
		t.Fatalf("CLOSE of a closed cursor: %v", err)
	}
}
