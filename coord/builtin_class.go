package coord

import (
	"encoding/json"
	"fmt"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// userOIDBase is the OID of the catalog object with id 0; every user
// object's OID is userOIDBase plus its id, so OIDs survive a restart.
const userOIDBase = catalog.UserOIDBase

// pgClassColumns are pg_class's columns, PostgreSQL 15's, in its order.
// The "char" columns are text, xid columns int8, and the array and node
// relacl and reloptions text[] and relpartbound text, always NULL.
var pgClassColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("relname", repr.Name, false),
	col("relnamespace", oidType, false), col("reltype", oidType, false),
	col("reloftype", oidType, false), col("relowner", oidType, false),
	col("relam", oidType, false), col("relfilenode", oidType, false),
	col("reltablespace", oidType, false), col("relpages", repr.Int4, false),
	col("reltuples", repr.Float4, false), col("relallvisible", repr.Int4, false),
	col("reltoastrelid", oidType, false), col("relhasindex", repr.Bool, false),
	col("relisshared", repr.Bool, false), col("relpersistence", repr.Char, false),
	col("relkind", repr.Char, false), col("relnatts", repr.Int2, false),
	col("relchecks", repr.Int2, false), col("relhasrules", repr.Bool, false),
	col("relhastriggers", repr.Bool, false), col("relhassubclass", repr.Bool, false),
	col("relrowsecurity", repr.Bool, false), col("relforcerowsecurity", repr.Bool, false),
	col("relispopulated", repr.Bool, false), col("relreplident", repr.Char, false),
	col("relispartition", repr.Bool, false), col("relrewrite", oidType, false),
	col("relfrozenxid", repr.Int8, false), col("relminmxid", repr.Int8, false),
	col("relacl", textArray, true), col("reloptions", textArray, true),
	col("relpartbound", repr.Text, true),
}

// pgClassRows are object o's rows of pg_class: one for a table, view,
// materialized view or index, and one per index behind a table's PRIMARY
// KEY or UNIQUE constraint.
func pgClassRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	owner, acl := sqlInt(roleOID(rs.c, o.OwnerName())), sqlTextArray(o.ACLItems())
	persistence := "'p'"
	if isTempSchema(o.Schema) {
		persistence = "'t'"
	}
	row := func(oid uint64, name, kind string, am, natts int, hasIndex bool) {
		filenode, replident := oid, "d"
		if kind == "v" {
			filenode = 0
		}
		if kind == "v" || kind == "i" || kind == "S" {
			replident = "n"
		}
		rows = append(rows, []string{
			sqlInt(oid), sqlText(name), sqlInt(schemaOID(rs.c, o.Database, o.Schema)), "0", "0", owner,
			sqlInt(am), sqlInt(filenode), "0", "0", "-1", "0",
			"0", sqlBool(hasIndex), "false", persistence,
			sqlText(kind), sqlInt(natts), "0", sqlBool(kind == "v"),
			"false", "false", "false", "false",
			"true", sqlText(replident), "false", "0",
			"0", "0", acl, sqlNull, sqlNull,
		})
	}
	switch o.Kind {
	case catalog.Table:
		row(relationOID(o.ID), o.Name, "r", heapAccessMethodOID, len(o.Columns), rs.hasIndex[o.ID])
		for i, k := range o.UniqueKeys {
			row(subOID(o.ID, subConstraintIndex, i), k.Name, "i", btreeAccessMethodOID, len(k.Columns), false)
		}
	case catalog.View:
		row(relationOID(o.ID), o.Name, "v", 0, len(o.Columns), false)
	case catalog.MaterializedView:
		row(relationOID(o.ID), o.Name, "m", heapAccessMethodOID, len(o.Columns), rs.hasIndex[o.ID])
	case catalog.Index:
		row(relationOID(o.ID), o.Name, "i", btreeAccessMethodOID, len(indexKeyNames(o)), false)
	case catalog.Sequence:
		// last_value, log_cnt and is_called.
		row(relationOID(o.ID), o.Name, "S", 0, 3, false)
	}
	return rows
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pgIndexColumns are pg_index's columns, PostgreSQL 15's, in its order.
// indkey and indoption are int2vectors, indcollation and indclass
// oidvectors; indexprs and indpred, node trees in PostgreSQL, are text.
var pgIndexColumns = []planner.RelationColumn{
	col("indexrelid", oidType, false), col("indrelid", oidType, false),
	col("indnatts", repr.Int2, false), col("indnkeyatts", repr.Int2, false),
	col("indisunique", repr.Bool, false), col("indnullsnotdistinct", repr.Bool, false),
	col("indisprimary", repr.Bool, false), col("indisexclusion", repr.Bool, false),
	col("indimmediate", repr.Bool, false), col("indisclustered", repr.Bool, false),
	col("indisvalid", repr.Bool, false), col("indcheckxmin", repr.Bool, false),
	col("indisready", repr.Bool, false), col("indislive", repr.Bool, false),
	col("indisreplident", repr.Bool, false), col("indkey", repr.Int2Vector, false),
	col("indcollation", repr.OIDVector, false), col("indclass", repr.OIDVector, false),
	col("indoption", repr.Int2Vector, false), col("indexprs", repr.Text, true),
	col("indpred", repr.Text, true),
}

// pgIndexRows are object o's rows of pg_index: one for an index, and one
// per PRIMARY KEY or UNIQUE constraint of a table.
func pgIndexRows(rs *rowSource, o *catalog.Object) [][]string {
	if o == nil {
		return nil
	}
	var rows [][]string
	row := func(oid, on uint64, attnums []string, unique, primary bool, indexprs string) {
		zeros := strings.TrimSpace(strings.Repeat("0 ", len(attnums)))
		rows = append(rows, []string{
			sqlInt(oid), sqlInt(on), sqlInt(len(attnums)), sqlInt(len(attnums)),
			sqlBool(unique), "false", sqlBool(primary), "false",
			"true", "false", "true", "false",
			"true", "true", "false", sqlText(strings.Join(attnums, " ")),
			sqlText(zeros), sqlText(zeros), sqlText(zeros), indexprs,
			sqlNull,
		})
	}
	for i, k := range o.UniqueKeys {
		attnums := make([]string, len(k.Columns))
		for j, n := range k.Columns {
			attnums[j] = fmt.Sprint(n + 1)
		}
		row(subOID(o.ID, subConstraintIndex, i), relationOID(o.ID), attnums, true, k.Primary, sqlNull)
	}
	if o.Kind != catalog.Index {
		return rows
	}
	on := rs.c.Get(o.On)
	keys := indexKeyNames(o)
	attnums := make([]string, len(keys))
	exprs := false
	for i, k := range keys {
		attnums[i] = "0"
		if on != nil {
			for j, col := range on.Columns {
				if col.Name == k {
					attnums[i] = fmt.Sprint(j + 1)
				}
			}
		}
		exprs = exprs || attnums[i] == "0"
	}
	indexprs := sqlNull
	if exprs {
		// The key expressions as Freshet keeps them, not PostgreSQL's
		// node trees.
		indexprs = sqlText(o.SQL)
	}
	row(relationOID(o.ID), relationOID(o.On), attnums, o.Unique, false, indexprs)
	return rows
}

// indexKeyNames returns index o's keys as Freshet keeps them: a column's
// name, or an expression's text.
func indexKeyNames(o *catalog.Object) []string {
	var keys []string
	_ = json.Unmarshal([]byte(o.SQL), &keys)
	return keys
}
