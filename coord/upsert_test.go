package coord

import (
	"context"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// ON CONFLICT's RETURNING gives the rows inserted and the rows updated;
// its DO UPDATE takes parameters and now(); in a transaction block it
// meets the limit every write there has.
func TestUpsertReturningParamsAndBlocks(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	ctx := context.Background()
	env.exec(s, "CREATE TABLE kv (k text PRIMARY KEY, v int, at timestamptz)")
	env.exec(s, "INSERT INTO kv VALUES ('a', 1, NULL)")
	r := &recorder{}
	if err := s.Query(ctx, "INSERT INTO kv VALUES ('a', 5, NULL), ('b', 2, NULL) ON CONFLICT (k) DO UPDATE SET v = kv.v + EXCLUDED.v, at = now() RETURNING k, v, at IS NOT NULL", r); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sortedCopy(r.rows), " "); got != "a,6,t b,2,f" {
		t.Fatalf("RETURNING: %q", got)
	}

	ps, err := s.Parse(ctx, "INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v + $2", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"c", "3"}, {"c", "4"}} {
		p, err := ps.Bind(ctx, [][]byte{[]byte(args[0]), []byte(args[1])})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Execute(ctx, 0, &recorder{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := env.query(s, "SELECT v FROM kv WHERE k = 'c'"); got != "8" {
		t.Fatalf("prepared upsert: %q, want 8", got)
	}

	env.exec(s, "BEGIN")
	env.exec(s, "INSERT INTO kv (k, v) VALUES ('d', 1) ON CONFLICT (k) DO NOTHING")
	err = s.Query(ctx, "INSERT INTO kv (k, v) VALUES ('d', 2) ON CONFLICT (k) DO UPDATE SET v = 2", &recorder{})
	if sqlerr.Code(err) != sqlerr.FeatureNotSupported {
		t.Fatalf("a second upsert of a table written in the block: %v, want 0A000", err)
	}
	env.exec(s, "ROLLBACK")
	if got := env.query(s, "SELECT count(*) FROM kv WHERE k = 'd'"); got != "0" {
		t.Fatalf("rolled-back upsert left %s rows", got)
	}
}
