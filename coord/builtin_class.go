package coord

import (
	"fmt"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
)

// userOIDBase is the OID of the catalog object with id 0; every user
// object's OID is userOIDBase plus its id, so OIDs survive a restart.
const userOIDBase = 16384

// pgClassColumns are the columns of pg_class that Freshet fills, with
// PostgreSQL 15's names.
var pgClassColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("relname", repr.Text, false),
	col("relnamespace", oidType, false), col("relkind", repr.Text, false),
	col("relowner", oidType, false), col("relam", oidType, false),
	col("relhasindex", repr.Bool, false), col("reltuples", repr.Float4, false),
	col("relpages", repr.Int4, false), col("relpersistence", repr.Text, false),
	col("relispartition", repr.Bool, false), col("reloptions", repr.Text, true),
	col("relchecks", repr.Int2, false),
}

// pgClassSQL is pg_class for database db as a query over constant rows,
// written from the catalog when the reading statement is planned. The
// first row is a placeholder so that the VALUES list is never empty.
func pgClassSQL(c *catalog.Catalog, db string) string {
	hasIndex := map[uint64]bool{}
	for _, o := range c.Objects() {
		// A PRIMARY KEY or UNIQUE constraint is an index in
		// PostgreSQL, so a table with one has an index.
		if o.Kind == catalog.Index {
			hasIndex[o.On] = true
		} else if len(o.UniqueKeys) > 0 {
			hasIndex[o.ID] = true
		}
	}
	var b strings.Builder
	b.WriteString("SELECT * FROM (VALUES (0::int8, '', 0::int8, '', 0::int8, 0::int8, false, 0::float4, 0, 'p', false, NULL::text, 0::int2)")
	for _, o := range c.Objects() {
		if o.Database != db {
			continue
		}
		kind, am := "", 0
		switch o.Kind {
		case catalog.Table:
			kind, am = "r", heapAccessMethodOID
		case catalog.View:
			kind = "v"
		case catalog.MaterializedView:
			kind, am = "m", heapAccessMethodOID
		case catalog.Index:
			kind, am = "i", btreeAccessMethodOID
		default:
			continue
		}
		fmt.Fprintf(&b, ", (%d, %s, %d, '%s', %d, %d, %t, -1, 0, 'p', false, NULL, 0)",
			userOIDBase+o.ID, quoteLiteral(o.Name), publicNamespaceOID, kind, bootstrapRoleOID, am, hasIndex[o.ID])
	}
	b.WriteString(") AS t (oid, relname, relnamespace, relkind, relowner, relam, relhasindex, reltuples, relpages, relpersistence, relispartition, reloptions, relchecks) WHERE oid <> 0")
	return b.String()
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
