package coord

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestOrderedLimitReads: a read with ORDER BY and LIMIT, which reads
// only the first OFFSET + LIMIT rows in its order (limited), returns
// the rows that the same ORDER BY without a LIMIT returns at those
// places: over a table with repeated rows and NULLs, in every direction
// and NULLs placement, by expressions, with offsets past the end, over
// a join, and in a transaction block.
func TestOrderedLimitReads(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (a int, b text, c numeric)")
	rng := rand.New(rand.NewPCG(7, 7))
	t.Logf("seed 7")
	var values []string
	for range 300 {
		a, b, c := "NULL", "NULL", "NULL"
		if rng.IntN(5) > 0 {
			a = fmt.Sprint(rng.IntN(20) - 5)
		}
		if rng.IntN(5) > 0 {
			b = fmt.Sprintf("'%s'", []string{"", "x", "xy", "y", "é"}[rng.IntN(5)])
		}
		if rng.IntN(5) > 0 {
			c = []string{"1.5", "-2", "0", "1e10", "'NaN'"}[rng.IntN(5)]
		}
		values = append(values, fmt.Sprintf("(%s, %s, %s)", a, b, c))
	}
	env.exec(s, "INSERT INTO t VALUES "+strings.Join(values, ", "))
	rows := func(sql string) []string {
		t.Helper()
		r := &recorder{}
		if err := s.Query(context.Background(), sql, r); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return r.rows
	}
	from := []string{"t", "t JOIN (SELECT DISTINCT a AS k FROM t) d ON t.a = d.k"}
	orders := []string{"a", "a DESC", "a NULLS FIRST", "a DESC NULLS LAST", "b, a DESC", "c DESC, b NULLS FIRST",
		"a + 1", "length(b) DESC, c"}
	for _, f := range from {
		for _, o := range orders {
			all := rows(fmt.Sprintf("SELECT a, b, c FROM %s ORDER BY %s", f, o))
			for _, lo := range [][2]int{{0, 0}, {1, 0}, {5, 3}, {10, len(all) - 5}, {len(all) + 10, 0}, {3, len(all) + 1}} {
				limit, offset := lo[0], lo[1]
				got := rows(fmt.Sprintf("SELECT a, b, c FROM %s ORDER BY %s LIMIT %d OFFSET %d", f, o, limit, offset))
				want := all[min(offset, len(all)):min(offset+limit, len(all))]
				if !slices.Equal(got, want) {
					t.Fatalf("FROM %s ORDER BY %s LIMIT %d OFFSET %d:\n got %v\nwant %v", f, o, limit, offset, got, want)
				}
			}
		}
	}
	env.exec(s, "BEGIN")
	all := rows("SELECT a, b, c FROM t ORDER BY c, a DESC")
	if got := rows("SELECT a, b, c FROM t ORDER BY c, a DESC LIMIT 7 OFFSET 2"); !slices.Equal(got, all[2:9]) {
		t.Fatalf("in a block:\n got %v\nwant %v", got, all[2:9])
	}
	env.exec(s, "COMMIT")
}
