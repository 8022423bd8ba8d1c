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

// isWindowAgg reports whether an aggregate runs as a window function:
// every aggregate but the ordered-set ones, which PostgreSQL refuses
// OVER a window.
func isWindowAgg(name string) bool { return aggregateNames[name] && !orderedSetNames[name] }

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
// their definitions. Frames are ROWS, RANGE or GROUPS with constant
// offsets, and any EXCLUDE.
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
		isAgg := isWindowAgg(name)
		switch {
		case orderedSetNames[name]:
			return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "OVER is not supported for ordered-set aggregate %s", name), b.sql, fc.Location)
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
		frame, err := b.windowFrame(w, spec.orderExprs)
		if err != nil {
			return nil, err
		}
		for _, fc := range groups[i] {
			c, err := b.bindWindowCall(fc, frame, bind)
			if err != nil {
				return nil, errorAt(err, b.sql, fc.Location)
			}
			for _, p := range c.prims {
				for _, a := range p.args {
					if hasSubquery(a) {
						return nil, errorAt(unsupported("subqueries in window function arguments"), b.sql, fc.Location)
					}
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
		// first[j][k] is the first of the expressions of call j's k-th
		// primitive call's arguments.
		first := make([][]int, len(spec.calls))
		for j, c := range spec.calls {
			for _, p := range c.prims {
				first[j] = append(first[j], len(exprs))
				exprs = append(exprs, p.args...)
			}
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
			for k, p := range c.prims {
				call := p.call
				call.Args = nil
				for a := range p.args {
					call.Args = append(call.Args, cols[first[j][k]+a])
				}
				funcs = append(funcs, call)
			}
		}
		at := len(rel.types())
		rel = hWindow{input: rel, partition: cols[:nParts], order: orders, funcs: funcs}
		for j, fc := range spec.fcs {
			c := spec.calls[j]
			out[fc] = c.over(at)
			at += len(c.prims)
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
	if c.value != nil {
		return c.value.typ()
	}
	return c.prims[0].call.Type
}

// over returns the scalar that reads the call from a Window whose
// output has the call's primitive calls' columns from column at on.
func (c windowCall) over(at int) hscalar {
	if c.value == nil {
		return hColumn{level: 0, index: at, t: c.prims[0].call.Type}
	}
	s, _ := mapScalarRefs(c.value, 0, func(col hColumn, depth int) (hscalar, error) {
		if col.level == depth {
			col.index += at
		}
		return col, nil
	})
	return s
}

// replaceWindowRefs puts each call's scalar (cols) in place of its
// hWindowRef in s.
func replaceWindowRefs(s hscalar, cols map[*pg.FuncCall]hscalar) hscalar {
	if r, ok := s.(hWindowRef); ok {
		return cols[r.call]
	}
	return mapChildren(s, func(c hscalar) hscalar { return replaceWindowRefs(c, cols) })
}

// windowCall is a window function call being bound: the window
// function calls that compute it, and how.
type windowCall struct {
	// prims are the calls a Window computes for it: the call itself, or
	// for an aggregate the primitive aggregates (expr's) it is made of,
	// as a Reduce would make it (aggregateValue).
	prims []windowPrim
	// value computes the call from its prims' values, column k being
	// prims[k]'s; nil when the call is its one prim.
	value hscalar
}

// windowPrim is one call of a Window with its argument expressions
// (their columns are filled in once mapped).
type windowPrim struct {
	call expr.WindowCall
	args []hscalar
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
	if isWindowAgg(name) {
		return b.bindWindowAgg(name, fc, args, frame, bind)
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
	return windowCall{prims: []windowPrim{{call: call, args: args}}}, nil
}

// bindWindowAgg binds aggregate name OVER a window, its arguments args:
// the primitive aggregates of the call, over frame, and the scalar over
// them, as aggregateValue makes it for a Reduce.
func (b *binder) bindWindowAgg(name string, fc *pg.FuncCall, args []hscalar, frame expr.Frame, bind func(*pg.Node) (hscalar, error)) (windowCall, error) {
	agg := hAgg{name: name, loc: fc.Location}
	switch {
	case fc.AggStar:
		args = []hscalar{hLiteral{v: repr.NewBool(true), t: repr.Bool}}
	case name == "string_agg" && len(args) == 2:
		delim, err := b.aggregateArg(name, args[1])
		if err != nil {
			return windowCall{}, err
		}
		lit, ok := delim.(hLiteral)
		if !ok {
			return windowCall{}, unsupported("string_agg with a delimiter that is not a constant")
		}
		if !lit.v.IsNull() {
			agg.delim = repr.FormatText(lit.v)
		}
		args = args[:1]
	case len(args) != 1 || name == "string_agg":
		return windowCall{}, errNoFunction(name, args)
	}
	arg := args[0]
	if !fc.AggStar {
		var err error
		if arg, err = b.aggregateArg(name, arg); err != nil {
			return windowCall{}, err
		}
	}
	agg.arg = arg
	// FILTER is each primitive call's second argument, so that the rows
	// it drops are left out, not NULL (array_agg keeps NULLs).
	var filter hscalar
	if fc.AggFilter != nil {
		p, err := bind(fc.AggFilter)
		if err != nil {
			return windowCall{}, err
		}
		if filter, err = b.coerceBool(p, "FILTER"); err != nil {
			return windowCall{}, err
		}
	}
	var c windowCall
	prim := func(fn expr.AggregateFunc, a hscalar) hColumn {
		t := aggregateType(fn, a.typ().Type)
		for k, p := range c.prims {
			if p.call.Agg == fn && equalScalars(p.args[0], a) {
				return hColumn{level: 0, index: k, t: t}
			}
		}
		call := expr.WindowCall{Func: expr.WindowAgg, Agg: fn, Frame: frame, Type: t}
		if fn == expr.StringAgg {
			call.Delimiter = agg.delim
		}
		args := []hscalar{a}
		if filter != nil {
			args = append(args, filter)
		}
		c.prims = append(c.prims, windowPrim{call: call, args: args})
		return hColumn{level: 0, index: len(c.prims) - 1, t: t}
	}
	v, err := aggregateValue(agg, arg, prim)
	if err != nil {
		return windowCall{}, err
	}
	if col, ok := v.(hColumn); !ok || len(c.prims) != 1 || col.index != 0 {
		c.value = v
	}
	return c, nil
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
	frameExcludeCurrentRow       = 0x08000
	frameExcludeGroup            = 0x10000
	frameExcludeTies             = 0x20000
)

// windowFrame reads a window definition's frame; orderExprs are its
// ORDER BY expressions, bound. Offsets must be constants, as in
// PostgreSQL (which also takes parameters and stable expressions): an
// integer for ROWS and GROUPS, for RANGE a value of the type
// PostgreSQL's in_range support function for the ordering type takes
// (rangeOffsetType). A negative or NULL offset of ROWS or GROUPS, and a
// NULL one of RANGE, fail here, as PostgreSQL fails before reading a
// row; a negative RANGE offset fails when rows are compared (expr).
func (b *binder) windowFrame(w *pg.WindowDef, orderExprs []hscalar) (expr.Frame, error) {
	opts := w.FrameOptions
	if opts&frameNonDefault == 0 {
		return expr.DefaultFrame, nil
	}
	f := expr.Frame{Mode: expr.FrameRange}
	mode := "RANGE"
	switch {
	case opts&frameRows != 0:
		f.Mode, mode = expr.FrameRows, "ROWS"
	case opts&frameGroups != 0:
		f.Mode, mode = expr.FrameGroups, "GROUPS"
	}
	switch {
	case opts&frameExcludeCurrentRow != 0:
		f.Exclude = expr.ExcludeCurrentRow
	case opts&frameExcludeGroup != 0:
		f.Exclude = expr.ExcludeGroup
	case opts&frameExcludeTies != 0:
		f.Exclude = expr.ExcludeTies
	}
	hasOffset := opts&(frameStartOffsetPreceding|frameStartOffsetFollowing|frameEndOffsetPreceding|frameEndOffsetFollowing) != 0
	switch {
	case f.Mode == expr.FrameRange && hasOffset && len(orderExprs) != 1:
		return expr.Frame{}, errorAt(sqlerr.New(sqlerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"), b.sql, w.Location)
	case f.Mode == expr.FrameGroups && len(orderExprs) == 0:
		return expr.Frame{}, errorAt(sqlerr.New(sqlerr.WindowingError, "GROUPS mode requires an ORDER BY clause"), b.sql, w.Location)
	}
	if f.Mode == expr.FrameRange && hasOffset && orderExprs[0].typ().Type.Kind() == repr.KindTimestampTZ {
		if z := b.zone(); !z.IsUTC() {
			f.Zone = z.Name()
		}
	}
	offset := func(n *pg.Node, which string) (repr.Datum, error) {
		v, err := b.frameOffset(n, which, mode, orderExprs)
		return v, errorAt(err, b.sql, nodeLocation(n))
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

// frameOffset binds the offset n of a frame's starting or ending bound
// (which) in mode (ROWS, RANGE or GROUPS) to a constant.
func (b *binder) frameOffset(n *pg.Node, which, mode string, orderExprs []hscalar) (repr.Datum, error) {
	variable := false
	walkNodes(n, func(n *pg.Node) bool {
		if n.GetColumnRef() != nil {
			variable = true
		}
		return !variable
	})
	if variable {
		return repr.Null, sqlerr.New(sqlerr.InvalidColumnReference, "argument of %s must not contain variables", mode)
	}
	s, err := b.bindExpr(n, &exprCtx{clause: "window " + mode})
	if err != nil {
		return repr.Null, err
	}
	to := repr.Int8
	if mode == "RANGE" {
		if to, err = rangeOffsetType(orderExprs[0].typ().Type, s.typ().Type); err != nil {
			return repr.Null, err
		}
	}
	// As PostgreSQL's coerce_to_specific_type: an assignment cast (1.5
	// ROWS PRECEDING is 2 rows).
	from := s.typ().Type
	s, ok, err := b.coerce(s, to, repr.CastAssignment)
	if err == nil && ok {
		s, err = foldScalar(s)
	}
	if err != nil {
		return repr.Null, err
	}
	if !ok {
		return repr.Null, sqlerr.New(sqlerr.DatatypeMismatch, "argument of %s must be type %s, not type %s", mode, typeName(to), typeName(from))
	}
	l, isLit := s.(hLiteral)
	if !isLit {
		return repr.Null, unsupported("frame offsets that are not constants")
	}
	switch {
	case l.v.IsNull():
		return repr.Null, sqlerr.New(sqlerr.NullValueNotAllowed, "frame %s offset must not be null", which)
	case mode != "RANGE" && l.v.Int() < 0:
		return repr.Null, sqlerr.New(sqlerr.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
	}
	return l.v, nil
}

// rangeOffsetType is the type a RANGE offset of type off takes over an
// ORDER BY column of type col, as PostgreSQL picks its in_range support
// function: the one whose offset type is off (col's own, for an
// untyped literal), else the first the offset casts to implicitly.
// Integers take an integer of any width (int8 only for an int8 column),
// numeric numeric, floats float8, and dates, timestamps and intervals
// an interval; other types have no RANGE offsets.
func rangeOffsetType(col, off repr.Type) (repr.Type, error) {
	var candidates []repr.Type
	switch col.Kind() {
	case repr.KindInt2, repr.KindInt4:
		candidates = []repr.Type{repr.Int8, repr.Int4, repr.Int2}
	case repr.KindInt8:
		candidates = []repr.Type{repr.Int8}
	case repr.KindFloat4, repr.KindFloat8:
		candidates = []repr.Type{repr.Float8}
	case repr.KindNumeric:
		candidates = []repr.Type{repr.Numeric}
	case repr.KindDate, repr.KindTimestamp, repr.KindTimestampTZ, repr.KindInterval:
		candidates = []repr.Type{repr.Interval}
	default:
		if col.Kind() == repr.KindVarchar {
			// PostgreSQL names the operator class's type: varchar
			// sorts with text's.
			col = repr.Text
		}
		return repr.Type{}, sqlerr.New(sqlerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", typeName(col))
	}
	preferred := off
	if off.Kind() == repr.KindUnknown {
		preferred = col
	}
	for _, c := range candidates {
		if c.Kind() == preferred.Kind() {
			return c, nil
		}
	}
	for _, c := range candidates {
		if repr.TypeCastContext(off, c) >= repr.CastImplicit {
			return c, nil
		}
	}
	return repr.Type{}, sqlerr.New(sqlerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", typeName(col), typeName(off)).
		WithHint("Cast the offset value to an appropriate type.")
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
