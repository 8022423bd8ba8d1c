package coord

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkPointLookup reads one order of 200,000 in orders (id int,
// customer int, amount numeric(10,2)), loaded in id order, three ways:
// by id, the table's leading column, which the read seeks to; by
// customer, which it must scan for, testing each row's customer alone;
// and by customer again with an index on (customer), which the read
// seeks in. And it reads a range of 100 ids, and counts them, and
// counts every row.
func BenchmarkPointLookup(b *testing.B) {
	env := openSQL(b, b.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int, customer int, amount numeric(10,2))")
	env.exec(s, "INSERT INTO orders SELECT g, g, (g % 1000) / 10.0 FROM generate_series(1, 200000) g")
	lookup := func(b *testing.B, col string) {
		for i := 0; i < b.N; i++ {
			k := 1 + (i*7919)%200_000
			if got := env.query(s, fmt.Sprintf("SELECT id FROM orders WHERE %s = %d", col, k)); got != fmt.Sprint(k) {
				b.Fatalf("%s = %d: %q", col, k, got)
			}
		}
	}
	b.Run("leading column", func(b *testing.B) { lookup(b, "id") })
	b.Run("range of 100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k := 1 + (i*7919)%199_900
			if got := strings.Fields(env.query(s, fmt.Sprintf("SELECT id FROM orders WHERE id >= %d AND id < %d", k, k+100))); len(got) != 100 {
				b.Fatalf("ids from %d: %d rows", k, len(got))
			}
		}
	})
	// Aggregates over the rows a range of ids holds, and over every row:
	// a dataflow's, which seeks in the table's arrangement as a peek
	// does.
	b.Run("count of a range of 100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k := 1 + (i*7919)%199_900
			if got := env.query(s, fmt.Sprintf("SELECT count(*) FROM orders WHERE id >= %d AND id < %d", k, k+100)); got != "100" {
				b.Fatalf("count of ids from %d: %s", k, got)
			}
		}
	})
	b.Run("count of every row", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if got := env.query(s, "SELECT count(*) FROM orders"); got != "200000" {
				b.Fatalf("count: %s", got)
			}
		}
	})
	b.Run("scan", func(b *testing.B) { lookup(b, "customer") })
	env.exec(s, "CREATE INDEX orders_customer ON orders (customer)")
	b.Run("index", func(b *testing.B) { lookup(b, "customer") })
}
