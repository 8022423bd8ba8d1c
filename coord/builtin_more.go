package coord

import (
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

// pgRolesRows are object o's row of pg_roles, if it is a role, and for o
// nil the built-in superuser's. A superuser has every attribute; a password shows as
// ******** whether a role has one or not, as in PostgreSQL.
func pgRolesRows(_ *rowSource, o *catalog.Object) [][]string {
	row := func(name string, oid uint64, super, login bool) []string {
		s := sqlBool(super)
		return []string{sqlText(name), s, "true", s, s, sqlBool(login), s, "-1", "'********'", sqlNull, s, sqlNull, sqlInt(oid)}
	}
	switch {
	case o == nil:
		// The built-in superuser has no object until its first ALTER
		// ROLE, and keeps its OID and attributes after.
		return [][]string{row(bootstrapRoleName, bootstrapRoleOID, true, true)}
	case o.Kind == catalog.Role && o.Name != bootstrapRoleName:
		return [][]string{row(o.Name, relationOID(o.ID), o.Superuser, o.Login)}
	}
	return nil
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
		sql: "SELECT n.nspname AS schemaname, c.relname AS tablename, pg_catalog.pg_get_userbyid(c.relowner) AS tableowner, NULL::text AS tablespace, c.relhasindex AS hasindexes, false AS hasrules, false AS hastriggers, false AS rowsecurity FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r'",
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

// pgDatabaseRows are object o's row of pg_database, if it is a database.
// Every database is UTF8 (encoding 6) with the libc collation C, in the
// default tablespace (1663).
func pgDatabaseRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	if o.Kind == catalog.Database {
		rows = append(rows, []string{
			sqlInt(relationOID(o.ID)), sqlText(o.Name), sqlInt(roleOID(rs.c, o.OwnerName())), "6",
			"'c'", "false", "true", "-1",
			"0", "0", "1663", "'C'",
			"'C'", sqlNull, sqlNull, sqlTextArray(o.ACLItems()),
		})
	}
	return rows
}

// pgViewsColumns are pg_views' columns.
var pgViewsColumns = []planner.RelationColumn{
	col("schemaname", repr.Name, false), col("viewname", repr.Name, false),
	col("viewowner", repr.Name, false), col("definition", repr.Text, false),
}

// pgViewsRows are object o's row of pg_views, if it is a view; definition is the
// CREATE VIEW statement's text, not PostgreSQL's reconstructed query.
func pgViewsRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	if o.Kind == catalog.View {
		rows = append(rows, []string{sqlText(o.Schema), sqlText(o.Name), sqlText(o.OwnerName()), sqlText(o.SQL)})
	}
	return rows
}
