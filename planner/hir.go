package planner

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// The high-level plan (HIR) is what binding produces: relational nodes
// like expr's, but whose scalars may hold subqueries and may refer to the
// columns of enclosing queries. Lowering (lower.go) decorrelates it into
// expr. HIR nodes are immutable values; a subtree may be shared.

// hrel is a relation of the HIR.
type hrel interface {
	// types returns the output's column types.
	types() []expr.ColumnType
}

// hConstant is a fixed collection, each row once.
type hConstant struct {
	rows [][]repr.Datum
	typ  []expr.ColumnType
}

// hGet reads a catalog collection.
type hGet struct {
	id   expr.GlobalID
	name string
	typ  []expr.ColumnType
}

// hInline is a view's plan, given by the catalog, read in place.
type hInline struct{ plan expr.Relation }

// hMap appends one column per scalar; each scalar sees the columns
// appended before it.
type hMap struct {
	input   hrel
	scalars []hscalar
}

// hFilter keeps the rows where every predicate is TRUE.
type hFilter struct {
	input hrel
	preds []hscalar
}

// hProject keeps the listed columns.
type hProject struct {
	input   hrel
	outputs []int
}

type joinKind uint8

const (
	joinInner joinKind = iota
	joinLeft
	joinRight
	joinFull
)

// hJoin joins two relations on a predicate over their concatenated
// columns (nil: no predicate). Outer joins pad unmatched rows with NULLs.
type hJoin struct {
	left, right hrel
	on          hscalar
	kind        joinKind
	// lateral says right is evaluated for each row of left (LATERAL):
	// it is bound one query level deeper, and refers to left's columns
	// at level 1. Only inner and left joins are lateral.
	lateral bool
}

// hReduce groups its input by the groupKey columns and appends the
// aggregates. With an empty groupKey it is SQL's global aggregate: one
// row even over no input, with count 0 and other aggregates NULL.
type hReduce struct {
	input    hrel
	groupKey []int
	aggs     []hAggregate
}

// hAggregate is one aggregate of an hReduce, over the input's columns.
type hAggregate struct {
	fn       expr.AggregateFunc
	arg      hscalar
	distinct bool
	delim    string // string_agg's delimiter
	order    []hAggOrder
	// fraction and desc are an ordered-set aggregate's (hAgg).
	fraction float64
	desc     bool
	// filter is FILTER's predicate for an aggregate that keeps NULLs
	// (array_agg); the others see NULL for a filtered row (filtered).
	filter hscalar
	// grouping, when not nil, makes this no aggregate but a GROUPING()
	// call of these keys, whose value each grouping set fixes
	// (grouping.reduce); fn and arg are then unused.
	grouping []int
}

// hRecursive is a recursive WITH query: base's rows, then step's over
// the last round's rows (hRecRef id within step) until a round adds
// none (expr.Recursive).
type hRecursive struct {
	id         int
	base, step hrel
	distinct   bool
}

// hRecRef is the recursive WITH query's reference to itself, inside its
// step: the rows of the last round.
type hRecRef struct {
	id  int
	typ []expr.ColumnType
}

func (r hRecursive) types() []expr.ColumnType {
	ts := append([]expr.ColumnType(nil), r.base.types()...)
	for i, t := range r.step.types() {
		if i < len(ts) {
			ts[i].Nullable = ts[i].Nullable || t.Nullable
		}
	}
	return ts
}

func (r hRecRef) types() []expr.ColumnType { return r.typ }

// hGrouping is GROUPING(args) as bound, before ungroup places it.
type hGrouping struct {
	args []hscalar
}

func (hGrouping) typ() expr.ColumnType { return expr.ColumnType{Type: repr.Int4} }

// hAggOrder is one ORDER BY item inside an aggregate call, over the
// input's columns.
type hAggOrder struct {
	s                hscalar
	desc, nullsFirst bool
}

// hTopK keeps rows offset..offset+limit-1 (all after offset if limit < 0)
// per group, in order.
type hTopK struct {
	input    hrel
	groupKey []int
	order    []expr.ColumnOrder
	limit    int64
	offset   int64
}

// hWindow appends window function calls' values to each row of input
// (expr.Window).
type hWindow struct {
	input     hrel
	partition []int
	order     []expr.ColumnOrder
	funcs     []expr.WindowCall
}

type hDistinct struct{ input hrel }

type hNegate struct{ input hrel }

type hThreshold struct{ input hrel }

type hUnion struct{ inputs []hrel }

// hFlatMap appends the column of a table function of each row.
type hFlatMap struct {
	input hrel
	fn    expr.TableFunc
	args  []hscalar
	typ   repr.Type
}

func (r hConstant) types() []expr.ColumnType { return r.typ }
func (r hGet) types() []expr.ColumnType      { return r.typ }
func (r hInline) types() []expr.ColumnType   { return r.plan.Typ() }

func (r hMap) types() []expr.ColumnType {
	ts := append([]expr.ColumnType(nil), r.input.types()...)
	for _, s := range r.scalars {
		ts = append(ts, s.typ())
	}
	return ts
}

func (r hFilter) types() []expr.ColumnType { return r.input.types() }

func (r hProject) types() []expr.ColumnType {
	in := r.input.types()
	ts := make([]expr.ColumnType, len(r.outputs))
	for i, c := range r.outputs {
		ts[i] = in[c]
	}
	return ts
}

func (r hJoin) types() []expr.ColumnType {
	l, rt := r.left.types(), r.right.types()
	ts := make([]expr.ColumnType, 0, len(l)+len(rt))
	for _, t := range l {
		if r.kind == joinRight || r.kind == joinFull {
			t.Nullable = true
		}
		ts = append(ts, t)
	}
	for _, t := range rt {
		if r.kind == joinLeft || r.kind == joinFull {
			t.Nullable = true
		}
		ts = append(ts, t)
	}
	return ts
}

func (r hReduce) types() []expr.ColumnType {
	in := r.input.types()
	var ts []expr.ColumnType
	for _, k := range r.groupKey {
		ts = append(ts, in[k])
	}
	for _, a := range r.aggs {
		ts = append(ts, aggregateType(a.fn, a.arg.typ().Type))
	}
	return ts
}

func (r hTopK) types() []expr.ColumnType { return r.input.types() }
func (r hWindow) types() []expr.ColumnType {
	out := append([]expr.ColumnType(nil), r.input.types()...)
	for _, f := range r.funcs {
		out = append(out, f.Type)
	}
	return out
}
func (r hDistinct) types() []expr.ColumnType  { return r.input.types() }
func (r hNegate) types() []expr.ColumnType    { return r.input.types() }
func (r hThreshold) types() []expr.ColumnType { return r.input.types() }

func (r hUnion) types() []expr.ColumnType {
	ts := append([]expr.ColumnType(nil), r.inputs[0].types()...)
	for _, in := range r.inputs[1:] {
		for i, t := range in.types() {
			ts[i].Nullable = ts[i].Nullable || t.Nullable
		}
	}
	return ts
}

func (r hFlatMap) types() []expr.ColumnType {
	return append(append([]expr.ColumnType(nil), r.input.types()...), expr.ColumnType{Type: r.typ})
}

// aggregateType is the result type of an aggregate over values of type t.
func aggregateType(fn expr.AggregateFunc, t repr.Type) expr.ColumnType {
	return expr.Aggregate{Func: fn, Expr: expr.NullOf(t)}.Typ(nil)
}

// unit is the relation with one row of no columns: the FROM of a SELECT
// without FROM, and the outer relation of a query that is not nested.
var unit = hConstant{rows: [][]repr.Datum{{}}}

// hscalar is a scalar of the HIR.
type hscalar interface {
	typ() expr.ColumnType
}

// hColumn refers to column index of the relation level queries out: 0 is
// the current query's input, 1 the query enclosing it, and so on.
type hColumn struct {
	level, index int
	t            expr.ColumnType
	// name is the column as a message shows it ("t.k").
	name string
}

// hLiteral is a constant. Its type is unknown for string literals and
// NULL whose type context has not decided yet; v is then a string datum
// (or NULL).
type hLiteral struct {
	v repr.Datum
	t repr.Type
}

// hParam is parameter $n; t is its type as far as binding knows it.
type hParam struct {
	n int
	t repr.Type
}

type hUnary struct {
	fn  expr.UnaryFunc
	arg hscalar
	t   expr.ColumnType
}

type hBinary struct {
	fn          expr.BinaryFunc
	left, right hscalar
	t           expr.ColumnType
}

type hVariadic struct {
	fn   expr.VariadicFunc
	args []hscalar
	t    expr.ColumnType
}

type hIf struct {
	cond, then, els hscalar
	t               expr.ColumnType
}

// hCast converts arg to type to; assign selects assignment semantics
// (a too long string is an error rather than truncated).
type hCast struct {
	arg    hscalar
	to     repr.Type
	assign bool
	// zone is the session time zone, for a cast that depends on it.
	zone *repr.Zone
	// labels are the enum's, for a cast to an enum type.
	labels *repr.EnumLabels
}

// hExists is EXISTS (rel).
type hExists struct{ rel hrel }

// hSubquery is a scalar subquery; rel has one column.
type hSubquery struct{ rel hrel }

// hQuantified is `left op ANY (rel)` or, with all, `left op ALL (rel)`;
// rel has one column of left's type. The HIR rewrites replace it before
// lowering (rewrite_hir.go).
type hQuantified struct {
	left hscalar
	op   expr.BinaryFunc
	all  bool
	rel  hrel
}

// hExpr is a scalar the catalog gives (a column default): an expr scalar
// over no columns.
type hExpr struct{ s expr.Scalar }

// hAgg is an aggregate call while a select list, HAVING or ORDER BY is
// bound; grouping (grouping.go) replaces it with a column of the Reduce.
type hAgg struct {
	name     string
	arg      hscalar // nil for count(*)
	distinct bool
	filter   hscalar // nil without FILTER
	delim    string  // string_agg's constant delimiter
	order    []hAggOrder
	// fraction and desc are an ordered-set aggregate's: the percentile
	// (-1 for NULL) and whether WITHIN GROUP orders descending.
	fraction float64
	desc     bool
	loc      int32
}

func (s hColumn) typ() expr.ColumnType { return s.t }
func (s hLiteral) typ() expr.ColumnType {
	return expr.ColumnType{Type: s.t, Nullable: s.v.IsNull()}
}
func (s hParam) typ() expr.ColumnType    { return expr.ColumnType{Type: s.t, Nullable: true} }
func (s hUnary) typ() expr.ColumnType    { return s.t }
func (s hBinary) typ() expr.ColumnType   { return s.t }
func (s hVariadic) typ() expr.ColumnType { return s.t }
func (s hIf) typ() expr.ColumnType       { return s.t }
func (s hCast) typ() expr.ColumnType {
	return expr.ColumnType{Type: s.to, Nullable: s.arg.typ().Nullable}
}
func (s hExists) typ() expr.ColumnType { return expr.ColumnType{Type: repr.Bool} }
func (s hSubquery) typ() expr.ColumnType {
	return expr.ColumnType{Type: s.rel.types()[0].Type, Nullable: true}
}
func (s hQuantified) typ() expr.ColumnType { return expr.ColumnType{Type: repr.Bool, Nullable: true} }
func (s hExpr) typ() expr.ColumnType       { return s.s.Typ(nil) }
func (s hAgg) typ() expr.ColumnType {
	// Only the type of the finished aggregate matters, and grouping
	// computes it; this is what binding sees meanwhile.
	return expr.ColumnType{Type: aggResultType(s), Nullable: s.name != "count"}
}

// scalarChildren returns the scalar operands of s (not subqueries).
func scalarChildren(s hscalar) []hscalar {
	switch s := s.(type) {
	case hUnary:
		return []hscalar{s.arg}
	case hBinary:
		return []hscalar{s.left, s.right}
	case hVariadic:
		return s.args
	case hIf:
		return []hscalar{s.cond, s.then, s.els}
	case hCast:
		return []hscalar{s.arg}
	case hQuantified:
		return []hscalar{s.left}
	case hAgg:
		var cs []hscalar
		if s.arg != nil {
			cs = append(cs, s.arg)
		}
		if s.filter != nil {
			cs = append(cs, s.filter)
		}
		for _, o := range s.order {
			cs = append(cs, o.s)
		}
		return cs
	}
	return nil
}

// mapChildren returns s with each of its scalar operands c replaced by
// f(c).
func mapChildren(s hscalar, f func(hscalar) hscalar) hscalar {
	cs := scalarChildren(s)
	if len(cs) == 0 {
		return s
	}
	ncs := make([]hscalar, len(cs))
	for i, c := range cs {
		ncs[i] = f(c)
	}
	return withScalarChildren(s, ncs)
}

// withScalarChildren returns s with its scalar operands replaced by cs,
// in scalarChildren's order.
func withScalarChildren(s hscalar, cs []hscalar) hscalar {
	switch s := s.(type) {
	case hUnary:
		s.arg = cs[0]
		return s
	case hBinary:
		s.left, s.right = cs[0], cs[1]
		return s
	case hVariadic:
		s.args = cs
		return s
	case hIf:
		s.cond, s.then, s.els = cs[0], cs[1], cs[2]
		return s
	case hCast:
		s.arg = cs[0]
		return s
	case hQuantified:
		s.left = cs[0]
		return s
	case hAgg:
		i := 0
		if s.arg != nil {
			s.arg = cs[i]
			i++
		}
		if s.filter != nil {
			s.filter = cs[i]
			i++
		}
		if len(s.order) > 0 {
			order := slices.Clone(s.order)
			for j := range order {
				order[j].s = cs[i]
				i++
			}
			s.order = order
		}
		return s
	}
	return s
}

// subqueryOf returns the relation of a subquery scalar, or nil.
func subqueryOf(s hscalar) hrel {
	switch s := s.(type) {
	case hExists:
		return s.rel
	case hSubquery:
		return s.rel
	case hQuantified:
		return s.rel
	}
	return nil
}

func withSubquery(s hscalar, r hrel) hscalar {
	switch s := s.(type) {
	case hExists:
		s.rel = r
		return s
	case hSubquery:
		s.rel = r
		return s
	case hQuantified:
		s.rel = r
		return s
	}
	return s
}

// hasSubquery reports whether s holds a subquery.
func hasSubquery(s hscalar) bool {
	if subqueryOf(s) != nil {
		return true
	}
	for _, c := range scalarChildren(s) {
		if hasSubquery(c) {
			return true
		}
	}
	return false
}

// relChildren returns the input relations of r.
func relChildren(r hrel) []hrel {
	switch r := r.(type) {
	case hRecursive:
		return []hrel{r.base, r.step}
	case hMap:
		return []hrel{r.input}
	case hFilter:
		return []hrel{r.input}
	case hProject:
		return []hrel{r.input}
	case hJoin:
		return []hrel{r.left, r.right}
	case hReduce:
		return []hrel{r.input}
	case hTopK:
		return []hrel{r.input}
	case hWindow:
		return []hrel{r.input}
	case hDistinct:
		return []hrel{r.input}
	case hNegate:
		return []hrel{r.input}
	case hThreshold:
		return []hrel{r.input}
	case hUnion:
		return r.inputs
	case hFlatMap:
		return []hrel{r.input}
	}
	return nil
}

// relScalars returns the scalars r evaluates itself, at r's level.
func relScalars(r hrel) []hscalar {
	switch r := r.(type) {
	case hMap:
		return r.scalars
	case hFilter:
		return r.preds
	case hJoin:
		if r.on != nil {
			return []hscalar{r.on}
		}
	case hReduce:
		// The arguments, then every aggregate's ORDER BY scalars and
		// FILTER, in turn.
		ss := make([]hscalar, len(r.aggs))
		for i, a := range r.aggs {
			ss[i] = a.arg
		}
		for _, a := range r.aggs {
			for _, o := range a.order {
				ss = append(ss, o.s)
			}
			if a.filter != nil {
				ss = append(ss, a.filter)
			}
		}
		return ss
	case hFlatMap:
		return r.args
	}
	return nil
}

// withRelParts returns r with its inputs and scalars replaced, in the
// orders of relChildren and relScalars.
func withRelParts(r hrel, ins []hrel, ss []hscalar) hrel {
	switch r := r.(type) {
	case hRecursive:
		r.base, r.step = ins[0], ins[1]
		return r
	case hMap:
		return hMap{input: ins[0], scalars: ss}
	case hFilter:
		return hFilter{input: ins[0], preds: ss}
	case hProject:
		r.input = ins[0]
		return r
	case hJoin:
		r.left, r.right = ins[0], ins[1]
		if r.on != nil {
			r.on = ss[0]
		}
		return r
	case hReduce:
		aggs := make([]hAggregate, len(r.aggs))
		at := len(r.aggs)
		for i, a := range r.aggs {
			a.arg = ss[i]
			if len(a.order) > 0 {
				order := slices.Clone(a.order)
				for j := range order {
					order[j].s = ss[at]
					at++
				}
				a.order = order
			}
			if a.filter != nil {
				a.filter = ss[at]
				at++
			}
			aggs[i] = a
		}
		r.input, r.aggs = ins[0], aggs
		return r
	case hTopK:
		r.input = ins[0]
		return r
	case hWindow:
		r.input = ins[0]
		return r
	case hDistinct:
		return hDistinct{ins[0]}
	case hNegate:
		return hNegate{ins[0]}
	case hThreshold:
		return hThreshold{ins[0]}
	case hUnion:
		return hUnion{ins}
	case hFlatMap:
		r.input, r.args = ins[0], ss
		return r
	}
	return r
}

// refFunc rewrites a column reference found depth subquery levels below
// where the walk started.
type refFunc func(c hColumn, depth int) (hscalar, error)

// mapScalarRefs rebuilds s with f applied to every column reference,
// including those inside subqueries.
func mapScalarRefs(s hscalar, depth int, f refFunc) (hscalar, error) {
	if c, ok := s.(hColumn); ok {
		return f(c, depth)
	}
	if r := subqueryOf(s); r != nil {
		nr, err := mapRelRefs(r, depth+1, f)
		if err != nil {
			return nil, err
		}
		s = withSubquery(s, nr)
	}
	cs := scalarChildren(s)
	if len(cs) == 0 {
		return s, nil
	}
	ncs := make([]hscalar, len(cs))
	for i, c := range cs {
		nc, err := mapScalarRefs(c, depth, f)
		if err != nil {
			return nil, err
		}
		ncs[i] = nc
	}
	return withScalarChildren(s, ncs), nil
}

// mapRelRefs rebuilds r with f applied to every column reference of its
// scalars; r's own scalars are at depth.
func mapRelRefs(r hrel, depth int, f refFunc) (hrel, error) {
	ins := relChildren(r)
	nins := make([]hrel, len(ins))
	for i, in := range ins {
		d := depth
		if j, ok := r.(hJoin); ok && j.lateral && i == 1 {
			d++
		}
		n, err := mapRelRefs(in, d, f)
		if err != nil {
			return nil, err
		}
		nins[i] = n
	}
	ss := relScalars(r)
	nss := make([]hscalar, len(ss))
	for i, s := range ss {
		n, err := mapScalarRefs(s, depth, f)
		if err != nil {
			return nil, err
		}
		nss[i] = n
	}
	return withRelParts(r, nins, nss), nil
}

// freeRefs returns the references in r to columns of the queries
// enclosing r, as (level, index) pairs where level 1 is the query
// immediately enclosing r.
func freeRefs(r hrel) [][2]int {
	var refs [][2]int
	seen := map[[2]int]bool{}
	_, _ = mapRelRefs(r, 1, func(c hColumn, depth int) (hscalar, error) {
		if c.level >= depth {
			ref := [2]int{c.level - depth + 1, c.index}
			if !seen[ref] {
				seen[ref] = true
				refs = append(refs, ref)
			}
		}
		return c, nil
	})
	return refs
}

// lift returns s as seen from one subquery level deeper: every reference
// to a column outside s moves out one level. It is how an expression of
// a query moves into a subquery built around it.
func lift(s hscalar) hscalar {
	out, _ := mapScalarRefs(s, 0, func(c hColumn, depth int) (hscalar, error) {
		if c.level >= depth {
			c.level++
		}
		return c, nil
	})
	return out
}
