package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// windowFuncs are the window functions the planner supports, besides
// the aggregates of windowAggs.
var windowFuncs = map[string]expr.WindowFunc{"row_number": expr.RowNumber, "rank": expr.Rank, "dense_rank": expr.DenseRank,
	"percent_rank": expr.PercentRank, "cume_dist": expr.CumeDist, "ntile": expr.Ntile, "lag": expr.Lag, "lead": expr.Lead,
	"first_value": expr.FirstValue, "last_value": expr.LastValue, "nth_value": expr.NthValue}

// windowAggs are the aggregates that run as window functions; avg is sum
// over count.
var windowAggs = map[string]expr.AggregateFunc{"count": expr.Count, "sum": expr.Sum, "min": expr.Min, "max": expr.Max, "avg": expr.Sum}

// selectListWindows returns the window function calls of a select list
// and ORDER BY at this query level (not inside subqueries).
func selectListWindows(lists ...[]*pg.Node) []*pg.FuncCall {
	var out []*pg.FuncCall
	for _, list := range lists {
		for _, n := range list {
			walkNodes(n, func(n *pg.Node) bool {
				switch x := n.GetNode().(type) {
				case *pg.Node_SubLink:
					return false
				case *pg.Node_FuncCall:
					if x.FuncCall.Over != nil {
						out = append(out, x.FuncCall)
						return false
					}
				}
				return true
			})
		}
	}
	return out
}

// bindWindows computes the window functions called in the select list
// and ORDER BY of stmt over rel, the rows of FROM and WHERE, in a query
// that does not aggregate: the calls then read the Windows' columns
// (b.callColumns). In a query that aggregates, windows run over the
// groups (bindSelect, with planWindows and applyWindows), and this does
// nothing.
func (b *binder) bindWindows(stmt *pg.SelectStmt, rel hrel, sc *scope) (hrel, error) {
	if queryAggregates(stmt) {
		return rel, nil
	}
	ctx := &exprCtx{scope: sc, clause: "window definitions"}
	specs, err := b.planWindows(stmt, func(n *pg.Node) (hscalar, error) { return b.bindExpr(n, ctx) })
	if err != nil || len(specs) == 0 {
		return rel, err
	}
	rel, cols := applyWindows(rel, specs)
	for fc, s := range cols {
		b.callColumns[fc] = s
	}
	return rel, nil
}

// queryAggregates reports whether a query level groups its rows.
func queryAggregates(stmt *pg.SelectStmt) bool {
	var sortNodes []*pg.Node
	for _, n := range stmt.SortClause {
		sortNodes = append(sortNodes, n.GetSortBy().Node)
	}
	return len(stmt.GroupClause) > 0 || stmt.HavingClause != nil || containsAggregate(stmt.TargetList) || containsAggregate(sortNodes)
}

// windowSpec is one window definition of a query, bound: its partition
// and order expressions and the calls over it.
type windowSpec struct {
	parts      []hscalar
	orderExprs []hscalar
	orders     []expr.ColumnOrder // Column is set by applyWindows
	calls      []windowCall
	fcs        []*pg.FuncCall
}

// planWindows binds the window function calls of stmt's select list and
// ORDER BY, grouped by their window definition; bind binds each
// expression of a definition or argument in the query's scope. Named
// windows (WINDOW w AS (...), OVER w, OVER (w ORDER BY ...)) resolve to
// their definitions. Frames are ROWS with constant offsets, or RANGE
// without offsets; not GROUPS or EXCLUDE.
func (b *binder) planWindows(stmt *pg.SelectStmt, bind func(*pg.Node) (hscalar, error)) ([]windowSpec, error) {
	var sortNodes []*pg.Node
	for _, n := range stmt.SortClause {
		sortNodes = append(sortNodes, n.GetSortBy().Node)
	}
	calls := selectListWindows(stmt.TargetList, sortNodes)
	named, err := b.namedWindows(stmt)
	if err != nil || len(calls) == 0 {
		// Definitions no call uses are still checked, as PostgreSQL does.
		return nil, err
	}
	// Group the calls by their window definition.
	var defs []*pg.WindowDef
	var groups [][]*pg.FuncCall
	for _, fc := range calls {
		name, err := funcName(fc)
		if err != nil {
			return nil, errorAt(err, b.sql, fc.Location)
		}
		_, isWindow := windowFuncs[name]
		_, isAgg := windowAggs[name]
		switch {
		case !isWindow && !isAgg && aggregateNames[name]:
			return nil, errorAt(unsupported("aggregate %s as a window function", name), b.sql, fc.Location)
		case !isWindow && !isAgg:
			return nil, errorAt(unsupported("window function %s", name), b.sql, fc.Location)
		case fc.AggDistinct:
			return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "DISTINCT is not implemented for window functions"), b.sql, fc.Location)
		case len(fc.AggOrder) > 0:
			return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions"), b.sql, fc.Location)
		case fc.AggFilter != nil && !isAgg:
			return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "FILTER is not implemented for non-aggregate window functions"), b.sql, fc.Location)
		case fc.AggStar && name != "count":
			return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "%s(*) specified, but %s is not a parameterless aggregate function", name, name), b.sql, fc.Location)
		}
		w, err := resolveWindow(fc.Over, named, true)
		if err != nil {
			return nil, errorAt(err, b.sql, fc.Over.Location)
		}
		key := stripNodeLocations(&pg.Node{Node: &pg.Node_WindowDef{WindowDef: w}})
		found := false
		for i, d := range defs {
			if proto.Equal(stripNodeLocations(&pg.Node{Node: &pg.Node_WindowDef{WindowDef: d}}), key) {
				groups[i] = append(groups[i], fc)
				found = true
				break
			}
		}
		if !found {
			defs = append(defs, w)
			groups = append(groups, []*pg.FuncCall{fc})
		}
	}
	if b.callColumns == nil {
		b.callColumns = map[*pg.FuncCall]hscalar{}
	}
	var specs []windowSpec
	for i, w := range defs {
		var spec windowSpec
		for _, p := range w.PartitionClause {
			s, err := bind(p)
			if err != nil {
				return nil, err
			}
			spec.parts = append(spec.parts, s)
		}
		for _, n := range w.OrderClause {
			sb := n.GetSortBy()
			if len(sb.UseOp) > 0 {
				return nil, errorAt(unsupported("ORDER BY USING"), b.sql, sb.Location)
			}
			s, err := bind(sb.Node)
			if err != nil {
				return nil, err
			}
			spec.orderExprs = append(spec.orderExprs, s)
			desc, nullsFirst := sortDirection(sb)
			spec.orders = append(spec.orders, expr.ColumnOrder{Desc: desc, NullsFirst: nullsFirst})
		}
		for _, s := range append(slices.Clone(spec.parts), spec.orderExprs...) {
			if hasSubquery(s) {
				return nil, unsupported("subqueries in window definitions")
			}
			if s.typ().Type.Kind() == repr.KindUnknown {
				return nil, sqlerr.New(sqlerr.IndeterminateDatatype, "could not determine the type of a window's PARTITION BY or ORDER BY expression")
			}
		}
		frame, err := b.windowFrame(w)
		if err != nil {
			return nil, err
		}
		for _, fc := range groups[i] {
			c, err := b.bindWindowCall(fc, frame, bind)
			if err != nil {
				return nil, errorAt(err, b.sql, fc.Location)
			}
			for _, a := range c.args {
				if hasSubquery(a) {
					return nil, errorAt(unsupported("subqueries in window function arguments"), b.sql, fc.Location)
				}
			}
			spec.calls = append(spec.calls, c)
			spec.fcs = append(spec.fcs, fc)
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

// applyWindows appends to rel, for each window definition, its partition,
// order and argument expressions and a Window over them, and returns the
// scalar over the result that each call reads.
func applyWindows(rel hrel, specs []windowSpec) (hrel, map[*pg.FuncCall]hscalar) {
	out := map[*pg.FuncCall]hscalar{}
	for _, spec := range specs {
		exprs := append(append([]hscalar(nil), spec.parts...), spec.orderExprs...)
		first := make([]int, len(spec.calls))
		for j, c := range spec.calls {
			first[j] = len(exprs)
			exprs = append(exprs, c.args...)
		}
		width := len(rel.types())
		var cols []int
		rel, cols = mapOutputs(rel, append(identityColumns(rel), exprs...))
		cols = cols[width:]
		nParts := len(spec.parts)
		orders := slices.Clone(spec.orders)
		for j := range orders {
			orders[j].Column = cols[nParts+j]
		}
		var funcs []expr.WindowCall
		for j, c := range spec.calls {
			call := c.call
			call.Args = nil
			for k := range c.args {
				call.Args = append(call.Args, cols[first[j]+k])
			}
			funcs = append(funcs, call)
			if c.avg {
				// avg is sum over count, in numeric (float8 for floats).
				cnt := call
				cnt.Agg, cnt.Type = expr.Count, expr.ColumnType{Type: repr.Int8}
				funcs = append(funcs, cnt)
			}
		}
		at := len(rel.types())
		rel = hWindow{input: rel, partition: cols[:nParts], order: orders, funcs: funcs}
		for j, fc := range spec.fcs {
			c := spec.calls[j]
			if !c.avg {
				out[fc] = hColumn{level: 0, index: at, t: c.call.Type}
				at++
				continue
			}
			t := c.avgType()
			sum := hColumn{level: 0, index: at, t: c.call.Type}
			cnt := hColumn{level: 0, index: at + 1, t: expr.ColumnType{Type: repr.Int8}}
			out[fc] = hBinary{fn: expr.Div, left: hCast{arg: sum, to: t.Type}, right: hCast{arg: cnt, to: t.Type}, t: t}
			at += 2
		}
	}
	return rel, out
}

// hWindowRef stands for a window function call of a query that
// aggregates while its select list and ORDER BY are bound: the windows
// run over the groups, which exist only once everything is bound
// (bindSelect then puts the call's column in its place).
type hWindowRef struct {
	call *pg.FuncCall
	t    expr.ColumnType
}

func (r hWindowRef) typ() expr.ColumnType { return r.t }

// resultType is the type of the scalar a call reads.
func (c windowCall) resultType() expr.ColumnType {
	if c.avg {
		return c.avgType()
	}
	return c.call.Type
}

// avgType is the type of an avg: numeric, float8 for floats.
func (c windowCall) avgType() expr.ColumnType {
	if c.args[0].typ().Type.Kind().IsFloat() {
		return expr.ColumnType{Type: repr.Float8, Nullable: true}
	}
	return expr.ColumnType{Type: repr.Numeric, Nullable: true}
}

// replaceWindowRefs puts each call's scalar (cols) in place of its
// hWindowRef in s.
func replaceWindowRefs(s hscalar, cols map[*pg.FuncCall]hscalar) hscalar {
	if r, ok := s.(hWindowRef); ok {
		return cols[r.call]
	}
	cs := scalarChildren(s)
	if len(cs) == 0 {
		return s
	}
	ncs := make([]hscalar, len(cs))
	for i, c := range cs {
		ncs[i] = replaceWindowRefs(c, cols)
	}
	return withScalarChildren(s, ncs)
}

// windowCall is a window function call being bound: the call, its
// argument expressions (their columns are filled in once mapped), and
// whether it is an avg (a sum, then a count of the same argument).
type windowCall struct {
	call expr.WindowCall
	args []hscalar
	avg  bool
}

// bindWindowCall binds a window function call's arguments and result
// type, as PostgreSQL 15 types them.
func (b *binder) bindWindowCall(fc *pg.FuncCall, frame expr.Frame, bind func(*pg.Node) (hscalar, error)) (windowCall, error) {
	name, _ := funcName(fc)
	var args []hscalar
	for _, a := range fc.Args {
		s, err := bind(a)
		if err != nil {
			return windowCall{}, err
		}
		args = append(args, s)
	}
	wrong := func() (windowCall, error) { return windowCall{}, errNoFunction(name, args) }
	toInt4 := func(i int) error {
		s, ok, err := b.coerce(args[i], repr.Int4, repr.CastImplicit)
		if err != nil {
			return err
		}
		if !ok {
			return errNoFunction(name, args)
		}
		args[i] = s
		return nil
	}
	// value resolves the type of a value argument: an untyped literal is
	// text, as in PostgreSQL.
	value := func(i int) error {
		if args[i].typ().Type.Kind() == repr.KindUnknown {
			s, err := b.coerceTo(args[i], repr.Text)
			if err != nil {
				return err
			}
			args[i] = s
		}
		return nil
	}
	if agg, ok := windowAggs[name]; ok {
		if fc.AggStar {
			args = []hscalar{hLiteral{v: repr.NewBool(true), t: repr.Bool}}
		} else if len(args) != 1 {
			return wrong()
		} else {
			a, err := b.aggregateArg(name, args[0])
			if err != nil {
				return windowCall{}, err
			}
			args[0] = a
		}
		if fc.AggFilter != nil {
			p, err := bind(fc.AggFilter)
			if err != nil {
				return windowCall{}, err
			}
			if p, err = b.coerceBool(p, "FILTER"); err != nil {
				return windowCall{}, err
			}
			args[0] = filtered(args[0], p)
		}
		t := aggResultType(hAgg{name: name, arg: args[0]})
		if name == "avg" {
			t = aggregateType(expr.Sum, args[0].typ().Type).Type
		}
		return windowCall{call: expr.WindowCall{Func: expr.WindowAgg, Agg: agg, Frame: frame,
			Type: expr.ColumnType{Type: t, Nullable: name != "count"}}, args: args, avg: name == "avg"}, nil
	}
	f := windowFuncs[name]
	call := expr.WindowCall{Func: f, Frame: frame}
	switch f {
	case expr.RowNumber, expr.Rank, expr.DenseRank, expr.PercentRank, expr.CumeDist:
		if len(args) != 0 {
			return wrong()
		}
		call.Type = expr.ColumnType{Type: repr.Int8}
		if f == expr.PercentRank || f == expr.CumeDist {
			call.Type = expr.ColumnType{Type: repr.Float8}
		}
	case expr.Ntile:
		if len(args) != 1 {
			return wrong()
		}
		if err := toInt4(0); err != nil {
			return windowCall{}, err
		}
		call.Type = expr.ColumnType{Type: repr.Int4, Nullable: true}
	case expr.Lag, expr.Lead:
		if len(args) < 1 || len(args) > 3 {
			return wrong()
		}
		if len(args) > 1 {
			if err := toInt4(1); err != nil {
				return windowCall{}, err
			}
		}
		if len(args) == 3 {
			// The value and the default resolve to one type.
			both, _, err := b.unify([]hscalar{args[0], args[2]}, name)
			if err != nil {
				return windowCall{}, err
			}
			args[0], args[2] = both[0], both[1]
		}
		if err := value(0); err != nil {
			return windowCall{}, err
		}
		call.Type = expr.ColumnType{Type: args[0].typ().Type, Nullable: true}
	case expr.FirstValue, expr.LastValue, expr.NthValue:
		n := 1
		if f == expr.NthValue {
			n = 2
		}
		if len(args) != n {
			return wrong()
		}
		if f == expr.NthValue {
			if err := toInt4(1); err != nil {
				return windowCall{}, err
			}
		}
		if err := value(0); err != nil {
			return windowCall{}, err
		}
		call.Type = expr.ColumnType{Type: args[0].typ().Type, Nullable: true}
	}
	return windowCall{call: call, args: args}, nil
}

// namedWindows returns the definitions of a query's WINDOW clause by
// name, each resolved against those before it.
func (b *binder) namedWindows(stmt *pg.SelectStmt) (map[string]*pg.WindowDef, error) {
	named := map[string]*pg.WindowDef{}
	for _, n := range stmt.WindowClause {
		w := n.GetWindowDef()
		if _, dup := named[w.Name]; dup {
			return nil, errorAt(sqlerr.New(sqlerr.WindowingError, "window %q is already defined", w.Name), b.sql, w.Location)
		}
		r, err := resolveWindow(w, named, false)
		if err != nil {
			return nil, errorAt(err, b.sql, w.Location)
		}
		named[w.Name] = r
	}
	return named, nil
}

// resolveWindow returns w with the window it names or refers to filled
// in, as PostgreSQL's rules allow: OVER name is that window; OVER (name
// ...) copies its PARTITION BY, and its ORDER BY unless it has none, and
// may not copy a window with a frame.
func resolveWindow(w *pg.WindowDef, named map[string]*pg.WindowDef, call bool) (*pg.WindowDef, error) {
	ref := w.Refname
	if call && w.Name != "" {
		// OVER name: that window, frame and all.
		base, ok := named[w.Name]
		if !ok {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "window %q does not exist", w.Name)
		}
		return base, nil
	}
	if ref == "" {
		out := proto.Clone(w).(*pg.WindowDef)
		out.Name = ""
		return out, nil
	}
	base, ok := named[ref]
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "window %q does not exist", ref)
	}
	if len(w.PartitionClause) > 0 {
		return nil, sqlerr.New(sqlerr.WindowingError, "cannot override PARTITION BY clause of window %q", ref)
	}
	if len(w.OrderClause) > 0 && len(base.OrderClause) > 0 {
		return nil, sqlerr.New(sqlerr.WindowingError, "cannot override ORDER BY clause of window %q", ref)
	}
	if base.FrameOptions&frameNonDefault != 0 {
		return nil, sqlerr.New(sqlerr.WindowingError, "cannot copy window %q because it has a frame clause", ref)
	}
	out := &pg.WindowDef{PartitionClause: base.PartitionClause, OrderClause: base.OrderClause,
		FrameOptions: w.FrameOptions, StartOffset: w.StartOffset, EndOffset: w.EndOffset}
	if len(w.OrderClause) > 0 {
		out.OrderClause = w.OrderClause
	}
	return out, nil
}

// PostgreSQL's frame option bits (nodes/parsenodes.h), as pg_query
// reports them in WindowDef.FrameOptions.
const (
	frameNonDefault              = 0x00001
	frameRange                   = 0x00002
	frameRows                    = 0x00004
	frameGroups                  = 0x00008
	frameStartUnboundedPreceding = 0x00020
	frameEndUnboundedPreceding   = 0x00040
	frameStartUnboundedFollowing = 0x00080
	frameEndUnboundedFollowing   = 0x00100
	frameStartCurrentRow         = 0x00200
	frameEndCurrentRow           = 0x00400
	frameStartOffsetPreceding    = 0x00800
	frameEndOffsetPreceding      = 0x01000
	frameStartOffsetFollowing    = 0x02000
	frameEndOffsetFollowing      = 0x04000
	frameExclude                 = 0x08000 | 0x10000 | 0x20000
)

// windowFrame reads a window definition's frame.
func (b *binder) windowFrame(w *pg.WindowDef) (expr.Frame, error) {
	opts := w.FrameOptions
	if opts&frameNonDefault == 0 {
		return expr.DefaultFrame, nil
	}
	switch {
	case opts&frameGroups != 0:
		return expr.Frame{}, unsupported("GROUPS frames")
	case opts&frameExclude != 0:
		return expr.Frame{}, unsupported("frame exclusion (EXCLUDE)")
	}
	f := expr.Frame{Mode: expr.FrameRange}
	if opts&frameRows != 0 {
		f.Mode = expr.FrameRows
	}
	offset := func(n *pg.Node, which string) (repr.Datum, error) {
		if f.Mode != expr.FrameRows {
			return repr.Null, unsupported("RANGE frames with an offset")
		}
		s, err := b.bindExpr(n, &exprCtx{clause: "window frame"})
		if err != nil {
			return repr.Null, err
		}
		s, ok, err := b.coerce(s, repr.Int8, repr.CastImplicit)
		if err == nil && ok {
			s, err = foldScalar(s)
		}
		if err != nil {
			return repr.Null, err
		}
		l, isLit := s.(hLiteral)
		if !ok || !isLit {
			return repr.Null, unsupported("frame offsets that are not integer constants")
		}
		if l.v.IsNull() {
			return repr.Null, sqlerr.New(sqlerr.NullValueNotAllowed, "frame %s offset must not be null", which)
		}
		if l.v.Int() < 0 {
			return repr.Null, sqlerr.New(sqlerr.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
		}
		return repr.NewInt8(l.v.Int()), nil
	}
	var err error
	switch {
	case opts&frameStartUnboundedPreceding != 0:
		f.Start = expr.UnboundedPreceding
	case opts&frameStartCurrentRow != 0:
		f.Start = expr.CurrentRow
	case opts&frameStartOffsetPreceding != 0:
		f.Start = expr.OffsetPreceding
		f.StartOffset, err = offset(w.StartOffset, "starting")
	case opts&frameStartOffsetFollowing != 0:
		f.Start = expr.OffsetFollowing
		f.StartOffset, err = offset(w.StartOffset, "starting")
	case opts&frameStartUnboundedFollowing != 0:
		return expr.Frame{}, sqlerr.New(sqlerr.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING")
	}
	if err != nil {
		return expr.Frame{}, err
	}
	switch {
	case opts&frameEndUnboundedFollowing != 0:
		f.End = expr.UnboundedFollowing
	case opts&frameEndCurrentRow != 0:
		f.End = expr.CurrentRow
	case opts&frameEndOffsetPreceding != 0:
		f.End = expr.OffsetPreceding
		f.EndOffset, err = offset(w.EndOffset, "ending")
	case opts&frameEndOffsetFollowing != 0:
		f.End = expr.OffsetFollowing
		f.EndOffset, err = offset(w.EndOffset, "ending")
	case opts&frameEndUnboundedPreceding != 0:
		return expr.Frame{}, sqlerr.New(sqlerr.WindowingError, "frame end cannot be UNBOUNDED PRECEDING")
	}
	return f, err
}

// identityColumns are references to every column of rel.
func identityColumns(rel hrel) []hscalar {
	ts := rel.types()
	out := make([]hscalar, len(ts))
	for i, t := range ts {
		out[i] = hColumn{level: 0, index: i, t: t}
	}
	return out
}
