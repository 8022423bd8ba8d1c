package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// jdbcJar is Debian's pgjdbc (libpostgresql-jdbc-java), which
// scripts/test installs.
const jdbcJar = "/usr/share/java/postgresql.jar"

// TestJDBCMetadata runs pgjdbc 42.5's DatabaseMetaData calls, which
// DBeaver, Metabase and other JDBC tools make on connecting, against the
// binary (testdata/JdbcMeta.java, run by java's source launcher). Each
// expected line is what the program prints against PostgreSQL 15 for
// the same schema, but for the database's name. getPrimaryKeys and
// getIndexInfo call information_schema._pg_expandarray, whose records
// the planner binds field by field (planner/bind_record.go).
func TestJDBCMetadata(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatal("java is required (apt-get install default-jdk-headless)")
	}
	if err := exec.Command("test", "-r", jdbcJar).Run(); err != nil {
		t.Fatalf("pgjdbc is required (apt-get install libpostgresql-jdbc-java): %s is missing", jdbcJar)
	}
	s := startBinary(t)
	s.must("CREATE TABLE customers (id int PRIMARY KEY, name varchar(50) NOT NULL UNIQUE)")
	s.must("CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL, amount numeric(10,2), note text DEFAULT 'none')")
	s.must("CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 100")
	s.must("CREATE MATERIALIZED VIEW totals AS SELECT customer, count(*) AS n FROM orders GROUP BY customer")
	s.must("CREATE INDEX orders_customer_idx ON orders (customer)")
	out, err := exec.Command("java", "-cp", jdbcJar, "testdata/JdbcMeta.java", "jdbc:postgresql://"+s.addr+"/freshet?user=u").CombinedOutput()
	if err != nil {
		t.Fatalf("the program failed: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, rest, _ := strings.Cut(line, ":")
		got[name] = strings.TrimSpace(rest)
	}
	for step, want := range map[string]string{
		"schemas":         "information_schema | pg_catalog | public",
		"catalogs":        "freshet",
		"tables":          "customers_name_key,INDEX | customers_pkey,INDEX | orders_customer_idx,INDEX | orders_pkey,INDEX | totals,MATERIALIZED VIEW | customers,TABLE | orders,TABLE | big_orders,VIEW",
		"columns":         "id,int4,10,0,0,null,1 | customer,int4,10,0,0,null,2 | amount,numeric,10,2,1,null,3 | note,text,2147483647,0,1,'none'::text,4",
		"primary_keys":    "id,1,orders_pkey",
		"index_info":      "orders_pkey,false,id,1 | orders_customer_idx,true,customer,1",
		"imported_keys":   "",
		"procedures":      "",
		"result_metadata": "id,int4,text,orders,orders,,0,1,2",
		"type_info":       "rows",
	} {
		if got[step] != want {
			t.Errorf("%s:\n got %q\nwant %q", step, got[step], want)
		}
	}
}
