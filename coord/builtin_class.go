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

// pgIndexColumns are the columns of pg_index, with PostgreSQL 15's names.
// indkey, an int2vector in PostgreSQL, is its text form here ("1 2")
// until Freshet has vector types.
var pgIndexColumns = []planner.RelationColumn{
	col("indexrelid", oidType, false), col("indrelid", oidType, false),
	col("indnatts", repr.Int2, false), col("indnkeyatts", repr.Int2, false),
	col("indisunique", repr.Bool, false), col("indnullsnotdistinct", repr.Bool, false),
	col("indisprimary", repr.Bool, false), col("indisexclusion", repr.Bool, false),
	col("indimmediate", repr.Bool, false), col("indisclustered", repr.Bool, false),
	col("indisvalid", repr.Bool, false), col("indcheckxmin", repr.Bool, false),
	col("indisready", repr.Bool, false), col("indislive", repr.Bool, false),
	col("indisreplident", repr.Bool, false), col("indkey", repr.Text, false),
	col("indexprs", repr.Text, true), col("indpred", repr.Text, true),
}

// pgIndexSQL is pg_index for database db: one row per CREATE INDEX, as a
// query over constant rows written from the catalog when the reading
// statement is planned. The indexes behind PRIMARY KEY and UNIQUE
// constraints have no pg_class row yet, so they have none here either.
func pgIndexSQL(c *catalog.Catalog, db string) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM (VALUES (0::int8, 0::int8, 0::int2, 0::int2, false, false, false, false, true, false, true, false, true, true, false, '', NULL::text, NULL::text)")
	for _, o := range c.Objects() {
		if o.Database != db || o.Kind != catalog.Index {
			continue
		}
		on := c.Get(o.On)
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
		indexprs := "NULL"
		if exprs {
			// The key expressions as Freshet keeps them, not PostgreSQL's
			// node trees.
			indexprs = quoteLiteral(o.SQL)
		}
		fmt.Fprintf(&b, ", (%d, %d, %d, %d, %t, false, false, false, true, false, true, false, true, true, false, %s, %s, NULL)",
			userOIDBase+o.ID, userOIDBase+o.On, len(keys), len(keys), o.Unique, quoteLiteral(strings.Join(attnums, " ")), indexprs)
	}
	b.WriteString(") AS t (indexrelid, indrelid, indnatts, indnkeyatts, indisunique, indnullsnotdistinct, indisprimary, indisexclusion, indimmediate, indisclustered, indisvalid, indcheckxmin, indisready, indislive, indisreplident, indkey, indexprs, indpred) WHERE indexrelid <> 0")
	return b.String()
}

// indexKeyNames returns index o's keys as Freshet keeps them: a column's
// name, or an expression's text.
func indexKeyNames(o *catalog.Object) []string {
	var keys []string
	_ = json.Unmarshal([]byte(o.SQL), &keys)
	return keys
}
