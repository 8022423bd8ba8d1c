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
// planning. The values are rows rows of width literals, at(ri, j) the
// j-th of row ri (ok false if it is no literal or the row is not that
// wide). ok is false for any other INSERT: a DEFAULT or an expression
// among the values, rows of differing widths, a column left out that
// has a default, an identity column given a value, a value its column's
// cast refuses. That INSERT is bound the general way, which also
// reports its errors, where and as PostgreSQL does.
// TestConstantRowsMatchBinding holds the two ways together.
func (p *planner) constantRows(override pg.OverridingKind, rows, width int, at func(ri, j int) (literal, bool), r Relation, cols []int, types []repr.Type) (hConstant, bool) {
	if override != pg.OverridingKind_OVERRIDING_NOT_SET || width != len(cols) {
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
	out := hConstant{rows: make([][]repr.Datum, rows), typ: make([]expr.ColumnType, arity)}
	for c := range out.typ {
		out.typ[c] = expr.ColumnType{Type: types[c], Nullable: !given[c]}
	}
	// One slab holds every row's values.
	slab := make([]repr.Datum, rows*arity)
	for ri := range rows {
		row := slab[ri*arity : (ri+1)*arity : (ri+1)*arity]
		for j, c := range cols {
			l, ok := at(ri, j)
			if !ok {
				return hConstant{}, false
			}
			v, ok := p.constantValue(l, types[c])
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

// valuesWidth is the width of the first row of sel's VALUES.
func valuesWidth(sel *pg.SelectStmt) int {
	if len(sel.ValuesLists) == 0 {
		return 0
	}
	return len(sel.ValuesLists[0].GetList().GetItems())
}

// valuesLiteral reads sel's VALUES for constantRows: the literal at row
// ri and place j, ok false where it is no constant or the row is not as
// wide as the first.
func valuesLiteral(sel *pg.SelectStmt) func(ri, j int) (literal, bool) {
	width := valuesWidth(sel)
	return func(ri, j int) (literal, bool) {
		items := sel.ValuesLists[ri].GetList().GetItems()
		if len(items) != width {
			return literal{}, false
		}
		ac := items[j].GetAConst()
		if ac == nil {
			return literal{}, false
		}
		return literalOf(ac)
	}
}

// constantValue is the value of literal l stored in a column of type t,
// as bindConst, coerce and castConstant make it; ok is false where any
// of them fails or would leave a cast to run later.
func (p *planner) constantValue(l literal, t repr.Type) (repr.Datum, bool) {
	var v hLiteral
	switch l.kind {
	case litNull:
		return repr.Null, true
	case litString:
		// An untyped string is read as the column's type.
		d, err := p.b.parseLiteral(t, l.text)
		return d, err == nil
	case litInt:
		v = hLiteral{v: repr.NewInt4(l.ival), t: repr.Int4}
	case litNumber:
		var err error
		if v, err = numberValue(l.text); err != nil {
			return repr.Null, false
		}
	case litTrue, litFalse:
		v = hLiteral{v: repr.NewBool(l.kind == litTrue), t: repr.Bool}
	default:
		return repr.Null, false
	}
	from := v.t
	switch {
	case from == t, from.Base() == t.Base() && t == t.Base():
		return v.v, true
	case repr.TypeCastContext(from, t) < repr.CastAssignment, isRegKind(from.Kind()), t.EnumOID() != 0:
		return repr.Null, false
	}
	d, err := castValue(v.v, from, t, true, p.b.zone(), nil)
	return d, err == nil
}
