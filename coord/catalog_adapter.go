package coord

import (
	"slices"

	"freshet/catalog"
	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// sessionCatalog is the planner's view of the catalog for one session:
// unqualified names resolve in the session's database and the public
// schema.
type sessionCatalog struct {
	s *Session
	// generated, when set, is set to true once a relation written from
	// the sessions' state as the statement is planned (pg_settings,
	// pg_stat_activity) is resolved: such a plan holds that state as it
	// was at its planning.
	generated *bool
	// reads, when set, collects the relations the statement reads, as
	// the planner reports them (planner.ReadRecorder), for the privilege
	// checks.
	reads *[]planner.Read
	// path, when set, is the search path names resolve in instead of the
	// session's: a view's own, while its definition is planned.
	path []string
	// widths, while a stored view definition is planned, are the widths
	// of the tables it reads as the view saw them (catalog.Object.Widths):
	// columns added since are left out.
	widths map[uint64]int
}

// ForView implements planner.ViewCatalog: a view's definition resolves
// its names in the search path it was created with.
func (sc sessionCatalog) ForView(r planner.Relation) planner.Catalog {
	var path string
	sc.widths = nil
	sc.s.engine.Catalog(func(c *catalog.Catalog) error {
		if o := c.Get(uint64(r.ID)); o != nil {
			path, sc.widths = o.SearchPath, o.Widths
		}
		return nil
	})
	if path != "" {
		sc.path = sc.s.parsePath(path)
	}
	return sc
}

// RecordRead implements planner.ReadRecorder.
func (sc sessionCatalog) RecordRead(r planner.Read) {
	if sc.reads != nil {
		*sc.reads = append(*sc.reads, r)
	}
}

// planningCatalog is the session's catalog for planning a statement the
// session will run: it reports, through generated, whether the plan read
// a relation written from the sessions' state, and collects into reads
// what the statement reads.
func (s *Session) planningCatalog(generated *bool, reads *[]planner.Read) planner.Catalog {
	return sessionCatalog{s: s, generated: generated, reads: reads}
}

func (s *Session) catalog() planner.Catalog { return sessionCatalog{s: s, widths: s.widths} }

// recordingCatalog is the session's catalog, reporting through
// generated whether the plan read a generated relation.
func (s *Session) recordingCatalog(generated *bool) planner.Catalog {
	return sessionCatalog{s: s, generated: generated}
}

// ResolveRelation implements planner.Catalog.
func (sc sessionCatalog) ResolveRelation(name planner.QualifiedName) (planner.Relation, error) {
	s := sc.s
	db := s.database
	if name.Database != "" && name.Database != db {
		return planner.Relation{}, sqlerr.New(sqlerr.FeatureNotSupported, "cross-database references are not implemented: %s", name)
	}
	if rel, ok := s.resolveBuiltin(name); ok {
		if g, gen := generatedViews[rel.Name.Name]; gen && g.session != nil && sc.generated != nil {
			*sc.generated = true
		}
		return rel, nil
	}
	var rel planner.Relation
	err := s.engine.Catalog(func(c *catalog.Catalog) error {
		path := sc.path
		if path == nil {
			path = s.searchPath()
		}
		o, err := s.lookupIn(c, name, path)
		if err != nil {
			return err
		}
		schema := o.Schema
		if o.Kind == catalog.Sequence {
			rel = planner.Relation{ID: expr.GlobalID(o.ID), Name: planner.QualifiedName{Database: db, Schema: schema, Name: o.Name}, Kind: planner.KindSequence}
			return nil
		}
		if !o.Kind.IsRelation() {
			return sqlerr.New(sqlerr.WrongObjectType, "%q is an index", o.Name)
		}
		rel = planner.Relation{ID: expr.GlobalID(o.ID), Name: planner.QualifiedName{Database: db, Schema: schema, Name: o.Name}, SQL: o.SQL}
		switch o.Kind {
		case catalog.Table:
			rel.Kind, rel.Shape = planner.KindTable, s.engine.shapes[o.ID]
			for _, k := range c.UniqueKeys(o.ID) {
				rel.UniqueKeys = append(rel.UniqueKeys, planner.RelationKey{Name: k.Name, Columns: k.Columns})
			}
		case catalog.View:
			rel.Kind = planner.KindView
			// A view with an index is read from the index's
			// arrangement instead of being computed again.
			if idx, ok := s.engine.IndexOfView(o.ID); ok {
				rel.Kind, rel.ID = planner.KindMaterializedView, expr.GlobalID(idx)
			}
		case catalog.MaterializedView:
			rel.Kind = planner.KindMaterializedView
		}
		types := o.ColumnTypes()
		cols := o.Columns
		if w, ok := sc.widths[o.ID]; ok && o.Kind == catalog.Table && w < len(cols) {
			// The view was created before the columns after w were
			// added: it does not see them, nor keys that use them.
			cols = cols[:w]
			keys := rel.UniqueKeys[:0:0]
			for _, k := range rel.UniqueKeys {
				if slices.Max(k.Columns) < w {
					keys = append(keys, k)
				}
			}
			rel.UniqueKeys = keys
		}
		if o.Kind == catalog.Table {
			for _, k := range s.engine.joinIndexKeys(o.ID) {
				if slices.Max(k) < len(cols) {
					rel.IndexKeys = append(rel.IndexKeys, k)
				}
			}
		}
		for i, col := range cols {
			rc := planner.RelationColumn{Name: col.Name, Type: types[i], Identity: col.Identity}
			if d := s.engine.columnDefault(o.ID, i); d != nil {
				rc.Default = d
			}
			rel.Columns = append(rel.Columns, rc)
		}
		return nil
	})
	return rel, err
}

// Database implements planner.SessionDatabase.
func (sc sessionCatalog) Database() string { return sc.s.database }

// TimeZone implements planner.SessionZone.
func (sc sessionCatalog) TimeZone() *repr.Zone { return sc.s.zone() }
