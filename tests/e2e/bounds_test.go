package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPathologicalStatements sends the statements of issue 15 to the
// server binary over the wire: the 24,000-term sum (48 KB) that used to
// kill the process with SIGSEGV in pg_query's C parser, other deep
// shapes, and a LIKE that took tens of seconds in a view. Each gets its
// SQLSTATE or its answer, and the server keeps serving on the same
// connection.
func TestPathologicalStatements(t *testing.T) {
	s := startBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn := s.pgx(ctx, "")

	for _, tt := range []struct{ name, sql, code string }{
		{"sum of 24,000 terms", "SELECT 1" + strings.Repeat("+1", 23999), "54001"},
		{"union of 50,000", "SELECT 1" + strings.Repeat(" UNION SELECT 1", 50000), "54001"},
		{"5,000 nested subqueries", strings.Repeat("SELECT (", 5000) + "SELECT 1" + strings.Repeat(")", 5000), "54001"},
		{"20 MB", "SELECT '" + strings.Repeat("x", 20<<20) + "'", "54000"},
	} {
		_, err := conn.Exec(ctx, tt.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Fatalf("%s: got %v, want SQLSTATE %s\n%s", tt.name, err, tt.code, s.logs)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after %s: %v\n%s", tt.name, err, s.logs)
		}
	}

	// The LIKE of issue 15 in a materialized view, fed the 190 a's.
	for _, sql := range []string{
		"CREATE TABLE lt (s text)",
		"CREATE MATERIALIZED VIEW lmv AS SELECT count(*) AS n FROM lt WHERE s LIKE '%a%a%a%a%ab'",
		"INSERT INTO lt VALUES ('" + strings.Repeat("a", 190) + "'), ('" + strings.Repeat("a", 190) + "b')",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT n FROM lmv").Scan(&n); err != nil || n != 1 {
		t.Fatalf("lmv: got %d, %v; want 1", n, err)
	}
	select {
	case err := <-s.exited:
		s.running = false
		t.Fatalf("server exited: %v\n%s", err, s.logs)
	default:
	}
}
