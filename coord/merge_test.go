package coord

import (
	"context"
	"testing"

	"freshet/sqlerr"
)

// tagRecorder is a recorder that keeps the command tag.
type tagRecorder struct {
	recorder
	tag string
}

func (r *tagRecorder) Complete(tag string) error { r.tag = tag; return nil }

// MERGE's tag counts the rows inserted, updated and deleted; it runs
// prepared with parameters; in a transaction block its changes wait for
// COMMIT and go with ROLLBACK; a view over the target follows it.
func TestMergeTagParamsAndBlocks(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	env.exec(s, "CREATE TABLE stock (item text PRIMARY KEY, qty int NOT NULL)")
	env.exec(s, "CREATE TABLE bag (x int)")
	env.exec(s, "INSERT INTO stock VALUES ('a', 1), ('b', 2), ('c', 3)")
	env.exec(s, "INSERT INTO bag VALUES (1), (1), (2)")
	env.exec(s, "CREATE MATERIALIZED VIEW total AS SELECT sum(qty) AS n FROM stock")

	merge := func(sql string) string {
		t.Helper()
		r := &tagRecorder{}
		if err := s.Query(ctx, sql, r); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return r.tag
	}
	if tag := merge(`MERGE INTO stock USING (VALUES ('a', 10), ('b', -1), ('d', 4), ('c', 0)) AS d(item, qty) ON stock.item = d.item
		WHEN MATCHED AND d.qty < 0 THEN DELETE WHEN MATCHED AND d.qty > 0 THEN UPDATE SET qty = stock.qty + d.qty
		WHEN MATCHED THEN DO NOTHING WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)`); tag != "MERGE 3" {
		t.Fatalf("tag %q, want MERGE 3", tag)
	}
	if got := env.query(s, "SELECT item, qty FROM stock"); got != "a,11 c,3 d,4" {
		t.Fatalf("after MERGE: %q", got)
	}
	if got := env.query(s, "SELECT n FROM total"); got != "18" {
		t.Fatalf("view after MERGE: %q, want 18", got)
	}
	// One source row updates both copies of a row of a table without a
	// key: two rows, as in PostgreSQL.
	if tag := merge("MERGE INTO bag USING (VALUES (1)) v(x) ON bag.x = v.x WHEN MATCHED THEN UPDATE SET x = 5"); tag != "MERGE 2" {
		t.Fatalf("tag %q, want MERGE 2", tag)
	}
	err := s.Query(ctx, "MERGE INTO bag USING (VALUES (5), (5)) v(x) ON bag.x = v.x WHEN MATCHED THEN DELETE", &recorder{})
	if sqlerr.Code(err) != sqlerr.CardinalityViolation {
		t.Fatalf("two source rows for one target row: %v, want 21000", err)
	}

	ps, err := s.Parse(ctx, "MERGE INTO stock USING (SELECT $1::text AS item, $2::int AS qty) d ON stock.item = d.item WHEN MATCHED THEN UPDATE SET qty = d.qty WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"e", "5"}, {"e", "6"}} {
		p, err := ps.Bind(ctx, [][]byte{[]byte(args[0]), []byte(args[1])})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Execute(ctx, 0, &recorder{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := env.query(s, "SELECT qty FROM stock WHERE item = 'e'"); got != "6" {
		t.Fatalf("prepared MERGE: %q, want 6", got)
	}

	env.exec(s, "BEGIN")
	merge("MERGE INTO stock USING (VALUES ('f', 1)) d(item, qty) ON stock.item = d.item WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)")
	env.exec(s, "ROLLBACK")
	if got := env.query(s, "SELECT count(*) FROM stock WHERE item = 'f'"); got != "0" {
		t.Fatalf("rolled-back MERGE left %s rows", got)
	}
	env.exec(s, "BEGIN")
	merge("MERGE INTO stock USING (VALUES ('f', 1)) d(item, qty) ON stock.item = d.item WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)")
	err = s.Query(ctx, "MERGE INTO stock USING (VALUES ('f', 2)) d(item, qty) ON stock.item = d.item WHEN MATCHED THEN DELETE", &recorder{})
	if sqlerr.Code(err) != sqlerr.FeatureNotSupported {
		t.Fatalf("a second MERGE of a table written in the block: %v, want 0A000", err)
	}
	env.exec(s, "ROLLBACK")
	env.exec(s, "BEGIN")
	merge("MERGE INTO stock USING (VALUES ('f', 1)) d(item, qty) ON stock.item = d.item WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)")
	env.exec(s, "COMMIT")
	if got := env.query(s, "SELECT n FROM total"); got != "25" {
		t.Fatalf("view after a committed MERGE: %q, want 25", got)
	}
}

// MERGE needs the privilege of every action its clauses name, whether
// or not a row takes it, and SELECT on what it reads, as in PostgreSQL.
func TestMergePrivileges(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	admin := env.session()
	env.exec(admin, "CREATE ROLE bob LOGIN")
	env.exec(admin, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	env.exec(admin, "CREATE TABLE src (k int, v int)")
	env.exec(admin, "INSERT INTO kv VALUES (1, 1)")
	env.exec(admin, "INSERT INTO src VALUES (1, 10)")
	bob := env.sessionAs("bob")
	const update = "MERGE INTO kv USING src ON kv.k = src.k WHEN MATCHED THEN UPDATE SET v = src.v"
	env.fails(bob, update, "42501", "permission denied for table kv", "")
	env.exec(admin, "GRANT SELECT, UPDATE ON kv TO bob")
	env.fails(bob, update, "42501", "permission denied for table src", "")
	env.exec(admin, "GRANT SELECT ON src TO bob")
	env.exec(bob, update)
	env.fails(bob, update+" WHEN NOT MATCHED THEN INSERT VALUES (src.k, src.v)", "42501", "permission denied for table kv", "")
	env.fails(bob, "MERGE INTO kv USING src ON kv.k = src.k WHEN MATCHED AND false THEN DELETE", "42501", "permission denied for table kv", "")
	if got := env.query(admin, "SELECT v FROM kv"); got != "10" {
		t.Fatalf("after bob's MERGE: %q, want 10", got)
	}
}
