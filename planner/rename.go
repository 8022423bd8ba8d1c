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

// Comment is COMMENT ON TABLE | VIEW | MATERIALIZED VIEW | INDEX |
// SEQUENCE | COLUMN name IS 'text' | NULL. Text "" removes the comment,
// as NULL and ” do in PostgreSQL.
type Comment struct {
	Kind ObjectKind
	Name QualifiedName
	// Column is the column commented on, or "".
	Column string
	Text   string
}

// Tag is PostgreSQL's command tag.
func (*Comment) Tag() string { return "COMMENT" }

func (p *planner) comment(s *pg.CommentStmt) (Statement, error) {
	var parts []string
	for _, n := range s.Object.GetList().GetItems() {
		parts = append(parts, n.GetString_().GetSval())
	}
	c := &Comment{Text: s.Comment}
	if s.Objtype == pg.ObjectType_OBJECT_COLUMN {
		if len(parts) < 2 {
			return nil, sqlerr.New(sqlerr.SyntaxError, "column name must be qualified")
		}
		c.Kind, c.Column, parts = ObjectTable, parts[len(parts)-1], parts[:len(parts)-1]
	} else {
		kind, ok := renameKinds[s.Objtype]
		if !ok {
			return nil, unsupported("COMMENT ON %s", strings.ReplaceAll(strings.TrimPrefix(s.Objtype.String(), "OBJECT_"), "_", " "))
		}
		c.Kind = kind
	}
	switch len(parts) {
	case 1:
		c.Name.Name = parts[0]
	case 2:
		c.Name.Schema, c.Name.Name = parts[0], parts[1]
	case 3:
		c.Name.Database, c.Name.Schema, c.Name.Name = parts[0], parts[1], parts[2]
	default:
		return nil, sqlerr.New(sqlerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, "."))
	}
	return c, nil
}
