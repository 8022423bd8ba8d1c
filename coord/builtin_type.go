package coord

import (
	"fmt"
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// pgTypeColumns are the columns of pg_type, with PostgreSQL 15's names.
// The I/O function columns (typinput, …) are regprocs naming pg_proc's
// rows; typmodin, typmodout and typanalyze, regprocs in PostgreSQL, are
// the text '-' (no function).
var pgTypeColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("typname", repr.Name, false),
	col("typnamespace", oidType, false), col("typowner", oidType, false),
	col("typlen", repr.Int2, false), col("typbyval", repr.Bool, false),
	col("typtype", repr.Char, false), col("typcategory", repr.Char, false),
	col("typispreferred", repr.Bool, false), col("typisdefined", repr.Bool, false),
	col("typdelim", repr.Char, false), col("typrelid", oidType, false),
	col("typsubscript", repr.Text, false), col("typelem", oidType, false),
	col("typarray", oidType, false), col("typinput", repr.Regproc, false),
	col("typoutput", repr.Regproc, false), col("typreceive", repr.Regproc, false),
	col("typsend", repr.Regproc, false), col("typmodin", repr.Text, false),
	col("typmodout", repr.Text, false), col("typanalyze", repr.Text, false),
	col("typalign", repr.Char, false), col("typstorage", repr.Char, false),
	col("typnotnull", repr.Bool, false), col("typbasetype", oidType, false),
	col("typtypmod", repr.Int4, false), col("typndims", repr.Int4, false),
	col("typcollation", oidType, false), col("typdefaultbin", repr.Text, true),
	col("typdefault", repr.Text, true), col("typacl", textArray, true),
}

// textCollationOID is the OID of the "default" collation, which
// PostgreSQL gives its string types.
const textCollationOID = 100

// cCollationOID is the OID of the "C" collation, name's.
const cCollationOID = 950

// typeRow is one row of pg_type.
type typeRow struct {
	oid, elem, array    uint32
	name                string
	typlen              int16
	byval               bool
	category            byte
	preferred           bool
	in, out, recv, send string
	align, storage      string
	collation           int
}

// typeRows are pg_type's rows: every type Freshet has and its array
// type.
var typeRows = func() []typeRow {
	var rows []typeRow
	for k := repr.KindUnknown; k < repr.NumKinds; k++ {
		if k == repr.KindArray || k == repr.KindEnum {
			continue
		}
		t := k.Type()
		name, n := t.Name(), t.Typlen()
		// PostgreSQL names most I/O functions typname+"in"; the date and
		// time types and numeric take an underscore.
		sep := ""
		switch k {
		case repr.KindNumeric, repr.KindDate, repr.KindTimestamp, repr.KindTimestampTZ, repr.KindInterval, repr.KindTime, repr.KindUUID, repr.KindJSON, repr.KindJSONB:
			sep = "_"
		}
		align, storage := "i", "p"
		switch {
		case n == 1:
			align = "c"
		case n == 2:
			align = "s"
		case k == repr.KindUUID:
			// 16 bytes, but an array of bytes to PostgreSQL.
			align = "c"
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
		switch {
		case k == repr.KindName:
			// name is compared in the C collation, "char" not at all.
			align, collation = "c", cCollationOID
		case k == repr.KindChar:
		case k.IsString():
			collation = textCollationOID
		}
		rows = append(rows, typeRow{t.OID(), 0, t.ArrayOID(), name, n, n > 0 && n <= 8, t.Category(), t.Preferred(),
			name + sep + "in", name + sep + "out", name + sep + "recv", name + sep + "send", align, storage, collation})
		if k == repr.KindInt2 || k == repr.KindOID {
			v := repr.Int2Vector
			if k == repr.KindOID {
				v = repr.OIDVector
			}
			rows = append(rows, typeRow{v.OID(), t.OID(), v.ArrayOID(), v.Name(), -1, false, 'A', false,
				v.Name() + "in", v.Name() + "out", v.Name() + "recv", v.Name() + "send", "i", "p", 0})
		}
	}
	for _, r := range slices.Clone(rows) {
		if r.array != 0 {
			rows = append(rows, arrayTypeRow(r))
		}
	}
	return rows
}()

// arrayTypeRow is the pg_type row of the array type over r.
func arrayTypeRow(r typeRow) typeRow {
	align := r.align
	if align == "c" || align == "s" {
		align = "i"
	}
	return typeRow{r.array, r.oid, 0, "_" + r.name, -1, false, 'A', false,
		"array_in", "array_out", "array_recv", "array_send", align, "x", r.collation}
}

// procNames are the functions pg_proc lists: the types' I/O functions,
// sorted; procOID gives each an OID, procOIDBase plus its position.
var procNames = func() []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range append(slices.Clone(typeRows), enumTypeRow(0, 0, "")) {
		for _, f := range []string{r.in, r.out, r.recv, r.send} {
			if !seen[f] {
				seen[f] = true
				names = append(names, f)
			}
		}
	}
	slices.Sort(names)
	return names
}()

// procOIDBase is the OID of the first function of procNames.
const procOIDBase = 14000

// procOID returns the OID of function name, and false if pg_proc does not
// list it.
func procOID(name string) (uint32, bool) {
	i, ok := slices.BinarySearch(procNames, name)
	return procOIDBase + uint32(i), ok
}

// pgTypeRows are pg_type's rows: the built-in types' for no object, an
// enum type's and its array's for an enum.
func pgTypeRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		var rows [][]string
		for _, r := range typeRows {
			rows = append(rows, typeRowLiterals(r, pgCatalogNamespaceOID, bootstrapRoleOID, 'b'))
		}
		return rows
	}
	if o.Kind != catalog.Type {
		return nil
	}
	ns, owner := schemaOID(rs.c, o.Database, o.Schema), roleOID(rs.c, o.OwnerName())
	e := enumTypeRow(catalog.OIDOf(o.ID), catalog.EnumTypeOf(o).ArrayOID(), o.Name)
	return [][]string{
		typeRowLiterals(e, ns, owner, 'e'),
		typeRowLiterals(arrayTypeRow(e), ns, owner, 'b'),
	}
}

// enumTypeRow is the pg_type row of enum name with OID oid, whose array
// type's OID is array.
func enumTypeRow(oid, array uint32, name string) typeRow {
	return typeRow{oid, 0, array, name, 4, true, 'E', false, "enum_in", "enum_out", "enum_recv", "enum_send", "i", "p", 0}
}

// typeRowLiterals writes r as pg_type's columns, the type in namespace
// ns, owned by owner, of typtype typtype.
func typeRowLiterals[N ~uint64 | ~int](r typeRow, ns, owner N, typtype byte) []string {
	proc := func(name string) string {
		oid, _ := procOID(name)
		return sqlInt(oid)
	}
	subscript := "-"
	if r.elem != 0 {
		subscript = "array_subscript_handler"
	}
	return []string{
		sqlInt(r.oid), sqlText(r.name), sqlInt(ns), sqlInt(owner),
		sqlInt(r.typlen), sqlBool(r.byval), sqlText(string(typtype)), sqlText(string(r.category)),
		sqlBool(r.preferred), "true", "','", "0",
		sqlText(subscript), sqlInt(r.elem), sqlInt(r.array), proc(r.in),
		proc(r.out), proc(r.recv), proc(r.send), "'-'",
		"'-'", "'-'", sqlText(r.align), sqlText(r.storage),
		"false", "0", "-1", "0",
		sqlInt(r.collation), sqlNull, sqlNull, sqlNull,
	}
}

// pgEnumColumns are pg_enum's columns, PostgreSQL 15's.
var pgEnumColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("enumtypid", oidType, false),
	col("enumsortorder", repr.Float4, false), col("enumlabel", repr.Name, false),
}

// pgEnumRows are an enum type's rows of pg_enum, one per label. A
// label's OID is derived from its type's id and its place in the list.
func pgEnumRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil || o.Kind != catalog.Type {
		return nil
	}
	var rows [][]string
	for i, l := range o.Labels {
		rows = append(rows, []string{sqlInt(subOID(o.ID, subEnumLabel, i)), sqlInt(catalog.OIDOf(o.ID)),
			fmt.Sprint(l.Sort), sqlText(l.Label)})
	}
	return rows
}

// pgProcColumns are pg_proc's columns, PostgreSQL 15's, in its order.
var pgProcColumns = func() []planner.RelationColumn {
	var cols []planner.RelationColumn
	types := map[string]repr.Type{"o": oidType, "t": repr.Text, "n": repr.Name, "h": repr.Char, "b": repr.Bool, "c": repr.Int2, "f": repr.Float4,
		"O": repr.ArrayOf(oidType), "T": textArray, "W": repr.OIDVector}
	for _, c := range strings.Fields("oid:o proname:n pronamespace:o proowner:o prolang:o procost:f prorows:f provariadic:o " +
		"prosupport:t prokind:h prosecdef:b proleakproof:b proisstrict:b proretset:b provolatile:h proparallel:h pronargs:c " +
		"pronargdefaults:c prorettype:o proargtypes:W proallargtypes:O proargmodes:T proargnames:T proargdefaults:t " +
		"protrftypes:O prosrc:t probin:t prosqlbody:t proconfig:T proacl:T") {
		n, k, _ := strings.Cut(c, ":")
		cols = append(cols, col(n, types[k], true))
	}
	return cols
}()

// pgProcSQL is pg_proc: the types' I/O functions, which clients join
// with pg_type (Npgsql finds array types by typreceive's name,
// array_recv). Their argument and result types are approximate:
// an input function takes cstring (2275), a receive function internal
// (2281); an output function returns cstring, a send function bytea
// (17), the others their type.
func pgProcSQL() string {
	ret := map[string]uint32{}
	for _, r := range typeRows {
		if r.elem == 0 {
			ret[r.in], ret[r.recv] = r.oid, r.oid
		} else {
			ret[r.in], ret[r.recv] = 2277, 2277 // anyarray
		}
		ret[r.out], ret[r.send] = 2275, 17
	}
	var rows [][]string
	for _, name := range procNames {
		oid, _ := procOID(name)
		arg := uint32(2275)
		switch {
		case strings.HasSuffix(name, "recv"):
			arg = 2281
		case strings.HasSuffix(name, "out") || strings.HasSuffix(name, "send"):
			arg = 0
		}
		args := "''"
		if arg != 0 {
			args = sqlText(fmt.Sprint(arg))
		}
		rows = append(rows, []string{
			sqlInt(oid), sqlText(name), sqlInt(pgCatalogNamespaceOID), sqlInt(bootstrapRoleOID), "12", "1", "0", "0",
			"'-'", "'f'", "false", "false", "true", "false", "'i'", "'s'", "1",
			"0", sqlInt(ret[name]), args, sqlNull, sqlNull, sqlNull, sqlNull,
			sqlNull, sqlText(name), sqlNull, sqlNull, sqlNull, sqlNull,
		})
	}
	return constRowsSQL(pgProcColumns, rows)
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
	col("attrelid", oidType, false), col("attname", repr.Name, false),
	col("atttypid", oidType, false), col("attstattarget", repr.Int4, false),
	col("attlen", repr.Int2, false), col("attnum", repr.Int2, false),
	col("attndims", repr.Int4, false), col("attcacheoff", repr.Int4, false),
	col("atttypmod", repr.Int4, false), col("attbyval", repr.Bool, false),
	col("attalign", repr.Char, false), col("attstorage", repr.Char, false),
	col("attcompression", repr.Char, false), col("attnotnull", repr.Bool, false),
	col("atthasdef", repr.Bool, false), col("atthasmissing", repr.Bool, false),
	col("attidentity", repr.Char, false), col("attgenerated", repr.Char, false),
	col("attisdropped", repr.Bool, false), col("attislocal", repr.Bool, false),
	col("attinhcount", repr.Int4, false), col("attcollation", oidType, false),
	col("attacl", textArray, true), col("attoptions", textArray, true),
	col("attfdwoptions", textArray, true), col("attmissingval", repr.Text, true),
}

// pgAttributeRows are object o's rows of pg_attribute: one per column of
// a table, view, materialized view or index (an index's columns
// are its keys). System columns (ctid, xmin, …) do not exist in Freshet
// and have no rows.
func pgAttributeRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	attr := func(oid uint64, num int, name string, t repr.Type, notNull, hasDefault bool, identity string) {
		collation := 0
		if t.Kind().IsString() {
			collation = textCollationOID
		}
		n := t.Typlen()
		// The column's storage is its type's: plain for fixed-size
		// types, main for numeric, extended for the other varlenas.
		storage := "p"
		switch {
		case t.Kind() == repr.KindNumeric:
			storage = "m"
		case n < 0 && t.Kind() != repr.KindUnknown:
			storage = "x"
		}
		rows = append(rows, []string{
			sqlInt(oid), sqlText(name), sqlInt(t.OID()), "-1",
			sqlInt(n), sqlInt(num), "0", "-1",
			sqlInt(t.Typmod()), sqlBool(n > 0 && n <= 8), "'i'", sqlText(storage),
			"''", sqlBool(notNull), sqlBool(hasDefault), "false",
			sqlText(identity), "''", "false", "true",
			"0", sqlInt(collation), sqlNull, sqlNull,
			sqlNull, sqlNull,
		})
	}
	switch o.Kind {
	case catalog.Table, catalog.View, catalog.MaterializedView:
		for i, col := range o.Columns {
			// A view's columns are never NOT NULL in PostgreSQL's
			// catalog, whatever the query guarantees.
			identity := ""
			if col.Identity != 0 {
				identity = string(col.Identity)
			}
			attr(relationOID(o.ID), i+1, col.Name, col.Type, col.NotNull && o.Kind == catalog.Table, col.Default != "" && col.Identity == 0, identity)
		}
		for k, key := range o.UniqueKeys {
			for i, n := range key.Columns {
				col := o.Columns[n]
				attr(subOID(o.ID, subConstraintIndex, k), i+1, col.Name, col.Type, false, false, "")
			}
		}
	case catalog.Index:
		on := rs.c.Get(o.On)
		if on == nil {
			return rows
		}
		for i, k := range indexKeyNames(o) {
			t := repr.Text
			for _, col := range on.Columns {
				if col.Name == k {
					t = col.Type
				}
			}
			attr(relationOID(o.ID), i+1, k, t, false, false, "")
		}
	}
	return rows
}
