package coord

import (
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// catalogRelationOIDs are PostgreSQL's fixed OIDs of its system catalogs,
// which clients compare against (pg_description.classoid =
// 'pg_class'::regclass, 1259).
var catalogRelationOIDs = map[string]uint32{
	"pg_am": 2601, "pg_attrdef": 2604, "pg_attribute": 1249, "pg_auth_members": 1261, "pg_class": 1259,
	"pg_collation": 3456, "pg_constraint": 2606, "pg_conversion": 2607, "pg_database": 1262,
	"pg_description": 2609, "pg_enum": 3501, "pg_event_trigger": 3466, "pg_extension": 3079,
	"pg_foreign_table": 3118, "pg_index": 2610, "pg_inherits": 2611, "pg_namespace": 2615,
	"pg_partitioned_table": 3350, "pg_policy": 3256, "pg_proc": 1255, "pg_publication": 6104,
	"pg_publication_namespace": 6237, "pg_publication_rel": 6106, "pg_range": 3541, "pg_rewrite": 2618,
	"pg_sequence": 2224, "pg_shdescription": 2396, "pg_statistic_ext": 3381, "pg_tablespace": 1213,
	"pg_trigger": 2620, "pg_type": 1247,
}

// builtinOIDBase is the first OID of the built-in relations that have no
// fixed OID in PostgreSQL (its views, information_schema's, Freshet's
// own): they are numbered from it in name order, schema first.
const builtinOIDBase = 12000

// builtinRelationOID returns the OID of the built-in relation name in
// schema (pg_catalog or information_schema), and false if there is none.
func builtinRelationOID(schema, name string) (uint32, bool) {
	if schema == pgCatalogSchema {
		if oid, ok := catalogRelationOIDs[name]; ok {
			return oid, true
		}
	}
	i, ok := slices.BinarySearch(builtinOtherNames(), schema+"."+name)
	if !ok {
		return 0, false
	}
	return builtinOIDBase + uint32(i), true
}

// builtinOtherNames lists "schema.name" of every built-in relation
// without a fixed OID, sorted.
func builtinOtherNames() []string {
	var names []string
	add := func(schema, name string) {
		if _, fixed := catalogRelationOIDs[name]; schema == pgCatalogSchema && fixed {
			return
		}
		names = append(names, schema+"."+name)
	}
	for n := range builtinViews {
		add(pgCatalogSchema, n)
	}
	for n := range generatedViews {
		add(pgCatalogSchema, n)
	}
	for n := range infoSchemaViews {
		add(infoSchema, n)
	}
	slices.Sort(names)
	return names
}

// The namespaces, by name.
var namespaceOIDs = map[string]uint32{pgCatalogSchema: pgCatalogNamespaceOID, "public": publicNamespaceOID, infoSchema: infoSchemaNamespaceOID}

// ResolveOID implements planner.OIDResolver: the OID a name denotes as a
// regclass, regnamespace, regrole or regproc literal.
func (sc sessionCatalog) ResolveOID(kind repr.Kind, name string) (uint32, error) {
	parts, err := splitQualifiedName(name)
	if err != nil {
		return 0, err
	}
	switch kind {
	case repr.KindRegclass:
		var qn planner.QualifiedName
		switch len(parts) {
		case 1:
			qn.Name = parts[0]
		case 2:
			qn.Schema, qn.Name = parts[0], parts[1]
		case 3:
			qn.Database, qn.Schema, qn.Name = parts[0], parts[1], parts[2]
		default:
			return 0, sqlerr.New(sqlerr.SyntaxError, "improper relation name (too many dotted names): %s", name)
		}
		rel, err := sc.ResolveRelation(qn)
		if sqlerr.Code(err) == sqlerr.WrongObjectType {
			// An index is a relation to regclass, as in PostgreSQL,
			// though not one a query reads.
			var oid uint32
			sc.s.engine.Catalog(func(c *catalog.Catalog) error {
				if o, lerr := sc.s.lookup(c, qn); lerr == nil && o.Kind == catalog.Index {
					oid, err = uint32(relationOID(o.ID)), nil
				}
				return nil
			})
			if err == nil {
				return oid, nil
			}
		}
		if err != nil {
			return 0, err
		}
		if rel.ID != 0 {
			// A view with an index resolves to the index's
			// arrangement, which it is read from; its OID is the
			// view's own, as pg_class gives it.
			id := uint64(rel.ID)
			sc.s.engine.Catalog(func(c *catalog.Catalog) error {
				if o, lerr := sc.s.lookup(c, qn); lerr == nil && o.Kind == catalog.View {
					id = o.ID
				}
				return nil
			})
			return uint32(relationOID(id)), nil
		}
		if oid, ok := builtinRelationOID(rel.Name.Schema, rel.Name.Name); ok {
			return oid, nil
		}
		return 0, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	case repr.KindRegnamespace:
		if oid, ok := namespaceOIDs[parts[len(parts)-1]]; ok && len(parts) == 1 {
			return oid, nil
		}
		var oid uint64
		if len(parts) == 1 {
			sc.s.engine.Catalog(func(c *catalog.Catalog) error {
				oid = schemaOID(c, sc.s.database, parts[0])
				return nil
			})
		}
		if oid != 0 {
			return uint32(oid), nil
		}
		return 0, sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", name)
	case repr.KindRegrole:
		if len(parts) == 1 && parts[0] == bootstrapRoleName {
			return bootstrapRoleOID, nil
		}
		var oid uint32
		if len(parts) == 1 {
			sc.s.engine.Catalog(func(c *catalog.Catalog) error {
				if r := c.RoleNamed(parts[0]); r != nil {
					oid = uint32(relationOID(r.ID))
				}
				return nil
			})
		}
		if oid != 0 {
			return oid, nil
		}
		return 0, sqlerr.New(sqlerr.UndefinedObject, "role %q does not exist", name)
	case repr.KindRegproc:
		if oid, ok := procOID(parts[len(parts)-1]); ok && (len(parts) == 1 || (len(parts) == 2 && parts[0] == pgCatalogSchema)) {
			return oid, nil
		}
		return 0, sqlerr.New(sqlerr.UndefinedFunction, "function %q does not exist", name)
	}
	return 0, sqlerr.AssertionFailedf("ResolveOID of kind %s", kind)
}

// splitQualifiedName splits a possibly qualified, possibly quoted name
// ("public.orders", `"My Table"`) into its parts, folding unquoted parts
// to lower case as PostgreSQL does.
func splitQualifiedName(s string) ([]string, error) {
	var parts []string
	var cur strings.Builder
	quoted, wasQuoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
			wasQuoted = true
		case !quoted && c == '.':
			parts = append(parts, cur.String())
			cur.Reset()
			wasQuoted = false
		case !quoted && !wasQuoted:
			cur.WriteString(strings.ToLower(string(c)))
		default:
			cur.WriteByte(c)
		}
	}
	if quoted {
		return nil, sqlerr.New(sqlerr.InvalidName, "invalid name syntax")
	}
	parts = append(parts, cur.String())
	for _, p := range parts {
		if p == "" {
			return nil, sqlerr.New(sqlerr.InvalidName, "invalid name syntax")
		}
	}
	return parts, nil
}
