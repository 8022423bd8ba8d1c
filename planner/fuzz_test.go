package planner

import (
	"errors"
	"testing"

	"freshet/sqlerr"
)

// FuzzPlan plans arbitrary SQL text against the test catalog: every
// input must give plans or an error carrying a SQLSTATE, never a panic
// or a crash of the process. The seeds include the shapes that crashed
// pg_query's C parser (tooDeep, generated rather than stored: the
// reproduction is 48 KB) and testdata/fuzz/FuzzPlan. Run it with
//
//	go test ./planner/ -run '^$' -fuzz FuzzPlan -fuzztime 60s
func FuzzPlan(f *testing.F) {
	for _, tt := range tooDeep {
		f.Add(tt.gen(tt.n))
	}
	for _, s := range []string{
		"SELECT 1",
		"SELECT k, sum(v) FROM t WHERE v > 1 GROUP BY k HAVING count(*) > 0 ORDER BY 1 LIMIT 3",
		"SELECT * FROM t JOIN u ON t.k = u.k UNION ALL SELECT * FROM t JOIN u ON true",
		"SELECT (SELECT max(v) FROM u WHERE u.k = t.k) FROM t",
		"SELECT CASE WHEN k IN (1, 2, 3) THEN 'a' || 'b' ELSE E'\\'' END FROM t",
		"SELECT $1::int + $$x$$::text::int",
		"INSERT INTO t VALUES (1, 2), (3, 4)",
		"CREATE VIEW w AS SELECT k FROM t WHERE k NOT LIKE '%a_'",
		"SELECT /* ( */ 1 -- (\n",
		"SELECT ARRAY[k, v][1], k = ANY('{1,2}'), unnest(ARRAY[k]) || ARRAY[v], ARRAY(SELECT v FROM u ORDER BY 1) FROM t",
		"SELECT k, row_number() OVER (PARTITION BY v ORDER BY k DESC), generate_subscripts(ARRAY[k], 1) FROM t ORDER BY 2",
		"SELECT format('%s %I', k, v), '1 2'::int2vector[0], '{}'::json, json_build_object('a', k) FROM t, generate_series(1, 2) g",
		"SELECT 'x'::regclass, 23::regtype::text, pg_get_viewdef(1), string_to_array('a,b', ',')",
		"SUBSCRIBE TO t WITH (SNAPSHOT = false, PROGRESS) AS OF AT LEAST 5 UP TO 10",
		"COPY (SUBSCRIBE (SELECT k FROM t WHERE k > 1)) TO STDOUT WITH (FORMAT text);",
		"DECLARE c CURSOR FOR SUBSCRIBE \"t\"",
		"FETCH 10 c WITH (timeout = '1s')",
		"SELECT time '10:00' + interval '1 hour', k::time(2), date '2024-01-01' - time '1:02 PM', extract(second FROM localtime), make_time(k, 0, 1.5) FROM t",
		"COPY t FROM STDIN (FORMAT csv, HEADER match, FORCE_NULL (k), QUOTE '|')",
		"MERGE INTO t AS x USING (SELECT k, w FROM u) s ON x.k = s.k WHEN MATCHED AND s.w > 1 THEN UPDATE SET v = DEFAULT WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (k) VALUES (s.w)",
		"MERGE INTO items USING t ON items.id = t.k WHEN NOT MATCHED AND t.v IS NULL THEN INSERT DEFAULT VALUES WHEN NOT MATCHED THEN DO NOTHING",
	} {
		f.Add(s)
	}
	cat := newTestCatalog(f)
	f.Fuzz(func(t *testing.T, sql string) {
		_, err := Plan(cat, sql)
		var e *sqlerr.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error without a SQLSTATE: %v", err)
		}
		if d, _ := nestingDepth(sql, MaxNestingDepth); d > MaxNestingDepth && len(sql) <= MaxStatementLength &&
			sqlerr.Code(err) != sqlerr.StatementTooComplex {
			t.Fatalf("nesting depth %d planned to %v", d, err)
		}
	})
}
