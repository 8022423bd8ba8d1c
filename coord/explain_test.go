package coord

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// TestExplainOptions checks EXPLAIN ANALYZE (the plan, then the rows the
// query returned and its time) and EXPLAIN (FORMAT JSON) (one json
// value: the plan as nested nodes, the imports, and with ANALYZE the
// rows), and the refusals of PostgreSQL: an unknown option (42601), an
// unknown format (22023), YAML and XML (0A000 here).
func TestExplainOptions(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE et (k int, v int)")
	env.exec(s, "INSERT INTO et SELECT g, g % 3 FROM generate_series(1, 100) g")

	r := &recorder{}
	if err := s.Query(context.Background(), "EXPLAIN ANALYZE SELECT v, count(*) FROM et GROUP BY v", r); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(r.rows, "\n")
	for _, want := range []string{"Reduce group_by=[#1]", "Imports table et", "Actual Rows: 3", "Execution Time: "} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN ANALYZE lacks %q:\n%s", want, text)
		}
	}

	r = &recorder{}
	if err := s.Query(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF) SELECT k FROM et WHERE v = 1", r); err != nil {
		t.Fatal(err)
	}
	if len(r.rows) != 1 {
		t.Fatalf("FORMAT JSON: %d rows", len(r.rows))
	}
	var doc []struct {
		Plan struct {
			NodeType string           `json:"Node Type"`
			Plans    []map[string]any `json:"Plans"`
		}
		Imports    []string
		ActualRows int `json:"Actual Rows"`
	}
	if err := json.Unmarshal([]byte(r.rows[0]), &doc); err != nil {
		t.Fatalf("FORMAT JSON is not json: %v\n%s", err, r.rows[0])
	}
	if len(doc) != 1 || doc[0].Plan.NodeType != "Project" || len(doc[0].Plan.Plans) != 1 || doc[0].ActualRows != 34 ||
		len(doc[0].Imports) != 1 {
		t.Fatalf("FORMAT JSON: %+v", doc)
	}

	env.failsWith(s, "EXPLAIN (FOO) SELECT 1", sqlerr.SyntaxError, `unrecognized EXPLAIN option "foo"`)
	env.failsWith(s, "EXPLAIN (FORMAT BAR) SELECT 1", sqlerr.InvalidParameterValue, `unrecognized value for EXPLAIN option "format": "bar"`)
	env.failsWith(s, "EXPLAIN (FORMAT YAML) SELECT 1", sqlerr.FeatureNotSupported, "YAML")
}

// TestExplainDistinctAggregates checks that a view counting distinct
// values per group, the freshet-bench distinct workload's, is planned as
// a count over a Distinct of (group key, argument), and that its rows
// follow inserts, updates and deletes, NULL arguments included.
func TestExplainDistinctAggregates(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int, customer int)")
	env.exec(s, "CREATE TABLE customers (id int, region int)")
	const view = "SELECT c.region, count(DISTINCT o.customer) AS n FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region"
	text := explain(t, env, s, view)
	for _, want := range []string{"Reduce group_by=[#0] aggregates=[count(#1)]", "Distinct"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "count(distinct") {
		t.Errorf("EXPLAIN still counts distinct values in the Reduce:\n%s", text)
	}
	env.exec(s, "CREATE MATERIALIZED VIEW per_region AS "+view)
	env.exec(s, "CREATE MATERIALIZED VIEW any_customer AS SELECT count(DISTINCT customer) AS n, sum(DISTINCT customer) AS s FROM orders")
	if got := env.query(s, "SELECT * FROM any_customer"); got != "0,NULL" {
		t.Errorf("over no orders: %q", got)
	}
	env.exec(s, "INSERT INTO customers VALUES (1, 10), (2, 10), (3, 20)")
	env.exec(s, "INSERT INTO orders VALUES (1, 1), (2, 1), (3, 2), (4, 3), (5, NULL)")
	check := func(perRegion, any string) {
		t.Helper()
		if got := env.query(s, "SELECT * FROM per_region"); got != perRegion {
			t.Errorf("per_region: %q, want %q", got, perRegion)
		}
		if got := env.query(s, "SELECT * FROM any_customer"); got != any {
			t.Errorf("any_customer: %q, want %q", got, any)
		}
	}
	check("10,2 20,1", "3,6")
	env.exec(s, "DELETE FROM orders WHERE id = 3")
	check("10,1 20,1", "2,4")
	env.exec(s, "UPDATE orders SET customer = 3 WHERE customer = 1")
	check("20,1", "1,3")
	env.exec(s, "DELETE FROM orders WHERE customer IS NOT NULL")
	check("", "0,NULL")
}
