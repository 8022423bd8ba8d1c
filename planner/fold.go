package planner

import (
	"freshet/expr"
	"freshet/repr"
)

// Constant folding. PostgreSQL evaluates constant expressions while it
// plans (eval_const_expressions), so their errors are planning errors:
// SELECT 1/0 FROM e fails even when e is empty (research §4.10). Its
// order matters and is copied: a CASE arm whose condition folds to
// FALSE or NULL is dropped unfolded, one that folds to TRUE ends the
// CASE; COALESCE drops NULL constants and stops at the first other
// constant; every other operand is folded, whether or not it would be
// evaluated at run time (CASE WHEN k > 0 THEN 1/0 END fails).

// folder counts what it folds, for the rule trace.
type folder struct{ folded int }

// foldConstants folds every scalar of r, subqueries included.
func foldConstants(r hrel) (hrel, bool, error) {
	f := &folder{}
	out, err := f.rel(r)
	return out, f.folded > 0, err
}

func (f *folder) rel(r hrel) (hrel, error) {
	ins := relChildren(r)
	nins := make([]hrel, len(ins))
	for i, in := range ins {
		n, err := f.rel(in)
		if err != nil {
			return nil, err
		}
		nins[i] = n
	}
	ss := relScalars(r)
	nss := make([]hscalar, len(ss))
	for i, s := range ss {
		n, err := f.scalar(s)
		if err != nil {
			return nil, err
		}
		nss[i] = n
	}
	return withRelParts(r, nins, nss), nil
}

// foldScalar folds s alone.
func foldScalar(s hscalar) (hscalar, error) { return (&folder{}).scalar(s) }

func isConstant(s hscalar) bool {
	l, ok := s.(hLiteral)
	return ok && l.t.Kind() != repr.KindUnknown
}

func (f *folder) scalar(s hscalar) (hscalar, error) {
	if r := subqueryOf(s); r != nil {
		nr, err := f.rel(r)
		if err != nil {
			return nil, err
		}
		s = withSubquery(s, nr)
	}
	switch x := s.(type) {
	case hExpr:
		if l, ok := x.s.(expr.Literal); ok {
			return hLiteral{v: l.Value, t: l.Type}, nil
		}
	case hCast:
		// A cast of a constant, the most common fold by far (one for
		// each value of an INSERT … VALUES whose type is not its
		// column's), is applied to the value directly.
		if l, ok := x.arg.(hLiteral); ok && isConstant(l) {
			f.folded++
			return castConstant(x, l)
		}
	case hIf:
		cond, err := f.scalar(x.cond)
		if err != nil {
			return nil, err
		}
		if l, ok := cond.(hLiteral); ok {
			f.folded++
			branch := x.els
			if !l.v.IsNull() && l.v.Bool() {
				branch = x.then
			}
			return f.scalar(branch)
		}
		then, err := f.scalar(x.then)
		if err != nil {
			return nil, err
		}
		els, err := f.scalar(x.els)
		if err != nil {
			return nil, err
		}
		return hIf{cond: cond, then: then, els: els, t: x.t}, nil
	case hVariadic:
		if x.fn == expr.Coalesce {
			var args []hscalar
			for _, a := range x.args {
				n, err := f.scalar(a)
				if err != nil {
					return nil, err
				}
				if l, ok := n.(hLiteral); ok {
					f.folded++
					if l.v.IsNull() {
						continue
					}
					args = append(args, n)
					break
				}
				args = append(args, n)
			}
			switch len(args) {
			case 0:
				return hLiteral{v: repr.Null, t: x.t.Type}, nil
			case 1:
				return args[0], nil
			}
			return hVariadic{fn: x.fn, args: args, t: x.t}, nil
		}
	}
	cs := scalarChildren(s)
	if len(cs) == 0 {
		return s, nil
	}
	ncs := make([]hscalar, len(cs))
	constant := true
	for i, c := range cs {
		n, err := f.scalar(c)
		if err != nil {
			return nil, err
		}
		ncs[i] = n
		constant = constant && isConstant(n)
	}
	s = withScalarChildren(s, ncs)
	switch s.(type) {
	case hUnary, hBinary, hVariadic, hCast:
	default:
		return s, nil
	}
	if v, ok := s.(hVariadic); ok && v.fn.IsSession() {
		// The session supplies its value when the statement runs.
		constant = false
	}
	if !constant {
		return s, nil
	}
	e, err := scalarToExpr(s, nil)
	if err != nil {
		return nil, err
	}
	v, err := e.Eval(nil)
	if err != nil {
		return nil, err
	}
	f.folded++
	return hLiteral{v: v, t: s.typ().Type}, nil
}
