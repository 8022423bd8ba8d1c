package expr

import "freshet/repr"

// ReplaceNow returns r with every Now replaced by the literal t: a
// statement's now() is its read time, the same in every row.
func ReplaceNow(r Relation, t repr.Datum) Relation {
	lit := Literal{Value: t, Type: repr.TimestampTZ}
	sc := func(s Scalar) Scalar { return replaceNowScalar(s, lit) }
	scs := func(ss []Scalar) []Scalar {
		out := make([]Scalar, len(ss))
		for i, s := range ss {
			out[i] = sc(s)
		}
		return out
	}
	rels := func(rs []Relation) []Relation {
		out := make([]Relation, len(rs))
		for i, x := range rs {
			out[i] = ReplaceNow(x, t)
		}
		return out
	}
	switch n := r.(type) {
	case Let:
		return Let{ID: n.ID, Value: ReplaceNow(n.Value, t), Body: ReplaceNow(n.Body, t)}
	case Map:
		return Map{Input: ReplaceNow(n.Input, t), Scalars: scs(n.Scalars)}
	case Filter:
		return Filter{Input: ReplaceNow(n.Input, t), Predicates: scs(n.Predicates)}
	case Project:
		return Project{Input: ReplaceNow(n.Input, t), Outputs: n.Outputs}
	case FlatMap:
		return FlatMap{Input: ReplaceNow(n.Input, t), Func: n.Func, Args: scs(n.Args), Type: n.Type}
	case Join:
		eqs := make([][]Scalar, len(n.Equivalences))
		for i, c := range n.Equivalences {
			eqs[i] = scs(c)
		}
		return Join{Inputs: rels(n.Inputs), Equivalences: eqs}
	case Reduce:
		aggs := make([]Aggregate, len(n.Aggregates))
		for i, a := range n.Aggregates {
			aggs[i] = Aggregate{Func: a.Func, Expr: sc(a.Expr), Distinct: a.Distinct}
		}
		return Reduce{Input: ReplaceNow(n.Input, t), GroupKey: scs(n.GroupKey), Aggregates: aggs}
	case TopK:
		return TopK{Input: ReplaceNow(n.Input, t), GroupKey: n.GroupKey, Order: n.Order, Limit: n.Limit, Offset: n.Offset}
	case Distinct:
		return Distinct{Input: ReplaceNow(n.Input, t)}
	case Negate:
		return Negate{Input: ReplaceNow(n.Input, t)}
	case Threshold:
		return Threshold{Input: ReplaceNow(n.Input, t)}
	case Union:
		return Union{Inputs: rels(n.Inputs)}
	}
	return r
}

// ContainsNow reports whether r reads the statement's time anywhere: a
// view cannot, since it has no single read time.
func ContainsNow(r Relation) bool {
	marker := repr.NewTimestampTZ(-1 << 62)
	return !sameRelation(ReplaceNow(r, marker), r)
}

func sameRelation(a, b Relation) bool { return Explain(a) == Explain(b) }

func replaceNowScalar(s Scalar, lit Literal) Scalar {
	switch n := s.(type) {
	case CallUnary:
		return CallUnary{Func: n.Func, Arg: replaceNowScalar(n.Arg, lit)}
	case CallBinary:
		return CallBinary{Func: n.Func, Left: replaceNowScalar(n.Left, lit), Right: replaceNowScalar(n.Right, lit)}
	case CallVariadic:
		if n.Func == Now {
			return lit
		}
		args := make([]Scalar, len(n.Args))
		for i, a := range n.Args {
			args[i] = replaceNowScalar(a, lit)
		}
		return CallVariadic{Func: n.Func, Args: args}
	case If:
		return If{Cond: replaceNowScalar(n.Cond, lit), Then: replaceNowScalar(n.Then, lit), Else: replaceNowScalar(n.Else, lit)}
	case Cast:
		return Cast{Arg: replaceNowScalar(n.Arg, lit), To: n.To}
	case ScalarRewriter:
		return n.RewriteScalars(func(x Scalar) Scalar { return replaceNowScalar(x, lit) })
	}
	return s
}

// ScalarRewriter is implemented by scalars defined outside expr that hold
// other scalars, so that rewrites such as ReplaceNow reach inside them.
type ScalarRewriter interface {
	// RewriteScalars returns the scalar with f applied to each scalar it
	// holds.
	RewriteScalars(f func(Scalar) Scalar) Scalar
}
