package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
	"slices"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// boundQuery is a bound SELECT (or VALUES, or set operation) before the
// context decides what its ORDER BY and LIMIT become: a Finishing at the
// top level, a TopK in a view or subquery.
type boundQuery struct {
	// rel's columns are the visible outputs followed by the columns that
	// only the order needs.
	rel     hrel
	names   []string
	visible int
	order   []expr.ColumnOrder
	// limit < 0 means none.
	limit, offset int64
	// sources are the table columns the visible columns come straight
	// from, or zeros; nil when none does.
	sources []ColumnSource
	// records are the visible columns that are records, whose fields
	// are hidden columns (bind_record.go).
	records []boundRecord
}

// bindQuery binds any query. parent is the scope of the enclosing query,
// to which names that this query does not define resolve.
func (b *binder) bindQuery(stmt *pg.SelectStmt, parent *scope) (*boundQuery, error) {
	if stmt.WithClause != nil {
		pushed, err := b.bindWith(stmt.WithClause, parent)
		defer func() { b.ctes = b.ctes[:len(b.ctes)-pushed] }()
		if err != nil {
			return nil, err
		}
	}
	switch {
	case stmt.Op != pg.SetOperation_SETOP_NONE:
		return b.bindSetOp(stmt, parent)
	case len(stmt.ValuesLists) > 0:
		return b.bindValues(stmt, parent)
	}
	return b.bindSelect(stmt, parent)
}

// nested returns q as a relation inside another query: LIMIT and OFFSET
// become a TopK, an ORDER BY without them is dropped (it promises
// nothing there), and untyped columns become text.
func (b *binder) nested(q *boundQuery) (hrel, error) {
	rel, err := b.nestedKeepUnknown(q)
	if err != nil {
		return nil, err
	}
	return b.resolveUnknown(rel)
}

// nestedKeepUnknown is nested for the operands of a set operation, whose
// untyped columns the operation resolves.
func (b *binder) nestedKeepUnknown(q *boundQuery) (hrel, error) {
	return b.nestedKeeping(q, nil)
}

// nestedKeeping is nestedKeepUnknown keeping the hidden columns keep
// after the visible ones, in that order.
func (b *binder) nestedKeeping(q *boundQuery, keep []int) (hrel, error) {
	rel := q.rel
	if q.limit >= 0 || q.offset > 0 {
		rel = hTopK{input: rel, order: q.order, limit: q.limit, offset: q.offset}
	}
	if len(rel.types()) > q.visible {
		rel = hProject{input: rel, outputs: append(seq(0, q.visible), keep...)}
	}
	return rel, nil
}

// resolveUnknown casts rel's untyped columns to text.
func (b *binder) resolveUnknown(rel hrel) (hrel, error) {
	ts := rel.types()
	want := make([]repr.Type, len(ts))
	for i, t := range ts {
		want[i] = t.Type
		if t.Type.Kind() == repr.KindUnknown {
			want[i] = repr.Text
		}
	}
	return b.coerceColumns(rel, want, repr.CastImplicit, "")
}

func seq(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func (b *binder) bindWith(w *pg.WithClause, parent *scope) (int, error) {
	pushed := 0
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		sel := c.Ctequery.GetSelectStmt()
		if sel == nil {
			return pushed, unsupported("data-modifying statements in WITH")
		}
		for _, o := range b.ctes[len(b.ctes)-pushed:] {
			if o.name == c.Ctename {
				return pushed, errorAt(sqlerr.New(sqlerr.DuplicateAlias, "WITH query name %q specified more than once", c.Ctename), b.sql, c.Location)
			}
		}
		if w.Recursive && readsName(sel, c.Ctename) {
			ct, err := b.bindRecursive(c, sel, parent)
			if err != nil {
				return pushed, err
			}
			b.ctes = append(b.ctes, ct)
			pushed++
			continue
		}
		q, err := b.bindQuery(sel, parent)
		if err != nil {
			return pushed, err
		}
		rel, err := b.nested(q)
		if err != nil {
			return pushed, err
		}
		if len(freeRefs(rel)) > 0 {
			return pushed, unsupported("WITH queries that refer to an enclosing query")
		}
		names := append([]string(nil), q.names[:q.visible]...)
		if len(c.Aliascolnames) > len(names) {
			return pushed, sqlerr.New(sqlerr.SyntaxError, "WITH query %q has %d columns available but %d columns specified", c.Ctename, len(names), len(c.Aliascolnames))
		}
		for i, a := range c.Aliascolnames {
			names[i] = a.GetString_().GetSval()
		}
		b.ctes = append(b.ctes, cte{name: c.Ctename, rel: rel, names: names})
		pushed++
	}
	return pushed, nil
}

// sortDirection reads an ORDER BY item's direction: DESC, and NULLS FIRST
// (by default with DESC, as in PostgreSQL).
func sortDirection(sb *pg.SortBy) (desc, nullsFirst bool) {
	desc = sb.SortbyDir == pg.SortByDir_SORTBY_DESC
	nullsFirst = desc
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		nullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		nullsFirst = false
	}
	return desc, nullsFirst
}

// readsName reports whether sel reads a relation named name (without a
// schema): a recursive WITH query's reference to itself.
func readsName(sel *pg.SelectStmt, name string) bool {
	found := false
	walkNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(n *pg.Node) bool {
		if rv := n.GetRangeVar(); rv != nil && rv.Schemaname == "" && rv.Relname == name {
			found = true
		}
		return !found
	})
	return found
}

// bindRecursive binds a recursive WITH query: a non-recursive term,
// UNION [ALL], and a recursive term that reads the query's own name, as
// the rows the last round added (hRecursive). The column types are the
// non-recursive term's; the recursive term's are cast to them where
// PostgreSQL's implicit casts allow (42804 otherwise).
func (b *binder) bindRecursive(c *pg.CommonTableExpr, sel *pg.SelectStmt, parent *scope) (cte, error) {
	if sel.Op != pg.SetOperation_SETOP_UNION || sel.Larg == nil || sel.Rarg == nil {
		return cte{}, errorAt(sqlerr.New(sqlerr.InvalidRecursion, "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", c.Ctename), b.sql, c.Location)
	}
	if len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil {
		return cte{}, errorAt(unsupported("ORDER BY, LIMIT or OFFSET in a recursive query"), b.sql, c.Location)
	}
	if readsName(sel.Larg, c.Ctename) {
		return cte{}, errorAt(sqlerr.New(sqlerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", c.Ctename), b.sql, c.Location)
	}
	bq, err := b.bindQuery(sel.Larg, parent)
	if err != nil {
		return cte{}, err
	}
	base, err := b.nested(bq)
	if err != nil {
		return cte{}, err
	}
	names := append([]string(nil), bq.names[:bq.visible]...)
	if len(c.Aliascolnames) > len(names) {
		return cte{}, sqlerr.New(sqlerr.SyntaxError, "WITH query %q has %d columns available but %d columns specified", c.Ctename, len(names), len(c.Aliascolnames))
	}
	for i, a := range c.Aliascolnames {
		names[i] = a.GetString_().GetSval()
	}
	b.recursions++
	id := b.recursions
	types := base.types()
	b.ctes = append(b.ctes, cte{name: c.Ctename, rel: hRecRef{id: id, typ: types}, names: names})
	sq, err := b.bindQuery(sel.Rarg, parent)
	b.ctes = b.ctes[:len(b.ctes)-1]
	if err != nil {
		return cte{}, err
	}
	step, err := b.nested(sq)
	if err != nil {
		return cte{}, err
	}
	st := step.types()
	if len(st) != len(types) {
		return cte{}, errorAt(sqlerr.New(sqlerr.SyntaxError, "each UNION query must have the same number of columns"), b.sql, c.Location)
	}
	// The recursive term's columns, cast to the query's types.
	var outs []hscalar
	cast := false
	for i, t := range st {
		col := hscalar(hColumn{level: 0, index: i, t: t})
		if t.Type != types[i].Type {
			s, ok, err := b.coerce(col, types[i].Type, repr.CastImplicit)
			if err != nil || !ok {
				return cte{}, errorAt(sqlerr.New(sqlerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall",
					c.Ctename, i+1, typeName(types[i].Type), typeName(t.Type)).
					WithHint("Cast the output of the non-recursive term to the correct type."), b.sql, c.Location)
			}
			col, cast = s, true
		}
		outs = append(outs, col)
	}
	if cast {
		rel, o := mapOutputs(step, outs)
		step = hProject{input: rel, outputs: o}
	}
	rel := hRecursive{id: id, base: base, step: step, distinct: !sel.All}
	if len(freeRefs(rel)) > 0 {
		return cte{}, unsupported("WITH queries that refer to an enclosing query")
	}
	return cte{name: c.Ctename, rel: rel, names: names}, nil
}

// target is one column of a select list after `*` expansion.
type target struct {
	// node is the expression; nil for a column that `*` expanded to,
	// which col holds.
	node *pg.Node
	col  hColumn
	name string
	loc  int32
}

func (b *binder) expandTargets(list []*pg.Node, sc *scope) ([]target, error) {
	var out []target
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			table := ""
			if len(cr.Fields) >= 2 {
				table = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
			}
			if table == "" && len(sc.items) == 0 {
				return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "SELECT * with no tables specified is not valid"), b.sql, cr.Location)
			}
			items, err := sc.star(table)
			if err != nil {
				return nil, errorAt(err, b.sql, cr.Location)
			}
			for _, it := range items {
				name := it.name
				if it.table != "" {
					name = it.table + "." + it.name
				}
				out = append(out, target{col: hColumn{index: it.col, t: it.typ, name: name}, name: it.name, loc: cr.Location})
			}
			continue
		}
		name := rt.Name
		if name == "" {
			name = figureColname(rt.Val)
		}
		out = append(out, target{node: rt.Val, name: name, loc: rt.Location})
	}
	return out, nil
}

func (b *binder) bindSelect(stmt *pg.SelectStmt, parent *scope) (*boundQuery, error) {
	switch {
	case stmt.IntoClause != nil:
		return nil, unsupported("SELECT INTO")
	case len(stmt.LockingClause) > 0 && (len(stmt.GroupClause) > 0 || stmt.HavingClause != nil || len(stmt.DistinctClause) > 0):
		// As in PostgreSQL, rows of a grouped or DISTINCT query are no
		// table's rows to lock. Otherwise FOR UPDATE and FOR SHARE are
		// accepted and change nothing: every transaction is already
		// serializable.
		clause := "GROUP BY"
		switch {
		case len(stmt.GroupClause) > 0:
		case stmt.HavingClause != nil:
			clause = "HAVING"
		default:
			clause = "DISTINCT"
		}
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "%s is not allowed with %s clause", lockingName(stmt.LockingClause[0].GetLockingClause()), clause)
	}
	rel, sc, err := b.bindFrom(stmt.FromClause, parent)
	if err != nil {
		return nil, err
	}
	if stmt.WhereClause != nil {
		p, err := b.bindExpr(stmt.WhereClause, &exprCtx{scope: sc, clause: "WHERE"})
		if err != nil {
			return nil, err
		}
		if p, err = b.coerceBool(p, "WHERE"); err != nil {
			return nil, errorAt(err, b.sql, nodeLocation(stmt.WhereClause))
		}
		rel = hFilter{input: rel, preds: []hscalar{p}}
	}
	if rel, err = b.bindWindows(stmt, rel, sc); err != nil {
		return nil, err
	}
	if rel, err = b.bindSelectSRF(stmt, rel, sc); err != nil {
		return nil, err
	}
	targets, err := b.expandTargets(stmt.TargetList, sc)
	if err != nil {
		return nil, err
	}
	var sortNodes []*pg.Node
	for _, n := range stmt.SortClause {
		sortNodes = append(sortNodes, n.GetSortBy().Node)
	}
	aggregating := len(stmt.GroupClause) > 0 || stmt.HavingClause != nil ||
		containsAggregate(stmt.TargetList) || containsAggregate(sortNodes)
	var g *grouping
	// Window functions of a query that aggregates run over its groups:
	// their definitions and arguments are bound over the groups now,
	// and the calls stand in as hWindowRef until the groups exist.
	var windows []windowSpec
	if aggregating {
		g = &grouping{b: b}
		if g.keys, g.sets, err = b.bindGroupBy(stmt.GroupClause, sc, targets); err != nil {
			return nil, err
		}
		wctx := &exprCtx{scope: sc, clause: "window definitions", aggs: true}
		windows, err = b.planWindows(stmt, func(n *pg.Node) (hscalar, error) {
			s, err := b.bindExpr(n, wctx)
			if err != nil {
				return nil, err
			}
			s, err = g.ungroup(s)
			return s, errorAt(err, b.sql, nodeLocation(n))
		})
		if err != nil {
			return nil, err
		}
		for _, w := range windows {
			for j, fc := range w.fcs {
				b.callColumns[fc] = hWindowRef{call: fc, t: w.calls[j].resultType()}
			}
		}
	}
	// bindOut binds an expression of the select list, HAVING or ORDER BY,
	// over the Reduce when the query aggregates.
	bindOut := func(n *pg.Node, clause string) (hscalar, error) {
		s, err := b.bindExpr(n, &exprCtx{scope: sc, clause: clause, aggs: aggregating})
		if err != nil || !aggregating {
			return s, err
		}
		s, err = g.ungroup(s)
		return s, errorAt(err, b.sql, nodeLocation(n))
	}
	var exprs []hscalar
	var names []string
	for _, t := range targets {
		var s hscalar = t.col
		if t.node != nil {
			if s, err = bindOut(t.node, "SELECT"); err != nil {
				return nil, err
			}
		} else if aggregating {
			if s, err = g.ungroup(s); err != nil {
				return nil, errorAt(err, b.sql, t.loc)
			}
		}
		exprs = append(exprs, s)
		names = append(names, t.name)
	}
	var having hscalar
	if stmt.HavingClause != nil {
		if having, err = bindOut(stmt.HavingClause, "HAVING"); err != nil {
			return nil, err
		}
		if having, err = b.coerceBool(having, "HAVING"); err != nil {
			return nil, errorAt(err, b.sql, nodeLocation(stmt.HavingClause))
		}
	}
	// A record in the select list keeps its fields as hidden columns,
	// for field selection from an enclosing query (bind_record.go).
	var records []boundRecord
	resExprs := exprs
	for i, t := range targets {
		fc := t.node.GetFuncCall()
		if fc == nil {
			continue
		}
		rec, ok := b.records[fc]
		if !ok {
			continue
		}
		br := boundRecord{output: i}
		for _, f := range rec.fields {
			br.fields = append(br.fields, recordScopeField{name: f.name, col: len(resExprs), typ: f.value.typ()})
			resExprs = append(resExprs[:len(resExprs):len(resExprs)], f.value)
		}
		records = append(records, br)
	}
	res := &sortResolver{b: b, exprs: resExprs, names: names, bind: func(n *pg.Node) (hscalar, error) { return bindOut(n, "ORDER BY") }}
	order, err := res.orderBy(stmt.SortClause)
	if err != nil {
		return nil, err
	}
	var distinctOn []int
	distinct := len(stmt.DistinctClause) > 0
	if distinct && stmt.DistinctClause[0].GetNode() != nil {
		for _, n := range stmt.DistinctClause {
			i, err := res.resolve(n, "SELECT DISTINCT ON")
			if err != nil {
				return nil, err
			}
			distinctOn = append(distinctOn, i)
		}
	}
	if aggregating {
		rel = g.reduce(rel)
		if having != nil {
			rel = hFilter{input: rel, preds: []hscalar{having}}
		}
		if len(windows) > 0 {
			var cols map[*pg.FuncCall]hscalar
			rel, cols = applyWindows(rel, windows)
			for i, e := range res.exprs {
				res.exprs[i] = replaceWindowRefs(e, cols)
			}
		}
	}
	rel, outs := mapOutputs(rel, res.exprs)
	rel = hProject{input: rel, outputs: outs}
	switch {
	case distinct && distinctOn == nil:
		if len(res.exprs) > len(resExprs) {
			return nil, errorAt(sqlerr.New(sqlerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list"),
				b.sql, nodeLocation(stmt.SortClause[0]))
		}
		rel = hDistinct{input: rel}
	case distinct:
		onSet := map[int]bool{}
		for _, c := range distinctOn {
			onSet[c] = true
		}
		for i := 0; i < len(order) && i < len(distinctOn); i++ {
			if !onSet[order[i].Column] {
				return nil, errorAt(sqlerr.New(sqlerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions"),
					b.sql, nodeLocation(stmt.DistinctClause[0]))
			}
		}
		rel = hTopK{input: rel, groupKey: distinctOn, order: order, limit: 1}
	}
	q := &boundQuery{rel: rel, names: names, visible: len(exprs), order: order, records: records}
	if !aggregating {
		q.sources = columnSources(exprs, sc)
	}
	if q.limit, q.offset, err = b.bindLimit(stmt); err != nil {
		return nil, err
	}
	return q, nil
}

// mapOutputs appends the scalars that are not plain columns of rel and
// returns rel with them and the column of each scalar.
func mapOutputs(rel hrel, ss []hscalar) (hrel, []int) {
	arity := len(rel.types())
	var extra []hscalar
	outs := make([]int, len(ss))
	for i, s := range ss {
		if c, ok := s.(hColumn); ok && c.level == 0 {
			outs[i] = c.index
			continue
		}
		outs[i] = arity + len(extra)
		extra = append(extra, s)
	}
	if len(extra) > 0 {
		rel = hMap{input: rel, scalars: extra}
	}
	return rel, outs
}

// bindGroupBy binds the GROUP BY items over the FROM scope. An integer
// is a select list position; a bare name is a FROM column if there is
// one, else a select list alias.
func (b *binder) bindGroupBy(items []*pg.Node, sc *scope, targets []target) ([]hscalar, [][]int, error) {
	ctx := &exprCtx{scope: sc, clause: "GROUP BY"}
	bindTarget := func(t target) (hscalar, error) {
		if t.node == nil {
			return t.col, nil
		}
		return b.bindExpr(t.node, ctx)
	}
	// bindItem binds one grouping expression: a select list position, a
	// select list alias, or an expression over FROM.
	bindItem := func(n *pg.Node) (hscalar, error) {
		if ac := n.GetAConst(); ac != nil && ac.GetIval() != nil {
			pos := int(ac.GetIval().Ival)
			if pos < 1 || pos > len(targets) {
				return nil, errorAt(sqlerr.New(sqlerr.InvalidColumnReference, "GROUP BY position %d is not in select list", pos), b.sql, ac.Location)
			}
			return bindTarget(targets[pos-1])
		}
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			if _, err := sc.resolveColumn("", name); sqlerr.Code(err) == sqlerr.UndefinedColumn {
				for _, t := range targets {
					if t.name == name {
						return bindTarget(t)
					}
				}
			}
		}
		return b.bindExpr(n, ctx)
	}
	var keys []hscalar
	// keyOf returns the index of a key expression among keys, adding it.
	keyOf := func(k hscalar) int {
		for i, o := range keys {
			if equalScalars(o, k) {
				return i
			}
		}
		keys = append(keys, k)
		return len(keys) - 1
	}
	// sets are the grouping sets, each a list of key indexes; nil while
	// every item is a plain expression.
	sets := [][]int{{}}
	plain := true
	for _, n := range items {
		gs := n.GetGroupingSet()
		if gs == nil {
			k, err := bindItem(n)
			if err != nil {
				return nil, nil, err
			}
			i := keyOf(k)
			for j := range sets {
				sets[j] = append(sets[j], i)
			}
			continue
		}
		if gs.Kind == pg.GroupingSetKind_GROUPING_SET_EMPTY {
			continue
		}
		plain = false
		its, err := b.groupingSets(gs, bindItem, keyOf)
		if err != nil {
			return nil, nil, err
		}
		// The sets of the items so far, each with each of this one's.
		var next [][]int
		for _, s := range sets {
			for _, t := range its {
				next = append(next, append(slices.Clone(s), t...))
			}
		}
		if len(next) > maxGroupingSets {
			return nil, nil, errorAt(sqlerr.New(sqlerr.StatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets), b.sql, gs.Location)
		}
		sets = next
	}
	if plain {
		return keys, nil, nil
	}
	return keys, sets, nil
}

// maxGroupingSets bounds the grouping sets of a query: each is a Reduce
// of its own in the dataflow.
const maxGroupingSets = 256

// groupingSets expands ROLLUP, CUBE or GROUPING SETS into its sets of key
// indexes, as PostgreSQL orders them: ROLLUP (a, b) is (a, b), (a), ();
// CUBE (a, b) is every subset; GROUPING SETS lists its own, which may
// nest ROLLUP and CUBE. A parenthesized list is one element.
func (b *binder) groupingSets(gs *pg.GroupingSet, bind func(*pg.Node) (hscalar, error), keyOf func(hscalar) int) ([][]int, error) {
	element := func(n *pg.Node) ([]int, error) {
		var nodes []*pg.Node
		if r := n.GetRowExpr(); r != nil {
			nodes = r.Args
		} else {
			nodes = []*pg.Node{n}
		}
		var out []int
		for _, e := range nodes {
			k, err := bind(e)
			if err != nil {
				return nil, err
			}
			out = append(out, keyOf(k))
		}
		return out, nil
	}
	switch gs.Kind {
	case pg.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]int{{}}, nil
	case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
		var out []int
		for _, n := range gs.Content {
			e, err := element(n)
			if err != nil {
				return nil, err
			}
			out = append(out, e...)
		}
		return [][]int{out}, nil
	case pg.GroupingSetKind_GROUPING_SET_ROLLUP, pg.GroupingSetKind_GROUPING_SET_CUBE:
		var elems [][]int
		for _, n := range gs.Content {
			e, err := element(n)
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		var out [][]int
		if gs.Kind == pg.GroupingSetKind_GROUPING_SET_ROLLUP {
			for n := len(elems); n >= 0; n-- {
				var set []int
				for _, e := range elems[:n] {
					set = append(set, e...)
				}
				out = append(out, set)
			}
			return out, nil
		}
		if len(elems) > 12 {
			return nil, sqlerr.New(sqlerr.StatementTooComplex, "CUBE is limited to 12 elements")
		}
		// Largest sets first, as PostgreSQL lists them.
		for mask := (1 << len(elems)) - 1; mask >= 0; mask-- {
			var set []int
			for i, e := range elems {
				if mask&(1<<(len(elems)-1-i)) != 0 {
					set = append(set, e...)
				}
			}
			out = append(out, set)
		}
		return out, nil
	case pg.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]int
		for _, n := range gs.Content {
			if inner := n.GetGroupingSet(); inner != nil {
				sets, err := b.groupingSets(inner, bind, keyOf)
				if err != nil {
					return nil, err
				}
				out = append(out, sets...)
				continue
			}
			e, err := element(n)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	return nil, unsupported("grouping set %s", gs.Kind)
}

// sortResolver resolves ORDER BY and DISTINCT ON items to output
// columns, appending the expressions that are not outputs as hidden
// columns.
type sortResolver struct {
	b *binder
	// exprs are the visible outputs and then the hidden columns.
	exprs []hscalar
	names []string
	// bind binds an expression over the query's input; nil when only
	// output columns may be named (set operations, VALUES).
	bind func(*pg.Node) (hscalar, error)
}

func (r *sortResolver) orderBy(items []*pg.Node) ([]expr.ColumnOrder, error) {
	var order []expr.ColumnOrder
	for _, n := range items {
		sb := n.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return nil, errorAt(unsupported("ORDER BY USING"), r.b.sql, sb.Location)
		}
		col, err := r.resolve(sb.Node, "ORDER BY")
		if err != nil {
			return nil, err
		}
		desc, nullsFirst := sortDirection(sb)
		order = append(order, expr.ColumnOrder{Column: col, Desc: desc, NullsFirst: nullsFirst})
	}
	return order, nil
}

// resolve returns the column an ORDER BY or DISTINCT ON item sorts by:
// a select list position, an output column name, or an expression.
func (r *sortResolver) resolve(n *pg.Node, clause string) (int, error) {
	visible := len(r.names)
	if ac := n.GetAConst(); ac != nil {
		if ac.GetIval() == nil {
			return 0, errorAt(sqlerr.New(sqlerr.SyntaxError, "non-integer constant in %s", clause), r.b.sql, ac.Location)
		}
		pos := int(ac.GetIval().Ival)
		if pos < 1 || pos > visible {
			return 0, errorAt(sqlerr.New(sqlerr.InvalidColumnReference, "%s position %d is not in select list", clause, pos), r.b.sql, ac.Location)
		}
		return pos - 1, nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		found := -1
		for i, nm := range r.names {
			if nm != name {
				continue
			}
			if found >= 0 && !equalScalars(r.exprs[found], r.exprs[i]) {
				return 0, errorAt(sqlerr.New(sqlerr.AmbiguousColumn, "%s %q is ambiguous", clause, name), r.b.sql, cr.Location)
			}
			if found < 0 {
				found = i
			}
		}
		if found >= 0 {
			return found, nil
		}
	}
	if r.bind == nil {
		return 0, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
			WithDetail("Only result column names can be used, not expressions or functions."), r.b.sql, nodeLocation(n))
	}
	s, err := r.bind(n)
	if err != nil {
		return 0, err
	}
	for i, e := range r.exprs {
		if equalScalars(e, s) {
			return i, nil
		}
	}
	r.exprs = append(r.exprs, s)
	return len(r.exprs) - 1, nil
}

// bindLimit returns LIMIT (-1 for none) and OFFSET, which must be
// constants.
func (b *binder) bindLimit(stmt *pg.SelectStmt) (limit, offset int64, err error) {
	if stmt.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return 0, 0, unsupported("FETCH ... WITH TIES")
	}
	value := func(n *pg.Node, clause, code string) (int64, bool, error) {
		if n == nil {
			return 0, false, nil
		}
		s, err := b.bindExpr(n, &exprCtx{clause: clause})
		if err != nil {
			return 0, false, err
		}
		s, ok, err := b.coerce(s, repr.Int8, repr.CastImplicit)
		if err == nil && ok {
			s, err = foldScalar(s)
		}
		if err != nil {
			return 0, false, errorAt(err, b.sql, nodeLocation(n))
		}
		if !ok {
			return 0, false, errorAt(sqlerr.New(sqlerr.DatatypeMismatch, "argument of %s must be type bigint, not type %s", clause, typeName(s.typ().Type)), b.sql, nodeLocation(n))
		}
		l, isLit := s.(hLiteral)
		if !isLit {
			return 0, false, errorAt(unsupported("%s with a parameter or expression", clause), b.sql, nodeLocation(n))
		}
		if l.v.IsNull() {
			return 0, false, nil
		}
		if l.v.Int() < 0 {
			return 0, false, errorAt(sqlerr.New(code, "%s must not be negative", clause), b.sql, nodeLocation(n))
		}
		return l.v.Int(), true, nil
	}
	limit = -1
	if v, ok, err := value(stmt.LimitCount, "LIMIT", sqlerr.InvalidRowCountInLimit); err != nil {
		return 0, 0, err
	} else if ok {
		limit = v
	}
	offset, _, err = value(stmt.LimitOffset, "OFFSET", sqlerr.InvalidRowCountInOffset)
	return limit, offset, err
}

// containsAggregate reports whether any of the nodes holds an aggregate
// call of this query level (not one inside a subquery).
func containsAggregate(nodes []*pg.Node) bool {
	found := false
	for _, n := range nodes {
		walkNodes(n, func(n *pg.Node) bool {
			switch x := n.GetNode().(type) {
			case *pg.Node_SubLink:
				return false
			case *pg.Node_FuncCall:
				if name, err := funcName(x.FuncCall); err == nil && aggregateNames[name] && x.FuncCall.Over == nil {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// walkNodes calls f on n and, while f returns true, on the nodes below.
func walkNodes(n *pg.Node, f func(*pg.Node) bool) {
	if n == nil || n.GetNode() == nil || !f(n) {
		return
	}
	walkMessage(n.ProtoReflect(), f)
}

func walkMessage(m protoreflect.Message, f func(*pg.Node) bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		visit := func(v protoreflect.Value) {
			msg := v.Message()
			if n, ok := msg.Interface().(*pg.Node); ok {
				walkNodes(n, f)
				return
			}
			walkMessage(msg, f)
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visit(l.Get(i))
			}
		} else if !fd.IsMap() {
			visit(v)
		}
		return true
	})
}

// figureColname names an output column as PostgreSQL does when the
// select list gives no alias.
func figureColname(n *pg.Node) string {
	name, _ := figureColnameStrength(n)
	return name
}

// figureColnameStrength also returns how sure the name is: 2 for a
// column or function name, 1 for a type or construct name, 0 for none.
// A cast names its column by its type only if its operand has no
// stronger name.
func figureColnameStrength(n *pg.Node) (string, int) {
	switch x := n.GetNode().(type) {
	case *pg.Node_ColumnRef:
		fs := x.ColumnRef.Fields
		if s := fs[len(fs)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
	case *pg.Node_FuncCall:
		fs := x.FuncCall.Funcname
		return fs[len(fs)-1].GetString_().GetSval(), 2
	case *pg.Node_TypeCast:
		if name, strength := figureColnameStrength(x.TypeCast.Arg); strength > 1 {
			return name, strength
		}
		names := x.TypeCast.TypeName.Names
		return names[len(names)-1].GetString_().GetSval(), 1
	case *pg.Node_CaseExpr:
		// A CASE is named by its ELSE if that has a strong name.
		if d := x.CaseExpr.Defresult; d != nil {
			if name, strength := figureColnameStrength(d); strength > 1 {
				return name, strength
			}
		}
		return "case", 1
	case *pg.Node_GroupingFunc:
		return "grouping", 2
	case *pg.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg.Node_AArrayExpr:
		return "array", 2
	case *pg.Node_AIndirection:
		// (r).f is named f; a[i] is named as a is.
		ind := x.AIndirection.Indirection
		for i := len(ind) - 1; i >= 0; i-- {
			if f := ind[i].GetString_(); f != nil {
				return f.Sval, 2
			}
		}
		return figureColnameStrength(x.AIndirection.Arg)
	case *pg.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case *pg.Node_AExpr:
		if x.AExpr.Kind == pg.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg.SubLinkType_EXPR_SUBLINK:
			sel := x.SubLink.Subselect.GetSelectStmt()
			for sel != nil && sel.Op != pg.SetOperation_SETOP_NONE {
				sel = sel.Larg
			}
			if sel != nil && len(sel.TargetList) > 0 {
				rt := sel.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name, 2
				}
				if name, strength := figureColnameStrength(rt.Val); strength > 0 {
					return name, 2
				}
			}
		}
	case *pg.Node_SqlvalueFunction:
		if name, ok := map[pg.SQLValueFunctionOp]string{
			pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE: "current_date", pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP: "current_timestamp",
			pg.SQLValueFunctionOp_SVFOP_CURRENT_USER: "current_user", pg.SQLValueFunctionOp_SVFOP_SESSION_USER: "session_user",
			pg.SQLValueFunctionOp_SVFOP_USER: "user", pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE: "current_role",
			pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG: "current_catalog", pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA: "current_schema",
			pg.SQLValueFunctionOp_SVFOP_LOCALTIME: "localtime", pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N: "localtime",
			pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP: "localtimestamp", pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N: "localtimestamp",
		}[x.SqlvalueFunction.Op]; ok {
			return name, 2
		}
	}
	return "?column?", 0
}
