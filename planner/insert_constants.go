package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
)

// constantRows makes the relation of an INSERT … VALUES whose values are
// all constants straight from the constants: each is read or cast to
// its column's type as binding, assignment and folding do it
// (bindValuesRows, assign, valuesRelation), with no bound scalar per
// value. For a 1,000-row statement those scalars were most of its
// planning. ok is false for any other INSERT: a DEFAULT or an
// expression among the values, rows of differing widths, a column left
// out that has a default, an identity column given a value, a value its
// column's cast refuses. That INSERT is bound the general way, which
// also reports its errors, where and as PostgreSQL does.
// TestConstantRowsMatchBinding holds the two ways together.
func (p *planner) constantRows(is *pg.InsertStmt, sel *pg.SelectStmt, r Relation, cols []int, types []repr.Type) (hConstant, bool) {
	if is.Override != pg.OverridingKind_OVERRIDING_NOT_SET {
		return hConstant{}, false
	}
	given := make([]bool, len(r.Columns))
	for _, c := range cols {
		if r.Columns[c].Identity == 'a' {
			return hConstant{}, false
		}
		given[c] = true
	}
	for i, g := range given {
		if !g && r.Columns[i].Default != nil {
			return hConstant{}, false
		}
	}
	arity := len(r.Columns)
	out := hConstant{rows: make([][]repr.Datum, len(sel.ValuesLists)), typ: make([]expr.ColumnType, arity)}
	for c := range out.typ {
		out.typ[c] = expr.ColumnType{Type: types[c], Nullable: !given[c]}
	}
	// One slab holds every row's values.
	slab := make([]repr.Datum, len(sel.ValuesLists)*arity)
	for ri, l := range sel.ValuesLists {
		items := l.GetList().GetItems()
		if len(items) != len(cols) {
			return hConstant{}, false
		}
		row := slab[ri*arity : (ri+1)*arity : (ri+1)*arity]
		for j, n := range items {
			ac := n.GetAConst()
			if ac == nil {
				return hConstant{}, false
			}
			c := cols[j]
			v, ok := p.constantValue(ac, types[c])
			if !ok {
				return hConstant{}, false
			}
			if v.IsNull() {
				out.typ[c].Nullable = true
			}
			row[c] = v
		}
		out.rows[ri] = row
	}
	return out, true
}

// constantValue is the value of constant ac stored in a column of type
// t, as bindConst, coerce and castConstant make it; ok is false where
// any of them fails or would leave a cast to run later.
func (p *planner) constantValue(ac *pg.A_Const, t repr.Type) (repr.Datum, bool) {
	if ac.Isnull {
		return repr.Null, true
	}
	var l hLiteral
	switch v := ac.Val.(type) {
	case *pg.A_Const_Sval:
		// An untyped string is read as the column's type.
		d, err := p.b.parseLiteral(t, v.Sval.Sval)
		return d, err == nil
	case *pg.A_Const_Ival:
		l = hLiteral{v: repr.NewInt4(v.Ival.Ival), t: repr.Int4}
	case *pg.A_Const_Fval:
		var err error
		if l, err = numberValue(v.Fval.Fval); err != nil {
			return repr.Null, false
		}
	case *pg.A_Const_Boolval:
		l = hLiteral{v: repr.NewBool(v.Boolval.Boolval), t: repr.Bool}
	default:
		return repr.Null, false
	}
	from := l.t
	switch {
	case from == t, from.Base() == t.Base() && t == t.Base():
		return l.v, true
	case repr.TypeCastContext(from, t) < repr.CastAssignment, isRegKind(from.Kind()), t.EnumOID() != 0:
		return repr.Null, false
	}
	d, err := castValue(l.v, from, t, true, p.b.zone(), nil)
	return d, err == nil
}
