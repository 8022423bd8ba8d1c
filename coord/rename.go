package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/sqlerr"
)

// rename runs ALTER TABLE | VIEW | MATERIALIZED VIEW | INDEX | SEQUENCE
// … RENAME TO and ALTER TABLE | MATERIALIZED VIEW … RENAME COLUMN.
//
// Objects are known to dataflows, arrangements and storage by id, so a
// rename changes only catalog records: the object's, and for a column
// the stored key names of the table's indexes. What is stored as SQL
// text is planned again by name (at a restart, and a view at every
// read), so a rename that would leave such text naming what is gone is
// refused with 2BP01, naming the dependents: a view or materialized view
// over the renamed relation (or, for a column, over its table), and a
// column default that calls a renamed sequence. PostgreSQL keeps such
// dependents by rewriting them; here they are dropped and created again
// after the rename (docs/sql-service.md).
func (s *Session) rename(ctx context.Context, st *planner.Rename, w pgwire.Writer) (result, error) {
	if _, ok := s.resolveBuiltin(st.Name); ok || st.Name.Schema == pgCatalogSchema {
		return result{}, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", st.Name.Name)
	}
	if st.NewName == "" {
		return result{}, sqlerr.New(sqlerr.InvalidName, "zero-length delimited identifier")
	}
	skipped := false
	err := s.engine.changeCatalog(ctx, func(c *catalog.Catalog) ([]*catalog.Object, error) {
		o, err := s.lookup(c, st.Name)
		if err != nil {
			if st.IfExists && sqlerr.Code(err) == sqlerr.UndefinedTable {
				skipped = true
				return nil, nil
			}
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", st.Name.Name)
		}
		if want, ok := map[planner.ObjectKind]catalog.Kind{planner.ObjectView: catalog.View,
			planner.ObjectMaterializedView: catalog.MaterializedView, planner.ObjectSequence: catalog.Sequence}[st.Kind]; ok && o.Kind != want {
			return nil, sqlerr.New(sqlerr.WrongObjectType, "%q is not a %s", o.Name, want)
		}
		role, _ := s.sessionRole(c)
		if err := checkOwner(c, o, role); err != nil {
			return nil, err
		}
		if st.Column != "" {
			return renameColumn(c, o, st.Column, st.NewName)
		}
		return renameRelation(c, o, st.NewName)
	})
	if err != nil {
		return result{}, err
	}
	if skipped {
		w.Notice(sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist, skipping", st.Name.Name).WithSeverity(sqlerr.SeverityNotice))
	}
	return result{tag: st.Tag()}, nil
}

// renameRelation returns o renamed to name, or why it cannot be.
func renameRelation(c *catalog.Catalog, o *catalog.Object, name string) ([]*catalog.Object, error) {
	if name == o.Name {
		return nil, sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", name)
	}
	if _, err := c.Resolve(o.Database, o.Schema, name); err == nil {
		return nil, sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", name)
	}
	var lines []string
	for _, d := range c.Dependents(o.ID) {
		if d.Kind == catalog.View || d.Kind == catalog.MaterializedView {
			lines = append(lines, fmt.Sprintf("%s %s depends on %s %s", d.Kind, d.Name, o.Kind, o.Name))
		}
	}
	switch {
	case o.Kind == catalog.Sequence:
		lines = append(lines, sequenceUsers(c, o)...)
	case o.Kind == catalog.Index && o.Unique:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "renaming a unique index is not supported").
			WithHint("Drop the index and create it again under the new name.")
	}
	if err := refuseDependents(o, lines); err != nil {
		return nil, err
	}
	r := *o
	r.Name = name
	return []*catalog.Object{&r}, nil
}

// renameColumn returns t with its column renamed, and the indexes on t
// with their stored key names following, or why it cannot be.
func renameColumn(c *catalog.Catalog, t *catalog.Object, column, name string) ([]*catalog.Object, error) {
	switch t.Kind {
	case catalog.Table, catalog.View, catalog.MaterializedView:
	default:
		return nil, sqlerr.New(sqlerr.WrongObjectType, "%q is not a table, view or materialized view", t.Name)
	}
	i := slices.IndexFunc(t.Columns, func(col catalog.Column) bool { return col.Name == column })
	if i < 0 {
		return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", column)
	}
	if slices.ContainsFunc(t.Columns, func(col catalog.Column) bool { return col.Name == name }) {
		return nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q of relation %q already exists", name, t.Name)
	}
	var lines []string
	var indexes []*catalog.Object
	for _, d := range c.Dependents(t.ID) {
		switch d.Kind {
		case catalog.View, catalog.MaterializedView:
			lines = append(lines, fmt.Sprintf("%s %s depends on %s %s", d.Kind, d.Name, t.Kind, t.Name))
		case catalog.Index:
			indexes = append(indexes, d)
		}
	}
	if err := refuseDependents(t, lines); err != nil {
		return nil, err
	}
	r := *t
	r.Columns = slices.Clone(t.Columns)
	r.Columns[i].Name = name
	out := []*catalog.Object{&r}
	for _, idx := range indexes {
		var keys []string
		if err := json.Unmarshal([]byte(idx.SQL), &keys); err != nil {
			return nil, sqlerr.Wrapf(err, sqlerr.DataCorrupted, "index %s keys %q", idx.Name, idx.SQL)
		}
		changed := false
		for k := range keys {
			if keys[k] == column {
				keys[k], changed = name, true
			}
		}
		if !changed {
			continue
		}
		b, err := json.Marshal(keys)
		if err != nil {
			return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "encoding index keys")
		}
		ri := *idx
		ri.SQL = string(b)
		out = append(out, &ri)
	}
	return out, nil
}

// sequenceUsers are the lines naming the column defaults that call seq
// by name.
func sequenceUsers(c *catalog.Catalog, seq *catalog.Object) []string {
	var lines []string
	for _, t := range c.Objects() {
		if t.Kind != catalog.Table {
			continue
		}
		for _, col := range t.Columns {
			if strings.Contains(col.Default, "'"+seq.Name+"'") || strings.Contains(col.Default, `'"`+seq.Name+`"'`) {
				lines = append(lines, fmt.Sprintf("default value for column %s of table %s depends on sequence %s", col.Name, t.Name, seq.Name))
			}
		}
	}
	return lines
}

// refuseDependents is the 2BP01 of a rename that would leave lines'
// dependents naming what is gone.
func refuseDependents(o *catalog.Object, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	return sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot rename %s %s because other objects depend on it", o.Kind, o.Name).
		WithDetail("%s", strings.Join(lines, "\n")).
		WithHint("Drop the dependent objects first, and create them again after the rename.")
}

// changeCatalog replaces catalog objects with the changed copies that
// plan returns, durably, under the engine's lock: the copies are planned
// and put in place under one catalog version. A copy with a new name
// takes it (catalog.Rename).
func (e *Engine) changeCatalog(ctx context.Context, plan func(c *catalog.Catalog) ([]*catalog.Object, error)) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	objs, err := plan(e.cat)
	if err != nil || len(objs) == 0 {
		return err
	}
	if err := e.persistCatalog(ctx, objs, nil); err != nil {
		return err
	}
	for _, o := range objs {
		if err := e.cat.Rename(o); err != nil {
			// Checked by plan; the record is already durable.
			return sqlerr.AssertionFailedf("renaming %s: %v", o.Name, err)
		}
		// A unique key's errors name the table's columns as they are.
		if tk := e.keys[o.ID]; tk != nil && o.Kind == catalog.Table {
			e.setKeysLocked(o.ID, &tableKeys{columns: o.Columns, keys: tk.keys})
		}
	}
	return e.catalogChangedLocked(ctx)
}
