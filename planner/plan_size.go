package planner

import "freshet/sqlerr"

// MaxPlanNodes bounds the size of a bound plan, counted as a tree: every
// relation and scalar once for each place it is used. Binding refers to
// one bound operand from several places (the left side of BETWEEN, of
// each comparison of an IN list, of NULLIF), so nesting those in their
// own operand doubles the tree per level while the text and the bound
// plan stay small; the rewrites and lowering that follow copy the tree,
// and would take time and memory exponential in the text. The bound
// leaves room for flat statements far beyond realistic ones (an IN list
// of 300,000 values).
const MaxPlanNodes = 1_000_000

// checkPlanSize returns 54001 if rel, counted as a tree, has more than
// MaxPlanNodes nodes. It stops counting there, so it costs at most
// MaxPlanNodes steps whatever the tree's size.
func checkPlanSize(rel hrel) error {
	budget := MaxPlanNodes
	if !relWithin(rel, &budget) {
		return sqlerr.New(sqlerr.StatementTooComplex, "statement too complex").
			WithDetail("The plan has more than %d expression nodes once shared operands are counted each time they are used.", MaxPlanNodes).
			WithHint("Nest NULLIF, BETWEEN and IN lists less deeply in their own operands, or split the statement.")
	}
	return nil
}

// relWithin spends one unit of budget on r and on every node below it,
// and reports whether the budget lasted.
func relWithin(r hrel, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	for _, in := range relChildren(r) {
		if !relWithin(in, budget) {
			return false
		}
	}
	for _, s := range relScalars(r) {
		if !scalarWithin(s, budget) {
			return false
		}
	}
	return true
}

func scalarWithin(s hscalar, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	if rel := subqueryOf(s); rel != nil && !relWithin(rel, budget) {
		return false
	}
	for _, c := range scalarChildren(s) {
		if !scalarWithin(c, budget) {
			return false
		}
	}
	return true
}
