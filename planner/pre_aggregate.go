package planner

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// tableKeys are, for the tables a plan reads, their unique keys and the
// keys of the indexes joins may read (column indexes), from the
// relations the binder resolved.
type tableKeys struct {
	unique, indexed map[expr.GlobalID][][]int
}

// preAggregateJoinInputs sums, before a join, the input that a join's
// aggregates read, grouped by the columns of it that the join reads:
//
//	SELECT c.region, count(*), sum(o.amount)
//	FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region
//
// becomes the same Reduce over the join of customers with
//
//	SELECT customer, count(*), sum(amount) FROM orders GROUP BY customer
//
// whose counts and sums the outer Reduce sums. Each row of the join is
// an order paired with a customer row; summing the orders of one
// customer first and then, per customer row they pair with, the
// customer's sums counts every pair once, duplicated customer ids
// included. A view then keeps one accumulated row per customer where it
// arranged every order by customer, and a write to orders moves one
// customer's sums.
//
// It applies to a Reduce directly over a Join when:
//   - every aggregate is count or sum (of int2, int4, int8 or numeric:
//     exact sums, whose order does not matter) of a column or a
//     constant, without DISTINCT, FILTER or ORDER BY; an argument that
//     is not a column could fail on a row the join would drop;
//   - the aggregates read columns of one input, the fact input;
//   - the equivalences read the fact input through scalars of its
//     columns alone, and read at least one; the partial sums are
//     grouped by the fact input's columns that the equivalences and the
//     group key read;
//   - the fact input is not itself a Reduce (the rule's own output),
//     is not a table grouped by a unique key of it, which would sum
//     nothing, and is not a table with an index on the join's key: the
//     join reads that index and arranges nothing, which costs a write
//     less than keeping partial sums.
//
// The outer sums are numeric where the aggregates they replace are int8
// (a count, a sum of int2 or int4): they are cast back, and a count is
// never NULL, so its column stays NOT NULL. A global aggregate's
// default row, planned above the Reduce, is unchanged: the outer Reduce
// has rows exactly when the join had.
func preAggregateJoinInputs(r expr.Relation, keys tableKeys) (expr.Relation, bool) {
	return bottomUp(r, func(n expr.Relation) (expr.Relation, bool) {
		red, ok := n.(expr.Reduce)
		if !ok {
			return n, false
		}
		join, ok := red.Input.(expr.Join)
		if !ok || len(join.Inputs) < 2 || len(red.Aggregates) == 0 {
			return n, false
		}
		out, ok := preAggregate(red, join, keys)
		if !ok {
			return n, false
		}
		return out, true
	})
}

func preAggregate(red expr.Reduce, join expr.Join, keys tableKeys) (expr.Relation, bool) {
	types := red.Input.Typ()
	bounds := make([]int, len(join.Inputs))
	arity := 0
	for i, in := range join.Inputs {
		bounds[i] = arity
		arity += len(in.Typ())
	}
	fact := -1
	for _, a := range red.Aggregates {
		if a.Distinct || a.Filter != nil || len(a.Order) > 0 {
			return nil, false
		}
		switch a.Func {
		case expr.Count:
		case expr.Sum:
			switch a.Expr.Typ(types).Type.Kind() {
			case repr.KindInt2, repr.KindInt4, repr.KindInt8, repr.KindNumeric:
			default:
				return nil, false
			}
		default:
			return nil, false
		}
		switch e := a.Expr.(type) {
		case expr.Literal:
		case expr.Column:
			in := inputOf(e, bounds)
			if fact >= 0 && in != fact {
				return nil, false
			}
			fact = in
		default:
			return nil, false
		}
	}
	if fact < 0 {
		return nil, false
	}
	if _, ok := join.Inputs[fact].(expr.Reduce); ok {
		return nil, false
	}
	lo, hi := bounds[fact], bounds[fact]+len(join.Inputs[fact].Typ())
	inFact := func(c int) bool { return c >= lo && c < hi }
	// The fact input's columns the equivalences and the group key read,
	// in order: the partial sums' group key.
	var keyCols []int
	for _, class := range join.Equivalences {
		for _, s := range class {
			cols := s.Columns(nil)
			if !slices.ContainsFunc(cols, inFact) {
				continue
			}
			if inputOf(s, bounds) != fact {
				return nil, false
			}
			for _, c := range cols {
				if !slices.Contains(keyCols, c-lo) {
					keyCols = append(keyCols, c-lo)
				}
			}
		}
	}
	if len(keyCols) == 0 {
		return nil, false
	}
	slices.Sort(keyCols)
	if table, ok := chainedGet(join.Inputs[fact]); ok && slices.ContainsFunc(keys.indexed[table.ID], func(k []int) bool {
		return slices.Equal(slices.Sorted(slices.Values(k)), keyCols)
	}) {
		// The join reads the table's index on its key: it arranges
		// nothing, and a write costs the join's lookups alone.
		return nil, false
	}
	for _, k := range red.GroupKey {
		for _, c := range k.Columns(nil) {
			if inFact(c) && !slices.Contains(keyCols, c-lo) {
				keyCols = append(keyCols, c-lo)
			}
		}
	}
	slices.Sort(keyCols)
	if groupsByUniqueKey(join.Inputs[fact], keyCols, keys) {
		return nil, false
	}

	// The partial sums: the fact input grouped by keyCols.
	partialKey := make([]expr.Scalar, len(keyCols))
	for i, c := range keyCols {
		partialKey[i] = expr.Column{Index: c}
	}
	partialAggs := make([]expr.Aggregate, len(red.Aggregates))
	for i, a := range red.Aggregates {
		partialAggs[i] = expr.Aggregate{Func: a.Func, Expr: shiftScalar(a.Expr, -lo)}
	}
	partial := expr.Reduce{Input: join.Inputs[fact], GroupKey: partialKey, Aggregates: partialAggs}

	inputs := slices.Clone(join.Inputs)
	inputs[fact] = partial
	shift := len(partial.Typ()) - (hi - lo)
	remap := func(s expr.Scalar) expr.Scalar {
		return mapScalar(s, func(s expr.Scalar) expr.Scalar {
			c, ok := s.(expr.Column)
			switch {
			case !ok || c.Index < lo:
				return s
			case c.Index < hi:
				return expr.Column{Index: lo + slices.Index(keyCols, c.Index-lo)}
			default:
				return expr.Column{Index: c.Index + shift}
			}
		})
	}
	eqs := make([][]expr.Scalar, len(join.Equivalences))
	for i, class := range join.Equivalences {
		eqs[i] = make([]expr.Scalar, len(class))
		for j, s := range class {
			eqs[i][j] = remap(s)
		}
	}
	groupKey := make([]expr.Scalar, len(red.GroupKey))
	for i, k := range red.GroupKey {
		groupKey[i] = remap(k)
	}
	aggs := make([]expr.Aggregate, len(red.Aggregates))
	for i := range red.Aggregates {
		aggs[i] = expr.Aggregate{Func: expr.Sum, Expr: expr.Column{Index: lo + len(keyCols) + i}}
	}
	outer := expr.Reduce{Input: expr.Join{Inputs: inputs, Equivalences: eqs}, GroupKey: groupKey, Aggregates: aggs}

	// The outer sums' types against the aggregates they stand for.
	want, got := red.Typ(), outer.Typ()
	var casts []expr.Scalar
	outputs := make([]int, len(want))
	for i := range want {
		outputs[i] = i
		if got[i].Type == want[i].Type {
			continue
		}
		if i < len(groupKey) || want[i].Type.Kind() != repr.KindInt8 || got[i].Type.Kind() != repr.KindNumeric {
			return nil, false
		}
		var s expr.Scalar = expr.Cast{Arg: expr.Column{Index: i}, To: want[i].Type}
		if !want[i].Nullable {
			// A count: the sum of a group's counts is never NULL.
			s = expr.CallVariadic{Func: expr.Coalesce, Args: []expr.Scalar{s, expr.Literal{Value: repr.NewInt8(0), Type: repr.Int8}}}
		}
		outputs[i] = len(want) + len(casts)
		casts = append(casts, s)
	}
	if len(casts) == 0 {
		return outer, true
	}
	return expr.Project{Input: expr.Map{Input: outer, Scalars: casts}, Outputs: outputs}, true
}

// groupsByUniqueKey reports whether r reads a table, through filters and
// maps, that has a unique key within cols (columns of r).
func groupsByUniqueKey(r expr.Relation, cols []int, keys tableKeys) bool {
	table, ok := chainedGet(r)
	return ok && slices.ContainsFunc(keys.unique[table.ID], func(k []int) bool {
		return !slices.ContainsFunc(k, func(c int) bool { return !slices.Contains(cols, c) })
	})
}

// chainedGet returns the Get that r reads through filters and maps, which
// keep its columns where they are.
func chainedGet(r expr.Relation) (expr.Get, bool) {
	for {
		switch n := r.(type) {
		case expr.Filter:
			r = n.Input
		case expr.Map:
			r = n.Input
		case expr.Get:
			return n, true
		default:
			return expr.Get{}, false
		}
	}
}
