package coord

import (
	"context"
	"testing"

	"freshet/sqlerr"
)

// Schemas: objects in them by qualified name or through search_path, a
// view keeps the search path it was created in (also across a restart),
// serial sequences live beside their tables, and DROP SCHEMA … CASCADE
// takes everything along.
func TestSchemas(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	ctx := context.Background()
	env.exec(s, "CREATE SCHEMA app")
	env.exec(s, "CREATE TABLE app.items (id serial PRIMARY KEY, name text)")
	env.exec(s, "CREATE TABLE items (id int)") // public.items, another table
	env.exec(s, "INSERT INTO app.items (name) VALUES ('a'), ('b')")
	env.exec(s, "INSERT INTO items VALUES (42)")
	env.exec(s, "SET search_path = app, public")
	if got := env.query(s, "SELECT name FROM items"); got != "a b" {
		t.Fatalf("items through search_path app, public: %q", got)
	}
	// The views are planned in app, public wherever they are read.
	env.exec(s, "CREATE VIEW app.names AS SELECT name FROM items")
	env.exec(s, "CREATE MATERIALIZED VIEW counts AS SELECT count(*) AS n FROM items")
	env.exec(s, "RESET search_path")
	if got := env.query(s, "SELECT id FROM items"); got != "42" {
		t.Fatalf("items in the default path: %q", got)
	}
	if got := env.query(s, "SELECT name FROM app.names"); got != "a b" {
		t.Fatalf("the view in another search path: %q", got)
	}
	if got := env.query(s, "SELECT n FROM app.counts"); got != "2" {
		t.Fatalf("the materialized view, created in app: %q", got)
	}
	if err := s.Query(ctx, "SELECT * FROM counts", &recorder{}); sqlerr.Code(err) != sqlerr.UndefinedTable {
		t.Fatalf("an object of app outside the path: %v", err)
	}
	env.restart()
	s = env.session()
	env.exec(s, "INSERT INTO app.items (name) VALUES ('c')")
	if got := env.query(s, "SELECT n FROM app.counts"); got != "3" {
		t.Fatalf("the materialized view after a restart: %q", got)
	}
	if got := env.query(s, "SELECT id FROM app.items WHERE name = 'c'"); got != "3" {
		t.Fatalf("the serial sequence in app after a restart: %q", got)
	}
	if got := env.query(s, "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'app' AND c.relkind = 'S'"); got != "items_id_seq" {
		t.Fatalf("the sequence's schema: %q", got)
	}
	env.fails(s, "DROP SCHEMA app", "2BP01", "cannot drop schema app because other objects depend on it",
		"table app.items depends on schema app\nview app.names depends on schema app\nmaterialized view app.counts depends on schema app")
	env.exec(s, "DROP SCHEMA app CASCADE")
	if got := env.query(s, "SELECT count(*) FROM pg_class WHERE relname IN ('items', 'names', 'counts', 'items_id_seq')"); got != "1" {
		t.Fatalf("after DROP SCHEMA app CASCADE: %s relations left of 1 (public.items)", got)
	}
	// A role needs USAGE on a schema to reach what is in it.
	env.exec(s, "CREATE ROLE reader LOGIN")
	env.exec(s, "CREATE SCHEMA locked")
	env.exec(s, "CREATE TABLE locked.t (x int)")
	env.exec(s, "GRANT SELECT ON locked.t TO reader")
	r := env.sessionAs("reader")
	env.fails(r, "SELECT * FROM locked.t", "42501", "permission denied for schema locked", "")
	env.exec(s, "GRANT USAGE ON SCHEMA locked TO reader")
	if got := env.query(r, "SELECT count(*) FROM locked.t"); got != "0" {
		t.Fatalf("locked.t with USAGE and SELECT: %q", got)
	}
	env.exec(s, "SET search_path = nowhere")
	if err := s.Query(ctx, "CREATE TABLE lost (x int)", &recorder{}); sqlerr.Code(err) != sqlerr.InvalidSchemaName {
		t.Fatalf("CREATE with no schema in the path: %v, want 3F000", err)
	}
}
