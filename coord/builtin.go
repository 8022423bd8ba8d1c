package coord

import (
	"fmt"
	"strings"
	"sync"

	"freshet/catalog"
	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// oidType is the type of every OID column of the built-in relations.
var oidType = repr.OID

// textArray is the type of the aclitem[] columns (relacl, datacl, …),
// always NULL: Freshet has no privileges to list (docs/catalog.md).
var textArray = repr.ArrayOf(repr.Text)

// The fixed OIDs of the objects every database has. They match
// PostgreSQL's, so clients that compare against them work.
const (
	pgCatalogNamespaceOID  = 11
	publicNamespaceOID     = 2200
	infoSchemaNamespaceOID = 13207
	bootstrapRoleOID       = 10
	heapAccessMethodOID    = 2
	btreeAccessMethodOID   = 403
)

// pgCatalogSchema is the schema of the built-in relations. It exists in
// every database and no user can create, write or drop anything in it.
const pgCatalogSchema = "pg_catalog"

// builtinView is a pg_catalog relation defined by a constant query. Its
// ID is zero: it is no catalog object, so it is never a dependency,
// never dropped, and invisible to the engine's Audit.
type builtinView struct {
	columns []planner.RelationColumn
	sql     string
	// build, if set, makes sql at its first use: the text of a large
	// constant relation (the keywords, pg_proc) took a fifth of the
	// server's start, restarts among them, for a relation most sessions
	// never read.
	build func() string
}

// text returns the view's SQL.
func (v builtinView) text() string {
	if v.build != nil {
		return v.build()
	}
	return v.sql
}

func col(name string, t repr.Type, nullable bool) planner.RelationColumn {
	return planner.RelationColumn{Name: name, Type: expr.ColumnType{Type: t, Nullable: nullable}}
}

// builtinViews are the constant pg_catalog relations, by name.
var builtinViews = map[string]builtinView{
	"pg_am": {
		columns: []planner.RelationColumn{
			col("oid", oidType, false), col("amname", repr.Name, false),
			col("amhandler", repr.Text, false), col("amtype", repr.Char, false),
		},
		sql: `SELECT * FROM (VALUES (2::oid, 'heap', 'heap_tableam_handler', 't'), (403::oid, 'btree', 'bthandler', 'i')) AS t (oid, amname, amhandler, amtype)`,
	},
}

func init() {
	builtinViews["pg_proc"] = builtinView{columns: pgProcColumns, build: sync.OnceValue(pgProcSQL)}
}

// resolveBuiltin returns the built-in pg_catalog relation name, if there
// is one. An unqualified name is looked up here before the search path,
// as PostgreSQL searches pg_catalog implicitly first.
func (s *Session) resolveBuiltin(name planner.QualifiedName) (planner.Relation, bool) {
	db := s.database
	var v builtinView
	var ok bool
	schema := pgCatalogSchema
	switch name.Schema {
	case infoSchema:
		schema = infoSchema
		v, ok = infoSchemaViews[name.Name]
	case "", pgCatalogSchema:
		v, ok = builtinViews[name.Name]
		if g, found := generatedViews[name.Name]; found {
			v, ok = builtinView{columns: g.columns}, true
			if g.session != nil {
				v.sql = g.session(s)
			} else {
				v.sql = systemTableView(name.Name, g, db)
			}
		}
	case systemSchema:
		return s.resolveSystemTable(name.Name)
	case internalSchema:
		return s.resolveInternal(name.Name)
	}
	if !ok {
		return planner.Relation{}, false
	}
	return planner.Relation{
		Name:    planner.QualifiedName{Database: db, Schema: schema, Name: name.Name},
		Kind:    planner.KindView,
		Columns: v.columns,
		SQL:     typedSQL(v.columns, v.text()),
	}, true
}

// typedSQL is a built-in relation's SQL with each column cast to the
// type it declares, as PostgreSQL's catalog has it (a literal 'r' is
// text where pg_class.relkind is "char", a name column of a view over
// pg_class is name where its literal siblings are text). A reg* column
// is left as it is: the planner prints a query's reg* columns as the
// names they identify, and reads text as reg* only in literals.
func typedSQL(cols []planner.RelationColumn, sql string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		name := quoteIdent(c.Name)
		if k := c.Type.Type.Kind(); k.IsOIDKind() && k != repr.KindOID {
			b.WriteString(name)
			continue
		}
		fmt.Fprintf(&b, "%s::%s AS %s", name, c.Type.Type.String(), name)
	}
	b.WriteString(" FROM (" + sql + ") AS freshet_typed")
	return b.String()
}

// refuseSystemSchema refuses to create an object in pg_catalog.
func refuseSystemSchema(name planner.QualifiedName) error {
	if name.Schema == pgCatalogSchema {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to create %q", name.String())
	}
	return nil
}

// generatedView is a pg_catalog relation whose rows are written from the
// catalog into a system table (rows; systables.go) or, for the few that
// describe sessions, from the session's state when a statement that
// reads them is planned (session).
type generatedView struct {
	columns []planner.RelationColumn
	// rows, if set, writes the relation's rows that catalog object o
	// gives (or, for o nil, those of no object), as SQL literals, one per
	// column. They are in o's database, or in every database if the
	// relation is shared.
	rows func(rs *rowSource, o *catalog.Object) [][]string
	// shared marks a relation whose rows are the same in every database
	// (pg_database, pg_roles), as PostgreSQL's shared catalogs are.
	shared bool
	// session, if set, writes the rows instead, as a query over constant
	// rows planned into the reading statement.
	session func(s *Session) string
}

// generatedViews are the generated pg_catalog relations, by name. A
// dataflow over a session's relation would hold the state of its
// planning, so materialized views and indexes over those are refused.
var generatedViews = map[string]generatedView{
	"pg_class":         {columns: pgClassColumns, rows: pgClassRows},
	"pg_database":      {columns: pgDatabaseColumns, rows: pgDatabaseRows, shared: true},
	"pg_views":         {columns: pgViewsColumns, rows: pgViewsRows},
	"pg_index":         {columns: pgIndexColumns, rows: pgIndexRows},
	"pg_attribute":     {columns: pgAttributeColumns, rows: pgAttributeRows},
	"pg_settings":      {columns: pgSettingsColumns, session: (*Session).pgSettingsSQL},
	"pg_stat_activity": {columns: pgStatActivityColumns, session: (*Session).pgStatActivitySQL},
	"pg_roles":         {columns: pgRolesColumns, rows: pgRolesRows, shared: true},
	"pg_type":          {columns: pgTypeColumns, rows: pgTypeRows},
	"pg_enum":          {columns: pgEnumColumns, rows: pgEnumRows},
}
