package planner

import "freshet/expr"

// distinctInputs plans a Reduce whose aggregates all take DISTINCT of
// one argument as the same aggregates without DISTINCT over a Distinct
// of (group key, argument): count(DISTINCT x) GROUP BY k becomes
// Reduce(k; count(x)) over Distinct(k, x).
//
// The Distinct keeps the rows whose argument is NULL, so a group whose
// arguments are all NULL still has a row, and the aggregates outside
// skip NULLs as the DISTINCT ones did (count(x) counts the non-NULL
// values): the group shows 0 or NULL as before. The Reduce's output is
// unchanged, rows and types, so the default row of a global aggregate,
// planned above it, still comes from whether it has a row.
//
// It applies only to the aggregates whose DISTINCT form ignores NULLs
// and does not depend on the order of the values (count, sum, min, max,
// and string_agg without ORDER BY), with no FILTER; a Reduce that mixes
// DISTINCT and plain aggregates, or DISTINCT of different arguments,
// stays as it is.
func distinctInputs(r expr.Relation) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		red, ok := n.(expr.Reduce)
		if !ok || !distinctOfOneArgument(red.Aggregates, red.Input.Typ()) {
			return n, false
		}
		arity := len(red.Input.Typ())
		var mapped []expr.Scalar
		var outputs []int
		for _, s := range append(append([]expr.Scalar(nil), red.GroupKey...), red.Aggregates[0].Expr) {
			if c, ok := s.(expr.Column); ok {
				outputs = append(outputs, c.Index)
				continue
			}
			outputs = append(outputs, arity+len(mapped))
			mapped = append(mapped, s)
		}
		in := red.Input
		if len(mapped) > 0 {
			in = expr.Map{Input: in, Scalars: mapped}
		}
		keys := make([]expr.Scalar, len(red.GroupKey))
		for i := range keys {
			keys[i] = expr.Column{Index: i}
		}
		arg := expr.Column{Index: len(keys)}
		aggs := make([]expr.Aggregate, len(red.Aggregates))
		for i, a := range red.Aggregates {
			a.Expr, a.Distinct = arg, false
			aggs[i] = a
		}
		return expr.Reduce{Input: expr.Distinct{Input: expr.Project{Input: in, Outputs: outputs}}, GroupKey: keys, Aggregates: aggs}, true
	})
}

// distinctOfOneArgument reports whether aggs is not empty and every
// aggregate is a DISTINCT count, sum, min, max or unordered string_agg,
// without FILTER, of the same argument (same text and type) over input.
func distinctOfOneArgument(aggs []expr.Aggregate, input []expr.ColumnType) bool {
	if len(aggs) == 0 {
		return false
	}
	arg, typ := aggs[0].Expr.String(), aggs[0].Expr.Typ(input).Type
	for _, a := range aggs {
		if !a.Distinct || a.Filter != nil || len(a.Order) > 0 || a.Expr.String() != arg || a.Expr.Typ(input).Type != typ {
			return false
		}
		switch a.Func {
		case expr.Count, expr.Sum, expr.Min, expr.Max, expr.StringAgg:
		default:
			return false
		}
	}
	return true
}
