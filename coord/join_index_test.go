package coord

import (
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestJoinReadsTableIndex checks that a view joining a table on the key
// of an index on that table reads the index's arrangement, whether the
// table's side of the join is filtered, the other side is, or neither,
// and with a key of two columns given in another order than the
// index's; that its rows are those of the same query run as a read
// (which arranges its own inputs) through inserts and deletes on both
// sides; that an error of a filter on the indexed side is raised
// whether or not its row has a match; and that DROP INDEX retires the
// index while views still read it, which keep being maintained.
func TestJoinReadsTableIndex(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int, customer int, amount int)")
	env.exec(s, "CREATE TABLE customers (id int, region text)")
	env.exec(s, "INSERT INTO customers SELECT x, 'r' || (x % 3) FROM generate_series(1, 20) AS g(x)")
	env.exec(s, "INSERT INTO orders SELECT x, x % 25, x % 50 FROM generate_series(1, 500) AS g(x)")
	env.exec(s, "CREATE INDEX orders_customer ON orders (customer)")
	views := map[string]string{
		"filtered": "SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id WHERE o.amount >= 10 AND o.amount < 20 GROUP BY c.region",
		"other":    "SELECT o.id, o.amount, c.region FROM orders o JOIN customers c ON o.customer = c.id WHERE c.region = 'r1'",
		"plain":    "SELECT o.*, c.region FROM customers c JOIN orders o ON c.id = o.customer",
		"mapped":   "SELECT o.amount * 2 AS twice, c.region FROM orders o JOIN customers c ON o.customer = c.id WHERE o.amount % 7 = 3",
		"self":     "SELECT a.id AS a, b.id AS b FROM orders a JOIN orders b ON a.customer = b.customer WHERE a.amount = 15 AND b.amount > 40",
		"three":    "SELECT c.region, o.id AS o, p.id AS p FROM customers c JOIN orders o ON o.customer = c.id JOIN orders p ON p.customer = c.id WHERE o.amount < 3 AND p.amount > 47",
	}
	names := []string{"filtered", "other", "plain", "mapped", "self", "three"}
	for _, v := range names {
		env.exec(s, "CREATE MATERIALIZED VIEW "+v+" AS "+views[v])
	}
	if got := env.query(s, "SELECT importer, object FROM freshet_internal.imports WHERE object = 'orders_customer' ORDER BY 1"); got != "filtered,orders_customer mapped,orders_customer other,orders_customer plain,orders_customer self,orders_customer three,orders_customer" {
		t.Fatalf("importers of the index: %q", got)
	}
	if got := env.query(s, "SELECT importer FROM freshet_internal.imports WHERE object = 'orders' ORDER BY 1"); got != "orders_customer" {
		t.Fatalf("importers of orders: %q", got)
	}
	// EXPLAIN of such a view names the index, and not orders, as
	// imported; EXPLAIN of the query (a read, which arranges its own
	// inputs) names orders.
	explain := env.query(s, "EXPLAIN CREATE MATERIALIZED VIEW x AS "+views["filtered"])
	if !strings.Contains(explain, "Imports index orders_customer") || strings.Contains(explain, "Imports table orders") {
		t.Fatalf("EXPLAIN of the view:\n%s", explain)
	}
	explain = env.query(s, "EXPLAIN "+views["filtered"])
	if strings.Contains(explain, "Imports index orders_customer") || !strings.Contains(explain, "Imports table orders") {
		t.Fatalf("EXPLAIN of the query:\n%s", explain)
	}
	same := func(when string) {
		t.Helper()
		for _, v := range names {
			got, want := env.query(s, "SELECT * FROM "+v), env.query(s, views[v])
			if got != want {
				t.Fatalf("%s: view %s has\n%s\nwant\n%s", when, v, got, want)
			}
		}
	}
	same("at creation")
	env.exec(s, "INSERT INTO orders VALUES (1000, 3, 15), (1001, 3, 15), (1002, NULL, 15), (1003, 99, 15)")
	env.exec(s, "INSERT INTO customers VALUES (99, 'r9'), (NULL, 'r1')")
	same("after inserts")
	env.exec(s, "DELETE FROM orders WHERE customer = 4 OR id = 1000")
	env.exec(s, "DELETE FROM customers WHERE id IN (5, 99)")
	env.exec(s, "UPDATE orders SET amount = amount + 1 WHERE customer = 7")
	same("after deletes and updates")

	// A key of two columns, named in the join in the other order.
	env.exec(s, "CREATE TABLE lines (a int, b int, qty int)")
	env.exec(s, "INSERT INTO lines SELECT x % 5, x % 7, x FROM generate_series(1, 200) AS g(x)")
	env.exec(s, "CREATE INDEX lines_ab ON lines (a, b)")
	env.exec(s, "CREATE TABLE pairs (a int, b int, tag text)")
	env.exec(s, "INSERT INTO pairs SELECT x % 5, x % 7, 't' || x FROM generate_series(1, 30) AS g(x)")
	pairs := "SELECT p.tag, sum(l.qty) AS q FROM pairs p JOIN lines l ON p.b = l.b AND p.a = l.a WHERE l.qty > 50 GROUP BY p.tag"
	env.exec(s, "CREATE MATERIALIZED VIEW pairs_v AS "+pairs)
	if got := env.query(s, "SELECT importer FROM freshet_internal.imports WHERE object = 'lines_ab'"); got != "pairs_v" {
		t.Fatalf("importers of lines_ab: %q", got)
	}
	env.exec(s, "INSERT INTO lines VALUES (1, 1, 1000), (2, 3, 7)")
	env.exec(s, "DELETE FROM pairs WHERE tag = 't8'")
	if got, want := env.query(s, "SELECT * FROM pairs_v"), env.query(s, pairs); got != want {
		t.Fatalf("pairs_v has %s, want %s", got, want)
	}

	// A filter that fails on a row without a match fails the view as
	// it fails the query, and stops once the row goes.
	failing := "SELECT o.id, c.region FROM orders o JOIN customers c ON o.customer = c.id WHERE 100 / o.amount > 1"
	env.exec(s, "DELETE FROM orders WHERE amount = 0")
	env.exec(s, "CREATE MATERIALIZED VIEW failing AS "+failing)
	if got := env.query(s, "SELECT count(*) FROM freshet_internal.imports WHERE importer = 'failing' AND object = 'orders_customer'"); got != "1" {
		t.Fatalf("failing does not import the index: %s", got)
	}
	env.exec(s, "INSERT INTO orders VALUES (2000, 777, 0)")
	env.failsWith(s, "SELECT * FROM failing", sqlerr.DivisionByZero)
	env.failsWith(s, failing, sqlerr.DivisionByZero)
	env.exec(s, "DELETE FROM orders WHERE id = 2000")
	if got, want := env.query(s, "SELECT * FROM failing"), env.query(s, failing); got != want {
		t.Fatalf("failing has %s, want %s", got, want)
	}

	// After a restart the views are built again over the index, which
	// is rebuilt before them.
	env.restart()
	s = env.session()
	same("after a restart")
	if got := env.query(s, "SELECT count(*) FROM freshet_internal.imports WHERE object = 'orders_customer'"); got != "7" {
		t.Fatalf("importers of the index after a restart: %s", got)
	}

	// DROP INDEX retires the index: the views still read it and are
	// still maintained; it goes with its last reader.
	env.exec(s, "DROP INDEX orders_customer")
	env.failsWith(s, "DROP INDEX orders_customer", sqlerr.UndefinedObject)
	env.exec(s, "INSERT INTO orders VALUES (3000, 2, 12), (3001, 8, 13)")
	env.exec(s, "DELETE FROM customers WHERE id = 6")
	same("after DROP INDEX")
	// A view made now arranges orders itself.
	env.exec(s, "CREATE MATERIALIZED VIEW later AS "+views["filtered"])
	if got := env.query(s, "SELECT count(*) FROM freshet_internal.imports WHERE importer = 'later' AND object = 'orders'"); got != "1" {
		t.Fatalf("later does not import orders: %s", got)
	}
	if got, want := env.query(s, "SELECT * FROM later"), env.query(s, "SELECT * FROM filtered"); got != want {
		t.Fatalf("later has %s, filtered %s", got, want)
	}
	// The table cannot go while the views read it.
	env.failsWith(s, "DROP TABLE orders", sqlerr.DependentObjectsStillExist)
	for _, v := range append(names, "failing") {
		env.exec(s, "DROP MATERIALIZED VIEW "+v)
	}
	env.settled()
	if got := env.query(s, "SELECT count(*) FROM freshet_internal.imports WHERE object = 'orders_customer'"); got != "0" {
		t.Fatalf("the retired index is still imported: %s", got)
	}
	env.exec(s, "DROP TABLE orders CASCADE")
	env.exec(s, "DROP TABLE lines CASCADE")
}
