package planner

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// The rewrites of lowered plans, in the order they are tried. They run
// to a fixpoint: the list again and again until no rule changes the
// plan. Each preserves the plan's result exactly (the oracle tests run
// every query with and without them).
var exprRules = []struct {
	name  string
	apply func(expr.Relation) (expr.Relation, bool)
}{
	// InlineConstantLets replaces the uses of a Let bound to a constant
	// (the unit relation of an uncorrelated subquery) by the constant,
	// which other rules can then see.
	{"InlineConstantLets", inlineConstantLets},
	// InlineSingleUseLets replaces a Let whose binding is read once by
	// its value at the one read: sharing buys nothing there, and the
	// Let would hide a join's inputs from the rules that flatten joins
	// and push filters into them (a FROM list of several relations
	// lowers to joins of Lets).
	{"InlineSingleUseLets", inlineSingleUseLets},
	// ElideUnitJoinInputs drops the one-row, no-column relation from a
	// join: it is the outer relation of a query that is not nested, and
	// crossing with it changes nothing.
	{"ElideUnitJoinInputs", elideUnitJoinInputs},
	// FlattenJoins merges a join that is an input of a join, so that
	// equivalences can relate all the inputs and the join can be planned
	// as one.
	{"FlattenJoins", flattenJoins},
	// PushFiltersIntoJoins turns a filter `a = b` over a join, with a and
	// b from different inputs, into an equivalence plus `a IS NOT NULL`
	// (equivalences match NULLs, `=` does not: invariant I2), and moves
	// predicates that read one input into that input, so joins are
	// equijoins on filtered inputs rather than filtered cross products.
	{"PushFiltersIntoJoins", pushFiltersIntoJoins},
	// PushFiltersThroughProjects moves a filter below a projection (with
	// its columns renumbered), toward the join or input it restricts.
	{"PushFiltersThroughProjects", pushFiltersThroughProjects},
	// PushFiltersThroughMaps moves the predicates that read none of a
	// map's new columns below the map.
	{"PushFiltersThroughMaps", pushFiltersThroughMaps},
	// PushFiltersThroughFlatMaps moves the predicates that read none of
	// a table function's columns below it: the function then runs only
	// on the rows kept, as PostgreSQL runs it, so that a row the WHERE
	// clause drops can neither multiply nor fail the function
	// (jsonb_array_elements of an object is an error).
	{"PushFiltersThroughFlatMaps", pushFiltersThroughFlatMaps},
	// FuseFilters merges nested filters into one, without the predicates
	// that are the constant TRUE.
	{"FuseFilters", fuseFilters},
	// PullProjectsAboveMaps moves a projection above the map over it, so
	// that maps, and projections, meet and fuse.
	{"PullProjectsAboveMaps", pullProjectsAboveMaps},
	// FuseMaps merges nested maps into one.
	{"FuseMaps", fuseMaps},
	// FuseProjects composes nested projections.
	{"FuseProjects", fuseProjects},
	// ElideIdentityProjects drops projections that keep every column in
	// order.
	{"ElideIdentityProjects", elideIdentityProjects},
	// FlattenUnions merges a union that is an input of a union.
	{"FlattenUnions", flattenUnions},
	// DistinctInputs plans aggregates that are all DISTINCT of one
	// argument as plain aggregates over a Distinct of (group key,
	// argument): a change then costs the Distinct's small group and an
	// accumulable count or sum, not a re-read of the whole group.
	{"DistinctInputs", distinctInputs},
}

// rewrite runs the rules to a fixpoint and returns the names of those
// that fired, in the order they first did.
func rewrite(r expr.Relation) (expr.Relation, []string) {
	var fired []string
	for pass := 0; pass < 32; pass++ {
		any := false
		for _, rule := range exprRules {
			var changed bool
			if r, changed = rule.apply(r); changed {
				any = true
				if !slices.Contains(fired, rule.name) {
					fired = append(fired, rule.name)
				}
			}
		}
		if !any {
			break
		}
	}
	return r, fired
}

// bottomUp applies f to every node and reports whether it changed any.
func bottomUp(r expr.Relation, f func(expr.Relation) (expr.Relation, bool)) (expr.Relation, bool) {
	changed := false
	out := transformUp(r, func(n expr.Relation) expr.Relation {
		m, c := f(n)
		changed = changed || c
		return m
	})
	return out, changed
}

func isUnitRelation(r expr.Relation) bool {
	c, ok := r.(expr.Constant)
	return ok && len(c.Types) == 0 && len(c.Rows) == 1 && c.Rows[0].Diff == 1
}

func elideUnitJoinInputs(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		j, ok := n.(expr.Join)
		if !ok {
			return n, false
		}
		var ins []expr.Relation
		for _, in := range j.Inputs {
			if !isUnitRelation(in) {
				ins = append(ins, in)
			}
		}
		if len(ins) == len(j.Inputs) || len(ins) == 0 {
			return n, false
		}
		// Unit inputs have no columns, so no equivalence refers to them.
		if len(ins) == 1 && len(j.Equivalences) == 0 {
			return ins[0], true
		}
		return expr.Join{Inputs: ins, Equivalences: j.Equivalences}, true
	})
}

func flattenJoins(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		j, ok := n.(expr.Join)
		if !ok {
			return n, false
		}
		changed := false
		var ins []expr.Relation
		var eqs [][]expr.Scalar
		offset := 0
		for _, in := range j.Inputs {
			inner, ok := in.(expr.Join)
			if !ok {
				ins = append(ins, in)
				offset += len(in.Typ())
				continue
			}
			changed = true
			ins = append(ins, inner.Inputs...)
			for _, c := range inner.Equivalences {
				eqs = append(eqs, shiftScalars(c, offset))
			}
			offset += len(in.Typ())
		}
		if !changed {
			return n, false
		}
		return expr.Join{Inputs: ins, Equivalences: mergeClasses(append(eqs, j.Equivalences...))}, true
	})
}

func shiftScalar(s expr.Scalar, by int) expr.Scalar {
	return mapScalar(s, func(s expr.Scalar) expr.Scalar {
		if c, ok := s.(expr.Column); ok {
			return expr.Column{Index: c.Index + by}
		}
		return s
	})
}

func shiftScalars(ss []expr.Scalar, by int) []expr.Scalar {
	out := make([]expr.Scalar, len(ss))
	for i, s := range ss {
		out[i] = shiftScalar(s, by)
	}
	return out
}

// mergeClasses merges equivalence classes that share a scalar.
func mergeClasses(classes [][]expr.Scalar) [][]expr.Scalar {
	var out [][]expr.Scalar
	for _, c := range classes {
		merged := append([]expr.Scalar(nil), c...)
		var rest [][]expr.Scalar
		for _, o := range out {
			if sharesScalar(o, merged) {
				for _, s := range o {
					if !containsScalar(merged, s) {
						merged = append(merged, s)
					}
				}
			} else {
				rest = append(rest, o)
			}
		}
		out = append(rest, merged)
	}
	return out
}

func containsScalar(ss []expr.Scalar, s expr.Scalar) bool {
	for _, x := range ss {
		if x.String() == s.String() {
			return true
		}
	}
	return false
}

func sharesScalar(a, b []expr.Scalar) bool {
	for _, s := range a {
		if containsScalar(b, s) {
			return true
		}
	}
	return false
}

// inputOf returns the join input that all of s's columns lie in, or -1
// (also for a scalar without columns).
func inputOf(s expr.Scalar, bounds []int) int {
	cols := s.Columns(nil)
	if len(cols) == 0 {
		return -1
	}
	in := -1
	for _, c := range cols {
		i := 0
		for i+1 < len(bounds) && c >= bounds[i+1] {
			i++
		}
		if in >= 0 && in != i {
			return -1
		}
		in = i
	}
	return in
}

// equatable reports whether SQL equality of two values of type t is
// equality of their encodings, which equivalences compare.
func equatable(t repr.Type) bool {
	switch t.Kind() {
	case repr.KindInterval, repr.KindUnknown, repr.KindJSONB:
		// jsonb: '1' = '1.0', whose encodings differ (repr/jsonb_key.go).
		return false
	}
	return true
}

// hasRaise reports whether s raises an error wherever it is evaluated:
// such a predicate must stay where it is.
func hasRaise(s expr.Scalar) bool {
	found := false
	mapScalar(s, func(s expr.Scalar) expr.Scalar {
		if _, ok := s.(raise); ok {
			found = true
		}
		return s
	})
	return found
}

func pushFiltersIntoJoins(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		f, ok := n.(expr.Filter)
		if !ok {
			return n, false
		}
		j, ok := f.Input.(expr.Join)
		if !ok {
			return n, false
		}
		types := j.Typ()
		bounds := []int{0}
		for _, in := range j.Inputs {
			bounds = append(bounds, bounds[len(bounds)-1]+len(in.Typ()))
		}
		perInput := make([][]expr.Scalar, len(j.Inputs))
		eqs := append([][]expr.Scalar(nil), j.Equivalences...)
		var keep []expr.Scalar
		changed := false
		for _, p := range f.Predicates {
			if hasRaise(p) {
				keep = append(keep, p)
				continue
			}
			if i := inputOf(p, bounds); i >= 0 {
				perInput[i] = append(perInput[i], shiftScalar(p, -bounds[i]))
				changed = true
				continue
			}
			if b, ok := p.(expr.CallBinary); ok && b.Func == expr.Eq && equatable(b.Left.Typ(types).Type) {
				li, ri := inputOf(b.Left, bounds), inputOf(b.Right, bounds)
				if li >= 0 && ri >= 0 && li != ri {
					eqs = append(eqs, []expr.Scalar{b.Left, b.Right})
					notNull := expr.CallUnary{Func: expr.Not, Arg: expr.CallUnary{Func: expr.IsNull, Arg: b.Left}}
					perInput[li] = append(perInput[li], shiftScalar(notNull, -bounds[li]))
					changed = true
					continue
				}
			}
			keep = append(keep, p)
		}
		if !changed {
			return n, false
		}
		ins := make([]expr.Relation, len(j.Inputs))
		for i, in := range j.Inputs {
			ins[i] = in
			if len(perInput[i]) > 0 {
				ins[i] = expr.Filter{Input: in, Predicates: perInput[i]}
			}
		}
		var out expr.Relation = expr.Join{Inputs: ins, Equivalences: mergeClasses(eqs)}
		if len(keep) > 0 {
			out = expr.Filter{Input: out, Predicates: keep}
		}
		return out, true
	})
}

func fuseFilters(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		f, ok := n.(expr.Filter)
		if !ok {
			return n, false
		}
		var preds []expr.Scalar
		for _, p := range f.Predicates {
			if l, ok := p.(expr.Literal); ok && !l.Value.IsNull() && l.Value.Kind() == repr.KindBool && l.Value.Bool() {
				continue
			}
			preds = append(preds, p)
		}
		if len(preds) == 0 {
			return f.Input, true
		}
		if len(preds) < len(f.Predicates) {
			return expr.Filter{Input: f.Input, Predicates: preds}, true
		}
		inner, ok := f.Input.(expr.Filter)
		if !ok {
			return n, false
		}
		return expr.Filter{Input: inner.Input, Predicates: append(append([]expr.Scalar(nil), inner.Predicates...), f.Predicates...)}, true
	})
}

func fuseMaps(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		m, ok := n.(expr.Map)
		if !ok {
			return n, false
		}
		if len(m.Scalars) == 0 {
			return m.Input, true
		}
		inner, ok := m.Input.(expr.Map)
		if !ok {
			return n, false
		}
		return expr.Map{Input: inner.Input, Scalars: append(append([]expr.Scalar(nil), inner.Scalars...), m.Scalars...)}, true
	})
}

func fuseProjects(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		p, ok := n.(expr.Project)
		if !ok {
			return n, false
		}
		inner, ok := p.Input.(expr.Project)
		if !ok {
			return n, false
		}
		outs := make([]int, len(p.Outputs))
		for i, o := range p.Outputs {
			outs[i] = inner.Outputs[o]
		}
		return expr.Project{Input: inner.Input, Outputs: outs}, true
	})
}

func elideIdentityProjects(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		p, ok := n.(expr.Project)
		if !ok || len(p.Outputs) != len(p.Input.Typ()) {
			return n, false
		}
		for i, o := range p.Outputs {
			if o != i {
				return n, false
			}
		}
		return p.Input, true
	})
}

func flattenUnions(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		u, ok := n.(expr.Union)
		if !ok {
			return n, false
		}
		changed := false
		var ins []expr.Relation
		for _, in := range u.Inputs {
			if inner, ok := in.(expr.Union); ok {
				ins = append(ins, inner.Inputs...)
				changed = true
				continue
			}
			ins = append(ins, in)
		}
		if !changed {
			return n, false
		}
		return expr.Union{Inputs: ins}, true
	})
}

func pushFiltersThroughProjects(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		f, ok := n.(expr.Filter)
		if !ok {
			return n, false
		}
		p, ok := f.Input.(expr.Project)
		if !ok {
			return n, false
		}
		preds := make([]expr.Scalar, len(f.Predicates))
		for i, pred := range f.Predicates {
			preds[i] = mapScalar(pred, func(s expr.Scalar) expr.Scalar {
				if c, ok := s.(expr.Column); ok {
					return expr.Column{Index: p.Outputs[c.Index]}
				}
				return s
			})
		}
		return expr.Project{Input: expr.Filter{Input: p.Input, Predicates: preds}, Outputs: p.Outputs}, true
	})
}

func pushFiltersThroughMaps(r expr.Relation) (expr.Relation, bool) {
	return pushFiltersBelow(r, func(r expr.Relation) (expr.Relation, func(expr.Relation) expr.Relation, bool) {
		m, ok := r.(expr.Map)
		return m.Input, func(in expr.Relation) expr.Relation { m.Input = in; return m }, ok
	})
}

func pushFiltersThroughFlatMaps(r expr.Relation) (expr.Relation, bool) {
	return pushFiltersBelow(r, func(r expr.Relation) (expr.Relation, func(expr.Relation) expr.Relation, bool) {
		m, ok := r.(expr.FlatMap)
		return m.Input, func(in expr.Relation) expr.Relation { m.Input = in; return m }, ok
	})
}

// pushFiltersBelow moves the predicates of a filter that read only the
// input's columns below an operator that appends columns to each input
// row. match reports whether a relation is such an operator, and gives
// its input and a copy of it over another input.
func pushFiltersBelow(r expr.Relation, match func(expr.Relation) (expr.Relation, func(expr.Relation) expr.Relation, bool)) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		f, ok := n.(expr.Filter)
		if !ok {
			return n, false
		}
		in, over, ok := match(f.Input)
		if !ok {
			return n, false
		}
		below, above := splitPredicates(f.Predicates, len(in.Typ()))
		if len(below) == 0 {
			return n, false
		}
		return filterAbove(over(expr.Filter{Input: in, Predicates: below}), above), true
	})
}

// splitPredicates returns the predicates that read only the first arity
// columns and raise no error, which may move below an operator that
// appends columns to its input's, and the others.
func splitPredicates(preds []expr.Scalar, arity int) (below, above []expr.Scalar) {
	for _, p := range preds {
		if slices.ContainsFunc(p.Columns(nil), func(c int) bool { return c >= arity }) || hasRaise(p) {
			above = append(above, p)
		} else {
			below = append(below, p)
		}
	}
	return below, above
}

// filterAbove returns r filtered by preds, or r if there are none.
func filterAbove(r expr.Relation, preds []expr.Scalar) expr.Relation {
	if len(preds) == 0 {
		return r
	}
	return expr.Filter{Input: r, Predicates: preds}
}

func inlineConstantLets(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		l, ok := n.(expr.Let)
		if !ok {
			return n, false
		}
		c, ok := l.Value.(expr.Constant)
		if !ok {
			return n, false
		}
		body := transformUp(l.Body, func(r expr.Relation) expr.Relation {
			if g, ok := r.(expr.LocalGet); ok && g.ID == l.ID {
				return c
			}
			return r
		})
		return body, true
	})
}

func pullProjectsAboveMaps(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		m, ok := n.(expr.Map)
		if !ok {
			return n, false
		}
		p, ok := m.Input.(expr.Project)
		if !ok {
			return n, false
		}
		arity := len(p.Input.Typ())
		scalars := make([]expr.Scalar, len(m.Scalars))
		for i, s := range m.Scalars {
			scalars[i] = mapScalar(s, func(s expr.Scalar) expr.Scalar {
				c, ok := s.(expr.Column)
				if !ok {
					return s
				}
				if c.Index < len(p.Outputs) {
					return expr.Column{Index: p.Outputs[c.Index]}
				}
				return expr.Column{Index: arity + c.Index - len(p.Outputs)}
			})
		}
		outs := append(append([]int(nil), p.Outputs...), seq(arity, arity+len(scalars))...)
		return expr.Project{Input: expr.Map{Input: p.Input, Scalars: scalars}, Outputs: outs}, true
	})
}

func inlineSingleUseLets(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		l, ok := n.(expr.Let)
		if !ok {
			return n, false
		}
		uses := 0
		transformUp(l.Body, func(r expr.Relation) expr.Relation {
			if g, ok := r.(expr.LocalGet); ok && g.ID == l.ID {
				uses++
			}
			return r
		})
		if uses != 1 {
			return n, false
		}
		body := transformUp(l.Body, func(r expr.Relation) expr.Relation {
			if g, ok := r.(expr.LocalGet); ok && g.ID == l.ID {
				return l.Value
			}
			return r
		})
		return body, true
	})
}
