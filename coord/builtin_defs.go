package coord

import (
	"fmt"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// The relations of this file describe constraints and definitions:
// pg_constraint, pg_matviews, information_schema's table_constraints and
// key_column_usage, and freshet_definitions, which the pg_get_*def
// functions read (planner/bind_catalog_macros.go). Like pg_class they
// are written from the catalog when a statement that reads them is
// planned.

// pgConstraintColumns are pg_constraint's columns, PostgreSQL 15's, in
// its order. The "char" columns are text; conbin, a node tree, is text.
var pgConstraintColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("conname", repr.Name, false),
	col("connamespace", oidType, false), col("contype", repr.Char, false),
	col("condeferrable", repr.Bool, false), col("condeferred", repr.Bool, false),
	col("convalidated", repr.Bool, false), col("conrelid", oidType, false),
	col("contypid", oidType, false), col("conindid", oidType, false),
	col("conparentid", oidType, false), col("confrelid", oidType, false),
	col("confupdtype", repr.Char, false), col("confdeltype", repr.Char, false),
	col("confmatchtype", repr.Char, false), col("conislocal", repr.Bool, false),
	col("coninhcount", repr.Int4, false), col("connoinherit", repr.Bool, false),
	col("conkey", repr.ArrayOf(repr.Int2), true), col("confkey", repr.ArrayOf(repr.Int2), true),
	col("conpfeqop", repr.ArrayOf(oidType), true), col("conppeqop", repr.ArrayOf(oidType), true),
	col("conffeqop", repr.ArrayOf(oidType), true), col("confdelsetcols", repr.ArrayOf(repr.Int2), true),
	col("conexclop", repr.ArrayOf(oidType), true), col("conbin", repr.Text, true),
}

// pgConstraintRows are object o's rows of pg_constraint: one per PRIMARY
// KEY and UNIQUE constraint of a table. NOT NULL is no constraint row in PostgreSQL 15
// either; Freshet has no CHECK or FOREIGN KEY constraints.
func pgConstraintRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	for i, k := range o.UniqueKeys {
		contype := "u"
		if k.Primary {
			contype = "p"
		}
		attnums := make([]string, len(k.Columns))
		for j, n := range k.Columns {
			attnums[j] = fmt.Sprint(n + 1)
		}
		rows = append(rows, []string{
			sqlInt(subOID(o.ID, subConstraint, i)), sqlText(k.Name), sqlInt(schemaOID(rs.c, o.Database, o.Schema)), sqlText(contype),
			"false", "false", "true", sqlInt(relationOID(o.ID)),
			"0", sqlInt(subOID(o.ID, subConstraintIndex, i)), "0", "0",
			"' '", "' '", "' '", "true",
			"0", "true", sqlText("{" + strings.Join(attnums, ",") + "}"), sqlNull,
			sqlNull, sqlNull, sqlNull, sqlNull,
			sqlNull, sqlNull,
		})
	}
	return rows
}

// constraintDef is the text pg_get_constraintdef gives for key k of
// table o: "PRIMARY KEY (id)" or "UNIQUE (a, b)".
func constraintDef(o *catalog.Object, k catalog.UniqueKey) string {
	kind := "UNIQUE"
	if k.Primary {
		kind = "PRIMARY KEY"
	}
	names := make([]string, len(k.Columns))
	for i, n := range k.Columns {
		names[i] = quoteIdentIfNeeded(o.Columns[n].Name)
	}
	return kind + " (" + strings.Join(names, ", ") + ")"
}

// definitionsColumns are freshet_definitions' columns: for each object,
// kind 'v' (a view or materialized view: its query), 'i' (an index: its
// CREATE INDEX at n = 0 and its k-th key at n = k) or 'c' (a constraint),
// the text the pg_get_*def functions return.
var definitionsColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("kind", repr.Text, false),
	col("n", repr.Int4, false), col("definition", repr.Text, false),
}

// definitionsRows are object o's rows of freshet_definitions.
func definitionsRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	def := func(oid uint64, kind string, n int, text string) {
		rows = append(rows, []string{sqlInt(oid), sqlText(kind), sqlInt(n), sqlText(text)})
	}
	index := func(oid uint64, name string, on *catalog.Object, unique bool, keys []string) {
		u := ""
		if unique {
			u = "UNIQUE "
		}
		def(oid, "i", 0, fmt.Sprintf("CREATE %sINDEX %s ON %s.%s USING btree (%s)", u, quoteIdentIfNeeded(name),
			quoteIdentIfNeeded(on.Schema), quoteIdentIfNeeded(on.Name), strings.Join(keys, ", ")))
		for i, k := range keys {
			def(oid, "i", i+1, k)
		}
	}
	switch o.Kind {
	case catalog.View, catalog.MaterializedView:
		def(relationOID(o.ID), "v", 0, o.SQL)
	case catalog.Table:
		for i, k := range o.UniqueKeys {
			def(subOID(o.ID, subConstraint, i), "c", 0, constraintDef(o, k))
			keys := make([]string, len(k.Columns))
			for j, n := range k.Columns {
				keys[j] = quoteIdentIfNeeded(o.Columns[n].Name)
			}
			index(subOID(o.ID, subConstraintIndex, i), k.Name, o, true, keys)
		}
	case catalog.Index:
		on := rs.c.Get(o.On)
		if on == nil {
			return rows
		}
		keys := indexKeyNames(o)
		for i, k := range keys {
			// A key that is a column's name is quoted as one; an
			// expression is kept as written, in parentheses.
			isColumn := false
			for _, col := range on.Columns {
				isColumn = isColumn || col.Name == k
			}
			if isColumn {
				keys[i] = quoteIdentIfNeeded(k)
			} else {
				keys[i] = "(" + k + ")"
			}
		}
		index(relationOID(o.ID), o.Name, on, o.Unique, keys)
	}
	return rows
}

// pgMatviewsColumns are pg_matviews' columns.
var pgMatviewsColumns = []planner.RelationColumn{
	col("schemaname", repr.Name, false), col("matviewname", repr.Name, false),
	col("matviewowner", repr.Name, false), col("tablespace", repr.Name, true),
	col("hasindexes", repr.Bool, false), col("ispopulated", repr.Bool, false),
	col("definition", repr.Text, false),
}

func init() {
	generatedViews["pg_constraint"] = generatedView{columns: pgConstraintColumns, rows: pgConstraintRows}
	generatedViews["freshet_definitions"] = generatedView{columns: definitionsColumns, rows: definitionsRows}
	// pg_matviews, like pg_tables, is a view over pg_class; every
	// materialized view is populated: it is maintained from its
	// creation on.
	builtinViews["pg_matviews"] = builtinView{
		columns: pgMatviewsColumns,
		sql: "SELECT n.nspname AS schemaname, c.relname AS matviewname, pg_catalog.pg_get_userbyid(c.relowner) AS matviewowner, " +
			"NULL::text AS tablespace, c.relhasindex AS hasindexes, true AS ispopulated, d.definition " +
			"FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
			"JOIN pg_catalog.freshet_definitions d ON d.oid = c.oid AND d.kind = 'v' WHERE c.relkind = 'm'",
	}
	text := func(names ...string) []planner.RelationColumn {
		var cols []planner.RelationColumn
		for _, n := range names {
			cols = append(cols, col(n, repr.Text, true))
		}
		return cols
	}
	infoSchemaViews["table_constraints"] = builtinView{
		columns: text("constraint_catalog", "constraint_schema", "constraint_name", "table_catalog", "table_schema",
			"table_name", "constraint_type", "is_deferrable", "initially_deferred", "enforced", "nulls_distinct"),
		// PostgreSQL lists NOT NULL columns here as CHECK constraints
		// named after internal numbers; Freshet lists its key
		// constraints only.
		sql: `SELECT current_database() AS constraint_catalog, n.nspname AS constraint_schema, k.conname AS constraint_name,
			current_database() AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
			CASE k.contype WHEN 'p' THEN 'PRIMARY KEY' WHEN 'u' THEN 'UNIQUE' END AS constraint_type,
			'NO' AS is_deferrable, 'NO' AS initially_deferred, 'YES' AS enforced, 'YES' AS nulls_distinct
			FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`,
	}
	cols := text("constraint_catalog", "constraint_schema", "constraint_name", "table_catalog", "table_schema",
		"table_name", "column_name")
	cols = append(cols, col("ordinal_position", repr.Int4, false), col("position_in_unique_constraint", repr.Int4, true))
	infoSchemaViews["key_column_usage"] = builtinView{
		columns: cols,
		// An index's key n is the constraint's key n, and pg_attribute
		// holds the index's columns, in key order, under its OID.
		sql: `SELECT current_database() AS constraint_catalog, n.nspname AS constraint_schema, k.conname AS constraint_name,
			current_database() AS table_catalog, n.nspname AS table_schema, c.relname AS table_name,
			a.attname AS column_name, a.attnum::int4 AS ordinal_position, NULL::int4 AS position_in_unique_constraint
			FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conindid`,
	}
}

// pgDependColumns are pg_depend's columns.
var pgDependColumns = []planner.RelationColumn{
	col("classid", oidType, false), col("objid", oidType, false),
	col("objsubid", repr.Int4, false), col("refclassid", oidType, false),
	col("refobjid", oidType, false), col("refobjsubid", repr.Int4, false),
	col("deptype", repr.Char, false),
}

// pgDependRows are object o's rows of pg_depend: a view or materialized view
// depends on each relation its query reads (deptype n), including those
// read through the views it reads, an index on its
// table's key columns (deptype a, one row per column), as pg_class
// objects (classid 1259). PostgreSQL records a view's dependencies
// through its rewrite rule; Freshet has no rules and records them on the
// view itself.
func pgDependRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	const pgClassOID = 1259
	var rows [][]string
	dep := func(objid uint64, objsub int, refobjid uint64, refsub int, deptype string) {
		rows = append(rows, []string{sqlInt(pgClassOID), sqlInt(objid), sqlInt(objsub), sqlInt(pgClassOID),
			sqlInt(refobjid), sqlInt(refsub), sqlText(deptype)})
	}
	switch o.Kind {
	case catalog.View, catalog.MaterializedView:
		for _, d := range o.DependsOn {
			if r := rs.c.Get(d); r != nil && r.Kind.IsRelation() {
				dep(relationOID(o.ID), 0, relationOID(d), 0, "n")
			}
		}
	case catalog.Table:
		for i, k := range o.UniqueKeys {
			for _, n := range k.Columns {
				dep(subOID(o.ID, subConstraintIndex, i), 0, relationOID(o.ID), n+1, "a")
			}
		}
	case catalog.Index:
		on := rs.c.Get(o.On)
		if on == nil {
			return rows
		}
		for _, k := range indexKeyNames(o) {
			for j, col := range on.Columns {
				if col.Name == k {
					dep(relationOID(o.ID), 0, relationOID(o.On), j+1, "a")
				}
			}
		}
	case catalog.Sequence:
		// A serial column's sequence depends on it automatically
		// (deptype a), an identity column's internally (i).
		if t := rs.c.Get(o.On); t != nil && o.Seq != nil && o.Seq.Column > 0 && o.Seq.Column <= len(t.Columns) {
			deptype := "a"
			if t.Columns[o.Seq.Column-1].Identity != 0 {
				deptype = "i"
			}
			dep(relationOID(o.ID), 0, relationOID(o.On), o.Seq.Column, deptype)
		}
	}
	return rows
}

func init() {
	generatedViews["pg_depend"] = generatedView{columns: pgDependColumns, rows: pgDependRows}
	builtinViews["pg_indexes"] = builtinView{
		columns: []planner.RelationColumn{
			col("schemaname", repr.Name, false), col("tablename", repr.Name, false),
			col("indexname", repr.Name, false), col("tablespace", repr.Name, true),
			col("indexdef", repr.Text, false),
		},
		sql: `SELECT n.nspname AS schemaname, c.relname AS tablename, i.relname AS indexname, NULL::text AS tablespace,
			d.definition AS indexdef
			FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = x.indrelid
			JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_catalog.freshet_definitions d ON d.oid = i.oid AND d.kind = 'i' AND d.n = 0
			WHERE c.relkind IN ('r', 'm', 'v')`,
	}
}

func init() {
	text := func(names ...string) []planner.RelationColumn {
		var cols []planner.RelationColumn
		for _, n := range names {
			cols = append(cols, col(n, repr.Text, true))
		}
		return cols
	}
	// Freshet has no foreign keys.
	infoSchemaViews["referential_constraints"] = builtinView{
		columns: text("constraint_catalog", "constraint_schema", "constraint_name", "unique_constraint_catalog",
			"unique_constraint_schema", "unique_constraint_name", "match_option", "update_rule", "delete_rule"),
		sql: `SELECT NULL::text AS constraint_catalog, NULL::text AS constraint_schema, NULL::text AS constraint_name,
			NULL::text AS unique_constraint_catalog, NULL::text AS unique_constraint_schema, NULL::text AS unique_constraint_name,
			NULL::text AS match_option, NULL::text AS update_rule, NULL::text AS delete_rule WHERE false`,
	}
	// The functions pg_proc lists, with the standard's first columns.
	infoSchemaViews["routines"] = builtinView{
		columns: text("specific_catalog", "specific_schema", "specific_name", "routine_catalog", "routine_schema",
			"routine_name", "routine_type", "data_type", "type_udt_catalog", "type_udt_schema", "type_udt_name",
			"routine_body", "routine_definition", "external_name", "external_language", "is_deterministic",
			"sql_data_access", "is_null_call"),
		sql: `SELECT current_database() AS specific_catalog, n.nspname AS specific_schema, p.proname || '_' || p.oid::text AS specific_name,
			current_database() AS routine_catalog, n.nspname AS routine_schema, p.proname AS routine_name,
			'FUNCTION' AS routine_type, format_type(p.prorettype, NULL) AS data_type, current_database() AS type_udt_catalog,
			'pg_catalog' AS type_udt_schema, t.typname AS type_udt_name, 'EXTERNAL' AS routine_body,
			p.prosrc AS routine_definition, p.prosrc AS external_name, 'INTERNAL' AS external_language,
			'YES' AS is_deterministic, 'MODIFIES' AS sql_data_access, 'NO' AS is_null_call
			FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
			LEFT JOIN pg_catalog.pg_type t ON t.oid = p.prorettype`,
	}
}
