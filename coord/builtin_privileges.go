package coord

import (
	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// privilegesColumns are pg_catalog.freshet_privileges' columns: a row per
// privilege a role (or PUBLIC, role ”) holds on a relation (kind 'r'),
// schema ('n') or database ('d'), the owner's included, with the names
// the has_*_privilege functions accept for the object: its name, its
// schema-qualified name, and both quoted. Those functions read it
// (planner/bind_catalog_macros.go).
var privilegesColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("kind", repr.Char, false),
	col("name", repr.Text, false), col("qualified", repr.Text, false),
	col("quoted", repr.Text, false), col("quotedqualified", repr.Text, false),
	col("role", repr.Name, false), col("privilege", repr.Text, false),
}

// privilegeRows are object o's rows of freshet_privileges.
func privilegeRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var oid uint64
	var kind, qualified, quotedQualified string
	switch {
	case o.Kind.IsRelation():
		oid, kind = relationOID(o.ID), "r"
		qualified = o.Schema + "." + o.Name
		quotedQualified = quoteIdent(o.Schema) + "." + quoteIdent(o.Name)
	case o.Kind == catalog.Schema:
		oid, kind = schemaOID(rs.c, o.Database, o.Name), "n"
	case o.Kind == catalog.Database:
		oid, kind = relationOID(o.ID), "d"
	default:
		return nil
	}
	if qualified == "" {
		qualified, quotedQualified = o.Name, quoteIdent(o.Name)
	}
	var rows [][]string
	add := func(role string, p catalog.Privileges) {
		for _, name := range p.Names() {
			rows = append(rows, []string{sqlInt(oid), sqlText(kind), sqlText(o.Name), sqlText(qualified),
				sqlText(quoteIdent(o.Name)), sqlText(quotedQualified), sqlText(role), sqlText(name)})
		}
	}
	add(o.OwnerName(), catalog.AllPrivileges(o.Kind))
	for _, g := range o.EffectiveACL() {
		if g.Role != o.OwnerName() {
			add(g.Role, g.Privileges)
		}
	}
	return rows
}

func init() {
	generatedViews["freshet_privileges"] = generatedView{columns: privilegesColumns, rows: privilegeRows, shared: true}
}
