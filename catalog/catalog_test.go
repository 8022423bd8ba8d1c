package catalog

import (
	"fmt"
	"strings"
	"testing"

	"freshet/repr"
	"freshet/sqlerr"
)

func rel(c *Catalog, t *testing.T, kind Kind, name string, deps ...uint64) *Object {
	t.Helper()
	o, err := c.Create(&Object{Kind: kind, Name: name, Database: DefaultDatabase, Schema: DefaultSchema,
		Columns: []Column{{Name: "a", Type: repr.Int4}}, DependsOn: deps})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestCreateAndResolve(t *testing.T) {
	c := New()
	tb := rel(c, t, Table, "t")
	if got, err := c.Resolve(DefaultDatabase, DefaultSchema, "t"); err != nil || got != tb {
		t.Fatalf("resolve: %v %v", got, err)
	}
	if _, err := c.Resolve(DefaultDatabase, DefaultSchema, "nope"); sqlerr.Code(err) != sqlerr.UndefinedTable || err.Error() != `relation "nope" does not exist` {
		t.Fatalf("missing: %v", err)
	}
	if _, err := c.Create(&Object{Kind: View, Name: "t", Database: DefaultDatabase, Schema: DefaultSchema}); sqlerr.Code(err) != sqlerr.DuplicateTable {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := c.Create(&Object{Kind: Table, Name: "x", Database: "nodb", Schema: DefaultSchema}); sqlerr.Code(err) != sqlerr.InvalidCatalogName {
		t.Fatalf("no database: %v", err)
	}
	if _, err := c.CreateDatabase(DefaultDatabase); sqlerr.Code(err) != sqlerr.DuplicateDatabase {
		t.Fatalf("duplicate database: %v", err)
	}
}

func TestDropRestrictAndCascade(t *testing.T) {
	c := New()
	tb := rel(c, t, Table, "t")
	v := rel(c, t, View, "v", tb.ID)
	m := rel(c, t, MaterializedView, "m", v.ID)
	idx, err := c.Create(&Object{Kind: Index, Name: "t_idx", Database: DefaultDatabase, Schema: DefaultSchema, On: tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PlanDrop(Table, tb, false)
	e := sqlerr.From(err)
	if e.Code != sqlerr.DependentObjectsStillExist ||
		e.Message != "cannot drop table t because other objects depend on it" ||
		e.Detail != "view v depends on table t\nmaterialized view m depends on view v" ||
		e.Hint != "Use DROP ... CASCADE to drop the dependent objects too." {
		t.Fatalf("restrict: %q / %q / %q (%s)", e.Message, e.Detail, e.Hint, e.Code)
	}
	plan, err := c.PlanDrop(Table, tb, true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range plan.Objects {
		names = append(names, o.Name)
	}
	if got := strings.Join(names, " "); got != "m v t_idx t" {
		t.Fatalf("drop order %q", got)
	}
	if plan.Notice != "drop cascades to 2 other objects" || plan.Detail != "drop cascades to view v\ndrop cascades to materialized view m" {
		t.Fatalf("notice %q detail %q", plan.Notice, plan.Detail)
	}
	// An index goes with its table without CASCADE.
	c2 := New()
	t2 := rel(c2, t, Table, "t")
	c2.Create(&Object{Kind: Index, Name: "i", Database: DefaultDatabase, Schema: DefaultSchema, On: t2.ID})
	if p, err := c2.PlanDrop(Table, t2, false); err != nil || len(p.Objects) != 2 || p.Notice != "" {
		t.Fatalf("table with index: %v %v", p, err)
	}
	if _, err := c.PlanDrop(View, tb, false); sqlerr.Code(err) != sqlerr.WrongObjectType || sqlerr.From(err).Hint != "Use DROP TABLE to remove a table." {
		t.Fatalf("wrong kind: %v", err)
	}
	c.Remove(plan.Objects)
	for _, o := range []*Object{tb, v, m, idx} {
		if c.Get(o.ID) != nil {
			t.Fatalf("%s still there", o.Name)
		}
	}
	if again := rel(c, t, Table, "t"); again.ID <= idx.ID {
		t.Fatalf("id %d reused (last was %d)", again.ID, idx.ID)
	}
}

func TestEncodeDecodeLoad(t *testing.T) {
	c := New()
	o, err := c.Create(&Object{Kind: Table, Name: "t", Database: DefaultDatabase, Schema: DefaultSchema, Columns: []Column{
		{Name: "a", Type: repr.Int8, NotNull: true},
		{Name: "b", Type: repr.VarcharOf(10), Default: "'x'"},
		{Name: "c", Type: repr.NumericOf(10, 2)},
		{Name: "d", Type: repr.TimestampOf(3)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Create(&Object{Kind: View, Name: "v", Database: DefaultDatabase, Schema: DefaultSchema, SQL: "SELECT * FROM t",
		DependsOn: []uint64{o.ID}, Widths: map[uint64]int{o.ID: 3}})
	if err != nil {
		t.Fatal(err)
	}
	c2 := roundTrip(t, c)
	got, err := c2.Resolve(DefaultDatabase, DefaultSchema, "t")
	if err != nil {
		t.Fatal(err)
	}
	if w := c2.Get(v.ID).Widths; len(w) != 1 || w[o.ID] != 3 {
		t.Fatalf("view widths %v, want %d: 3", w, o.ID)
	}
	if w := got.Widths; w != nil {
		t.Fatalf("table widths %v, want none", w)
	}
	for i, col := range got.Columns {
		if col.Type.String() != o.Columns[i].Type.String() || col.NotNull != o.Columns[i].NotNull || col.Default != o.Columns[i].Default {
			t.Fatalf("column %d: %+v, want %+v", i, col, o.Columns[i])
		}
	}
	if c2.NextID() != c.NextID() {
		t.Fatalf("next id %d, want %d", c2.NextID(), c.NextID())
	}
	if _, err := Decode([]byte("{")); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("corrupt record: %v", err)
	}
}

func TestDropDatabase(t *testing.T) {
	c := New()
	if _, err := c.CreateDatabase("d"); err != nil {
		t.Fatal(err)
	}
	o, _ := c.Create(&Object{Kind: Table, Name: "t", Database: "d", Schema: DefaultSchema})
	c.Create(&Object{Kind: View, Name: "v", Database: "d", Schema: DefaultSchema, DependsOn: []uint64{o.ID}})
	plan, err := c.PlanDropDatabase("d")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range plan.Objects {
		names = append(names, x.Kind.String()+":"+x.Name)
	}
	if got := strings.Join(names, " "); got != "view:v table:t schema:public database:d" {
		t.Fatalf("order %q", got)
	}
	c.Remove(plan.Objects)
	if c.HasDatabase("d") || !c.HasDatabase(DefaultDatabase) {
		t.Fatal("wrong databases after drop")
	}
}

// A table's unique keys and a unique index's key survive Encode, Decode
// and Load, and UniqueKeys lists them: constraints first, then the
// indexes'. Dropping the index removes its key.
func TestUniqueKeys(t *testing.T) {
	c := New()
	tb, err := c.Create(&Object{Kind: Table, Name: "t", Database: DefaultDatabase, Schema: DefaultSchema,
		Columns:    []Column{{Name: "a", Type: repr.Int4, NotNull: true}, {Name: "b", Type: repr.Text}, {Name: "c", Type: repr.Int8}},
		UniqueKeys: []UniqueKey{{Name: "t_pkey", Columns: []int{0}, Primary: true}, {Name: "t_c_b_key", Columns: []int{2, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := c.Create(&Object{Kind: Index, Name: "t_b_idx", Database: DefaultDatabase, Schema: DefaultSchema,
		On: tb.ID, DependsOn: []uint64{tb.ID}, Unique: true, KeyColumns: []int{1}, SQL: `["b"]`})
	if err != nil {
		t.Fatal(err)
	}
	// An index that is not unique adds no key.
	if _, err := c.Create(&Object{Kind: Index, Name: "t_c_idx", Database: DefaultDatabase, Schema: DefaultSchema,
		On: tb.ID, DependsOn: []uint64{tb.ID}, SQL: `["c"]`}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[{t_pkey [0] true 0} {t_c_b_key [2 1] false 0} {t_b_idx [1] false %d}]", idx.ID)
	if got := fmt.Sprint(c.UniqueKeys(tb.ID)); got != want {
		t.Fatalf("keys %s, want %s", got, want)
	}
	c2 := roundTrip(t, c)
	if got := fmt.Sprint(c2.UniqueKeys(tb.ID)); got != want {
		t.Fatalf("keys after a round trip %s, want %s", got, want)
	}
	// A record written before unique keys existed decodes with none.
	old, err := Decode([]byte(`{"id":9,"kind":3,"name":"old","columns":[{"name":"a","type":"integer"}]}`))
	if err != nil || old.UniqueKeys != nil || old.Unique || old.KeyColumns != nil {
		t.Fatalf("old record: %+v %v", old, err)
	}
	plan, err := c2.PlanDrop(Index, c2.Get(idx.ID), false)
	if err != nil {
		t.Fatal(err)
	}
	c2.Remove(plan.Objects)
	if got := fmt.Sprint(c2.UniqueKeys(tb.ID)); got != "[{t_pkey [0] true 0} {t_c_b_key [2 1] false 0}]" {
		t.Fatalf("keys after DROP INDEX %s", got)
	}
	if c2.UniqueKeys(idx.ID) != nil || c2.UniqueKeys(12345) != nil {
		t.Fatal("UniqueKeys of something that is not a table")
	}
}

func TestUniqueKeyErrors(t *testing.T) {
	c := New()
	tb, err := c.Create(&Object{Kind: Table, Name: "t", Database: DefaultDatabase, Schema: DefaultSchema,
		Columns: []Column{{Name: "a", Type: repr.Int4}}, UniqueKeys: []UniqueKey{{Name: "t_a_key", Columns: []int{0}}}})
	if err != nil {
		t.Fatal(err)
	}
	v := rel(c, t, MaterializedView, "mv", tb.ID)
	index := func(name string, on uint64, cols ...int) error {
		_, err := c.Create(&Object{Kind: Index, Name: name, Database: DefaultDatabase, Schema: DefaultSchema,
			On: on, DependsOn: []uint64{on}, Unique: true, KeyColumns: cols})
		return err
	}
	for _, tt := range []struct {
		name string
		err  error
		code string
		msg  string
	}{
		{"on a view", index("i", v.ID, 0), sqlerr.FeatureNotSupported, "unique indexes on materialized views not supported"},
		{"named as a constraint", index("t_a_key", tb.ID, 0), sqlerr.DuplicateTable, `relation "t_a_key" already exists`},
		{"column out of range", index("i", tb.ID, 1), sqlerr.InternalError, ""},
		{"no columns", index("i", tb.ID), sqlerr.InternalError, ""},
		{"two keys of one name", func() error {
			_, err := c.Create(&Object{Kind: Table, Name: "u", Database: DefaultDatabase, Schema: DefaultSchema,
				Columns:    []Column{{Name: "a", Type: repr.Int4}},
				UniqueKeys: []UniqueKey{{Name: "k", Columns: []int{0}}, {Name: "k", Columns: []int{0}}}})
			return err
		}(), sqlerr.DuplicateTable, `relation "k" already exists`},
	} {
		if sqlerr.Code(tt.err) != tt.code || (tt.msg != "" && tt.err.Error() != tt.msg) {
			t.Errorf("%s: %v (%s), want %s %s", tt.name, tt.err, sqlerr.Code(tt.err), tt.code, tt.msg)
		}
	}
	// A stored key that names a missing column is a corrupt catalog.
	bad := *tb
	bad.UniqueKeys = []UniqueKey{{Name: "t_a_key", Columns: []int{3}}}
	if _, err := Load([]*Object{&bad}); sqlerr.Code(err) != sqlerr.DataCorrupted {
		t.Fatalf("corrupt key: %v", err)
	}
}

// roundTrip encodes every object of c, decodes it and loads the decoded
// objects into a new catalog, as a restart does.
func roundTrip(t *testing.T, c *Catalog) *Catalog {
	t.Helper()
	var objs []*Object
	for _, x := range c.Objects() {
		y, err := Decode(Encode(x))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, y)
	}
	c2, err := Load(objs)
	if err != nil {
		t.Fatal(err)
	}
	return c2
}

// A fresh catalog has the postgres database beside the default one,
// each with its public schema, so tools that connect to postgres by
// default find it.
func TestNewHasPostgres(t *testing.T) {
	c := New()
	for _, db := range []string{DefaultDatabase, PostgresDatabase} {
		if !c.HasDatabase(db) {
			t.Fatalf("no database %q", db)
		}
		if _, err := c.Create(&Object{Kind: Table, Name: "t", Database: db, Schema: DefaultSchema,
			Columns: []Column{{Name: "a", Type: repr.Int4}}}); err != nil {
			t.Fatalf("create in %s: %v", db, err)
		}
	}
}
