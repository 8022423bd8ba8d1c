package coord

import (
	"context"
	"strings"
	"testing"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/sqlerr"
)

// Ownership, GRANT and REVOKE, as PostgreSQL 15 has them: a role needs
// CREATE on public to create, the owner holds every privilege and alone
// may grant, drop and index; reads through a view are checked as the
// view's owner; everything survives a restart.
func TestPrivileges(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	admin := env.session()
	env.exec(admin, "CREATE ROLE alice LOGIN")
	env.exec(admin, "CREATE ROLE bob LOGIN")
	alice, bob := env.sessionAs("alice"), env.sessionAs("bob")
	if env.b.IsSuperuser("alice") || !env.b.IsSuperuser("freshet") || !env.b.IsSuperuser("u") {
		t.Fatal("IsSuperuser: alice must not be one, freshet and a user who is no role (trust) must")
	}

	// PostgreSQL 15 gives PUBLIC no CREATE on public.
	env.fails(alice, "CREATE TABLE at (a int, b text)", "42501", "permission denied for schema public", "")
	env.exec(admin, "GRANT CREATE ON SCHEMA public TO alice")
	env.exec(alice, "CREATE TABLE at (a int, b text)")
	env.exec(alice, "INSERT INTO at VALUES (1, 'x'), (2, 'y')")
	if got := env.query(admin, "SELECT tableowner FROM pg_tables WHERE tablename = 'at'"); got != "alice" {
		t.Fatalf("owner of at: %q", got)
	}
	if got := env.query(admin, "SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.relname = 'at'"); got != "alice" {
		t.Fatalf("relowner of at: %q", got)
	}

	// bob has nothing on alice's table.
	env.fails(bob, "SELECT * FROM at", "42501", "permission denied for table at", "")
	env.fails(bob, "DECLARE c CURSOR WITH HOLD FOR SELECT * FROM at", "42501", "permission denied for table at", "")
	env.fails(bob, "COPY at TO STDOUT", "42501", "permission denied for table at", "")
	env.fails(bob, "EXPLAIN SELECT * FROM at", "42501", "permission denied for table at", "")
	env.exec(bob, "PREPARE peek AS SELECT * FROM at")
	env.fails(bob, "EXECUTE peek", "42501", "permission denied for table at", "")
	env.fails(bob, "INSERT INTO at VALUES (3, 'z')", "42501", "permission denied for table at", "")
	env.fails(bob, "GRANT SELECT ON at TO bob", "42501", "permission denied for table at", "")
	env.fails(bob, "DROP TABLE at", "42501", "must be owner of table at", "")
	env.fails(bob, "CREATE INDEX at_a ON at (a)", "42501", "must be owner of table at", "")

	env.exec(alice, "GRANT SELECT, INSERT ON at TO bob")
	if got := env.query(bob, "SELECT a FROM at"); got != "1 2" {
		t.Fatalf("bob's read after GRANT: %q", got)
	}
	env.exec(bob, "INSERT INTO at VALUES (3, 'z')")
	env.fails(bob, "DELETE FROM at", "42501", "permission denied for table at", "")
	env.fails(bob, "TRUNCATE at", "42501", "permission denied for table at", "")
	if got := env.query(admin, "SELECT relacl::text FROM pg_class WHERE relname = 'at'"); got != "{alice=arwdD/alice,bob=ar/alice}" {
		t.Fatalf("relacl: %q", got)
	}

	// A view reads as its owner: bob reads alice's view over at without
	// SELECT on at, and cannot read his own view over at once alice
	// takes SELECT back.
	env.exec(alice, "CREATE VIEW av AS SELECT a FROM at WHERE a > 1")
	env.exec(alice, "GRANT SELECT ON av TO bob")
	env.exec(admin, "GRANT CREATE ON SCHEMA public TO bob")
	env.exec(bob, "CREATE VIEW bv AS SELECT a FROM at")
	env.exec(alice, "REVOKE SELECT ON at FROM bob")
	if got := env.query(bob, "SELECT a FROM av"); got != "2 3" {
		t.Fatalf("bob's read of alice's view: %q", got)
	}
	env.fails(bob, "SELECT a FROM at", "42501", "permission denied for table at", "")
	env.fails(bob, "SELECT a FROM bv", "42501", "permission denied for table at", "")
	env.fails(bob, "INSERT INTO at VALUES (4, 'w') RETURNING a", "42501", "permission denied for table at", "")
	env.fails(bob, "CREATE MATERIALIZED VIEW bm AS SELECT count(*) FROM at", "42501", "permission denied for table at", "")
	env.exec(bob, "CREATE MATERIALIZED VIEW bm AS SELECT count(*) AS n FROM av")

	// A prepared statement is checked when it runs.
	ctx := context.Background()
	env.exec(alice, "GRANT SELECT ON at TO bob")
	ps, err := bob.Parse(ctx, "SELECT a FROM at WHERE a = $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	env.exec(alice, "REVOKE ALL ON at FROM bob")
	p, err := ps.Bind(ctx, [][]byte{[]byte("1")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Execute(ctx, 0, &recorder{}); sqlerr.Code(err) != sqlerr.InsufficientPrivilege {
		t.Fatalf("a prepared read after REVOKE: %v", err)
	}

	// Roles that own objects or hold privileges stay.
	env.fails(admin, "DROP ROLE bob", "2BP01", `role "bob" cannot be dropped because some objects depend on it`,
		"owner of view bv\nowner of materialized view bm\nprivileges for schema public\nprivileges for view av")

	// CONNECT: PUBLIC has it until revoked.
	env.exec(admin, "REVOKE CONNECT ON DATABASE freshet FROM PUBLIC")
	if _, err := env.b.NewSession(ctx, pgwire.Startup{User: "bob", Database: catalog.DefaultDatabase}); sqlerr.Code(err) != sqlerr.InsufficientPrivilege {
		t.Fatalf("bob connects without CONNECT: %v", err)
	}
	env.exec(admin, "GRANT CONNECT ON DATABASE freshet TO bob, alice")
	env.sessionAs("bob")
	if got := env.query(admin, "SELECT datacl::text FROM pg_database WHERE datname = 'freshet'"); got != "{freshet=CTc/freshet,=T/freshet,alice=c/freshet,bob=c/freshet}" {
		t.Fatalf("datacl: %q", got)
	}

	// Everything survives a restart.
	env.restart()
	admin, alice, bob = env.session(), env.sessionAs("alice"), env.sessionAs("bob")
	env.fails(bob, "SELECT * FROM at", "42501", "permission denied for table at", "")
	if got := env.query(bob, "SELECT n FROM bm"); got != "2" {
		t.Fatalf("bob's materialized view after restart: %q", got)
	}
	if got := env.query(admin, "SELECT tableowner FROM pg_tables WHERE tablename = 'at'"); got != "alice" {
		t.Fatalf("owner of at after restart: %q", got)
	}
	env.exec(alice, "DROP TABLE at CASCADE")
	if got := env.query(admin, "SELECT count(*) FROM pg_class WHERE relname IN ('at', 'av', 'bv', 'bm')"); got != "0" {
		t.Fatalf("alice's DROP … CASCADE left %s relations", got)
	}
}

// GRANT and REVOKE refuse what they cannot do with PostgreSQL's errors,
// and the privileges Freshet has nothing for with 0A000.
func TestGrantErrors(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int)")
	for _, c := range []struct{ sql, code, msg string }{
		{"GRANT SELECT ON t TO nobody", "42704", `role "nobody" does not exist`},
		{"GRANT SELECT ON nosuch TO PUBLIC", "42P01", `relation "nosuch" does not exist`},
		{"GRANT CONNECT ON t TO PUBLIC", "0LP01", "invalid privilege type CONNECT for relation"},
		{"GRANT SELECT ON SCHEMA public TO PUBLIC", "0LP01", "invalid privilege type SELECT for schema"},
		{"GRANT REFERENCES ON t TO PUBLIC", "0A000", "the REFERENCES privilege is not supported"},
		{"GRANT SELECT ON t TO PUBLIC WITH GRANT OPTION", "0A000", "WITH GRANT OPTION not supported"},
		{"GRANT SELECT (a) ON t TO PUBLIC", "0A000", "column privileges not supported"},
		{"GRANT SELECT ON pg_class TO PUBLIC", "42501", `permission denied: "pg_class" is a system catalog`},
		{"GRANT USAGE ON SCHEMA nosuch TO PUBLIC", "3F000", `schema "nosuch" does not exist`},
	} {
		err := s.Query(context.Background(), c.sql, &recorder{})
		if e := sqlerr.From(err); err == nil || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: %v (%s), want %s %q", c.sql, err, sqlerr.Code(err), c.code, c.msg)
		}
	}
	env.exec(s, "GRANT ALL ON ALL TABLES IN SCHEMA public TO PUBLIC")
	if got := env.query(s, "SELECT relacl::text FROM pg_class WHERE relname = 't'"); got != "{freshet=arwdD/freshet,=arwdD/freshet}" {
		t.Fatalf("relacl after GRANT ALL to PUBLIC: %q", got)
	}
}

// The has_*_privilege functions answer from the grants, for the session's
// user or a named one, by OID or name, plain or quoted.
func TestHasPrivilegeFunctions(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	admin := env.session()
	env.exec(admin, "CREATE ROLE alice LOGIN")
	env.exec(admin, "CREATE TABLE orders (a int)")
	env.exec(admin, "CREATE TABLE hidden (a int)")
	env.exec(admin, "GRANT SELECT ON orders TO alice")
	alice := env.sessionAs("alice")
	for _, c := range []struct {
		s    *Session
		sql  string
		want string
	}{
		{alice, "SELECT has_table_privilege('orders', 'SELECT')", "t"},
		{alice, "SELECT has_table_privilege('public.orders', 'select')", "t"},
		{alice, `SELECT has_table_privilege('"public"."orders"', 'INSERT, SELECT')`, "t"},
		{alice, "SELECT has_table_privilege('orders', 'INSERT')", "f"},
		{alice, "SELECT has_table_privilege('hidden', 'SELECT')", "f"},
		{alice, "SELECT has_table_privilege(c.oid, 'SELECT') FROM pg_class c WHERE c.relname = 'orders'", "t"},
		{alice, "SELECT has_any_column_privilege('orders', 'SELECT')", "t"},
		{alice, "SELECT has_column_privilege('hidden', 'a', 'SELECT')", "f"},
		{admin, "SELECT has_table_privilege('alice', 'hidden', 'SELECT')", "f"},
		{admin, "SELECT has_table_privilege('freshet', 'hidden', 'SELECT')", "t"},
		{admin, "SELECT has_table_privilege('hidden', 'SELECT')", "t"},
		{alice, "SELECT has_schema_privilege('public', 'USAGE')", "t"},
		{alice, "SELECT has_schema_privilege('public', 'CREATE')", "f"},
		{alice, "SELECT has_database_privilege('freshet', 'CONNECT')", "t"},
		{alice, "SELECT has_table_privilege('nosuch', 'SELECT')", "f"},
		{alice, "SELECT relname FROM pg_class WHERE relkind = 'r' AND has_table_privilege(oid, 'SELECT')", "orders"},
	} {
		if got := env.query(c.s, c.sql); got != c.want {
			t.Errorf("%s: %q, want %q", c.sql, got, c.want)
		}
	}
}
