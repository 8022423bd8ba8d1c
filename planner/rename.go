package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/sqlerr"
)

// Rename is ALTER TABLE | VIEW | MATERIALIZED VIEW | INDEX | SEQUENCE
// name RENAME TO new_name, and ALTER TABLE | MATERIALIZED VIEW name
// RENAME [COLUMN] column TO new_name. Kind is the statement's word:
// ALTER TABLE and ALTER INDEX rename a relation of any kind, as in
// PostgreSQL; the others only their own kind (42809).
type Rename struct {
	Kind ObjectKind
	Name QualifiedName
	// Column is the column renamed, or "" to rename the relation.
	Column   string
	NewName  string
	IfExists bool
}

// Tag is PostgreSQL's command tag: ALTER and the statement's kind.
func (r *Rename) Tag() string { return "ALTER " + r.Kind.String() }

var renameKinds = map[pg.ObjectType]ObjectKind{
	pg.ObjectType_OBJECT_TABLE: ObjectTable, pg.ObjectType_OBJECT_VIEW: ObjectView,
	pg.ObjectType_OBJECT_MATVIEW: ObjectMaterializedView, pg.ObjectType_OBJECT_INDEX: ObjectIndex,
	pg.ObjectType_OBJECT_SEQUENCE: ObjectSequence,
}

func (p *planner) rename(s *pg.RenameStmt) (Statement, error) {
	kindOf := s.RenameType
	r := &Rename{NewName: s.Newname, IfExists: s.MissingOk}
	if kindOf == pg.ObjectType_OBJECT_COLUMN {
		kindOf, r.Column = s.RelationType, s.Subname
	}
	kind, ok := renameKinds[kindOf]
	if !ok || s.Relation == nil {
		what := s.RenameType
		if what == pg.ObjectType_OBJECT_COLUMN {
			what = s.RelationType
		}
		return nil, unsupported("ALTER %s ... RENAME", strings.ReplaceAll(strings.TrimPrefix(what.String(), "OBJECT_"), "_", " "))
	}
	r.Kind = kind
	r.Name = qualifiedName(s.Relation)
	if r.Column != "" && kind != ObjectTable && kind != ObjectMaterializedView && kind != ObjectView {
		return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error: RENAME COLUMN of %s", kind)
	}
	return r, nil
}
