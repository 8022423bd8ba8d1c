package planner

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Lowering turns HIR into expr, removing every dependent join on the way
// (research §2, Materialize's `branch`). lowerRel(r, outer) returns a
// relation whose first columns are outer's, followed by r's: r evaluated
// once for every row of outer, which holds the values of the enclosing
// queries' columns that r refers to (invariant I1: outer is distinct, so
// a row of the result belongs to exactly one outer row). A subquery S of
// a relation O is lowered under its domain D = Distinct(Project_K O),
// K being the columns of O that S uses, and joined back to O on K.

// lowerer holds the state of one statement's lowering.
type lowerer struct {
	nextID expr.LocalID
	// recursions maps each recursive WITH query being lowered to the
	// local id its step reads the last round under.
	recursions map[int]expr.LocalID
	// params are the final parameter types.
	params []repr.Type
}

func (l *lowerer) fresh() expr.LocalID {
	l.nextID++
	return l.nextID
}

// colMap maps a reference to an enclosing query's column, (level,
// index) with level >= 1 counted from the query being lowered, to a
// column of the outer relation.
type colMap map[[2]int]int

var unitRelation = expr.Constant{Rows: []expr.Row{{Datums: []repr.Datum{}, Diff: 1}}}

// conv returns the converter of scalars at the level whose relation has
// outerArity outer columns first.
func (l *lowerer) conv(outerArity int, cm colMap) *exprConv {
	return &exprConv{params: l.params, col: func(c hColumn) (int, error) {
		if c.level == 0 {
			return outerArity + c.index, nil
		}
		i, ok := cm[[2]int{c.level, c.index}]
		if !ok {
			return 0, sqlerr.AssertionFailedf("no outer column for %s (level %d, #%d)", c.name, c.level, c.index)
		}
		return i, nil
	}}
}

// withOuter returns r crossed with outer, outer's columns first.
func withOuter(outer, r expr.Relation) expr.Relation {
	if len(outer.Typ()) == 0 {
		return r
	}
	return expr.Join{Inputs: []expr.Relation{outer, r}}
}

func (l *lowerer) lowerRel(r hrel, outer expr.Relation, cm colMap) (expr.Relation, error) {
	oa := len(outer.Typ())
	switch r := r.(type) {
	case hConstant:
		c := expr.Constant{Types: r.typ, Rows: make([]expr.Row, 0, len(r.rows))}
		for _, row := range r.rows {
			c.Rows = append(c.Rows, expr.Row{Datums: row, Diff: 1})
		}
		return withOuter(outer, c), nil
	case hGet:
		return withOuter(outer, expr.Get{ID: r.id, Name: r.name, Types: r.typ}), nil
	case hInline:
		return withOuter(outer, l.renumberLets(r.plan)), nil
	case hRecursive:
		// Uncorrelated (bindWith checks): lowered once, over no outer row.
		id := l.fresh()
		if l.recursions == nil {
			l.recursions = map[int]expr.LocalID{}
		}
		l.recursions[r.id] = id
		base, err := l.lowerRel(r.base, unitRelation, colMap{})
		if err != nil {
			return nil, err
		}
		step, err := l.lowerRel(r.step, unitRelation, colMap{})
		if err != nil {
			return nil, err
		}
		return withOuter(outer, expr.Recursive{ID: id, Base: base, Step: step, Distinct: r.distinct}), nil
	case hRecRef:
		id, ok := l.recursions[r.id]
		if !ok {
			return nil, sqlerr.AssertionFailedf("recursive reference %d outside its query", r.id)
		}
		return withOuter(outer, expr.LocalGet{ID: id, Types: r.typ}), nil
	case hMap:
		in, err := l.lowerRel(r.input, outer, cm)
		if err != nil {
			return nil, err
		}
		return l.lowerMap(in, r.scalars, oa, cm)
	case hFilter:
		in, err := l.lowerRel(r.input, outer, cm)
		if err != nil {
			return nil, err
		}
		return l.lowerFilter(in, r.preds, oa, cm)
	case hProject:
		in, err := l.lowerRel(r.input, outer, cm)
		if err != nil {
			return nil, err
		}
		outs := seq(0, oa)
		for _, o := range r.outputs {
			outs = append(outs, oa+o)
		}
		return expr.Project{Input: in, Outputs: outs}, nil
	case hJoin:
		return l.lowerJoin(r, outer, cm)
	case hReduce:
		return l.lowerReduce(r, outer, cm)
	case hTopK:
		in, err := l.lowerRel(r.input, outer, cm)
		if err != nil {
			return nil, err
		}
		group := seq(0, oa)
		for _, k := range r.groupKey {
			group = append(group, oa+k)
		}
		order := make([]expr.ColumnOrder, len(r.order))
		for i, o := range r.order {
			o.Column += oa
			order[i] = o
		}
		return expr.TopK{Input: in, GroupKey: group, Order: order, Limit: r.limit, Offset: r.offset}, nil
	case hWindow:
		in, err := l.lowerRel(r.input, outer, cm)
		if err != nil {
			return nil, err
		}
		// Rows of different outer rows are different partitions.
		part := seq(0, oa)
		for _, k := range r.partition {
			part = append(part, oa+k)
		}
		order := make([]expr.ColumnOrder, len(r.order))
		for i, o := range r.order {
			o.Column += oa
			order[i] = o
		}
		funcs := make([]expr.WindowCall, len(r.funcs))
		for i, f := range r.funcs {
			f.Args = slices.Clone(f.Args)
			for j := range f.Args {
				f.Args[j] += oa
			}
			funcs[i] = f
		}
		return expr.Window{Input: in, PartitionBy: part, Order: order, Funcs: funcs}, nil
	case hDistinct:
		in, err := l.lowerRel(r.input, outer, cm)
		return expr.Distinct{Input: in}, err
	case hNegate:
		in, err := l.lowerRel(r.input, outer, cm)
		return expr.Negate{Input: in}, err
	case hThreshold:
		in, err := l.lowerRel(r.input, outer, cm)
		return expr.Threshold{Input: in}, err
	case hUnion:
		var ins []expr.Relation
		for _, i := range r.inputs {
			in, err := l.lowerRel(i, outer, cm)
			if err != nil {
				return nil, err
			}
			ins = append(ins, in)
		}
		return expr.Union{Inputs: ins}, nil
	case hFlatMap:
		in, err := l.lowerRel(r.input, outer, cm)
		if err != nil {
			return nil, err
		}
		c := l.conv(oa, cm)
		args := make([]expr.Scalar, len(r.args))
		for i, a := range r.args {
			if args[i], err = c.convert(a); err != nil {
				return nil, err
			}
		}
		return expr.FlatMap{Input: in, Func: r.fn, Args: args, Type: r.typ}, nil
	}
	return nil, sqlerr.AssertionFailedf("lower: unknown relation %T", r)
}

// lowerMap appends the scalars to in, whose first oa columns are the
// outer ones. A scalar with subqueries gets their values as extra
// columns first, which are projected away after it.
func (l *lowerer) lowerMap(in expr.Relation, scalars []hscalar, oa int, cm colMap) (expr.Relation, error) {
	cur := in
	var pending []expr.Scalar
	flush := func() {
		if len(pending) > 0 {
			cur = expr.Map{Input: cur, Scalars: pending}
			pending = nil
		}
	}
	c := l.conv(oa, cm)
	for _, s := range scalars {
		if !hasSubquery(s) {
			e, err := c.convert(s)
			if err != nil {
				return nil, err
			}
			pending = append(pending, e)
			continue
		}
		flush()
		n := len(cur.Typ())
		withSubs, e, err := l.lowerScalar(s, cur, oa, cm)
		if err != nil {
			return nil, err
		}
		if c, ok := e.(expr.Column); ok {
			// The scalar is the subquery's value itself.
			cur = expr.Project{Input: withSubs, Outputs: append(seq(0, n), c.Index)}
			continue
		}
		m := len(withSubs.Typ())
		cur = expr.Project{Input: expr.Map{Input: withSubs, Scalars: []expr.Scalar{e}}, Outputs: append(seq(0, n), m)}
	}
	flush()
	return cur, nil
}

// conjuncts flattens a conjunction.
func conjuncts(s hscalar) []hscalar {
	if b, ok := s.(hBinary); ok && b.fn == expr.And {
		return append(conjuncts(b.left), conjuncts(b.right)...)
	}
	return []hscalar{s}
}

// lowerFilter filters in by the predicates, in order. EXISTS and NOT
// EXISTS conjuncts are semijoins and antijoins; other predicates with
// subqueries get the subqueries' values as columns first.
func (l *lowerer) lowerFilter(in expr.Relation, preds []hscalar, oa int, cm colMap) (expr.Relation, error) {
	cur := in
	n := len(in.Typ())
	var pending []expr.Scalar
	flush := func() {
		if len(pending) > 0 {
			cur = expr.Filter{Input: cur, Predicates: pending}
			pending = nil
		}
	}
	c := l.conv(oa, cm)
	for _, p := range preds {
		if !hasSubquery(p) {
			e, err := c.convert(p)
			if err != nil {
				return nil, err
			}
			pending = append(pending, e)
			continue
		}
		flush()
		if ex, ok := p.(hExists); ok {
			var err error
			if cur, err = l.semijoin(cur, ex.rel, false, oa, cm); err != nil {
				return nil, err
			}
			continue
		}
		if not, ok := p.(hUnary); ok && not.fn == expr.Not {
			if ex, ok := not.arg.(hExists); ok {
				var err error
				if cur, err = l.semijoin(cur, ex.rel, true, oa, cm); err != nil {
					return nil, err
				}
				continue
			}
		}
		withSubs, e, err := l.lowerScalar(p, cur, oa, cm)
		if err != nil {
			return nil, err
		}
		cur = expr.Project{Input: expr.Filter{Input: withSubs, Predicates: []expr.Scalar{e}}, Outputs: seq(0, n)}
	}
	flush()
	return cur, nil
}

// domain describes how a subquery sees the relation it is nested in.
type domain struct {
	// keys are the columns of the nesting relation the subquery uses.
	keys []int
	// cm maps the subquery's outer references to columns of the domain
	// relation (the distinct keys).
	cm colMap
}

// domainOf finds the columns of the nesting relation (whose first oa
// columns are its outer ones, mapped by cm) that subquery rel uses.
func domainOf(rel hrel, oa int, cm colMap) (domain, error) {
	refs := freeRefs(rel)
	cols := make([]int, len(refs))
	for i, ref := range refs {
		if ref[0] == 1 {
			cols[i] = oa + ref[1]
			continue
		}
		c, ok := cm[[2]int{ref[0] - 1, ref[1]}]
		if !ok {
			return domain{}, sqlerr.AssertionFailedf("subquery refers to an unknown outer column (level %d, #%d)", ref[0], ref[1])
		}
		cols[i] = c
	}
	keys := slices.Clone(cols)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	d := domain{keys: keys, cm: colMap{}}
	for i, ref := range refs {
		d.cm[ref] = slices.Index(keys, cols[i])
	}
	return d, nil
}

// branch lowers subquery rel nested in the relation get (a reference to
// a Let binding) under its domain. It returns the domain relation D (a
// reference to its own binding, or the unit relation), the lowered
// subquery, and a function that wraps a body in D's binding.
func (l *lowerer) branch(rel hrel, get expr.Relation, oa int, cm colMap) (domain, expr.Relation, expr.Relation, func(expr.Relation) expr.Relation, error) {
	d, err := domainOf(rel, oa, cm)
	if err != nil {
		return d, nil, nil, nil, err
	}
	if len(d.keys) == 0 {
		s, err := l.lowerRel(rel, unitRelation, colMap{})
		return d, unitRelation, s, func(body expr.Relation) expr.Relation { return body }, err
	}
	id := l.fresh()
	value := expr.Distinct{Input: expr.Project{Input: get, Outputs: d.keys}}
	dget := expr.LocalGet{ID: id, Types: value.Typ()}
	s, err := l.lowerRel(rel, dget, d.cm)
	wrap := func(body expr.Relation) expr.Relation { return expr.Let{ID: id, Value: value, Body: body} }
	return d, dget, s, wrap, err
}

// joinOnKeys joins get's rows with the rows of v whose first len(keys)
// columns equal get's key columns, and keeps get's columns followed by
// v's other columns.
func joinOnKeys(get expr.Relation, keys []int, v expr.Relation) expr.Relation {
	n := len(get.Typ())
	if len(keys) == 0 {
		return expr.Join{Inputs: []expr.Relation{get, v}}
	}
	var eqs [][]expr.Scalar
	for j, k := range keys {
		eqs = append(eqs, []expr.Scalar{expr.Column{Index: k}, expr.Column{Index: n + j}})
	}
	outs := append(seq(0, n), seq(n+len(keys), n+len(v.Typ()))...)
	return expr.Project{Input: expr.Join{Inputs: []expr.Relation{get, v}, Equivalences: eqs}, Outputs: outs}
}

// semijoin keeps the rows of cur for which subquery rel has a row (an
// antijoin, with negated, keeps the others).
func (l *lowerer) semijoin(cur expr.Relation, rel hrel, negated bool, oa int, cm colMap) (expr.Relation, error) {
	id := l.fresh()
	get := expr.LocalGet{ID: id, Types: cur.Typ()}
	d, _, s, wrap, err := l.branch(rel, get, oa, cm)
	if err != nil {
		return nil, err
	}
	matches := expr.Distinct{Input: expr.Project{Input: s, Outputs: seq(0, len(d.keys))}}
	var body expr.Relation = joinOnKeys(get, d.keys, matches)
	if negated {
		// The semijoin is a sub-multiset of cur (I3).
		body = expr.Union{Inputs: []expr.Relation{get, expr.Negate{Input: body}}}
	}
	return expr.Let{ID: id, Value: cur, Body: wrap(body)}, nil
}

// lowerScalar lowers s over cur, whose first oa columns are the outer
// ones: each subquery of s becomes a column appended to cur. It returns
// the extended relation and s over it.
func (l *lowerer) lowerScalar(s hscalar, cur expr.Relation, oa int, cm colMap) (expr.Relation, expr.Scalar, error) {
	var replace func(s hscalar) (hscalar, error)
	replace = func(s hscalar) (hscalar, error) {
		if c, ok := s.(hIf); ok && (hasSubquery(c.then) || hasSubquery(c.els)) {
			next, col, err := l.applyCase(c, cur, oa, cm)
			if err != nil {
				return nil, err
			}
			cur = next
			return hColumn{level: 0, index: col - oa, t: s.typ()}, nil
		}
		if subqueryOf(s) != nil {
			next, col, err := l.applySubquery(s, cur, oa, cm)
			if err != nil {
				return nil, err
			}
			cur = next
			return hColumn{level: 0, index: col - oa, t: s.typ()}, nil
		}
		cs := scalarChildren(s)
		if len(cs) == 0 {
			return s, nil
		}
		ncs := make([]hscalar, len(cs))
		for i, c := range cs {
			n, err := replace(c)
			if err != nil {
				return nil, err
			}
			ncs[i] = n
		}
		return withScalarChildren(s, ncs), nil
	}
	flat, err := replace(s)
	if err != nil {
		return nil, nil, err
	}
	e, err := l.conv(oa, cm).convert(flat)
	return cur, e, err
}

// applyCase appends the value of a CASE whose branches hold subqueries
// to cur: the rows are split by the condition and each branch is
// lowered on its own rows, so that a branch's subquery is evaluated, and
// can fail, only for the rows that take it (research §3.3).
func (l *lowerer) applyCase(c hIf, cur expr.Relation, oa int, cm colMap) (expr.Relation, int, error) {
	n := len(cur.Typ())
	withCond, cond, err := l.lowerScalar(c.cond, cur, oa, cm)
	if err != nil {
		return nil, 0, err
	}
	id := l.fresh()
	get := expr.LocalGet{ID: id, Types: withCond.Typ()}
	isTrue := expr.CallUnary{Func: expr.IsTrue, Arg: cond}
	branch := func(pred expr.Scalar, s hscalar) (expr.Relation, error) {
		rows := expr.Filter{Input: get, Predicates: []expr.Scalar{pred}}
		ext, e, err := l.lowerScalar(s, rows, oa, cm)
		if err != nil {
			return nil, err
		}
		m := len(ext.Typ())
		return expr.Project{Input: expr.Map{Input: ext, Scalars: []expr.Scalar{e}}, Outputs: append(seq(0, n), m)}, nil
	}
	then, err := branch(isTrue, c.then)
	if err != nil {
		return nil, 0, err
	}
	els, err := branch(expr.CallUnary{Func: expr.Not, Arg: isTrue}, c.els)
	if err != nil {
		return nil, 0, err
	}
	return expr.Let{ID: id, Value: withCond, Body: expr.Union{Inputs: []expr.Relation{then, els}}}, n, nil
}

// applySubquery appends the value of a subquery scalar (EXISTS or a
// scalar subquery) to cur and returns the new relation and the column.
func (l *lowerer) applySubquery(sub hscalar, cur expr.Relation, oa int, cm colMap) (expr.Relation, int, error) {
	n := len(cur.Typ())
	id := l.fresh()
	get := expr.LocalGet{ID: id, Types: cur.Typ()}
	rel := subqueryOf(sub)
	d, dom, s, wrap, err := l.branch(rel, get, oa, cm)
	if err != nil {
		return nil, 0, err
	}
	k := len(d.keys)
	var v expr.Relation
	switch sub := sub.(type) {
	case hExists:
		found := expr.Map{Input: expr.Distinct{Input: expr.Project{Input: s, Outputs: seq(0, k)}}, Scalars: []expr.Scalar{expr.Bool(true)}}
		v = l.lookup(dom, found, k, []expr.Scalar{expr.Bool(false)}, true)
	case hSubquery:
		t := sub.typ().Type
		values := expr.Project{Input: s, Outputs: seq(0, k+1)}
		if exactlyOneRow(rel) {
			// A global aggregate has its row for every domain row already.
			v = values
			break
		}
		if maxOneRow(rel) {
			v = l.lookup(dom, values, k, []expr.Scalar{expr.NullOf(t)}, true)
			break
		}
		// A second row for a key is an error, raised for that key only
		// (research §3.3).
		sid := l.fresh()
		sget := expr.LocalGet{ID: sid, Types: values.Typ()}
		counts := expr.Reduce{Input: sget, GroupKey: columnsOf(seq(0, k)),
			Aggregates: []expr.Aggregate{{Func: expr.Count, Expr: expr.Bool(true)}}}
		tooMany := expr.Filter{Input: counts, Predicates: []expr.Scalar{
			expr.CallBinary{Func: expr.Gt, Left: expr.Column{Index: k}, Right: expr.Literal{Value: repr.NewInt8(1), Type: repr.Int8}}}}
		errs := expr.Project{Input: expr.Map{Input: tooMany, Scalars: []expr.Scalar{
			raise{code: sqlerr.CardinalityViolation, message: "more than one row returned by a subquery used as an expression", typ: t}}},
			Outputs: append(seq(0, k), k+1)}
		v = expr.Let{ID: sid, Value: values, Body: l.lookup(dom, expr.Union{Inputs: []expr.Relation{sget, errs}}, k, []expr.Scalar{expr.NullOf(t)}, false)}
	default:
		return nil, 0, sqlerr.AssertionFailedf("subquery %T left for lowering", sub)
	}
	return expr.Let{ID: id, Value: cur, Body: wrap(joinOnKeys(get, d.keys, v))}, n, nil
}

func columnsOf(cs []int) []expr.Scalar {
	out := make([]expr.Scalar, len(cs))
	for i, c := range cs {
		out[i] = expr.Column{Index: c}
	}
	return out
}

// maxOneRow reports whether r has at most one row per outer row by
// construction: a global aggregate, or a LIMIT of at most one.
func maxOneRow(r hrel) bool {
	switch r := r.(type) {
	case hReduce:
		return len(r.groupKey) == 0
	case hTopK:
		return len(r.groupKey) == 0 && r.limit >= 0 && r.limit <= 1
	case hMap:
		return maxOneRow(r.input)
	case hProject:
		return maxOneRow(r.input)
	case hFilter:
		return maxOneRow(r.input)
	case hDistinct:
		return maxOneRow(r.input)
	case hConstant:
		return len(r.rows) <= 1
	}
	return false
}

// exactlyOneRow reports whether r has exactly one row per outer row by
// construction: a global aggregate, maybe mapped or projected.
func exactlyOneRow(r hrel) bool {
	switch r := r.(type) {
	case hReduce:
		return len(r.groupKey) == 0
	case hMap:
		return exactlyOneRow(r.input)
	case hProject:
		return exactlyOneRow(r.input)
	case hConstant:
		return len(r.rows) == 1
	}
	return false
}

// lookup returns, for every row of the distinct relation d (of k
// columns), the rows of v (k key columns, then values) with its key, or
// d's row with the defaults if v has none: Lookup(D, V, defaults) of
// research §1. unique says v has at most one row per key already.
func (l *lowerer) lookup(d, v expr.Relation, k int, defaults []expr.Scalar, unique bool) expr.Relation {
	id := l.fresh()
	get := expr.LocalGet{ID: id, Types: v.Typ()}
	var keys expr.Relation = expr.Project{Input: get, Outputs: seq(0, k)}
	if !unique {
		keys = expr.Distinct{Input: keys}
	}
	// v's keys come from d (I3), so d minus them counts 0 or 1.
	missing := expr.Map{Input: expr.Union{Inputs: []expr.Relation{d, expr.Negate{Input: keys}}}, Scalars: defaults}
	return expr.Let{ID: id, Value: v, Body: expr.Union{Inputs: []expr.Relation{get, missing}}}
}

// unmatched returns the rows of k, with their multiplicities, that are
// not rows of matched (which has k's columns): k's rows matched by no
// row of an outer join.
func unmatched(k, matched expr.Relation) expr.Relation {
	a := len(k.Typ())
	var eqs [][]expr.Scalar
	for i := 0; i < a; i++ {
		eqs = append(eqs, []expr.Scalar{expr.Column{Index: i}, expr.Column{Index: a + i}})
	}
	absent := expr.Union{Inputs: []expr.Relation{expr.Distinct{Input: k}, expr.Negate{Input: expr.Distinct{Input: matched}}}}
	return expr.Project{Input: expr.Join{Inputs: []expr.Relation{absent, k}, Equivalences: eqs}, Outputs: seq(a, 2*a)}
}

func nulls(ts []expr.ColumnType) []expr.Scalar {
	out := make([]expr.Scalar, len(ts))
	for i, t := range ts {
		out[i] = expr.NullOf(t.Type)
	}
	return out
}

// lowerJoin lowers a join: the inner join is a filtered product; an
// outer join adds the rows of a side that no row of the inner join
// matched, padded with NULLs (research §3.2). The right side of a
// LATERAL join is a subquery of the left: the product is the left's rows
// joined with the right lowered under its domain.
func (l *lowerer) lowerJoin(j hJoin, outer expr.Relation, cm colMap) (expr.Relation, error) {
	oa := len(outer.Typ())
	left, err := l.lowerRel(j.left, outer, cm)
	if err != nil {
		return nil, err
	}
	lid := l.fresh()
	lin := expr.LocalGet{ID: lid, Types: left.Typ()}
	la := len(lin.Typ())
	var product, right, rin expr.Relation
	var rid expr.LocalID
	if j.lateral {
		d, _, s, wrap, err := l.branch(j.right, lin, oa, cm)
		if err != nil {
			return nil, err
		}
		product = wrap(joinOnKeys(lin, d.keys, s))
	} else {
		if right, err = l.lowerRel(j.right, outer, cm); err != nil {
			return nil, err
		}
		rid = l.fresh()
		rin = expr.LocalGet{ID: rid, Types: right.Typ()}
		ra := len(rin.Typ())
		product = expr.Join{Inputs: []expr.Relation{lin, rin}}
		if oa > 0 {
			// Both sides start with the outer columns: match them, keep one.
			var eqs [][]expr.Scalar
			for i := 0; i < oa; i++ {
				eqs = append(eqs, []expr.Scalar{expr.Column{Index: i}, expr.Column{Index: la + i}})
			}
			product = expr.Project{Input: expr.Join{Inputs: []expr.Relation{lin, rin}, Equivalences: eqs},
				Outputs: append(seq(0, la), seq(la+oa, la+ra)...)}
		}
	}
	joined := product
	if j.on != nil {
		if joined, err = l.lowerFilter(product, conjuncts(j.on), oa, cm); err != nil {
			return nil, err
		}
	}
	bind := func(body expr.Relation) expr.Relation {
		if right != nil {
			body = expr.Let{ID: rid, Value: right, Body: body}
		}
		return expr.Let{ID: lid, Value: left, Body: body}
	}
	if j.kind == joinInner {
		return bind(joined), nil
	}
	jid := l.fresh()
	jget := expr.LocalGet{ID: jid, Types: joined.Typ()}
	lt, jt := lin.Typ(), joined.Typ()
	rl := len(jt) - la // the right side's own columns
	outs := []expr.Relation{jget}
	if j.kind == joinLeft || j.kind == joinFull {
		matched := expr.Project{Input: jget, Outputs: seq(0, la)}
		outs = append(outs, expr.Map{Input: unmatched(lin, matched), Scalars: nulls(jt[la:])})
	}
	if j.kind == joinRight || j.kind == joinFull {
		ra := oa + rl
		matched := expr.Project{Input: jget, Outputs: append(seq(0, oa), seq(la, la+rl)...)}
		padded := expr.Map{Input: unmatched(rin, matched), Scalars: nulls(lt[oa:])}
		outs = append(outs, expr.Project{Input: padded, Outputs: append(append(seq(0, oa), seq(ra, ra+la-oa)...), seq(oa, ra)...)})
	}
	return bind(expr.Let{ID: jid, Value: joined, Body: expr.Union{Inputs: outs}}), nil
}

// lowerReduce groups by the outer columns and the group key. A global
// aggregate (no group key) has its one row per outer row even over no
// input: count 0, other aggregates NULL (research §4.3).
func (l *lowerer) lowerReduce(r hReduce, outer expr.Relation, cm colMap) (expr.Relation, error) {
	oa := len(outer.Typ())
	in, err := l.lowerRel(r.input, outer, cm)
	if err != nil {
		return nil, err
	}
	args := make([]hscalar, len(r.aggs))
	for i, a := range r.aggs {
		args[i] = a.arg
	}
	var orders []expr.Scalar // every aggregate's ORDER BY, in turn
	c := l.conv(oa, cm)
	filters := make([]expr.Scalar, len(r.aggs))
	for i, a := range r.aggs {
		if a.filter == nil {
			continue
		}
		if hasSubquery(a.filter) {
			return nil, unsupported("subqueries in the FILTER of array_agg")
		}
		if filters[i], err = c.convert(a.filter); err != nil {
			return nil, err
		}
	}
	for _, a := range r.aggs {
		for _, o := range a.order {
			if hasSubquery(o.s) {
				return nil, unsupported("subqueries in an aggregate's ORDER BY")
			}
			e, err := c.convert(o.s)
			if err != nil {
				return nil, err
			}
			orders = append(orders, e)
		}
	}
	// Arguments with subqueries are computed into columns first.
	var exprs []expr.Scalar
	for _, a := range args {
		if hasSubquery(a) {
			n := len(in.Typ())
			if in, err = l.lowerMap(in, args, oa, cm); err != nil {
				return nil, err
			}
			exprs = columnsOf(seq(n, n+len(args)))
			break
		}
	}
	if exprs == nil {
		c := l.conv(oa, cm)
		for _, a := range args {
			e, err := c.convert(a)
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, e)
		}
	}
	key := columnsOf(seq(0, oa))
	for _, k := range r.groupKey {
		key = append(key, expr.Column{Index: oa + k})
	}
	red := expr.Reduce{Input: in, GroupKey: key}
	for i, a := range r.aggs {
		ag := expr.Aggregate{Func: a.fn, Expr: exprs[i], Distinct: a.distinct, Delimiter: a.delim, Fraction: a.fraction, Desc: a.desc, Filter: filters[i]}
		for _, o := range a.order {
			ag.Order = append(ag.Order, expr.AggregateOrder{Expr: orders[0], Desc: o.desc, NullsFirst: o.nullsFirst})
			orders = orders[1:]
		}
		red.Aggregates = append(red.Aggregates, ag)
	}
	if len(r.groupKey) > 0 {
		return red, nil
	}
	defaults := make([]expr.Scalar, len(r.aggs))
	for i, a := range r.aggs {
		if a.fn == expr.Count {
			defaults[i] = expr.Literal{Value: repr.NewInt8(0), Type: repr.Int8}
		} else {
			defaults[i] = expr.NullOf(aggregateType(a.fn, a.arg.typ().Type).Type)
		}
	}
	return l.lookup(outer, red, oa, defaults, true), nil
}
