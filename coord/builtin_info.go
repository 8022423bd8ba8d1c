package coord

import (
	"regexp"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// infoSchema is the schema of the SQL standard's views of the catalog.
const infoSchema = "information_schema"

// infoSchemaViews are information_schema's views that Freshet has, as
// SQL over the pg_catalog relations, planned by the planner where they
// are read, as PostgreSQL defines them over its own catalog. Only
// qualified names reach them (information_schema.tables), as in
// PostgreSQL, whose default search path does not hold that schema.
var infoSchemaViews = map[string]builtinView{}

// pgAttrdefColumns are the columns of pg_attrdef. adbin, a node tree in
// PostgreSQL, is the default's SQL text here; pg_get_expr returns it.
var pgAttrdefColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("adrelid", oidType, false),
	col("adnum", repr.Int2, false), col("adbin", repr.Text, false),
}

// pgAttrdefRows are object o's rows of pg_attrdef: one per column of a
// table with a DEFAULT. A default's oid is derived from its table's (subOID).
func pgAttrdefRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	if o.Kind != catalog.Table {
		return rows
	}
	for i, col := range o.Columns {
		// An identity column's default is its sequence's, which
		// PostgreSQL keeps out of pg_attrdef.
		if col.Default != "" && col.Identity == 0 {
			rows = append(rows, []string{sqlInt(subOID(o.ID, subColumnDefault, i+1)), sqlInt(relationOID(o.ID)), sqlInt(i + 1), sqlText(defaultText(col.Default, col.Type))})
		}
	}
	return rows
}

func init() {
	generatedViews["pg_attrdef"] = generatedView{columns: pgAttrdefColumns, rows: pgAttrdefRows}
	text := func(names ...string) []planner.RelationColumn {
		var cols []planner.RelationColumn
		for _, n := range names {
			cols = append(cols, col(n, repr.Text, true))
		}
		return cols
	}
	infoSchemaViews["schemata"] = builtinView{
		columns: text("catalog_name", "schema_name", "schema_owner", "default_character_set_catalog",
			"default_character_set_schema", "default_character_set_name", "sql_path"),
		sql: `SELECT current_database() AS catalog_name, nspname AS schema_name, pg_get_userbyid(nspowner) AS schema_owner,
			NULL::text AS default_character_set_catalog, NULL::text AS default_character_set_schema,
			NULL::text AS default_character_set_name, NULL::text AS sql_path FROM pg_catalog.pg_namespace`,
	}
	infoSchemaViews["tables"] = builtinView{
		columns: text("table_catalog", "table_schema", "table_name", "table_type", "self_referencing_column_name",
			"reference_generation", "user_defined_type_catalog", "user_defined_type_schema", "user_defined_type_name",
			"is_insertable_into", "is_typed", "commit_action"),
		// Like PostgreSQL's, it lists tables and views, not materialized
		// views.
		sql: `SELECT current_database() AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
			CASE c.relkind WHEN 'r' THEN 'BASE TABLE' ELSE 'VIEW' END AS table_type,
			NULL::text AS self_referencing_column_name, NULL::text AS reference_generation,
			NULL::text AS user_defined_type_catalog, NULL::text AS user_defined_type_schema, NULL::text AS user_defined_type_name,
			CASE c.relkind WHEN 'r' THEN 'YES' ELSE 'NO' END AS is_insertable_into, 'NO' AS is_typed, NULL::text AS commit_action
			FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'v')`,
	}
	infoSchemaViews["views"] = builtinView{
		columns: text("table_catalog", "table_schema", "table_name", "view_definition", "check_option",
			"is_updatable", "is_insertable_into", "is_trigger_updatable", "is_trigger_deletable", "is_trigger_insertable_into"),
		sql: `SELECT current_database() AS table_catalog, schemaname AS table_schema, viewname AS table_name,
			definition AS view_definition, 'NONE' AS check_option, 'NO' AS is_updatable, 'NO' AS is_insertable_into,
			'NO' AS is_trigger_updatable, 'NO' AS is_trigger_deletable, 'NO' AS is_trigger_insertable_into
			FROM pg_catalog.pg_views`,
	}
	cols := text("table_catalog", "table_schema", "table_name", "column_name")
	cols = append(cols, col("ordinal_position", repr.Int4, false))
	cols = append(cols, text("column_default", "is_nullable", "data_type")...)
	cols = append(cols, col("character_maximum_length", repr.Int4, true), col("numeric_precision", repr.Int4, true),
		col("numeric_scale", repr.Int4, true), col("datetime_precision", repr.Int4, true))
	cols = append(cols, text("udt_catalog", "udt_schema", "udt_name", "is_identity", "identity_generation", "is_generated", "is_updatable")...)
	infoSchemaViews["columns"] = builtinView{
		columns: cols,
		// Materialized views' columns are listed too, as PostgreSQL
		// does not; everything here is in one schema, public.
		sql: `SELECT current_database() AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
			a.attname AS column_name, a.attnum::int4 AS ordinal_position, d.adbin AS column_default,
			CASE WHEN a.attnotnull THEN 'NO' ELSE 'YES' END AS is_nullable,
			CASE WHEN t.typcategory = 'A' THEN 'ARRAY' ELSE format_type(a.atttypid, NULL) END AS data_type,
			CASE WHEN a.atttypid IN (1042, 1043) AND a.atttypmod > 0 THEN a.atttypmod - 4 END AS character_maximum_length,
			CASE a.atttypid WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 THEN 64 WHEN 700 THEN 24 WHEN 701 THEN 53
				WHEN 1700 THEN CASE WHEN a.atttypmod > 0 THEN (a.atttypmod - 4) / 65536 END END AS numeric_precision,
			CASE a.atttypid WHEN 21 THEN 0 WHEN 23 THEN 0 WHEN 20 THEN 0
				WHEN 1700 THEN CASE WHEN a.atttypmod > 0 THEN (a.atttypmod - 4) % 65536 END END AS numeric_scale,
			CASE WHEN a.atttypid IN (1082, 1083, 1114, 1184) THEN CASE WHEN a.atttypid = 1082 THEN 0 WHEN a.atttypmod >= 0 THEN a.atttypmod ELSE 6 END END AS datetime_precision,
			current_database() AS udt_catalog, 'pg_catalog' AS udt_schema, t.typname AS udt_name,
			CASE WHEN a.attidentity IN ('a', 'd') THEN 'YES' ELSE 'NO' END AS is_identity,
			CASE a.attidentity WHEN 'a' THEN 'ALWAYS' WHEN 'd' THEN 'BY DEFAULT' END AS identity_generation, 'NEVER' AS is_generated, CASE c.relkind WHEN 'r' THEN 'YES' ELSE 'NO' END AS is_updatable
			FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
			LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE c.relkind IN ('r', 'v', 'm') AND a.attnum > 0`,
	}
}

// quotedLiteral matches one SQL string literal and nothing else.
var quotedLiteral = regexp.MustCompile(`^'(?:[^']|'')*'$`)

// defaultText is a column DEFAULT as pg_get_expr prints it: the text it
// was written with, except that a string literal for a string, date or
// time column carries its cast, as PostgreSQL's deparsed form does
// ('none'::text, '2024-01-01'::date).
func defaultText(def string, t repr.Type) string {
	k := t.Kind()
	if !quotedLiteral.MatchString(strings.TrimSpace(def)) || !(k.IsString() || k == repr.KindDate ||
		k == repr.KindTimestamp || k == repr.KindTimestampTZ || k == repr.KindInterval || k == repr.KindTime) {
		return def
	}
	return strings.TrimSpace(def) + "::" + t.Base().String()
}
