package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/sqlerr"
)

// RelationKey is a unique key of a relation, as the catalog reports it
// for ON CONFLICT:
// a PRIMARY KEY, UNIQUE constraint or unique index.
type RelationKey struct {
	Name    string
	Columns []int
}

// OnConflict is INSERT's ON CONFLICT clause.
type OnConflict struct {
	// Key is the arbiter: the columns of the unique key the conflict
	// target names, or nil (DO NOTHING without a target) for every
	// unique key of the table.
	Key []int
	// Update, for DO UPDATE, computes the row that replaces the
	// existing one: one scalar per column of the table, over the
	// existing row followed by the proposed row (EXCLUDED). Nil for DO
	// NOTHING.
	Update []expr.Scalar
	// Where is DO UPDATE's WHERE over the same row, or nil: a row it
	// does not hold for is left as it is.
	Where expr.Scalar
}

// onConflict binds INSERT's ON CONFLICT clause for table r, named in
// the statement by rv.
func (p *planner) onConflict(oc *pg.OnConflictClause, r Relation, rv *pg.RangeVar) (*OnConflict, error) {
	out := &OnConflict{}
	if inf := oc.Infer; inf != nil {
		if inf.WhereClause != nil {
			return nil, errorAt(unsupported("ON CONFLICT with a partial index's WHERE"), p.b.sql, inf.Location)
		}
		switch {
		case inf.Conname != "":
			i := slices.IndexFunc(r.UniqueKeys, func(k RelationKey) bool { return k.Name == inf.Conname })
			if i < 0 {
				return nil, errorAt(sqlerr.New(sqlerr.UndefinedObject, "constraint %q for table %q does not exist", inf.Conname, r.Name.Name), p.b.sql, inf.Location)
			}
			out.Key = r.UniqueKeys[i].Columns
		default:
			var cols []int
			for _, n := range inf.IndexElems {
				e := n.GetIndexElem()
				if e == nil || e.Name == "" {
					return nil, errorAt(unsupported("ON CONFLICT on an expression"), p.b.sql, inf.Location)
				}
				i := columnIndex(r, e.Name)
				if i < 0 {
					return nil, errorAt(sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", e.Name), p.b.sql, inf.Location)
				}
				if !slices.Contains(cols, i) {
					cols = append(cols, i)
				}
			}
			// The target names a key by its columns, in any order.
			for _, k := range r.UniqueKeys {
				if len(k.Columns) == len(cols) && !slices.ContainsFunc(k.Columns, func(c int) bool { return !slices.Contains(cols, c) }) {
					out.Key = k.Columns
					break
				}
			}
			if out.Key == nil {
				return nil, errorAt(sqlerr.New(sqlerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification"), p.b.sql, inf.Location)
			}
		}
	}
	if oc.Action != pg.OnConflictAction_ONCONFLICT_UPDATE {
		return out, nil
	}
	if oc.Infer == nil {
		return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name)."), p.b.sql, oc.Location)
	}
	// The scope: the table's columns under its name or alias, then the
	// proposed row's under EXCLUDED.
	table := rv.Relname
	if rv.Alias != nil {
		table = rv.Alias.Aliasname
	}
	n := len(r.Columns)
	sc := &scope{}
	for i, c := range r.Columns {
		sc.items = append(sc.items, scopeItem{table: table, name: c.Name, col: i, typ: c.Type})
	}
	for i, c := range r.Columns {
		sc.items = append(sc.items, scopeItem{table: "excluded", name: c.Name, col: n + i, typ: c.Type})
	}
	row := make([]hscalar, n)
	for i, c := range r.Columns {
		row[i] = hColumn{index: i, t: c.Type, name: c.Name}
	}
	if err := p.assignments(oc.TargetList, r, sc, row); err != nil {
		return nil, err
	}
	conv := &exprConv{col: func(c hColumn) (int, error) {
		if c.level != 0 {
			return 0, unsupported("outer references in ON CONFLICT DO UPDATE")
		}
		return c.index, nil
	}, params: p.b.paramTypes()}
	for _, s := range row {
		if hasSubquery(s) {
			return nil, unsupported("subqueries in ON CONFLICT DO UPDATE")
		}
		e, err := scalarToExpr(s, conv)
		if err != nil {
			return nil, err
		}
		out.Update = append(out.Update, e)
	}
	if oc.WhereClause != nil {
		w, err := p.b.bindExpr(oc.WhereClause, &exprCtx{scope: sc, clause: "WHERE"})
		if err != nil {
			return nil, err
		}
		if w, err = p.b.coerceBool(w, "WHERE"); err != nil {
			return nil, errorAt(err, p.b.sql, nodeLocation(oc.WhereClause))
		}
		if hasSubquery(w) {
			return nil, unsupported("subqueries in ON CONFLICT DO UPDATE")
		}
		if out.Where, err = scalarToExpr(w, conv); err != nil {
			return nil, err
		}
	}
	return out, nil
}
