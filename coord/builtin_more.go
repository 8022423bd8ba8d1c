package coord

import (
	"fmt"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// bootstrapRoleName is the built-in superuser, which owns everything.
const bootstrapRoleName = catalog.BootstrapRole

// pgRolesColumns are pg_roles' columns, PostgreSQL 15's, in its order;
// rolvaliduntil is text, always NULL.
var pgRolesColumns = []planner.RelationColumn{
	col("rolname", repr.Name, false), col("rolsuper", repr.Bool, false),
	col("rolinherit", repr.Bool, false), col("rolcreaterole", repr.Bool, false),
	col("rolcreatedb", repr.Bool, false), col("rolcanlogin", repr.Bool, false),
	col("rolreplication", repr.Bool, false), col("rolconnlimit", repr.Int4, false),
	col("rolpassword", repr.Text, false), col("rolvaliduntil", repr.Text, true),
	col("rolbypassrls", repr.Bool, false), col("rolconfig", textArray, true),
	col("oid", oidType, false),
}

// pgRolesSQL writes pg_roles: the built-in superuser and the roles of
// CREATE ROLE. A superuser has every attribute; a password shows as
// ******** whether a role has one or not, as in PostgreSQL.
func pgRolesSQL(c *catalog.Catalog, _ string) string {
	row := func(name string, oid uint64, super, login bool) []string {
		s := sqlBool(super)
		return []string{sqlText(name), s, "true", s, s, sqlBool(login), s, "-1", "'********'", sqlNull, s, sqlNull, sqlInt(oid)}
	}
	rows := [][]string{row(bootstrapRoleName, bootstrapRoleOID, true, true)}
	for _, r := range c.Roles() {
		if r.Name != bootstrapRoleName {
			rows = append(rows, row(r.Name, relationOID(r.ID), r.Superuser, r.Login))
		}
	}
	return constRowsSQL(pgRolesColumns, rows)
}

func init() {
	builtinViews["pg_user"] = builtinView{
		columns: []planner.RelationColumn{
			col("usename", repr.Name, false), col("usesysid", oidType, false),
			col("usecreatedb", repr.Bool, false), col("usesuper", repr.Bool, false),
			col("userepl", repr.Bool, false), col("usebypassrls", repr.Bool, false),
			col("passwd", repr.Text, false), col("valuntil", repr.Text, true),
			col("useconfig", textArray, true),
		},
		sql: "SELECT rolname AS usename, oid AS usesysid, rolcreatedb AS usecreatedb, rolsuper AS usesuper, rolreplication AS userepl, rolbypassrls AS usebypassrls, rolpassword AS passwd, rolvaliduntil AS valuntil, rolconfig AS useconfig FROM pg_catalog.pg_roles",
	}
	builtinViews["pg_tables"] = builtinView{
		columns: []planner.RelationColumn{
			col("schemaname", repr.Name, false), col("tablename", repr.Name, false),
			col("tableowner", repr.Name, false), col("tablespace", repr.Name, true),
			col("hasindexes", repr.Bool, false), col("hasrules", repr.Bool, false),
			col("hastriggers", repr.Bool, false), col("rowsecurity", repr.Bool, false),
		},
		sql: "SELECT n.nspname AS schemaname, c.relname AS tablename, '" + bootstrapRoleName + "' AS tableowner, NULL::text AS tablespace, c.relhasindex AS hasindexes, false AS hasrules, false AS hastriggers, false AS rowsecurity FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r'",
	}
}

// pgDatabaseColumns are pg_database's columns, PostgreSQL 15's, in its
// order; the xid columns are int8.
var pgDatabaseColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("datname", repr.Name, false),
	col("datdba", oidType, false), col("encoding", repr.Int4, false),
	col("datlocprovider", repr.Char, false), col("datistemplate", repr.Bool, false),
	col("datallowconn", repr.Bool, false), col("datconnlimit", repr.Int4, false),
	col("datfrozenxid", repr.Int8, false), col("datminmxid", repr.Int8, false),
	col("dattablespace", oidType, false), col("datcollate", repr.Text, false),
	col("datctype", repr.Text, false), col("daticulocale", repr.Text, true),
	col("datcollversion", repr.Text, true), col("datacl", textArray, true),
}

// pgDatabaseSQL is pg_database as a query over constant rows written
// from the catalog; every database is UTF8 (encoding 6) with the libc
// collation C, in the default tablespace (1663).
func pgDatabaseSQL(c *catalog.Catalog) string {
	var rows [][]string
	for _, o := range c.Objects() {
		if o.Kind == catalog.Database {
			rows = append(rows, []string{
				sqlInt(relationOID(o.ID)), sqlText(o.Name), sqlInt(bootstrapRoleOID), "6",
				"'c'", "false", "true", "-1",
				"0", "0", "1663", "'C'",
				"'C'", sqlNull, sqlNull, sqlNull,
			})
		}
	}
	return constRowsSQL(pgDatabaseColumns, rows)
}

// pgViewsColumns are pg_views' columns.
var pgViewsColumns = []planner.RelationColumn{
	col("schemaname", repr.Name, false), col("viewname", repr.Name, false),
	col("viewowner", repr.Name, false), col("definition", repr.Text, false),
}

// pgViewsSQL is pg_views for database db; definition is the CREATE VIEW
// statement's text, not PostgreSQL's reconstructed query.
func pgViewsSQL(c *catalog.Catalog, db string) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM (VALUES ('', '', '', '')")
	for _, o := range c.Objects() {
		if o.Database == db && o.Kind == catalog.View {
			fmt.Fprintf(&b, ", (%s, %s, '%s', %s)", quoteLiteral(o.Schema), quoteLiteral(o.Name), bootstrapRoleName, quoteLiteral(o.SQL))
		}
	}
	b.WriteString(") AS t (schemaname, viewname, viewowner, definition) WHERE viewname <> ''")
	return b.String()
}
