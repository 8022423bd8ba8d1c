package planner

import (
	"slices"

	"freshet/expr"
)

// withInputs returns r with its inputs replaced, in Children's order.
func withInputs(r expr.Relation, ins []expr.Relation) expr.Relation { return expr.WithChildren(r, ins) }

// transformUp rebuilds r bottom-up, applying f to every node after its
// inputs.
func transformUp(r expr.Relation, f func(expr.Relation) expr.Relation) expr.Relation {
	if cs := r.Children(); len(cs) > 0 {
		ncs := make([]expr.Relation, len(cs))
		for i, c := range cs {
			ncs[i] = transformUp(c, f)
		}
		r = withInputs(r, ncs)
	}
	return f(r)
}

// mapScalar rebuilds s bottom-up, applying f to every node.
func mapScalar(s expr.Scalar, f func(expr.Scalar) expr.Scalar) expr.Scalar {
	switch n := s.(type) {
	case expr.CallUnary:
		n.Arg = mapScalar(n.Arg, f)
		s = n
	case expr.CallBinary:
		n.Left, n.Right = mapScalar(n.Left, f), mapScalar(n.Right, f)
		s = n
	case expr.CallVariadic:
		args := make([]expr.Scalar, len(n.Args))
		for i, a := range n.Args {
			args[i] = mapScalar(a, f)
		}
		n.Args = args
		s = n
	case expr.If:
		n.Cond, n.Then, n.Else = mapScalar(n.Cond, f), mapScalar(n.Then, f), mapScalar(n.Else, f)
		s = n
	case expr.Cast:
		n.Arg = mapScalar(n.Arg, f)
		s = n
	case assignCast:
		n.arg = mapScalar(n.arg, f)
		s = n
	}
	return f(s)
}

// mapRelationScalars rebuilds r with f applied to every scalar node of
// every operator.
func mapRelationScalars(r expr.Relation, f func(expr.Scalar) expr.Scalar) expr.Relation {
	all := func(ss []expr.Scalar) []expr.Scalar {
		out := make([]expr.Scalar, len(ss))
		for i, s := range ss {
			out[i] = mapScalar(s, f)
		}
		return out
	}
	return transformUp(r, func(r expr.Relation) expr.Relation {
		switch n := r.(type) {
		case expr.Map:
			n.Scalars = all(n.Scalars)
			return n
		case expr.Filter:
			n.Predicates = all(n.Predicates)
			return n
		case expr.FlatMap:
			n.Args = all(n.Args)
			return n
		case expr.Join:
			eqs := make([][]expr.Scalar, len(n.Equivalences))
			for i, c := range n.Equivalences {
				eqs[i] = all(c)
			}
			n.Equivalences = eqs
			return n
		case expr.Reduce:
			n.GroupKey = all(n.GroupKey)
			aggs := make([]expr.Aggregate, len(n.Aggregates))
			for i, a := range n.Aggregates {
				a.Expr = mapScalar(a.Expr, f)
				if a.Filter != nil {
					a.Filter = mapScalar(a.Filter, f)
				}
				a.Order = slices.Clone(a.Order)
				for j := range a.Order {
					a.Order[j].Expr = mapScalar(a.Order[j].Expr, f)
				}
				aggs[i] = a
			}
			n.Aggregates = aggs
			return n
		}
		return r
	})
}

// renumberLets gives the Let bindings of a plan made elsewhere (a view's
// plan from the catalog) fresh ids, so that they cannot clash with the
// bindings of the plan it is inlined into.
func (l *lowerer) renumberLets(r expr.Relation) expr.Relation {
	ids := map[expr.LocalID]expr.LocalID{}
	var walk func(expr.Relation) expr.Relation
	walk = func(r expr.Relation) expr.Relation {
		switch n := r.(type) {
		case expr.Let:
			id := l.fresh()
			ids[n.ID] = id
			return expr.Let{ID: id, Value: walk(n.Value), Body: walk(n.Body)}
		case expr.LocalGet:
			if id, ok := ids[n.ID]; ok {
				n.ID = id
			}
			return n
		}
		cs := r.Children()
		if len(cs) == 0 {
			return r
		}
		ncs := make([]expr.Relation, len(cs))
		for i, c := range cs {
			ncs[i] = walk(c)
		}
		return withInputs(r, ncs)
	}
	return walk(r)
}
