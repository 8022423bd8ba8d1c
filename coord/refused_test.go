package coord

import (
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestRefusedForms: what applications send that Freshet refuses gives a
// SQLSTATE and a message naming it, never a crash: LISTEN, UNLISTEN and
// NOTIFY (0A000, with a hint to SUBSCRIBE), a materialized view over
// WITH RECURSIVE (0A000; a plain view and a query over one run), and
// renames under a dependent view (2BP01, naming the dependent, with
// PostgreSQL's words for the refusal of a drop).
func TestRefusedForms(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	for _, sql := range []string{"LISTEN orders", "UNLISTEN orders", "UNLISTEN *", "NOTIFY orders, 'x'"} {
		err := env.queryErr(s, sql)
		e := sqlerr.From(err)
		word := strings.Fields(sql)[0]
		if err == nil || e.Code != sqlerr.FeatureNotSupported || e.Message != word+" is not supported" || !strings.Contains(e.Hint, "SUBSCRIBE") {
			t.Errorf("%s: %v (%s, hint %q)", sql, err, e.Code, e.Hint)
		}
	}

	const recursive = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r"
	env.failsWith(s, "CREATE MATERIALIZED VIEW rm AS "+recursive, sqlerr.FeatureNotSupported, "WITH RECURSIVE is not supported in materialized views")
	env.exec(s, "CREATE TABLE rt (a int, b text)")
	env.failsWith(s, "CREATE MATERIALIZED VIEW rm AS SELECT a FROM rt WHERE a IN ("+recursive+")", sqlerr.FeatureNotSupported, "WITH RECURSIVE")
	env.exec(s, "CREATE VIEW rv AS "+recursive)
	if got := env.query(s, "SELECT sum(n) FROM rv"); got != "6" {
		t.Errorf("a view over WITH RECURSIVE: %s", got)
	}

	env.exec(s, "CREATE VIEW v AS SELECT a FROM rt")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT a, count(*) AS n FROM v GROUP BY a")
	for _, tt := range []struct{ sql, msg, detail string }{
		{"ALTER TABLE rt RENAME TO rt2", "cannot rename table rt because other objects depend on it", "view v depends on table rt"},
		{"ALTER TABLE rt RENAME COLUMN b TO bb", "cannot rename table rt because other objects depend on it", "view v depends on table rt"},
		{"ALTER VIEW v RENAME TO v2", "cannot rename view v because other objects depend on it", "materialized view m depends on view v"},
	} {
		err := env.queryErr(s, tt.sql)
		e := sqlerr.From(err)
		if err == nil || e.Code != sqlerr.DependentObjectsStillExist || e.Message != tt.msg || !strings.Contains(e.Detail, tt.detail) || e.Hint == "" {
			t.Errorf("%s: %v (%s, detail %q, hint %q)", tt.sql, err, e.Code, e.Detail, e.Hint)
		}
	}
	// Nothing depends on m: it renames, and so do its columns.
	env.exec(s, "ALTER MATERIALIZED VIEW m RENAME TO m2")
	env.exec(s, "ALTER MATERIALIZED VIEW m2 RENAME COLUMN n TO total")
	env.exec(s, "INSERT INTO rt VALUES (1, 'x'), (1, 'y')")
	if got := env.query(s, "SELECT a, total FROM m2"); got != "1,2" {
		t.Errorf("the renamed view: %s", got)
	}
}
