package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/expr"
	"freshet/planner"
	"freshet/sqlerr"
)

// Rebuild is the rebuild function Open takes for a server with a
// planner: it plans a stored materialized view or index again from its
// SQL, and a table's column defaults from theirs.
func Rebuild(ctx context.Context) func(e *Engine, o *catalog.Object) error {
	return func(e *Engine, o *catalog.Object) error {
		s := &Session{engine: e, database: o.Database, settings: settingsIn(o.TimeZone), widths: o.Widths}
		if o.SearchPath != "" {
			s.settings["search_path"] = o.SearchPath
		}
		switch o.Kind {
		case catalog.MaterializedView:
			stmts, err := planner.Plan(s.catalog(), fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", quoteIdent(o.Name), o.SQL))
			if err != nil {
				return err
			}
			cv, ok := stmts[0].(*planner.CreateView)
			if !ok || len(stmts) != 1 {
				return sqlerr.AssertionFailedf("materialized view %s planned as %T", o.Name, stmts[0])
			}
			// The catalog keeps a column's type by name and typmod, which
			// leave out an unconstrained numeric's display scale
			// (repr.Type.WithDisplayScale); the plan has it again, as it
			// had when the view was created.
			for i, t := range cv.Plan.Typ() {
				if i < len(o.Columns) && t.Type.String() == o.Columns[i].Type.String() {
					o.Columns[i].Type = t.Type
				}
			}
			return e.RebuildView(ctx, o, cv.Plan)
		case catalog.Index:
			on := e.catalogObject(o.On)
			if on == nil {
				return sqlerr.AssertionFailedf("index %s on missing relation %d", o.Name, o.On)
			}
			keys, err := s.planScalars(on, o.SQL)
			if err != nil {
				return err
			}
			onPlan, err := s.relationPlan(on)
			if err != nil {
				return err
			}
			return e.RebuildIndex(ctx, o, onPlan, keys)
		}
		return nil
	}
}

// RestoreDefaults plans the stored DEFAULT expressions of every table
// again, as CREATE TABLE planned them: constants fold to literals, and
// now() and the session functions stay calls that each write evaluates.
func RestoreDefaults(e *Engine) error {
	var tables []*catalog.Object
	e.Catalog(func(c *catalog.Catalog) error {
		for _, o := range c.Objects() {
			if o.Kind == catalog.Table {
				tables = append(tables, o)
			}
		}
		return nil
	})
	for _, t := range tables {
		defaults := make([]expr.Scalar, len(t.Columns))
		any := false
		for i, c := range t.Columns {
			if c.Default == "" {
				continue
			}
			s := &Session{engine: e, database: t.Database, settings: settingsIn(t.TimeZone)}
			d, err := planner.PlanDefault(s.catalog(), c.Default, c.Name, c.Type)
			if err != nil {
				return fmt.Errorf("default of %s.%s: %w", t.Name, c.Name, err)
			}
			defaults[i] = d
			any = true
		}
		if any {
			e.SetDefaults(t.ID, defaults)
		}
	}
	return nil
}

// indexKeySQL is the stored form of an index's keys: a JSON list of the
// key columns' names. Keys that are not plain columns are not kept.
func indexKeySQL(on *catalog.Object, keys []expr.Scalar) (string, error) {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		c, ok := k.(expr.Column)
		if !ok {
			return "", sqlerr.New(sqlerr.FeatureNotSupported, "indexes on expressions are not supported")
		}
		names = append(names, on.Columns[c.Index].Name)
	}
	b, err := json.Marshal(names)
	if err != nil {
		return "", sqlerr.Wrapf(err, sqlerr.InternalError, "encoding index keys")
	}
	return string(b), nil
}

// planScalars resolves a stored index key list against relation on.
func (s *Session) planScalars(on *catalog.Object, stored string) ([]expr.Scalar, error) {
	var names []string
	if err := json.Unmarshal([]byte(stored), &names); err != nil {
		return nil, sqlerr.Wrapf(err, sqlerr.DataCorrupted, "index keys %q", stored)
	}
	var keys []expr.Scalar
	for _, name := range names {
		i := slices.IndexFunc(on.Columns, func(c catalog.Column) bool { return c.Name == name })
		if i < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", name)
		}
		keys = append(keys, expr.Column{Index: i})
	}
	return keys, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
