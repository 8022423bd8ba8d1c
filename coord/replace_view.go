package coord

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/sqlerr"
)

// replaceView runs CREATE OR REPLACE VIEW over an existing view: with
// PostgreSQL's rules, the new query keeps the old columns, by name and
// type and in order, and may add columns after them (42P16 otherwise).
// A view has no dataflow, so replacing it changes its catalog record
// only; what reads it plans the new query from its next statement on. A
// materialized view or index over the view keeps the dataflow of the
// old query and would take the new one at a restart, so a view that
// one reads is not replaced (0A000). replaced is false when no relation
// has the name: the caller then creates the view.
func (s *Session) replaceView(ctx context.Context, o *catalog.Object, name planner.QualifiedName) (replaced bool, err error) {
	err = s.engine.changeCatalog(ctx, func(c *catalog.Catalog) ([]*catalog.Object, error) {
		old, lerr := s.lookupIn(c, planner.QualifiedName{Schema: o.Schema, Name: name.Name}, nil)
		if lerr != nil {
			return nil, nil
		}
		replaced = true
		if old.Kind != catalog.View {
			return nil, sqlerr.New(sqlerr.WrongObjectType, "%q is not a view", old.Name)
		}
		role, _ := s.sessionRole(c)
		if err := checkOwner(c, old, role); err != nil {
			return nil, err
		}
		if len(o.Columns) < len(old.Columns) {
			return nil, sqlerr.New(sqlerr.InvalidTableDefinition, "cannot drop columns from view")
		}
		for i, oc := range old.Columns {
			nc := o.Columns[i]
			if nc.Name != oc.Name {
				return nil, sqlerr.New(sqlerr.InvalidTableDefinition, "cannot change name of view column %q to %q", oc.Name, nc.Name).
					WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
			}
			if nc.Type.String() != oc.Type.String() {
				return nil, sqlerr.New(sqlerr.InvalidTableDefinition, "cannot change data type of view column %q from %s to %s", oc.Name, oc.Type, nc.Type)
			}
		}
		if slices.Contains(o.DependsOn, old.ID) {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "a view that reads itself is not supported")
		}
		var lines []string
		for _, d := range c.Dependents(old.ID) {
			if d.Kind == catalog.MaterializedView || d.Kind == catalog.Index {
				lines = append(lines, fmt.Sprintf("%s %s depends on view %s", d.Kind, d.Name, old.Name))
			}
		}
		if len(lines) > 0 {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cannot replace view %s: a materialized view or index reads it", old.Name).
				WithDetail("%s", strings.Join(lines, "\n")).
				WithHint("Drop them first, and create them again after replacing the view.")
		}
		for _, d := range o.DependsOn {
			if c.Get(d) == nil {
				return nil, sqlerr.New(sqlerr.UndefinedTable, "a relation the view reads was dropped while it was planned")
			}
		}
		r := *old
		r.SQL, r.DependsOn, r.SearchPath = o.SQL, o.DependsOn, o.SearchPath
		// The new query was planned over the tables as they are now: it
		// sees all their columns (ALTER TABLE … ADD COLUMN).
		r.Widths = nil
		r.Columns = slices.Clone(o.Columns)
		for i := range old.Columns {
			r.Columns[i].Comment = old.Columns[i].Comment
		}
		return []*catalog.Object{&r}, nil
	})
	return replaced, err
}
