package compute

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// Peek is a plan that reads one arrangement through a chain of Map,
// Filter and Project only: it can be answered by reading the
// arrangement's trace at the read time, without building a dataflow.
type Peek struct {
	// Get is the arrangement read.
	Get expr.Get
	// steps apply bottom-up to each row of the arrangement.
	steps []expr.Relation
	// types are the arrangement's column types, as Get's.
	types []repr.Type
}

// PeekOf returns plan as a Peek, if it is one.
func PeekOf(plan expr.Relation) (Peek, bool) {
	get, steps, ok := stepsOverGet(plan)
	if !ok || expr.StepsCallPerRow(steps) {
		// Each of a row's copies needs a call of its own (the
		// dataflow's mfp makes them); a peek reads it once.
		return Peek{}, false
	}
	return Peek{Get: get, steps: steps, types: reprTypes(get.Types)}, true
}

// stepsOverGet returns the Get under plan and the Map, Filter and
// Project steps over it, bottom-up, and reports whether plan is such a
// chain over a Get.
func stepsOverGet(plan expr.Relation) (expr.Get, []expr.Relation, bool) {
	steps, node := mapFilterProject(plan)
	get, ok := node.(expr.Get)
	return get, steps, ok
}

// mapFilterProject returns the Map, Filter and Project steps at the top
// of plan, bottom-up, and the relation under them.
func mapFilterProject(plan expr.Relation) ([]expr.Relation, expr.Relation) {
	var steps []expr.Relation
	node := plan
	for {
		switch n := node.(type) {
		case expr.Map:
			steps, node = append(steps, n), n.Input
		case expr.Filter:
			steps, node = append(steps, n), n.Input
		case expr.Project:
			steps, node = append(steps, n), n.Input
		default:
			slices.Reverse(steps)
			return steps, node
		}
	}
}

// Rows evaluates the peek's steps over one row of the arrangement (its
// packed bytes), appending the results to dst.
func (p Peek) Rows(row []byte, dst [][]repr.Datum) ([][]repr.Datum, error) {
	ds := decode(repr.Row(row).Prefix(len(p.types)), p.types, make([]repr.Datum, 0, len(p.types)))
	if len(p.steps) == 0 {
		return append(dst, ds), nil
	}
	out, err := applySteps(p.steps, [][]repr.Datum{ds})
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// FoldConstant returns the rows of plan as a Constant when plan is Map,
// Filter and Project steps over a Constant (a SELECT of expressions and
// no FROM, the casts over an INSERT's VALUES), so that a read of it
// needs no dataflow. It declines when a step calls a function per row
// (random(), nextval), whose values a dataflow draws a copy at a time,
// and when a step fails on a row: the dataflow reports the error as it
// does for any plan.
func FoldConstant(plan expr.Relation) (expr.Constant, bool) {
	steps, node := mapFilterProject(plan)
	c, ok := node.(expr.Constant)
	if !ok || len(steps) == 0 || expr.StepsCallPerRow(steps) || expr.Check(plan) != nil {
		return expr.Constant{}, false
	}
	out := expr.Constant{Types: plan.Typ()}
	for _, r := range c.Rows {
		if r.Diff == 0 {
			continue
		}
		rows, err := applySteps(steps, [][]repr.Datum{r.Datums})
		if err != nil {
			return expr.Constant{}, false
		}
		for _, ds := range rows {
			out.Rows = append(out.Rows, expr.Row{Datums: ds, Diff: r.Diff})
		}
	}
	return out, true
}
