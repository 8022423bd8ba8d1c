package compute

import (
	"bytes"
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
	// first are the predicates of the Filters at the bottom of steps, in
	// the order the steps evaluate them (Rejects). firstPins[i] is the
	// encoding of the constant predicate i pins its column to (pins),
	// which the column's encoding is compared with, or nil; firstRead
	// decodes the columns the other predicates read, and firstEnd is one
	// past the last column a pin compares.
	first     []expr.Scalar
	firstPins []pinned
	firstRead columnReader
	firstEnd  int
	// bounds are what the Filters say of the Get's columns (KeyRanges).
	bounds keyBounds
}

// pinned is a column and the encoding of the constant it must equal.
type pinned struct {
	col int
	enc []byte
}

// PeekOf returns plan as a Peek, if it is one.
func PeekOf(plan expr.Relation) (Peek, bool) {
	get, steps, ok := stepsOverGet(plan)
	if !ok || expr.StepsCallPerRow(steps) {
		// Each of a row's copies needs a call of its own (the
		// dataflow's mfp makes them); a peek reads it once.
		return Peek{}, false
	}
	p := Peek{Get: get, steps: steps, types: reprTypes(get.Types)}
	for _, s := range steps {
		f, ok := s.(expr.Filter)
		if !ok {
			break
		}
		p.first = append(p.first, f.Predicates...)
	}
	var decoded []expr.Scalar
	for _, pr := range p.first {
		var pin pinned
		if c, v, ok := p.pins(pr); ok {
			pin = pinned{col: c, enc: repr.AppendDatum(nil, v)}
			p.firstEnd = max(p.firstEnd, c+1)
		} else {
			decoded = append(decoded, pr)
		}
		p.firstPins = append(p.firstPins, pin)
	}
	if len(decoded) > 0 {
		p.firstRead = newColumnReader(p.types, decoded)
	}
	p.bounds = p.boundsOf()
	return p, true
}

// PeekScratch is the memory Peek.Rejects reuses from row to row: a
// reader's own, as a Peek may be read on several workers at once.
type PeekScratch struct {
	datums []repr.Datum
	raw    [][]byte
}

// Rejects reports whether the Filters at the bottom of the peek's steps
// reject row, where Rows decodes every column and runs every step: a
// predicate that pins a column to a constant compares the column's
// encoding with the constant's (equal values have equal encodings), and
// the others are evaluated with only the columns they read decoded. A
// read that keeps few of the rows it reads spends little on the others.
// A predicate that fails leaves the row to Rows, which raises the error
// where the steps do.
func (p Peek) Rejects(row []byte, scratch *PeekScratch) bool {
	if len(p.first) == 0 {
		return false
	}
	if p.firstEnd > 0 {
		scratch.raw = rawColumns(row, p.firstEnd, scratch.raw)
	}
	decoded := false
	for i, pr := range p.first {
		if pin := p.firstPins[i]; pin.enc != nil {
			if !bytes.Equal(scratch.raw[pin.col], pin.enc) {
				return true
			}
			continue
		}
		if !decoded {
			scratch.datums = p.firstRead.decode(row, scratch.datums)
			decoded = true
		}
		v, err := pr.Eval(scratch.datums)
		if err != nil {
			return false
		}
		if v.IsNull() || !v.Bool() {
			return true
		}
	}
	return false
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

// pins returns the column and the value a predicate `column = constant`
// pins, if pr is one whose constant is not NULL and has the column's
// kind, of a kind whose equal values have equal encodings under the
// same equality as the predicate's (seekKinds).
func (p Peek) pins(pr expr.Scalar) (int, repr.Datum, bool) {
	call, ok := pr.(expr.CallBinary)
	if !ok || call.Func != expr.Eq {
		return 0, repr.Datum{}, false
	}
	if c, v, ok := p.columnAndConstant(call.Left, call.Right); ok {
		return c, v, true
	}
	return p.columnAndConstant(call.Right, call.Left)
}

// seekKinds are the kinds whose `=` is equality of their encodings and
// whose `<` is their encodings' order: integers, numerics (1.0 = 1.00),
// floats (-0 = 0, NaN = NaN and above all else, as in PostgreSQL), text
// in the C collation, and the fixed binary forms.
// Left out: kinds whose `=` is looser than their values (bpchar's
// trailing spaces, interval's units, json) or that are not plain
// values (arrays, records, enums).
var seekKinds = map[repr.Kind]bool{
	repr.KindBool: true, repr.KindInt2: true, repr.KindInt4: true, repr.KindInt8: true,
	repr.KindNumeric: true, repr.KindFloat4: true, repr.KindFloat8: true,
	repr.KindText: true, repr.KindVarchar: true, repr.KindBytea: true, repr.KindUUID: true,
	repr.KindDate: true, repr.KindTimestamp: true, repr.KindTimestampTZ: true,
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
