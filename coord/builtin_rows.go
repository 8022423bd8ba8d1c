package coord

import (
	"fmt"
	"strings"

	"freshet/catalog"
	"freshet/planner"
)

// constRowsSQL is a relation of constant rows as SQL: the columns cols,
// each row a list of SQL expressions, one per column. Every value is cast
// to its column's type, so the relation has the declared types whatever
// the literals are and whether or not it has rows. A leading typed row,
// filtered out by a hidden column, keeps the VALUES list from being empty.
func constRowsSQL(cols []planner.RelationColumn, rows [][]string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(columnNames(cols))
	b.WriteString(" FROM (VALUES (false")
	for _, c := range cols {
		b.WriteString(", NULL::" + c.Type.Type.String())
	}
	b.WriteString(")")
	for _, r := range rows {
		if len(r) != len(cols) {
			panic(fmt.Sprintf("constRowsSQL: a row of %d values for %d columns (%s)", len(r), len(cols), columnNames(cols)))
		}
		b.WriteString(", (true")
		for i, v := range r {
			fmt.Fprintf(&b, ", (%s)::%s", v, cols[i].Type.Type.String())
		}
		b.WriteString(")")
	}
	b.WriteString(") AS t (freshet_row, " + columnNames(cols) + ") WHERE freshet_row")
	return b.String()
}

// sqlInt, sqlBool and sqlText write a value of a constant row.
func sqlInt[T ~int | ~int16 | ~int32 | ~int64 | ~uint32 | ~uint64](n T) string { return fmt.Sprint(n) }

func sqlBool(v bool) string { return fmt.Sprint(v) }

func sqlText(s string) string { return quoteLiteral(s) }

// sqlTextArray writes a text[] value: NULL for nil, else an array
// literal with every element quoted.
func sqlTextArray(items []string) string {
	if items == nil {
		return sqlNull
	}
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(it) + `"`
	}
	return sqlText("{" + strings.Join(quoted, ",") + "}")
}

// roleOID is the OID of the role called name: the built-in superuser's
// is 10, a stored role's derives from its catalog id.
func roleOID(c *catalog.Catalog, name string) uint64 {
	if r := c.RoleNamed(name); r != nil && name != catalog.BootstrapRole {
		return relationOID(r.ID)
	}
	return bootstrapRoleOID
}

// sqlNull is a NULL of a constant row; constRowsSQL gives it its
// column's type.
const sqlNull = "NULL"

// relationOID is the OID of the user relation with catalog id id.
func relationOID(id uint64) uint64 { return userOIDBase + id }

// The kinds of sub-object that PostgreSQL gives an OID of its own and
// Freshet keeps inside its relation's catalog record.
const (
	subColumnDefault   = 0 // a pg_attrdef row, numbered by its column
	subConstraint      = 1 // a pg_constraint row, numbered by its unique key
	subConstraintIndex = 2 // the index behind a PRIMARY KEY or UNIQUE constraint
	subEnumLabel       = 3 // a pg_enum row, numbered by its label's place
	subObjectsPerKind  = 2000
)

// subOID is the OID of the n-th sub-object of kind kind of the relation
// with catalog id id. It is derived, never stored, so it is the same
// after a restart: the relation's OID times 10,000, plus 2,000 per kind,
// plus n (n < 2,000; PostgreSQL allows 1,600 columns). It stays below
// 2^32 for catalog ids up to about 400,000, and collides with a
// relation's OID only past catalog id 160 million.
func subOID(id uint64, kind, n int) uint64 {
	return relationOID(id)*10000 + uint64(kind*subObjectsPerKind+n)
}
