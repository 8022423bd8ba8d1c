package planner

import (
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// BindParams returns s with every parameter $n replaced by values[n-1],
// cast to the parameter's type, as the extended protocol's Bind does.
// s itself is not changed, so a prepared statement can be bound many
// times.
func BindParams(s Statement, values []repr.Datum) (Statement, error) {
	b := &paramBinder{values: values}
	out := b.statement(s)
	return out, b.err
}

type paramBinder struct {
	values []repr.Datum
	err    error
}

func (b *paramBinder) scalar(s expr.Scalar) expr.Scalar {
	return mapScalar(s, func(s expr.Scalar) expr.Scalar {
		p, ok := s.(Param)
		if !ok {
			return s
		}
		if p.N > len(b.values) {
			if b.err == nil {
				b.err = sqlerr.New(sqlerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(b.values), p.N)
			}
			return s
		}
		v, err := repr.Cast(b.values[p.N-1], p.Type)
		if err != nil && b.err == nil {
			b.err = err
		}
		return expr.Literal{Value: v, Type: p.Type}
	})
}

func (b *paramBinder) plan(r expr.Relation) expr.Relation {
	if r == nil {
		return nil
	}
	return mapRelationScalars(r, b.scalar)
}

func (b *paramBinder) statement(s Statement) Statement {
	switch s := s.(type) {
	case *Select:
		c := *s
		c.Plan = b.plan(s.Plan)
		return &c
	case *Execute:
		c := *s
		c.Args = make([]expr.Scalar, len(s.Args))
		for i, a := range s.Args {
			c.Args[i] = b.scalar(a)
		}
		return &c
	case *Insert:
		c := *s
		c.Plan = b.plan(s.Plan)
		if oc := s.OnConflict; oc != nil {
			bound := *oc
			bound.Update = make([]expr.Scalar, len(oc.Update))
			for i, u := range oc.Update {
				bound.Update[i] = b.scalar(u)
			}
			if oc.Where != nil {
				bound.Where = b.scalar(oc.Where)
			}
			c.OnConflict = &bound
		}
		return &c
	case *Update:
		c := *s
		c.Plan = b.plan(s.Plan)
		return &c
	case *Delete:
		c := *s
		c.Plan = b.plan(s.Plan)
		return &c
	case *Merge:
		c := *s
		c.Plan = b.plan(s.Plan)
		return &c
	case *CopyTo:
		c := *s
		c.Query = b.statement(s.Query).(*Select)
		return &c
	case *Explain:
		return &Explain{Inner: b.statement(s.Inner)}
	}
	return s
}
