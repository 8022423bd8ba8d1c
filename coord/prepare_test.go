package coord

import (
	"context"
	"testing"

	"freshet/sqlerr"
)

// PREPARE, EXECUTE and DEALLOCATE, and DISCARD ALL's part in them.
func TestSQLPrepare(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	env.exec(s, "CREATE TABLE pp (k int PRIMARY KEY, v text)")
	env.exec(s, "PREPARE ins (int, text) AS INSERT INTO pp VALUES ($1, $2)")
	env.exec(s, "EXECUTE ins(1, 'a')")
	env.exec(s, "EXECUTE ins(2, 'b' || 'c')")
	env.exec(s, "PREPARE q AS SELECT v FROM pp WHERE k >= $1")
	if got := env.query(s, "EXECUTE q('2')"); got != "bc" {
		t.Fatalf("EXECUTE q('2'): %q", got)
	}
	for _, c := range []struct{ sql, code string }{
		{"EXECUTE q", sqlerr.SyntaxError},
		{"PREPARE q AS SELECT 1", sqlerr.DuplicatePreparedStatement},
		{"EXECUTE nope", sqlerr.InvalidSQLStatementName},
		{"EXECUTE ins(1, 'again')", sqlerr.UniqueViolation},
	} {
		if err := s.Query(ctx, c.sql, &recorder{}); sqlerr.Code(err) != c.code {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
	env.exec(s, "DISCARD ALL")
	if err := s.Query(ctx, "EXECUTE q(1)", &recorder{}); sqlerr.Code(err) != sqlerr.InvalidSQLStatementName {
		t.Fatalf("EXECUTE after DISCARD ALL: %v", err)
	}
}
