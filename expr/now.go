package expr

import (
	"slices"

	"freshet/repr"
)

// ReplaceNow returns r with every Now replaced by the literal t: a
// statement's now() is its read time, the same in every row.
func ReplaceNow(r Relation, t repr.Datum) Relation {
	lit := Literal{Value: t, Type: repr.TimestampTZ}
	return MapCalls(r, func(c CallVariadic) Scalar {
		if c.Func == Now {
			return lit
		}
		return c
	})
}

// MapCalls returns r with every variadic call c in its scalars replaced
// by f(c), innermost calls first: f sees c's arguments already replaced.
func MapCalls(r Relation, f func(CallVariadic) Scalar) Relation {
	sc := func(s Scalar) Scalar { return mapCallsScalar(s, f) }
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
			out[i] = MapCalls(x, f)
		}
		return out
	}
	switch n := r.(type) {
	case Let:
		return Let{ID: n.ID, Value: MapCalls(n.Value, f), Body: MapCalls(n.Body, f)}
	case Map:
		return Map{Input: MapCalls(n.Input, f), Scalars: scs(n.Scalars)}
	case Filter:
		return Filter{Input: MapCalls(n.Input, f), Predicates: scs(n.Predicates)}
	case Project:
		return Project{Input: MapCalls(n.Input, f), Outputs: n.Outputs}
	case FlatMap:
		return FlatMap{Input: MapCalls(n.Input, f), Func: n.Func, Args: scs(n.Args), Type: n.Type}
	case Join:
		eqs := make([][]Scalar, len(n.Equivalences))
		for i, c := range n.Equivalences {
			eqs[i] = scs(c)
		}
		return Join{Inputs: rels(n.Inputs), Equivalences: eqs}
	case Reduce:
		aggs := make([]Aggregate, len(n.Aggregates))
		for i, a := range n.Aggregates {
			aggs[i] = a
			aggs[i].Expr = sc(a.Expr)
			if a.Filter != nil {
				aggs[i].Filter = sc(a.Filter)
			}
			aggs[i].Order = nil
			for _, o := range a.Order {
				o.Expr = sc(o.Expr)
				aggs[i].Order = append(aggs[i].Order, o)
			}
		}
		return Reduce{Input: MapCalls(n.Input, f), GroupKey: scs(n.GroupKey), Aggregates: aggs}
	case TopK:
		return TopK{Input: MapCalls(n.Input, f), GroupKey: n.GroupKey, Order: n.Order, Limit: n.Limit, Offset: n.Offset}
	case Window:
		return Window{Input: MapCalls(n.Input, f), PartitionBy: n.PartitionBy, Order: n.Order, Funcs: n.Funcs}
	case Distinct:
		return Distinct{Input: MapCalls(n.Input, f)}
	case Negate:
		return Negate{Input: MapCalls(n.Input, f)}
	case Threshold:
		return Threshold{Input: MapCalls(n.Input, f)}
	case Union:
		return Union{Inputs: rels(n.Inputs)}
	case Recursive:
		n.Base, n.Step = MapCalls(n.Base, f), MapCalls(n.Step, f)
		return n
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

func mapCallsScalar(s Scalar, f func(CallVariadic) Scalar) Scalar {
	switch n := s.(type) {
	case CallUnary:
		return CallUnary{Func: n.Func, Arg: mapCallsScalar(n.Arg, f)}
	case CallBinary:
		return CallBinary{Func: n.Func, Left: mapCallsScalar(n.Left, f), Right: mapCallsScalar(n.Right, f)}
	case CallVariadic:
		args := make([]Scalar, len(n.Args))
		for i, a := range n.Args {
			args[i] = mapCallsScalar(a, f)
		}
		return f(CallVariadic{Func: n.Func, Args: args})
	case If:
		return If{Cond: mapCallsScalar(n.Cond, f), Then: mapCallsScalar(n.Then, f), Else: mapCallsScalar(n.Else, f)}
	case Cast:
		n.Arg = mapCallsScalar(n.Arg, f)
		return n
	case ScalarRewriter:
		return n.RewriteScalars(func(x Scalar) Scalar { return mapCallsScalar(x, f) })
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

// PerRowCall is implemented by scalars defined outside expr whose every
// evaluation acts anew, as nextval does. PostgreSQL calls such a function
// once per row, so a row of a collection that stands for n equal rows
// must be evaluated n times, once for each. expr's own random() and
// gen_random_uuid() are such calls too (CallsPerRow).
type PerRowCall interface {
	CallsPerRow() bool
}

// CallsPerRow reports whether s, or a scalar within it, is a PerRowCall
// that says so.
func CallsPerRow(s Scalar) bool {
	if p, ok := s.(PerRowCall); ok && p.CallsPerRow() {
		return true
	}
	switch n := s.(type) {
	case CallUnary:
		return CallsPerRow(n.Arg)
	case CallBinary:
		return CallsPerRow(n.Left) || CallsPerRow(n.Right)
	case CallVariadic:
		// random() and gen_random_uuid() draw a value per row (keyed
		// by the copy's ordinal, CountCopies).
		return n.Func == Random || n.Func == GenRandomUUID || slices.ContainsFunc(n.Args, CallsPerRow)
	case If:
		return CallsPerRow(n.Cond) || CallsPerRow(n.Then) || CallsPerRow(n.Else)
	case Cast:
		return CallsPerRow(n.Arg)
	case ScalarRewriter:
		found := false
		n.RewriteScalars(func(x Scalar) Scalar {
			found = found || CallsPerRow(x)
			return x
		})
		return found
	}
	return false
}

// StepsCallPerRow reports whether a chain of Map, Filter, Project and
// FlatMap calls a PerRowCall.
func StepsCallPerRow(steps []Relation) bool {
	for _, s := range steps {
		switch n := s.(type) {
		case Map:
			if slices.ContainsFunc(n.Scalars, CallsPerRow) {
				return true
			}
		case Filter:
			if slices.ContainsFunc(n.Predicates, CallsPerRow) {
				return true
			}
		case FlatMap:
			if slices.ContainsFunc(n.Args, CallsPerRow) {
				return true
			}
		}
	}
	return false
}
