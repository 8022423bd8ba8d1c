package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Returning is the RETURNING list of an INSERT, UPDATE or DELETE: its
// scalars over a row of the table (the row written, or for DELETE the row
// removed) and the columns of the result they make.
type Returning struct {
	Scalars []expr.Scalar
	Columns []Column
}

// returning binds a RETURNING list over the columns of table r, whose
// name in the list is alias (the table's name unless the statement
// aliased it). Subqueries and aggregates are not allowed in it.
func (p *planner) returning(list []*pg.Node, r Relation, alias string) (*Returning, error) {
	if len(list) == 0 {
		return nil, nil
	}
	sc := &scope{}
	for i, c := range r.Columns {
		sc.items = append(sc.items, scopeItem{table: alias, name: c.Name, col: i, typ: c.Type})
	}
	if containsAggregate(list) {
		return nil, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in RETURNING")
	}
	targets, err := p.b.expandTargets(list, sc)
	if err != nil {
		return nil, err
	}
	out := &Returning{}
	conv := &exprConv{col: func(c hColumn) (int, error) {
		if c.level != 0 {
			return 0, sqlerr.AssertionFailedf("RETURNING reads an outer column")
		}
		return c.index, nil
	}}
	for _, t := range targets {
		var s hscalar = t.col
		if t.node != nil {
			if s, err = p.b.bindExpr(t.node, &exprCtx{scope: sc, clause: "RETURNING"}); err != nil {
				return nil, err
			}
			if hasSubquery(s) {
				return nil, errorAt(unsupported("subqueries in RETURNING"), p.b.sql, t.loc)
			}
			if isRegKind(s.typ().Type.Kind()) {
				return nil, errorAt(unsupported("printing a %s in RETURNING", s.typ().Type), p.b.sql, t.loc)
			}
		}
		if s.typ().Type.Kind() == repr.KindUnknown {
			// An untyped literal is text, as in a select list.
			if s, err = p.b.coerceTo(s, repr.Text); err != nil {
				return nil, err
			}
		}
		e, err := scalarToExpr(s, conv)
		if err != nil {
			return nil, err
		}
		out.Scalars = append(out.Scalars, e)
		ct := s.typ()
		out.Columns = append(out.Columns, Column{Name: t.name, Type: ct.Type, Nullable: ct.Nullable})
	}
	return out, nil
}
