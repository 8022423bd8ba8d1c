package planner

import (
	"strings"
	"testing"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// testCatalog is the catalog of the tests: the tables of research §7
// (t, u, e) and a few others, with their contents for the oracle.
type testCatalog struct {
	rels map[string]Relation
	data expr.Env
}

func (c *testCatalog) ResolveRelation(n QualifiedName) (Relation, error) {
	if n.Schema != "" && n.Schema != "public" {
		return Relation{}, sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", n.Schema)
	}
	r, ok := c.rels[n.Name]
	if !ok {
		return Relation{}, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", n.Name)
	}
	return r, nil
}

// fixtureTable is a relation of the test catalog: columns as
// "name type [not null] [default literal]", rows as text, "NULL" for
// NULL, "|"-separated.
type fixtureTable struct {
	id      expr.GlobalID
	name    string
	kind    RelationKind
	columns []string
	rows    []string
	sql     string
	plan    func(r Relation) expr.Relation
	// keys are the table's unique keys, and indexed the key columns of
	// its indexes that joins read, as column indexes.
	keys, indexed [][]int
}

var fixtures = []fixtureTable{
	{id: 1, name: "t", kind: KindTable, columns: []string{"k int4", "v int4"},
		rows: []string{"1|10", "2|20", "2|NULL", "3|NULL", "NULL|5"}},
	{id: 2, name: "u", kind: KindTable, columns: []string{"k int4", "w int4"},
		rows: []string{"1|100", "1|101", "2|200", "NULL|300"}},
	{id: 3, name: "e", kind: KindTable, columns: []string{"x int4"}},
	{id: 4, name: "s", kind: KindTable, columns: []string{"a text", "b numeric", "d date"},
		rows: []string{"x|1.5|2024-01-02", "y|2.25|2024-02-29", "B|NULL|NULL", "NULL|10|1999-12-31"}},
	{id: 5, name: "items", kind: KindTable,
		columns: []string{"id int4 not null", "name text not null default unnamed", "price numeric(10,2)", "qty int4 default 1"},
		rows:    []string{"1|apple|0.50|10", "2|pear|1.25|3"}},
	{id: 6, name: "tv", kind: KindView, columns: []string{"k int4", "v int4"},
		sql: "SELECT k, v FROM t WHERE v IS NOT NULL"},
	{id: 7, name: "mv", kind: KindMaterializedView, columns: []string{"k int4", "total numeric"},
		rows: []string{"NULL|300", "2|200", "1|201"}},
	// pv is a view whose catalog entry holds a plan, with a Let whose id
	// must not clash with the reading plan's: the rows of u with w > 100.
	{id: 8, name: "pv", kind: KindView, columns: []string{"k int4", "w int4"},
		plan: func(Relation) expr.Relation {
			u := expr.Get{ID: 2, Name: "u", Types: []expr.ColumnType{{Type: repr.Int4, Nullable: true}, {Type: repr.Int4, Nullable: true}}}
			return expr.Let{ID: 1, Value: expr.Filter{Input: u, Predicates: []expr.Scalar{
				expr.CallBinary{Func: expr.Gt, Left: expr.Column{Index: 1}, Right: expr.Literal{Value: repr.NewInt4(100), Type: repr.Int4}}}},
				Body: expr.LocalGet{ID: 1, Types: u.Types}}
		}},
	{id: 9, name: "src", kind: KindSource, columns: []string{"payload text"}},
	{id: 10, name: "vc", kind: KindTable, columns: []string{"c varchar(3)", "n int4 not null"}},
	// ord is a fact table with a primary key (id), whose rows share
	// customers (cust, some NULL) and have amounts (some NULL).
	{id: 11, name: "ord", kind: KindTable, columns: []string{"id int4 not null", "cust int4", "amount numeric(10,2)"},
		rows: []string{"1|1|1.50", "2|1|2.25", "3|2|NULL", "4|2|10.00", "5|3|NULL", "6|NULL|7.00", "7|1|-0.75"},
		keys: [][]int{{0}}},
	// ordix is ord with an index on cust.
	{id: 12, name: "ordix", kind: KindTable, columns: []string{"id int4 not null", "cust int4", "amount numeric(10,2)"},
		rows:    []string{"1|1|1.50", "2|1|2.25", "3|2|NULL"},
		indexed: [][]int{{1}}},
}

func newTestCatalog(t testing.TB) *testCatalog {
	c := &testCatalog{rels: map[string]Relation{}, data: expr.Env{}}
	for _, f := range fixtures {
		r := Relation{ID: f.id, Name: QualifiedName{Schema: "public", Name: f.name}, Kind: f.kind, SQL: f.sql}
		for _, spec := range f.columns {
			parts := strings.Fields(spec)
			typ, err := typeFromSpec(parts[1])
			if err != nil {
				t.Fatal(err)
			}
			col := RelationColumn{Name: parts[0], Type: expr.ColumnType{Type: typ, Nullable: true}}
			rest := strings.Join(parts[2:], " ")
			if strings.Contains(rest, "not null") {
				col.Type.Nullable = false
			}
			if i := strings.Index(rest, "default "); i >= 0 {
				d, err := repr.ParseText(typ, strings.TrimSpace(rest[i+len("default "):]))
				if err != nil {
					t.Fatal(err)
				}
				col.Default = expr.Literal{Value: d, Type: typ}
			}
			r.Columns = append(r.Columns, col)
		}
		if f.plan != nil {
			r.Plan = f.plan(r)
		}
		for _, k := range f.keys {
			r.UniqueKeys = append(r.UniqueKeys, RelationKey{Columns: k})
		}
		r.IndexKeys = f.indexed
		c.rels[f.name] = r
		if f.kind == KindView {
			continue
		}
		var rows []expr.Row
		for _, line := range f.rows {
			vals := strings.Split(line, "|")
			ds := make([]repr.Datum, len(vals))
			for i, v := range vals {
				if v == "NULL" {
					continue
				}
				d, err := repr.ParseText(r.Columns[i].Type.Type, v)
				if err != nil {
					t.Fatal(err)
				}
				ds[i] = d
			}
			rows = append(rows, expr.Row{Datums: ds, Diff: 1})
		}
		c.data[f.id] = expr.Consolidate(rows)
	}
	return c
}

func typeFromSpec(s string) (repr.Type, error) {
	name, mods := s, []int32(nil)
	if i := strings.Index(s, "("); i >= 0 {
		name = s[:i]
		for _, m := range strings.Split(strings.TrimSuffix(s[i+1:], ")"), ",") {
			n := int32(0)
			for _, ch := range m {
				n = n*10 + int32(ch-'0')
			}
			mods = append(mods, n)
		}
	}
	return repr.TypeFromName(name, mods)
}
