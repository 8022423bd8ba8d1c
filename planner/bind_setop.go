package planner

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

var setOpNames = map[pg.SetOperation]string{
	pg.SetOperation_SETOP_UNION: "UNION", pg.SetOperation_SETOP_INTERSECT: "INTERSECT", pg.SetOperation_SETOP_EXCEPT: "EXCEPT",
}

// bindSetOp binds UNION, INTERSECT and EXCEPT, with or without ALL. The
// operands' column types are unified pair by pair, left to right, as
// PostgreSQL does.
func (b *binder) bindSetOp(stmt *pg.SelectStmt, parent *scope) (*boundQuery, error) {
	name := setOpNames[stmt.Op]
	operand := func(s *pg.SelectStmt) (hrel, []string, error) {
		q, err := b.bindQuery(s, parent)
		if err != nil {
			return nil, nil, err
		}
		rel, err := b.nestedKeepUnknown(q)
		return rel, q.names[:q.visible], err
	}
	l, names, err := operand(stmt.Larg)
	if err != nil {
		return nil, err
	}
	r, _, err := operand(stmt.Rarg)
	if err != nil {
		return nil, err
	}
	lt, rt := l.types(), r.types()
	if len(lt) != len(rt) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	want := make([]repr.Type, len(lt))
	for i := range lt {
		if want[i], err = unifyTypes([]repr.Type{lt[i].Type, rt[i].Type}, name); err != nil {
			return nil, err
		}
	}
	if l, err = b.coerceColumns(l, want, repr.CastImplicit, name); err != nil {
		return nil, err
	}
	if r, err = b.coerceColumns(r, want, repr.CastImplicit, name); err != nil {
		return nil, err
	}
	var rel hrel
	switch {
	case stmt.Op == pg.SetOperation_SETOP_UNION:
		rel = hUnion{inputs: []hrel{l, r}}
		if !stmt.All {
			rel = hDistinct{input: rel}
		}
	case stmt.Op == pg.SetOperation_SETOP_EXCEPT && stmt.All:
		rel = hThreshold{input: hUnion{inputs: []hrel{l, hNegate{input: r}}}}
	case stmt.Op == pg.SetOperation_SETOP_EXCEPT:
		rel = hThreshold{input: hUnion{inputs: []hrel{hDistinct{input: l}, hNegate{input: hDistinct{input: r}}}}}
	default:
		// INTERSECT ALL keeps min(|l|, |r|) copies: l - (l - r)+.
		rel = hUnion{inputs: []hrel{l, hNegate{input: hThreshold{input: hUnion{inputs: []hrel{l, hNegate{input: r}}}}}}}
		if !stmt.All {
			rel = hDistinct{input: rel}
		}
	}
	return b.finishOutputsOnly(stmt, rel, names)
}

// finishOutputsOnly adds the ORDER BY, LIMIT and OFFSET of a query whose
// ORDER BY may name only output columns.
func (b *binder) finishOutputsOnly(stmt *pg.SelectStmt, rel hrel, names []string) (*boundQuery, error) {
	ts := rel.types()
	exprs := make([]hscalar, len(ts))
	for i, t := range ts {
		exprs[i] = hColumn{index: i, t: t}
	}
	res := &sortResolver{b: b, exprs: exprs, names: names}
	order, err := res.orderBy(stmt.SortClause)
	if err != nil {
		return nil, err
	}
	q := &boundQuery{rel: rel, names: names, visible: len(names), order: order}
	if q.limit, q.offset, err = b.bindLimit(stmt); err != nil {
		return nil, err
	}
	return q, nil
}

// bindValues binds VALUES: a Constant when every value is one, else a
// union of one-row maps. Each column's type is unified over the rows.
func (b *binder) bindValues(stmt *pg.SelectStmt, parent *scope) (*boundQuery, error) {
	rows, err := b.bindValuesRows(stmt.ValuesLists, parent, nil)
	if err != nil {
		return nil, err
	}
	rel, err := b.valuesRelation(rows, nil)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(rows[0]))
	for i := range names {
		names[i] = fmt.Sprintf("column%d", i+1)
	}
	return b.finishOutputsOnly(stmt, rel, names)
}

// bindValuesRows binds the expressions of VALUES lists. def, if not nil,
// binds a DEFAULT item (for INSERT) given its column position.
func (b *binder) bindValuesRows(lists []*pg.Node, parent *scope, def func(col int) (hscalar, error)) ([][]hscalar, error) {
	ctx := &exprCtx{scope: &scope{parent: parent}, clause: "VALUES"}
	var rows [][]hscalar
	for _, l := range lists {
		items := l.GetList().GetItems()
		if len(rows) > 0 && len(items) != len(rows[0]) {
			return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "VALUES lists must all be the same length"), b.sql, nodeLocation(items[0]))
		}
		row := make([]hscalar, len(items))
		for i, n := range items {
			var err error
			if n.GetSetToDefault() != nil && def != nil {
				row[i], err = def(i)
			} else {
				row[i], err = b.bindExpr(n, ctx)
			}
			if err != nil {
				return nil, err
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// valuesRelation builds the relation of bound VALUES rows. With types
// nil the columns' types are unified (unknown becomes text); otherwise
// the rows have those types already.
func (b *binder) valuesRelation(rows [][]hscalar, types []repr.Type) (hrel, error) {
	arity := len(rows[0])
	if types == nil {
		types = make([]repr.Type, arity)
		for c := 0; c < arity; c++ {
			col := make([]hscalar, len(rows))
			for r := range rows {
				col[r] = rows[r][c]
			}
			col, t, err := b.unify(col, "VALUES")
			if err != nil {
				return nil, err
			}
			for r := range rows {
				rows[r][c] = col[r]
			}
			types[c] = t
		}
	}
	for _, row := range rows {
		for c, s := range row {
			if _, ok := s.(hLiteral); ok {
				// Nothing to fold; most values are literals by now.
				continue
			}
			f, err := foldScalar(s)
			if err != nil {
				return nil, err
			}
			row[c] = f
		}
	}
	ts := make([]expr.ColumnType, arity)
	constant := true
	for c := range ts {
		ts[c].Type = types[c]
		for r := range rows {
			ts[c].Nullable = ts[c].Nullable || rows[r][c].typ().Nullable
			if _, ok := rows[r][c].(hLiteral); !ok {
				constant = false
			}
		}
	}
	if constant {
		out := hConstant{typ: ts}
		for _, row := range rows {
			ds := make([]repr.Datum, arity)
			for c, s := range row {
				ds[c] = s.(hLiteral).v
			}
			out.rows = append(out.rows, ds)
		}
		return out, nil
	}
	var inputs []hrel
	for _, row := range rows {
		inputs = append(inputs, hMap{input: unit, scalars: row})
	}
	if len(inputs) == 1 {
		return inputs[0], nil
	}
	return hUnion{inputs: inputs}, nil
}

// coerceColumns casts rel's columns to the types want in context ctx. An
// untyped literal produced by rel is read as its new type now, so that a
// bad one is an error at planning time, as in PostgreSQL. context names
// the construct for the error when no cast is allowed; "" means the
// caller has checked.
func (b *binder) coerceColumns(rel hrel, want []repr.Type, ctx repr.CastContext, context string) (hrel, error) {
	have := rel.types()
	same := true
	for i := range have {
		if have[i].Type != want[i] {
			same = false
		}
	}
	if same {
		return rel, nil
	}
	fail := func(i int) error {
		return sqlerr.New(sqlerr.DatatypeMismatch, "%s could not convert type %s to %s", context, typeName(have[i].Type), typeName(want[i]))
	}
	// The common shape of a select list: a projection of a map. Coerce
	// the mapped scalars themselves.
	if p, ok := rel.(hProject); ok {
		if m, ok := p.input.(hMap); ok {
			inArity := len(m.input.types())
			uses := map[int]int{}
			for _, o := range p.outputs {
				uses[o]++
			}
			scalars := append([]hscalar(nil), m.scalars...)
			done := true
			for i, o := range p.outputs {
				if have[i].Type == want[i] {
					continue
				}
				if o < inArity || uses[o] > 1 {
					done = false
					break
				}
				s, ok, err := b.coerce(scalars[o-inArity], want[i], ctx)
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, fail(i)
				}
				scalars[o-inArity] = s
			}
			if done {
				return hProject{input: hMap{input: m.input, scalars: scalars}, outputs: p.outputs}, nil
			}
		}
	}
	if c, ok := rel.(hConstant); ok {
		out := hConstant{typ: make([]expr.ColumnType, len(have))}
		copy(out.typ, have)
		out.rows = make([][]repr.Datum, len(c.rows))
		for r := range c.rows {
			out.rows[r] = append([]repr.Datum(nil), c.rows[r]...)
		}
		for i := range have {
			if have[i].Type == want[i] {
				continue
			}
			for r := range out.rows {
				s, ok, err := b.coerce(hLiteral{v: out.rows[r][i], t: have[i].Type}, want[i], ctx)
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, fail(i)
				}
				if _, isLit := s.(hLiteral); !isLit {
					return b.coerceColumnsByCast(rel, want, ctx, fail)
				}
				out.rows[r][i] = s.(hLiteral).v
			}
			out.typ[i].Type = want[i]
		}
		return out, nil
	}
	return b.coerceColumnsByCast(rel, want, ctx, fail)
}

// coerceColumnsByCast maps casts of rel's columns and projects them.
func (b *binder) coerceColumnsByCast(rel hrel, want []repr.Type, ctx repr.CastContext, fail func(int) error) (hrel, error) {
	have := rel.types()
	ss := make([]hscalar, len(have))
	for i, t := range have {
		s, ok, err := b.coerce(hColumn{index: i, t: t}, want[i], ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fail(i)
		}
		ss[i] = s
	}
	m, outs := mapOutputs(rel, ss)
	return hProject{input: m, outputs: outs}, nil
}
