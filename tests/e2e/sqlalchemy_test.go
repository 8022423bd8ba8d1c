package e2e

import (
	"encoding/json"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// systemPython is Debian's python3, where scripts/test installs
// SQLAlchemy and psycopg2 (python3-sqlalchemy, python3-psycopg2).
const systemPython = "/usr/bin/python3"

// TestSQLAlchemyInspector runs SQLAlchemy 1.4's PostgreSQL dialect over
// psycopg2 against the binary: its connect sequence and the inspector's
// reflection of tables, views, columns, keys and indexes, which ORMs and
// Superset run on first connecting, MetaData.reflect, and
// pandas.read_sql through the engine. Each expected result is what the
// same script prints against PostgreSQL 15 for the same schema, except
// the view definition, which is the text the view was created with
// (docs/catalog.md).
func TestSQLAlchemyInspector(t *testing.T) {
	if err := exec.Command(systemPython, "-c", "import sqlalchemy, psycopg2, pandas").Run(); err != nil {
		t.Fatalf("SQLAlchemy, psycopg2 and pandas are required (apt-get install python3-sqlalchemy python3-psycopg2 python3-pandas): %v", err)
	}
	s := startBinary(t)
	s.must("CREATE TABLE customers (id int PRIMARY KEY, name varchar(50) NOT NULL UNIQUE)")
	s.must("CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL, amount numeric(10,2), note text DEFAULT 'none')")
	s.must("CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 100")
	s.must("CREATE MATERIALIZED VIEW totals AS SELECT customer, count(*) AS n FROM orders GROUP BY customer")
	s.must("CREATE INDEX orders_customer_idx ON orders (customer)")
	s.must("INSERT INTO orders VALUES (1, 7, 10, 'x'), (2, 8, 200, 'y')")
	out, err := exec.Command(systemPython, "testdata/sqlalchemy_inspect.py", "postgresql+psycopg2://u@"+s.addr+"/freshet").CombinedOutput()
	if err != nil {
		t.Fatalf("the script failed: %v\n%s", err, out)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script printed no JSON: %v\n%s", err, out)
	}
	want := map[string]string{
		"schemas":            `["information_schema","public"]`,
		"tables":             `["customers","orders"]`,
		"views":              `["big_orders","totals"]`,
		"has_table":          `[true,false]`,
		"columns":            `[["id","INTEGER",false,null],["customer","INTEGER",false,null],["amount","NUMERIC(10, 2)",true,null],["note","TEXT",true,"'none'::text"]]`,
		"pk":                 `{"constrained_columns":["id"],"name":"orders_pkey"}`,
		"unique":             `[{"column_names":["name"],"name":"customers_name_key"}]`,
		"indexes":            `[{"column_names":["customer"],"dialect_options":{"postgresql_include":[]},"include_columns":[],"name":"orders_customer_idx","unique":false}]`,
		"foreign_keys":       `[]`,
		"check_constraints":  `[]`,
		"table_comment":      `{"text":null}`,
		"view_definition":    `"SELECT id, customer, amount FROM orders WHERE amount \u003e 100"`,
		"select":             `[[1,7],[2,8]]`,
		"reflect":            `{"big_orders":["id","customer","amount"],"customers":["id","name"],"orders":["id","customer","amount","note"],"totals":["customer","n"]}`,
		"pandas":             `{"columns":["id","customer","amount","note"],"dtypes":["int64","int64","float64","object"],"rows":[[1,7,10,"x"],[2,8,200,"y"]]}`,
		"server_side_cursor": `[[1],[2]]`,
		"savepoint":          `[[100,"sp"],[102,"sp2"]]`,
		"upsert":             `[[100,"sp"],[102,"sp3"]]`,
	}
	for step, w := range want {
		var wv any
		if err := json.Unmarshal([]byte(w), &wv); err != nil {
			t.Fatalf("bad expectation for %s: %v", step, err)
		}
		if !reflect.DeepEqual(got[step], wv) {
			g, _ := json.Marshal(got[step])
			t.Errorf("%s:\n got %s\nwant %s", step, g, strings.ReplaceAll(w, `\u003e`, ">"))
		}
	}
}
