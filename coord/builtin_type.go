package coord

import (
	"fmt"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// pgTypeColumns are the columns of pg_type, with PostgreSQL 15's names.
// The regproc columns (typinput, …) hold the function's name as text
// until Freshet has the regproc type.
var pgTypeColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("typname", repr.Text, false),
	col("typnamespace", oidType, false), col("typowner", oidType, false),
	col("typlen", repr.Int2, false), col("typbyval", repr.Bool, false),
	col("typtype", repr.Text, false), col("typcategory", repr.Text, false),
	col("typispreferred", repr.Bool, false), col("typisdefined", repr.Bool, false),
	col("typdelim", repr.Text, false), col("typrelid", oidType, false),
	col("typsubscript", repr.Text, false), col("typelem", oidType, false),
	col("typarray", oidType, false), col("typinput", repr.Text, false),
	col("typoutput", repr.Text, false), col("typreceive", repr.Text, false),
	col("typsend", repr.Text, false), col("typmodin", repr.Text, false),
	col("typmodout", repr.Text, false), col("typanalyze", repr.Text, false),
	col("typalign", repr.Text, false), col("typstorage", repr.Text, false),
	col("typnotnull", repr.Bool, false), col("typbasetype", oidType, false),
	col("typtypmod", repr.Int4, false), col("typndims", repr.Int4, false),
	col("typcollation", oidType, false), col("typdefaultbin", repr.Text, true),
	col("typdefault", repr.Text, true), col("typacl", textArray, true),
}

// textCollationOID is the OID of the "default" collation, which
// PostgreSQL gives its string types.
const textCollationOID = 100

// pgTypeSQL is pg_type: every type Freshet has and its array type, as
// constant rows.
func pgTypeSQL() string {
	var rows []string
	row := func(oid uint32, name string, typlen int16, byval bool, category byte, preferred bool, elem, array uint32,
		in, out, recv, send, align, storage string, collation int) {
		rows = append(rows, fmt.Sprintf("(%d::oid, %s, %d::oid, %d::oid, %d::int2, %t, 'b', '%c', %t, true, ',', 0::oid, %s, %d::oid, %d::oid, %s, %s, %s, %s, '-', '-', '-', '%s', '%s', false, 0::oid, -1, 0, %d::oid, NULL::text, NULL::text, NULL::text[])",
			oid, quoteLiteral(name), pgCatalogNamespaceOID, bootstrapRoleOID, typlen, byval, category, preferred,
			quoteLiteral(map[bool]string{true: "array_subscript_handler", false: "-"}[elem != 0]), elem, array,
			quoteLiteral(in), quoteLiteral(out), quoteLiteral(recv), quoteLiteral(send), align, storage, collation))
	}
	for k := repr.KindUnknown; k <= repr.KindInterval; k++ {
		t := k.Type()
		name, n := t.Name(), t.Typlen()
		// PostgreSQL names most I/O functions typname+"in"; the date and
		// time types and numeric take an underscore.
		sep := ""
		switch k {
		case repr.KindNumeric, repr.KindDate, repr.KindTimestamp, repr.KindTimestampTZ, repr.KindInterval:
			sep = "_"
		}
		align, storage := "i", "p"
		switch {
		case n == 1:
			align = "c"
		case n == 2:
			align = "s"
		case n == 8 || n == 16:
			align = "d"
		case n < 0:
			storage = "x"
			if k == repr.KindNumeric {
				storage = "m"
			}
			if k == repr.KindUnknown {
				align, storage = "c", "p"
			}
		}
		collation := 0
		if k.IsString() {
			collation = textCollationOID
		}
		row(t.OID(), name, n, n > 0 && n <= 8, t.Category(), t.Preferred(), 0, t.ArrayOID(),
			name+sep+"in", name+sep+"out", name+sep+"recv", name+sep+"send", align, storage, collation)
		if t.ArrayOID() != 0 {
			arrayAlign := align
			if arrayAlign == "c" || arrayAlign == "s" {
				arrayAlign = "i"
			}
			row(t.ArrayOID(), "_"+name, -1, false, 'A', false, t.OID(), 0,
				"array_in", "array_out", "array_recv", "array_send", arrayAlign, "x", collation)
		}
	}
	return "SELECT * FROM (VALUES " + strings.Join(rows, ", ") + ") AS t (" + columnNames(pgTypeColumns) + ")"
}

// columnNames lists cols' names, comma-separated.
func columnNames(cols []planner.RelationColumn) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// pgAttributeColumns are the columns of pg_attribute, with PostgreSQL
// 15's names.
var pgAttributeColumns = []planner.RelationColumn{
	col("attrelid", oidType, false), col("attname", repr.Text, false),
	col("atttypid", oidType, false), col("attstattarget", repr.Int4, false),
	col("attlen", repr.Int2, false), col("attnum", repr.Int2, false),
	col("attndims", repr.Int4, false), col("attcacheoff", repr.Int4, false),
	col("atttypmod", repr.Int4, false), col("attbyval", repr.Bool, false),
	col("attalign", repr.Text, false), col("attstorage", repr.Text, false),
	col("attcompression", repr.Text, false), col("attnotnull", repr.Bool, false),
	col("atthasdef", repr.Bool, false), col("atthasmissing", repr.Bool, false),
	col("attidentity", repr.Text, false), col("attgenerated", repr.Text, false),
	col("attisdropped", repr.Bool, false), col("attislocal", repr.Bool, false),
	col("attinhcount", repr.Int4, false), col("attcollation", oidType, false),
	col("attacl", repr.Text, true), col("attoptions", repr.Text, true),
	col("attfdwoptions", repr.Text, true), col("attmissingval", repr.Text, true),
}

// pgAttributeSQL is pg_attribute for database db: one row per column of
// every table, view, materialized view and index (an index's columns are
// its keys), written from the catalog when the reading statement is
// planned. System columns (ctid, xmin, …) do not exist in Freshet and
// have no rows.
func pgAttributeSQL(c *catalog.Catalog, db string) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM (VALUES (0::oid, '', 0::oid, -1, 0::int2, 0::int2, 0, -1, -1, false, 'c', 'p', '', false, false, false, '', '', false, true, 0, 0::oid, NULL::text, NULL::text, NULL::text, NULL::text)")
	attr := func(oid uint64, num int, name string, t repr.Type, notNull, hasDefault bool) {
		collation := 0
		if t.Kind().IsString() {
			collation = textCollationOID
		}
		n := t.Typlen()
		fmt.Fprintf(&b, ", (%d, %s, %d, -1, %d, %d, 0, -1, %d, %t, 'i', 'p', '', %t, %t, false, '', '', false, true, 0, %d, NULL, NULL, NULL, NULL)",
			oid, quoteLiteral(name), t.OID(), n, num, t.Typmod(), n > 0 && n <= 8, notNull, hasDefault, collation)
	}
	for _, o := range c.Objects() {
		if o.Database != db {
			continue
		}
		switch o.Kind {
		case catalog.Table, catalog.View, catalog.MaterializedView:
			for i, col := range o.Columns {
				// A view's columns are never NOT NULL in PostgreSQL's
				// catalog, whatever the query guarantees.
				attr(relationOID(o.ID), i+1, col.Name, col.Type, col.NotNull && o.Kind == catalog.Table, col.Default != "")
			}
			for k, key := range o.UniqueKeys {
				for i, n := range key.Columns {
					col := o.Columns[n]
					attr(subOID(o.ID, subConstraintIndex, k), i+1, col.Name, col.Type, false, false)
				}
			}
		case catalog.Index:
			on := c.Get(o.On)
			if on == nil {
				continue
			}
			for i, k := range indexKeyNames(o) {
				t := repr.Text
				for _, col := range on.Columns {
					if col.Name == k {
						t = col.Type
					}
				}
				attr(relationOID(o.ID), i+1, k, t, false, false)
			}
		}
	}
	b.WriteString(") AS t (" + columnNames(pgAttributeColumns) + ") WHERE attrelid <> 0")
	return b.String()
}
