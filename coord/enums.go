package coord

import (
	"context"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// Enum types: CREATE TYPE … AS ENUM, ALTER TYPE … ADD VALUE and DROP
// TYPE, and their resolution for the planner (planner.EnumCatalog).

// ResolveEnum implements planner.EnumCatalog.
func (sc sessionCatalog) ResolveEnum(name planner.QualifiedName) (*repr.EnumLabels, error) {
	s := sc.s
	if name.Database != "" && name.Database != s.database {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cross-database references are not implemented: %s", name)
	}
	path := sc.path
	if path == nil {
		path = s.searchPath()
	}
	var l *repr.EnumLabels
	err := s.engine.Catalog(func(c *catalog.Catalog) error {
		o := s.lookupType(c, name, path)
		if o == nil {
			return sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", name.String())
		}
		l = catalog.EnumLabelsOf(o)
		return nil
	})
	return l, err
}

// EnumByOID implements planner.EnumCatalog.
func (sc sessionCatalog) EnumByOID(oid uint32) (*repr.EnumLabels, error) {
	var l *repr.EnumLabels
	err := sc.s.engine.Catalog(func(c *catalog.Catalog) error {
		if oid >= userOIDBase {
			if o := c.Get(uint64(oid - userOIDBase)); o != nil && o.Kind == catalog.Type {
				l = catalog.EnumLabelsOf(o)
				return nil
			}
		}
		return sqlerr.New(sqlerr.UndefinedObject, "type with OID %d does not exist", oid)
	})
	return l, err
}

// EnumTypes implements planner.EnumCatalog.
func (sc sessionCatalog) EnumTypes() []repr.Type {
	var types []repr.Type
	sc.s.engine.Catalog(func(c *catalog.Catalog) error {
		for _, o := range c.Objects() {
			if o.Kind == catalog.Type && o.Database == sc.s.database {
				types = append(types, catalog.EnumTypeOf(o))
			}
		}
		return nil
	})
	return types
}

// lookupType finds type name in its schema or through path, or nil.
func (s *Session) lookupType(c *catalog.Catalog, name planner.QualifiedName, path []string) *catalog.Object {
	if name.Schema != "" {
		if name.Schema == "pg_temp" {
			name.Schema = s.tempSchema
		}
		return c.TypeNamed(s.database, name.Schema, name.Name)
	}
	for _, schema := range path {
		if o := c.TypeNamed(s.database, schema, name.Name); o != nil {
			return o
		}
	}
	return nil
}

func (s *Session) createEnum(ctx context.Context, st *planner.CreateEnum) (result, error) {
	if err := refuseSystemSchema(st.Name); err != nil {
		return result{}, err
	}
	if _, err := repr.TypeFromName(st.Name.Name, nil); err == nil && st.Name.Schema == "" {
		// A built-in type's name would resolve to the built-in type.
		return result{}, sqlerr.New(sqlerr.DuplicateObject, "type %q already exists", st.Name.Name)
	}
	schema, err := s.creationSchema(st.Name)
	if err != nil {
		return result{}, err
	}
	o := &catalog.Object{Kind: catalog.Type, Name: st.Name.Name, Database: s.database, Schema: schema, Owner: s.ownerForNew()}
	for i, l := range st.Labels {
		o.Labels = append(o.Labels, repr.EnumLabel{Sort: float64(i + 1), Label: l})
	}
	return result{tag: st.Tag()}, s.engine.CreateType(ctx, o)
}

// CreateType adds enum type o: a catalog record, and pg_type's and
// pg_enum's rows.
func (e *Engine) CreateType(ctx context.Context, o *catalog.Object) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if _, err := e.cat.CreateType(o); err != nil {
		return err
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{o}, nil); err != nil {
		e.cat.Remove([]*catalog.Object{o})
		return err
	}
	return e.catalogChangedLocked(ctx)
}

func (s *Session) alterEnum(ctx context.Context, st *planner.AlterEnum, w pgwire.Writer) (result, error) {
	e := s.engine
	if err := e.mu.acquire(ctx); err != nil {
		return result{}, err
	}
	defer e.mu.Unlock()
	o := s.lookupType(e.cat, st.Name, s.searchPath())
	if o == nil {
		return result{}, sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", st.Name.String())
	}
	role, _ := s.sessionRole(e.cat)
	if err := checkOwner(e.cat, o, role); err != nil {
		return result{}, err
	}
	cp, added, err := catalog.WithEnumValue(o, st.Label, st.Neighbor, st.After, st.IfNotExists)
	if err != nil {
		return result{}, err
	}
	if !added {
		w.Notice(sqlerr.New(sqlerr.DuplicateObject, "enum label %q already exists, skipping", st.Label).WithSeverity(sqlerr.SeverityNotice))
		return result{tag: st.Tag()}, nil
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{cp}, nil); err != nil {
		return result{}, err
	}
	e.cat.Replace(cp)
	return result{tag: st.Tag()}, e.catalogChangedLocked(ctx)
}

func (s *Session) dropType(ctx context.Context, st *planner.DropType, w pgwire.Writer) (result, error) {
	for _, name := range st.Names {
		var skipped *sqlerr.Error
		_, err := s.engine.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
			skipped = nil
			o := s.lookupType(c, name, s.searchPath())
			if o == nil {
				if _, err := repr.TypeFromName(name.Name, nil); err == nil && (name.Schema == "" || name.Schema == pgCatalogSchema) {
					return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop type %s because it is required by the database system", name.Name)
				}
				if st.IfExists {
					skipped = sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist, skipping", name.String()).WithSeverity(sqlerr.SeverityNotice)
					return nil, nil
				}
				return nil, sqlerr.New(sqlerr.UndefinedObject, "type %q does not exist", name.String())
			}
			role, _ := s.sessionRole(c)
			if err := checkOwner(c, o, role); err != nil {
				return nil, err
			}
			return c.PlanDropType(o, st.Cascade)
		})
		if err != nil {
			return result{}, err
		}
		if skipped != nil {
			w.Notice(skipped)
		}
	}
	return result{tag: st.Tag()}, nil
}

// enumParamType returns the type of a parameter whose type OID, given by
// the client in Parse, is no built-in type's: an enum's or its array's
// (whose OID follows the enum's), as a client that read the OID from a
// RowDescription sends it back.
func (s *Session) enumParamType(oid uint32) (repr.Type, bool) {
	sc := sessionCatalog{s: s}
	if l, err := sc.EnumByOID(oid); err == nil {
		return l.Type, true
	}
	if l, err := sc.EnumByOID(oid - 1); err == nil && repr.ArrayOf(l.Type).OID() == oid {
		return repr.ArrayOf(l.Type), true
	}
	return repr.Type{}, false
}

// LookupType implements pgwire.Session: the catalog's types are the
// enums and their array types. OIDs are catalog ids, never given out
// twice, so pgwire may keep the answer.
func (s *Session) LookupType(oid uint32) (pgwire.CatalogType, bool) {
	t, ok := s.enumParamType(oid)
	switch {
	case !ok:
		return pgwire.CatalogType{}, false
	case t.IsArray():
		return pgwire.CatalogType{Name: t.Name(), Elem: t.Elem().OID()}, true
	}
	return pgwire.CatalogType{Name: t.Name(), TextIsBinary: true}, true
}

// paramLabels returns, per parameter type, the labels of its enum (of an
// enum or an array of one) as they are now, nil for other types: a
// prepared statement reads its enum parameters with the labels of its
// planning, as its casts of text to the enum do.
func (s *Session) paramLabels(types []repr.Type) ([]*repr.EnumLabels, error) {
	var out []*repr.EnumLabels
	for i, t := range types {
		if t.EnumOID() == 0 {
			continue
		}
		if out == nil {
			out = make([]*repr.EnumLabels, len(types))
		}
		l, err := sessionCatalog{s: s}.EnumByOID(t.EnumOID())
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

// parseParam reads the text of parameter i of types as its type, with
// labels from paramLabels.
func (s *Session) parseParam(types []repr.Type, labels []*repr.EnumLabels, i int, text string) (repr.Datum, error) {
	if labels != nil && labels[i] != nil {
		return repr.ParseTextLabels(types[i], text, s.zone(), labels[i])
	}
	return repr.ParseTextIn(types[i], text, s.zone())
}
