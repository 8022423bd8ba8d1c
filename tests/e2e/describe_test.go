package e2e

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPsqlDescribe runs psql's describe commands that Freshet's catalog
// answers today against the binary, and compares their output with what
// psql prints against PostgreSQL 15 for the same schema (checked with
// PostgreSQL 15.18: the same rows, but there the owner is the creating
// role, and public's owner is pg_database_owner; here one role, freshet,
// owns everything). \d NAME of a table, a view, a materialized view
// and an index, and \d+ of a table, print exactly what PostgreSQL
// prints, and so do \dT and \dT+ of an enum. \l and \du print
// PostgreSQL's columns; their rows are
// Freshet's own: its databases (there are no template databases) and its
// one role. \dx lists no extension, where PostgreSQL lists plpgsql.
func TestPsqlDescribe(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is required (apt-get install postgresql-client)")
	}
	s := startBinary(t)
	// The PRIMARY KEY's index is listed by \di, as in PostgreSQL.
	s.must("CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2))")
	s.must("CREATE INDEX orders_customer_idx ON orders (customer)")
	s.must("CREATE VIEW big AS SELECT * FROM orders WHERE amount > 100")
	s.must("CREATE MATERIALIZED VIEW tot AS SELECT count(*) FROM orders")
	s.must("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	host, port, _ := net.SplitHostPort(s.addr)
	for _, tc := range []struct{ cmd, want string }{
		{`\dt`, `
        List of relations
 Schema |  Name  | Type  |  Owner  
--------+--------+-------+---------
 public | orders | table | freshet
(1 row)`},
		{`\dv`, `
      List of relations
 Schema | Name | Type |  Owner  
--------+------+------+---------
 public | big  | view | freshet
(1 row)`},
		{`\dm`, `
             List of relations
 Schema | Name |       Type        |  Owner  
--------+------+-------------------+---------
 public | tot  | materialized view | freshet
(1 row)`},
		{`\di`, `
                   List of relations
 Schema |        Name         | Type  |  Owner  | Table
--------+---------------------+-------+---------+--------
 public | orders_customer_idx | index | freshet | orders
 public | orders_pkey         | index | freshet | orders
(2 rows)`},
		{`\dn`, `
List of schemas
  Name  |  Owner  
--------+---------
 public | freshet
(1 row)`},
		{`\d orders`, `
                   Table "public.orders"
  Column  |     Type      | Collation | Nullable | Default 
----------+---------------+-----------+----------+---------
 id       | integer       |           | not null | 
 customer | integer       |           |          | 
 amount   | numeric(10,2) |           |          | 
Indexes:
    "orders_pkey" PRIMARY KEY, btree (id)
    "orders_customer_idx" btree (customer)`},
		{`\d big`, `
                     View "public.big"
  Column  |     Type      | Collation | Nullable | Default 
----------+---------------+-----------+----------+---------
 id       | integer       |           |          | 
 customer | integer       |           |          | 
 amount   | numeric(10,2) |           |          | `},
		{`\d tot`, `
          Materialized view "public.tot"
 Column |  Type  | Collation | Nullable | Default 
--------+--------+-----------+----------+---------
 count  | bigint |           |          | `},
		{`\d orders_pkey`, `
      Index "public.orders_pkey"
 Column |  Type   | Key? | Definition 
--------+---------+------+------------
 id     | integer | yes  | id
primary key, btree, for table "public.orders"`},
		{`\d+ orders`, `
                                             Table "public.orders"
  Column  |     Type      | Collation | Nullable | Default | Storage | Compression | Stats target | Description 
----------+---------------+-----------+----------+---------+---------+-------------+--------------+-------------
 id       | integer       |           | not null |         | plain   |             |              | 
 customer | integer       |           |          |         | plain   |             |              | 
 amount   | numeric(10,2) |           |          |         | main    |             |              | 
Indexes:
    "orders_pkey" PRIMARY KEY, btree (id)
    "orders_customer_idx" btree (customer)
Access method: heap`},
		{`\l`, `
                                         List of databases
   Name   |  Owner  | Encoding | Collate | Ctype | ICU Locale | Locale Provider | Access privileges
----------+---------+----------+---------+-------+------------+-----------------+-------------------
 freshet  | freshet | UTF8     | C       | C     |            | libc            |
 postgres | freshet | UTF8     | C       | C     |            | libc            |
(2 rows)`},
		{`\du`, `
                                   List of roles
 Role name |                         Attributes                         | Member of
-----------+------------------------------------------------------------+-----------
 freshet   | Superuser, Create role, Create DB, Replication, Bypass RLS | {}`},
		{`\dn`, `
 List of schemas
  Name  |  Owner
--------+---------
 public | freshet
(1 row)`},
		{`\dp`, `
                                   Access privileges
 Schema |  Name  |       Type        | Access privileges | Column privileges | Policies
--------+--------+-------------------+-------------------+-------------------+----------
 public | big    | view              |                   |                   |
 public | orders | table             |                   |                   |
 public | tot    | materialized view |                   |                   |
(3 rows)`},
		{`\db`, `
       List of tablespaces
    Name    |  Owner  | Location
------------+---------+----------
 pg_default | freshet |
 pg_global  | freshet |
(2 rows)`},
		{`\dx`, `
     List of installed extensions
 Name | Version | Schema | Description
------+---------+--------+-------------
(0 rows)`},
		{`\dv`, `
       List of relations
 Schema | Name | Type |  Owner
--------+------+------+---------
 public | big  | view | freshet
(1 row)`},
		{`\dT`, `
     List of data types
 Schema | Name | Description
--------+------+-------------
 public | mood |
(1 row)`},
		// The labels in their order: ARRAY(SELECT … ORDER BY) over
		// pg_enum.
		{`\dT+`, `
                                     List of data types
 Schema | Name | Internal name | Size | Elements |  Owner  | Access privileges | Description
--------+------+---------------+------+----------+---------+-------------------+-------------
 public | mood | mood          | 4    | sad     +| freshet |                   |
        |      |               |      | ok      +|         |                   |
        |      |               |      | happy    |         |                   |
(1 row)`},
		{`\d`, `
              List of relations
 Schema |  Name  |       Type        |  Owner  
--------+--------+-------------------+---------
 public | big    | view              | freshet
 public | orders | table             | freshet
 public | tot    | materialized view | freshet
(3 rows)`},
	} {
		cmd := exec.Command("psql", "-X", "-h", host, "-p", port, "-U", "u", "-d", "freshet", "-c", tc.cmd)
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psql %s: %v\n%s", tc.cmd, err, out)
		}
		got := strings.TrimRight(string(out), "\n")
		want := strings.TrimPrefix(tc.want, "\n")
		if trimLines(got) != trimLines(want) {
			t.Errorf("psql %s:\n got:\n%s\nwant:\n%s", tc.cmd, got, want)
		}
	}
}

// trimLines drops the spaces psql pads its titles and last columns with.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
