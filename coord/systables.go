package coord

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"freshet/catalog"
	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// The system tables hold Freshet's catalog as rows: one table per
// generated pg_catalog relation written from the catalog (pg_class,
// pg_attribute, pg_index, …), with the relation's columns after a
// database column. They are tables to the dataflow layer, with a dataflow
// and an export each, but no storage and no catalog record: the
// coordinator is their only writer, and the persisted catalog is the
// source of their rows. Every DDL statement writes the rows it adds and
// removes at a timestamp of its own before it is acknowledged
// (publishCatalogLocked), so a read that starts after the
// acknowledgement sees the change, a read of the catalog and of user
// tables in one statement sees both at one time, and a materialized view
// or an index over pg_class follows later DDL as a view over any table
// follows its writes. At startup the tables are rebuilt from the loaded
// catalog before any view is.
//
// pg_class and its kin are views over these tables (systemTableView);
// users can read the tables themselves as freshet_catalog.pg_class and
// so on, and cannot write them.

// systemSchema is the schema the system tables are named in.
const systemSchema = "freshet_catalog"

// systemIDBase is the id of the first system table. Catalog ids count up
// from zero and are never reused; they do not reach it.
const systemIDBase uint64 = 1 << 48

// systemTable is one system table.
type systemTable struct {
	id   uint64
	name string
	view generatedView
	// columns are the table's: database, then the relation's.
	columns []planner.RelationColumn
}

// systemTableList returns the system tables, one per generated relation
// written from the catalog, in name order; their ids follow that order.
var systemTableList = sync.OnceValue(func() []*systemTable {
	var names []string
	for name, g := range generatedViews {
		if g.rows != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) >= 128 {
		// systemDiffLocked keys a row by its table's index in one byte.
		panic("too many system tables")
	}
	tables := make([]*systemTable, len(names))
	for i, name := range names {
		g := generatedViews[name]
		cols := append([]planner.RelationColumn{col("database", repr.Name, false)}, g.columns...)
		tables[i] = &systemTable{id: systemIDBase + uint64(i), name: name, view: g, columns: cols}
	}
	return tables
})

// isSystemTable reports whether id is a system table's: the catalog's
// or an introspection table's (introspect_tables.go).
func isSystemTable(id uint64) bool { return isCatalogTable(id) || isIntrospectTable(id) }

// isCatalogTable reports whether id is a system table written from the
// catalog.
func isCatalogTable(id uint64) bool {
	return id >= systemIDBase && id < systemIDBase+uint64(len(systemTableList()))
}

// systemTableName is the name of system table id in systemSchema.
func systemTableName(id uint64) string {
	if isIntrospectTable(id) {
		return introspectTableList()[id-introspectIDBase].tableName()
	}
	return systemTableList()[id-systemIDBase].name
}

// systemTableObject stands for system table id, called name, where the
// engine builds tables from catalog objects.
func systemTableObject(id uint64, name string) *catalog.Object {
	return &catalog.Object{ID: id, Name: systemSchema + "." + name}
}

// systemTableNamed returns the system table name, or nil.
func systemTableNamed(name string) *systemTable {
	for _, t := range systemTableList() {
		if t.name == name {
			return t
		}
	}
	return nil
}

// systemTableView is the SQL of the generated relation name, g, as read
// in database db: its system table's rows of that database and of none
// (of every database, for a shared relation), without the database
// column.
func systemTableView(name string, g generatedView, db string) string {
	sql := "SELECT " + columnNames(g.columns) + " FROM " + systemSchema + "." + name
	if !g.shared {
		// The rows of no object (the built-in schemas') are in every
		// database.
		sql += " WHERE database IN (" + quoteLiteral(db) + ", '')"
	}
	return sql
}

// resolveSystemTable resolves freshet_catalog.name: a table written from
// the catalog, or an introspection relation's (internal_name).
func (s *Session) resolveSystemTable(name string) (planner.Relation, bool) {
	var id uint64
	var cols []planner.RelationColumn
	if t := systemTableNamed(name); t != nil {
		id, cols = t.id, t.columns
	} else if rel, ok := strings.CutPrefix(name, "internal_"); ok && introspectTableNamed(rel) != nil {
		t := introspectTableNamed(rel)
		id, cols = t.id, t.columns
	} else {
		return planner.Relation{}, false
	}
	return planner.Relation{
		ID:      expr.GlobalID(id),
		Name:    planner.QualifiedName{Database: s.database, Schema: systemSchema, Name: name},
		Kind:    planner.KindTable,
		Columns: cols,
	}, true
}

// rowSource is what the generators read besides the object whose rows
// they write: the catalog, and what other objects say of it, computed
// once per catalog change.
type rowSource struct {
	c *catalog.Catalog
	// hasIndex holds the relations with an index: a CREATE INDEX, or a
	// PRIMARY KEY or UNIQUE constraint, which is an index in PostgreSQL.
	hasIndex map[uint64]bool
}

func newRowSource(c *catalog.Catalog) *rowSource {
	rs := &rowSource{c: c, hasIndex: map[uint64]bool{}}
	for _, o := range c.Objects() {
		if o.Kind == catalog.Index {
			rs.hasIndex[o.On] = true
		} else if len(o.UniqueKeys) > 0 {
			rs.hasIndex[o.ID] = true
		}
	}
	return rs
}

// noObject stands for the rows of no catalog object (the built-in
// superuser's) in systemState.
const noObject = ^uint64(0)

// objectRows are the rows one catalog object gives the system tables,
// encoded, by table, with what they were written from. A catalog object
// is never changed in place (a change replaces it), and what its rows
// read of other objects is fixed while it exists (an index's table, a
// view's dependencies), except whether a relation has an index; so the
// rows stay right while the object and that flag are the same.
type objectRows struct {
	obj      *catalog.Object
	hasIndex bool
	rows     [][]repr.Row
}

// systemState is what the system tables hold, by the object that gave
// each row.
type systemState struct {
	objects map[uint64]*objectRows
	// dirty says the catalog changed since the tables were last written.
	dirty bool
	// readers are the materialized views and indexes whose dataflows
	// read a system table: while there is one, every catalog change is
	// written at once.
	readers map[uint64]bool
}

// catalogChangedLocked is called by every statement that changes the
// catalog, after the change and before it is acknowledged. If a
// materialized view or index follows the catalog, the system tables are
// written now (publishCatalogLocked); otherwise the change waits for the
// next statement that reads a system table (flushCatalogFor), which
// writes it before it takes its read time. Either way a read after the
// acknowledgement sees the change, and DDL costs nothing to the
// dataflows of a server whose views do not read the catalog: every
// write at a new time makes every dataflow's frontier move.
func (e *Engine) catalogChangedLocked(ctx context.Context) error {
	e.sys.dirty = true
	if len(e.sys.readers) == 0 {
		return nil
	}
	return e.publishCatalogLocked(ctx)
}

// flushCatalogFor writes the catalog's pending changes to the system
// tables if plan reads one, and the engine's state to the introspection
// tables if it reads one of those; it is called before the plan's read
// time is taken.
func (e *Engine) flushCatalogFor(ctx context.Context, plan expr.Relation) error {
	if readsIntrospection(plan) {
		if err := e.publishIntrospection(ctx); err != nil {
			return err
		}
	}
	if !readsSystemTable(plan) {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.sys.dirty {
		return nil
	}
	return e.publishCatalogLocked(ctx)
}

// flushForBuildLocked writes the catalog's pending changes before a
// materialized view or index over plan is built, if plan reads a system
// table, so that it starts from the catalog of its creation.
func (e *Engine) flushForBuildLocked(ctx context.Context, plan expr.Relation) error {
	if !e.sys.dirty || !readsSystemTable(plan) {
		return nil
	}
	return e.publishCatalogLocked(ctx)
}

// readsSystemTable reports whether plan reads a system table written
// from the catalog.
func readsSystemTable(plan expr.Relation) bool {
	return slices.ContainsFunc(dependencies(plan), isCatalogTable)
}

// noteSystemReaderLocked records that the dataflow of object id, built
// from plan, reads the system tables, if it does: the catalog's, the
// introspection tables, or both.
func (e *Engine) noteSystemReaderLocked(id uint64, plan expr.Relation) {
	e.noteIntrospectReaderLocked(id, plan)
	if !readsSystemTable(plan) {
		return
	}
	if e.sys.readers == nil {
		e.sys.readers = map[uint64]bool{}
	}
	e.sys.readers[id] = true
}

// startSystemTablesLocked builds the system tables' dataflows and writes
// the rows of the catalog as loaded.
func (e *Engine) startSystemTablesLocked(ctx context.Context) error {
	for _, t := range systemTableList() {
		if err := e.buildTableLocked(ctx, systemTableObject(t.id, t.name), false); err != nil {
			return err
		}
	}
	if err := e.startIntrospectTablesLocked(ctx); err != nil {
		return err
	}
	return e.publishCatalogLocked(ctx)
}

// publishCatalogLocked writes to the system tables the rows by which the
// catalog now differs from what they hold, at a timestamp of their own,
// and returns once reads see them. It is called by every statement that
// changes the catalog, after the change and before the statement is
// acknowledged. Waiting for earlier writes to be fed releases the
// engine's lock; the catalog and the system tables' state are already
// consistent then, and a later DDL statement writes at a later time.
func (e *Engine) publishCatalogLocked(ctx context.Context) error {
	writes, next, err := e.systemDiffLocked()
	if err != nil {
		e.log.Error("the catalog could not be written to the system tables", "error", err)
		return err
	}
	next.readers = e.sys.readers
	if len(writes) == 0 {
		e.sys = next
		return nil
	}
	// The catalog change is durable: its rows are written whatever the
	// client does now.
	ts, err := e.oracle.next(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	e.sys = next
	return e.feedSystemLocked(ts, writes)
}

// feedSystemLocked feeds writes to system tables at ts, a time just taken
// from the oracle, and returns once they are fed: in timestamp order
// after every earlier write, which releases the engine's lock meanwhile.
func (e *Engine) feedSystemLocked(ts uint64, writes []TableWrite) error {
	p := &pendingWrite{ts: ts, writes: writesOf(writes), durable: true}
	e.pending = append(e.pending, p)
	e.feedDurableLocked()
	for !p.fed {
		e.fedCond.Wait()
	}
	return p.err
}

// systemDiffLocked returns the writes that bring the system tables from
// what they hold to the rows the catalog now gives, in a fixed order,
// with the state that holds after them. Only the objects that are new,
// gone or replaced since the last call are written out; the others are
// visited, not written.
func (e *Engine) systemDiffLocked() ([]TableWrite, systemState, error) {
	tables := systemTableList()
	rs := newRowSource(e.cat)
	next := systemState{objects: make(map[uint64]*objectRows, len(e.sys.objects))}
	diffs := map[string]int64{}
	add := func(rows [][]repr.Row, sign int64) {
		for i, tr := range rows {
			for _, r := range tr {
				diffs[string(rune(i))+string(r)] += sign
			}
		}
	}
	visit := func(id uint64, o *catalog.Object) error {
		has := o != nil && rs.hasIndex[o.ID]
		old := e.sys.objects[id]
		if old != nil && old.obj == o && old.hasIndex == has {
			next.objects[id] = old
			return nil
		}
		cur := &objectRows{obj: o, hasIndex: has, rows: make([][]repr.Row, len(tables))}
		for i, t := range tables {
			db := ""
			if o != nil && !t.view.shared {
				db = o.Database
			}
			for _, lits := range t.view.rows(rs, o) {
				row, err := systemRow(t.name, t.view.columns, db, lits)
				if err != nil {
					return err
				}
				cur.rows[i] = append(cur.rows[i], row)
			}
		}
		if old != nil {
			add(old.rows, -1)
		}
		add(cur.rows, 1)
		next.objects[id] = cur
		return nil
	}
	if err := visit(noObject, nil); err != nil {
		return nil, systemState{}, err
	}
	for _, o := range append(e.cat.Objects(), e.cat.Roles()...) {
		if err := visit(o.ID, o); err != nil {
			return nil, systemState{}, err
		}
	}
	for id, old := range e.sys.objects {
		if _, ok := next.objects[id]; !ok {
			add(old.rows, -1)
		}
	}
	var writes []TableWrite
	for k, d := range diffs {
		if d != 0 {
			// The key is the table's index (one character: there are
			// fewer than 128 tables) and the row.
			writes = append(writes, TableWrite{Table: tables[k[0]].id, Row: repr.Row(k[1:]), Diff: d})
		}
	}
	slices.SortFunc(writes, func(a, b TableWrite) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), strings.Compare(string(a.Row), string(b.Row)), cmp.Compare(a.Diff, b.Diff))
	})
	return writes, next, nil
}

// systemRow encodes a row of system table name, whose columns after the
// database are cols: the database db, then the values its generator
// wrote as SQL literals (a number, true or false, a quoted string, or
// NULL), each read as its column's type reads text.
func systemRow(name string, cols []planner.RelationColumn, db string, lits []string) (repr.Row, error) {
	if len(lits) != len(cols) {
		return nil, sqlerr.AssertionFailedf("a row of %d values for the %d columns of %s", len(lits), len(cols), name)
	}
	datums := make([]repr.Datum, 0, len(cols)+1)
	d, err := repr.ParseText(repr.Name, db)
	if err != nil {
		return nil, err
	}
	datums = append(datums, d)
	for i, lit := range lits {
		d := repr.Null
		if lit != sqlNull {
			if len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'' {
				lit = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
			}
			if d, err = repr.ParseText(cols[i].Type.Type, lit); err != nil {
				return nil, sqlerr.AssertionFailedf("column %s of %s: %v", cols[i].Name, name, err)
			}
		}
		datums = append(datums, d)
	}
	return repr.PackRow(datums...), nil
}
