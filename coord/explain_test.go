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
