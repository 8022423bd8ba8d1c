package planner

import (
	"strings"

	"freshet/expr"
	"freshet/repr"
)

// Catalog is what the planner needs to know about the objects a statement
// names. The catalog package implements it; the planner declares it
// because it is the consumer.
type Catalog interface {
	// ResolveRelation returns the relation that name denotes, resolving an
	// unqualified name through the session's search path. A missing
	// relation is 42P01 `relation "x" does not exist`.
	ResolveRelation(name QualifiedName) (Relation, error)
}

// SessionZone is what a Catalog implements to give the session time
// zone (SET TIME ZONE), in which a statement reads and casts timestamps
// with time zone. A Catalog without it plans in UTC.
type SessionZone interface {
	TimeZone() *repr.Zone
}

// ViewCatalog is what a Catalog implements to plan a view's definition
// in the catalog the view was created in (its search path): the
// returned Catalog resolves the names inside view r.
type ViewCatalog interface {
	ForView(r Relation) Catalog
}

// SessionDatabase is what a Catalog implements to give the database the
// statement is planned in. A session's database never changes, and a
// view is read only in its own database, so current_database() is then
// a constant of the plan and may appear in views.
type SessionDatabase interface {
	Database() string
}

// databaseLiteral returns current_database() as a constant, if the
// catalog knows the database.
func (b *binder) databaseLiteral() (hscalar, bool) {
	d, ok := b.cat.(SessionDatabase)
	if !ok {
		return nil, false
	}
	t := expr.CallVariadic{Func: expr.CurrentDatabase}.Typ(nil)
	v, err := repr.ParseText(t.Type, d.Database())
	if err != nil {
		return nil, false
	}
	return hLiteral{v: v, t: t.Type}, true
}

// zone returns the session time zone the statement is planned in.
func (b *binder) zone() *repr.Zone {
	if b.sessionZone == nil {
		b.sessionZone = repr.UTC
		if z, ok := b.cat.(SessionZone); ok {
			b.sessionZone = z.TimeZone()
		}
	}
	return b.sessionZone
}

// QualifiedName is an object name as a statement spells it, with its
// optional database and schema qualifiers. Names are already folded to
// lower case unless they were quoted.
type QualifiedName struct {
	Database, Schema, Name string
}

// String returns the name with its qualifiers, dot-separated.
func (n QualifiedName) String() string {
	var parts []string
	if n.Database != "" {
		parts = append(parts, n.Database)
	}
	if n.Schema != "" {
		parts = append(parts, n.Schema)
	}
	return strings.Join(append(parts, n.Name), ".")
}

// RelationKind says what sort of relation a catalog entry is.
type RelationKind uint8

// The kinds of relation.
const (
	// KindTable is a table: the only kind that INSERT, UPDATE, DELETE and
	// COPY FROM write to.
	KindTable RelationKind = iota + 1
	// KindView is a view that is not materialized: reading it inlines its
	// definition.
	KindView
	// KindMaterializedView is read from its arrangement with a Get.
	KindMaterializedView
	// KindSource is an external collection, read with a Get.
	KindSource
	// KindSequence is a sequence: nextval and its kin name it; it is not
	// read as a relation.
	KindSequence
)

var relationKindNames = map[RelationKind]string{
	KindTable: "table", KindView: "view", KindMaterializedView: "materialized view", KindSource: "source",
	KindSequence: "sequence",
}

func (k RelationKind) String() string { return relationKindNames[k] }

// Relation is what the catalog says about a relation.
type Relation struct {
	// ID names the relation's collection in plans (expr.Get).
	ID expr.GlobalID
	// Name is the relation's fully qualified name.
	Name QualifiedName
	Kind RelationKind
	// Columns are the relation's columns, in order.
	Columns []RelationColumn
	// Plan is a view's defining plan, inlined where the view is read; it
	// must read no parameters. Used only for KindView, and takes
	// precedence over SQL.
	Plan expr.Relation
	// SQL is a view's defining query (CreateView.Query), planned and
	// inlined where the view is read when Plan is nil. Used only for
	// KindView.
	SQL string
	// UniqueKeys are a table's unique keys (PRIMARY KEY, UNIQUE, unique
	// indexes), for ON CONFLICT.
	UniqueKeys []RelationKey
	// IndexKeys are the key columns of the indexes on a table that a
	// join may read as its arrangement of the table.
	IndexKeys [][]int
	// Shape is a table's shape generation, which every ALTER TABLE of it
	// changes: writes planned against one shape are refused under
	// another (Target.Shape).
	Shape uint64
}

// RelationColumn is one column of a relation.
type RelationColumn struct {
	Name string
	// Type is the column's type; Nullable is false for NOT NULL columns.
	Type expr.ColumnType
	// Default is a table column's DEFAULT, a scalar over no columns, or
	// nil for NULL.
	Default expr.Scalar
	// Identity is 'a' for a GENERATED ALWAYS AS IDENTITY column, 'd' for
	// BY DEFAULT, 0 otherwise.
	Identity byte
}
