package planner

import (
	"fmt"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Scalars that the planner puts into plans and that expr does not have
// yet. They implement expr.Scalar, so Interpret and any evaluator that
// calls Eval run them; they should move into expr (see doc.go).

// Param is parameter $N of a prepared statement. BindParams replaces it
// with the bound value; evaluating it unbound is an error.
type Param struct {
	N    int
	Type repr.Type
}

// Eval implements expr.Scalar.
func (p Param) Eval([]repr.Datum) (repr.Datum, error) {
	return repr.Null, sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $%d", p.N)
}

// Typ implements expr.Scalar.
func (p Param) Typ([]expr.ColumnType) expr.ColumnType {
	return expr.ColumnType{Type: p.Type, Nullable: true}
}

// Columns implements expr.Scalar.
func (Param) Columns(dst []int) []int { return dst }

func (p Param) String() string { return fmt.Sprintf("$%d", p.N) }

// raise fails with its SQLSTATE and message whenever it is evaluated: the
// row errors of a plan (a scalar subquery's second row, a NULL for a NOT
// NULL column), which are data, not planning errors (research I4).
type raise struct {
	code, message string
	typ           repr.Type
}

func (r raise) Eval([]repr.Datum) (repr.Datum, error) {
	return repr.Null, sqlerr.New(r.code, "%s", r.message)
}

func (r raise) Typ([]expr.ColumnType) expr.ColumnType { return expr.ColumnType{Type: r.typ} }

func (raise) Columns(dst []int) []int { return dst }

func (r raise) String() string { return fmt.Sprintf("error(%s %q)", r.code, r.message) }

// assignCast is a cast with assignment semantics (repr.AssignCast): a
// string too long for varchar(n) or char(n) is an error, not truncated.
type assignCast struct {
	arg  expr.Scalar
	to   repr.Type
	zone *repr.Zone
}

// RewriteScalars implements expr.ScalarRewriter.
func (c assignCast) RewriteScalars(f func(expr.Scalar) expr.Scalar) expr.Scalar {
	return assignCast{arg: f(c.arg), to: c.to, zone: c.zone}
}

func (c assignCast) Eval(row []repr.Datum) (repr.Datum, error) {
	a, err := c.arg.Eval(row)
	if err != nil || a.IsNull() {
		return repr.Null, err
	}
	return repr.AssignCastIn(a, c.to, c.zone)
}

func (c assignCast) Typ(input []expr.ColumnType) expr.ColumnType {
	return expr.ColumnType{Type: c.to, Nullable: c.arg.Typ(input).Nullable}
}

func (c assignCast) Columns(dst []int) []int { return c.arg.Columns(dst) }

func (c assignCast) String() string { return fmt.Sprintf("%s::%s(assign)", c.arg, c.to) }

// exprConv converts HIR scalars without subqueries to expr.
type exprConv struct {
	// col maps a column reference to a column of the row; nil when the
	// scalar may have none.
	col func(hColumn) (int, error)
	// params are the final parameter types; nil to take each hParam's.
	params []repr.Type
}

// scalarToExpr converts s, which must hold no subquery or aggregate.
func scalarToExpr(s hscalar, conv *exprConv) (expr.Scalar, error) {
	if conv == nil {
		conv = &exprConv{}
	}
	return conv.convert(s)
}

func (c *exprConv) convert(s hscalar) (expr.Scalar, error) {
	switch s := s.(type) {
	case hColumn:
		if c.col == nil {
			return nil, sqlerr.AssertionFailedf("column %s where none may be", s.name)
		}
		i, err := c.col(s)
		if err != nil {
			return nil, err
		}
		return expr.Column{Index: i}, nil
	case hLiteral:
		if s.t.Kind() == repr.KindUnknown {
			if s.v.IsNull() {
				return expr.NullOf(repr.Text), nil
			}
			return expr.Literal{Value: repr.NewText(s.v.Text()), Type: repr.Text}, nil
		}
		return expr.Literal{Value: s.v, Type: s.t}, nil
	case hParam:
		t := s.t
		if c.params != nil && s.n <= len(c.params) {
			t = c.params[s.n-1]
		}
		if t.Kind() == repr.KindUnknown {
			t = repr.Text
		}
		return Param{N: s.n, Type: t}, nil
	case hExpr:
		return s.s, nil
	case hUnary:
		a, err := c.convert(s.arg)
		if err != nil {
			return nil, err
		}
		return expr.CallUnary{Func: s.fn, Arg: a}, nil
	case hBinary:
		l, err := c.convert(s.left)
		if err != nil {
			return nil, err
		}
		r, err := c.convert(s.right)
		if err != nil {
			return nil, err
		}
		return expr.CallBinary{Func: s.fn, Left: l, Right: r}, nil
	case hVariadic:
		args := make([]expr.Scalar, len(s.args))
		for i, a := range s.args {
			e, err := c.convert(a)
			if err != nil {
				return nil, err
			}
			args[i] = e
		}
		return expr.CallVariadic{Func: s.fn, Args: args}, nil
	case hIf:
		cond, err := c.convert(s.cond)
		if err != nil {
			return nil, err
		}
		th, err := c.convert(s.then)
		if err != nil {
			return nil, err
		}
		el, err := c.convert(s.els)
		if err != nil {
			return nil, err
		}
		return expr.If{Cond: cond, Then: th, Else: el}, nil
	case hCast:
		a, err := c.convert(s.arg)
		if err != nil {
			return nil, err
		}
		zone := s.usedZone()
		if s.assignsLength() {
			return assignCast{arg: a, to: s.to, zone: zone}, nil
		}
		return expr.Cast{Arg: a, To: s.to, Zone: zone, Labels: s.labels}, nil
	}
	return nil, sqlerr.AssertionFailedf("scalar %T cannot be converted before lowering", s)
}
