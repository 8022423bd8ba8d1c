package coord

import (
	"context"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestPreparedStatementOverARecreatedView prepares a read of a view,
// drops the view and creates it again under its name, as a migration
// does, and executes the statement again: it is planned again over the
// new view, as PostgreSQL's plan cache does (pgx caches prepared
// statements by their text, so without this every pgx client fails until
// it reconnects). A view created again with other columns is refused as
// PostgreSQL refuses it, with 0A000.
func TestPreparedStatementOverARecreatedView(t *testing.T) {
	ctx := context.Background()
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (k int, v int)")
	env.exec(s, "INSERT INTO t VALUES (1, 10), (2, 20)")
	env.exec(s, "CREATE MATERIALIZED VIEW pv AS SELECT sum(v) AS n FROM t")
	ps, err := s.Parse(ctx, "SELECT n FROM pv", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func() (string, error) {
		p, err := ps.Bind(ctx, nil)
		if err != nil {
			return "", err
		}
		var r recorder
		if _, err := p.Execute(ctx, 0, &r); err != nil {
			return "", err
		}
		return strings.Join(r.rows, " "), nil
	}
	if got, err := run(); err != nil || got != "30" {
		t.Fatalf("first execution: %q, %v", got, err)
	}
	env.exec(s, "DROP MATERIALIZED VIEW pv")
	env.exec(s, "CREATE MATERIALIZED VIEW pv AS SELECT sum(v) * 2 AS n FROM t")
	if got, err := run(); err != nil || got != "60" {
		t.Fatalf("after the view was created again: %q, %v", got, err)
	}
	env.exec(s, "DROP MATERIALIZED VIEW pv")
	env.exec(s, "CREATE MATERIALIZED VIEW pv AS SELECT 'x'::text AS n FROM t")
	if _, err := run(); sqlerr.Code(err) != sqlerr.FeatureNotSupported || !strings.Contains(err.Error(), "cached plan must not change result type") {
		t.Fatalf("a view created again with another column type: %v, want 0A000", err)
	}
	env.exec(s, "DROP MATERIALIZED VIEW pv")
	if _, err := run(); sqlerr.Code(err) != sqlerr.UndefinedTable {
		t.Fatalf("the view dropped: %v, want 42P01", err)
	}

	// PREPARE and EXECUTE likewise.
	env.exec(s, "CREATE MATERIALIZED VIEW qv AS SELECT count(*) AS n FROM t")
	env.exec(s, "PREPARE q AS SELECT * FROM qv")
	if got := env.query(s, "EXECUTE q"); got != "2" {
		t.Fatalf("EXECUTE: %q", got)
	}
	env.exec(s, "DROP MATERIALIZED VIEW qv")
	env.exec(s, "CREATE MATERIALIZED VIEW qv AS SELECT count(*) + 1 AS n FROM t")
	if got := env.query(s, "EXECUTE q"); got != "3" {
		t.Fatalf("EXECUTE after the view was created again: %q", got)
	}
	env.exec(s, "DROP MATERIALIZED VIEW qv")
	env.exec(s, "CREATE MATERIALIZED VIEW qv AS SELECT count(*) AS n, 1 AS m FROM t")
	if err := s.Query(ctx, "EXECUTE q", &recorder{}); sqlerr.Code(err) != sqlerr.FeatureNotSupported {
		t.Fatalf("EXECUTE over a view created again with another column: %v, want 0A000", err)
	}
	env.exec(s, "DROP MATERIALIZED VIEW qv")
	env.exec(s, "CREATE MATERIALIZED VIEW qv AS SELECT count(*) + 2 AS n FROM t")
	if got := env.query(s, "EXECUTE q"); got != "4" {
		t.Fatalf("EXECUTE after a refused one, with the view's columns as prepared: %q", got)
	}
}
