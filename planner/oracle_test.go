package planner

import (
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"freshet/expr"
	"freshet/repr"
)

var seedFlag = flag.Int64("seed", 0, "run TestQuantifiedOracle with this seed only")

// TestQuantifiedOracle checks the plans of IN, NOT IN, ANY, ALL, EXISTS
// and scalar subqueries, correlated and not, as values and in WHERE,
// against a naive evaluation of SQL's three-valued semantics, over
// random small tables with NULLs (research §3.3: these forms must agree
// with PostgreSQL on random correlated inputs).
func TestQuantifiedOracle(t *testing.T) {
	seeds := []int64{*seedFlag}
	if *seedFlag == 0 {
		seeds = nil
		for s := int64(1); s <= 60; s++ {
			seeds = append(seeds, s)
		}
	}
	for _, seed := range seeds {
		if !quantifiedOracle(t, seed) {
			t.Logf("replay: go test ./planner -run TestQuantifiedOracle -seed=%d", seed)
			return
		}
	}
}

// tri is a SQL truth value.
type tri int

const (
	triFalse tri = iota
	triTrue
	triNull
)

func (v tri) String() string { return [...]string{"f", "t", "NULL"}[v] }

func triNot(v tri) tri {
	switch v {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triNull
}

// cell is a nullable small integer.
type cell struct {
	v    int
	null bool
}

func (c cell) String() string {
	if c.null {
		return "NULL"
	}
	return fmt.Sprint(c.v)
}

func compare(op string, x, y cell) tri {
	if x.null || y.null {
		return triNull
	}
	var r bool
	switch op {
	case "=":
		r = x.v == y.v
	case "<>":
		r = x.v != y.v
	case "<":
		r = x.v < y.v
	case ">":
		r = x.v > y.v
	}
	if r {
		return triTrue
	}
	return triFalse
}

// quantify is `x op ANY (ys)` or, with all, `x op ALL (ys)`.
func quantify(op string, all bool, x cell, ys []cell) tri {
	res := triFalse
	if all {
		res = triTrue
	}
	for _, y := range ys {
		c := compare(op, x, y)
		switch {
		case !all && c == triTrue, all && c == triFalse:
			return c
		case c == triNull:
			res = triNull
		}
	}
	return res
}

func randomCells(r *rand.Rand, n int) []cell {
	out := make([]cell, n)
	for i := range out {
		out[i] = cell{v: r.Intn(4), null: r.Intn(5) == 0}
	}
	return out
}

func quantifiedOracle(t *testing.T, seed int64) bool {
	r := rand.New(rand.NewSource(seed))
	// a(id, x) and b(g, y).
	na, nb := r.Intn(6), r.Intn(7)
	aid, ax := randomCells(r, na), randomCells(r, na)
	bg, by := randomCells(r, nb), randomCells(r, nb)
	intCol := expr.ColumnType{Type: repr.Int4, Nullable: true}
	cat := &testCatalog{rels: map[string]Relation{}, data: expr.Env{}}
	table := func(id expr.GlobalID, name string, cols []string, c1, c2 []cell) {
		rel := Relation{ID: id, Name: QualifiedName{Name: name}, Kind: KindTable}
		for _, c := range cols {
			rel.Columns = append(rel.Columns, RelationColumn{Name: c, Type: intCol})
		}
		cat.rels[name] = rel
		var rows []expr.Row
		for i := range c1 {
			ds := make([]repr.Datum, 2)
			for j, c := range []cell{c1[i], c2[i]} {
				if !c.null {
					ds[j] = repr.NewInt4(int32(c.v))
				}
			}
			rows = append(rows, expr.Row{Datums: ds, Diff: 1})
		}
		cat.data[id] = expr.Consolidate(rows)
	}
	table(20, "a", []string{"id", "x"}, aid, ax)
	table(21, "b", []string{"g", "y"}, bg, by)

	// sub returns the ys of b for a's row i: all of them, or those whose
	// g equals a's id (NULL matches nothing).
	sub := func(correlated bool, i int) []cell {
		var ys []cell
		for j := range by {
			if !correlated || compare("=", bg[j], aid[i]) == triTrue {
				ys = append(ys, by[j])
			}
		}
		return ys
	}
	where := map[bool]string{true: " WHERE b.g = a.id", false: ""}
	ok := true
	check := func(sql string, want []string) {
		stmts, err := Plan(cat, sql)
		if err != nil {
			t.Errorf("seed %d: %s: %v", seed, sql, err)
			ok = false
			return
		}
		sel := stmts[0].(*Select)
		rows, err := expr.Interpret(sel.Plan, cat.data)
		if err != nil {
			t.Errorf("seed %d: %s: %v", seed, sql, err)
			ok = false
			return
		}
		var got []string
		for _, row := range sel.Finishing.Apply(rows) {
			vals := make([]string, len(row))
			for j, d := range row {
				vals[j] = "NULL"
				if !d.IsNull() {
					vals[j] = repr.FormatText(d)
				}
			}
			got = append(got, strings.Join(vals, " "))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("seed %d: %s\na: %v %v\nb: %v %v\ngot:  %v\nwant: %v\nplan:\n%s",
				seed, sql, aid, ax, bg, by, got, want, expr.Explain(sel.Plan))
			ok = false
		}
	}
	for _, corr := range []bool{false, true} {
		for _, q := range []struct {
			sql string
			op  string
			all bool
			not bool
		}{
			{"x IN (SELECT y FROM b%s)", "=", false, false},
			{"x NOT IN (SELECT y FROM b%s)", "=", false, true},
			{"x = ANY (SELECT y FROM b%s)", "=", false, false},
			{"x < ANY (SELECT y FROM b%s)", "<", false, false},
			{"x <> ALL (SELECT y FROM b%s)", "<>", true, false},
			{"x > ALL (SELECT y FROM b%s)", ">", true, false},
			{"x = ALL (SELECT y FROM b%s)", "=", true, false},
			{"NOT (x > ALL (SELECT y FROM b%s))", ">", true, true},
		} {
			pred := fmt.Sprintf(q.sql, where[corr])
			var asValue, asFilter []string
			for i := range aid {
				v := quantify(q.op, q.all, ax[i], sub(corr, i))
				if q.not {
					v = triNot(v)
				}
				asValue = append(asValue, fmt.Sprintf("%s %s %s", aid[i], ax[i], v))
				if v == triTrue {
					asFilter = append(asFilter, fmt.Sprintf("%s %s", aid[i], ax[i]))
				}
			}
			check("SELECT id, x, "+pred+" FROM a", asValue)
			check("SELECT id, x FROM a WHERE "+pred, asFilter)
		}
		// EXISTS, NOT EXISTS, a scalar aggregate and a count.
		var exists, notExists, scalars []string
		for i := range aid {
			ys := sub(corr, i)
			if len(ys) > 0 {
				exists = append(exists, fmt.Sprintf("%s %s", aid[i], ax[i]))
			} else {
				notExists = append(notExists, fmt.Sprintf("%s %s", aid[i], ax[i]))
			}
			maxY, count := cell{null: true}, 0
			for _, y := range ys {
				if y.null {
					continue
				}
				count++
				if maxY.null || y.v > maxY.v {
					maxY = y
				}
			}
			scalars = append(scalars, fmt.Sprintf("%s %s %d", aid[i], maxY, count))
		}
		check("SELECT id, x FROM a WHERE EXISTS (SELECT 1 FROM b"+where[corr]+")", exists)
		check("SELECT id, x FROM a WHERE NOT EXISTS (SELECT 1 FROM b"+where[corr]+")", notExists)
		check("SELECT id, (SELECT max(y) FROM b"+where[corr]+"), (SELECT count(y) FROM b"+where[corr]+") FROM a", scalars)
	}
	return ok
}
