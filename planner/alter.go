package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/sqlerr"
)

// AlterTable is ALTER TABLE [IF EXISTS] name action [, …] with the
// actions that change a table's columns: ADD COLUMN, DROP COLUMN, ALTER
// COLUMN SET DEFAULT | DROP DEFAULT | SET NOT NULL | DROP NOT NULL. The
// coordinator applies every action or none.
type AlterTable struct {
	Name     QualifiedName
	IfExists bool
	// Actions are the statement's actions, in the order written.
	// Invariant: not empty.
	Actions []AlterAction
}

// Tag is PostgreSQL's command tag.
func (*AlterTable) Tag() string { return "ALTER TABLE" }

// AlterKind is what one action of ALTER TABLE does.
type AlterKind uint8

// The actions of ALTER TABLE.
const (
	AlterAddColumn AlterKind = iota + 1
	AlterDropColumn
	AlterSetDefault
	AlterDropDefault
	AlterSetNotNull
	AlterDropNotNull
)

// AlterAction is one action of ALTER TABLE.
type AlterAction struct {
	Kind AlterKind
	// Column is the column the action names; for ADD COLUMN, Def.Name.
	Column string
	// Def is the column ADD COLUMN adds: its type, NOT NULL and DEFAULT
	// (bound, a scalar over no columns). Sequence and Identity are never
	// set: serial and identity columns are refused.
	Def ColumnDef
	// DefaultSQL is SET DEFAULT's expression as SQL text; the
	// coordinator plans it for the column's type (PlanDefault).
	DefaultSQL string
	// IfNotExists (ADD COLUMN) and IfExists (DROP COLUMN) skip the
	// action with a NOTICE when the column exists or does not.
	IfNotExists bool
	IfExists    bool
	// Cascade is DROP COLUMN … CASCADE: the table's dependents are
	// dropped with the column.
	Cascade bool
}

func (p *planner) alterTable(s *pg.AlterTableStmt) (Statement, error) {
	if s.Objtype != pg.ObjectType_OBJECT_TABLE || s.Relation == nil {
		return nil, unsupported("ALTER %s", strings.ReplaceAll(strings.TrimPrefix(s.Objtype.String(), "OBJECT_"), "_", " "))
	}
	at := &AlterTable{Name: qualifiedName(s.Relation), IfExists: s.MissingOk}
	for _, n := range s.Cmds {
		c := n.GetAlterTableCmd()
		if c == nil {
			return nil, unsupported("this form of ALTER TABLE")
		}
		a := AlterAction{Column: c.Name}
		switch c.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			cd := c.Def.GetColumnDef()
			if cd == nil {
				return nil, unsupported("this form of ALTER TABLE … ADD")
			}
			def, err := p.addedColumn(cd)
			if err != nil {
				return nil, err
			}
			a.Kind, a.Column, a.Def, a.IfNotExists = AlterAddColumn, cd.Colname, def, c.MissingOk
		case pg.AlterTableType_AT_DropColumn:
			a.Kind, a.IfExists, a.Cascade = AlterDropColumn, c.MissingOk, c.Behavior == pg.DropBehavior_DROP_CASCADE
		case pg.AlterTableType_AT_ColumnDefault:
			if c.Def == nil {
				a.Kind = AlterDropDefault
				break
			}
			if containsAggregate([]*pg.Node{c.Def}) {
				return nil, errorAt(sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in DEFAULT expressions"), p.b.sql, nodeLocation(c.Def))
			}
			text, err := deparseExpr(c.Def)
			if err != nil {
				return nil, err
			}
			a.Kind, a.DefaultSQL = AlterSetDefault, text
		case pg.AlterTableType_AT_SetNotNull:
			a.Kind = AlterSetNotNull
		case pg.AlterTableType_AT_DropNotNull:
			a.Kind = AlterDropNotNull
		default:
			what := strings.ReplaceAll(strings.TrimPrefix(c.Subtype.String(), "AT_"), "_", " ")
			return nil, unsupported("ALTER TABLE … %s", what)
		}
		at.Actions = append(at.Actions, a)
	}
	if len(at.Actions) == 0 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error: ALTER TABLE without an action")
	}
	return at, nil
}

// addedColumn binds the column of ADD COLUMN. A serial or identity
// column, and a PRIMARY KEY or UNIQUE constraint on it, are refused:
// each needs work over the existing rows (a sequence's value per row, a
// key built from them) that ADD COLUMN does not do yet.
func (p *planner) addedColumn(cd *pg.ColumnDef) (ColumnDef, error) {
	if cd.CollClause != nil {
		return ColumnDef{}, errorAt(unsupported("COLLATE"), p.b.sql, cd.Location)
	}
	if _, serial := serialType(cd.TypeName); serial {
		return ColumnDef{}, errorAt(unsupported("ALTER TABLE … ADD COLUMN of a serial column").
			WithHint("Add an integer column, then CREATE SEQUENCE and ALTER COLUMN … SET DEFAULT nextval(…) for new rows."), p.b.sql, cd.Location)
	}
	t, err := p.b.typeFromName(cd.TypeName)
	if err != nil {
		return ColumnDef{}, err
	}
	col := ColumnDef{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull}
	for _, cn := range cd.Constraints {
		c := cn.GetConstraint()
		switch c.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			col.NotNull = true
		case pg.ConstrType_CONSTR_NULL:
		case pg.ConstrType_CONSTR_DEFAULT:
			if col.Default, err = p.defaultExpr(c.RawExpr, col.Name, t); err != nil {
				return ColumnDef{}, err
			}
		case pg.ConstrType_CONSTR_IDENTITY:
			return ColumnDef{}, errorAt(unsupported("ALTER TABLE … ADD COLUMN … GENERATED AS IDENTITY"), p.b.sql, c.Location)
		case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
			return ColumnDef{}, errorAt(unsupported("ALTER TABLE … ADD COLUMN … %s", constraintName(c.Contype)).
				WithHint("Add the column, then CREATE UNIQUE INDEX on it."), p.b.sql, c.Location)
		case pg.ConstrType_CONSTR_ATTR_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_DEFERRED,
			pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
		default:
			return ColumnDef{}, errorAt(unsupported("%s constraints", constraintName(c.Contype)), p.b.sql, c.Location)
		}
	}
	return col, nil
}

// deparseExpr returns expression n as SQL text, as PlanDefault reads it.
func deparseExpr(n *pg.Node) (string, error) {
	sel := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}},
	}}}
	text, err := deparse(sel)
	if err != nil {
		return "", sqlerr.Wrap(err, sqlerr.InternalError)
	}
	return strings.TrimPrefix(text, "SELECT "), nil
}
