package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// bindFrom binds a FROM list: its items joined left to right, with the
// scope of their columns. No FROM is one row of no columns.
func (b *binder) bindFrom(items []*pg.Node, parent *scope) (hrel, *scope, error) {
	var rel hrel = unit
	sc := &scope{parent: parent}
	for _, n := range items {
		if rf := n.GetRangeFunction(); rf != nil && len(sc.items) > 0 && referencesColumns(rf) {
			// A function in FROM may refer to the items before it (it is
			// implicitly LATERAL): it maps each row of them. One that
			// names no column is an item of its own (below), joined like
			// a table, so that the join's conditions can be planned
			// with it.
			var err error
			var items []scopeItem
			if rel, items, err = b.bindRangeFunction(rf, rel, sc); err != nil {
				return nil, nil, err
			}
			if err := b.checkDuplicateTables(sc.items, items); err != nil {
				return nil, nil, err
			}
			sc.items = append(sc.items, items...)
			continue
		}
		if rs := n.GetRangeSubselect(); rs != nil && rs.Lateral && len(sc.items) > 0 {
			// LATERAL: the subquery sees the items before it, one level
			// out.
			r, items, err := b.bindSubselect(rs, &scope{items: sc.items, parent: parent})
			if err != nil {
				return nil, nil, err
			}
			if err := b.checkDuplicateTables(sc.items, items); err != nil {
				return nil, nil, err
			}
			items = shifted(items, len(rel.types()))
			rel = hJoin{left: rel, right: r, kind: joinInner, lateral: true}
			sc.items = append(sc.items, items...)
			continue
		}
		r, items, err := b.bindTableRef(n, parent)
		if err != nil {
			return nil, nil, err
		}
		if err := b.checkDuplicateTables(sc.items, items); err != nil {
			return nil, nil, err
		}
		if len(sc.items) == 0 && isUnit(rel) {
			rel = r
		} else {
			items = shifted(items, len(rel.types()))
			rel = hJoin{left: rel, right: r, kind: joinInner}
		}
		sc.items = append(sc.items, items...)
	}
	return rel, sc, nil
}

func isUnit(r hrel) bool {
	c, ok := r.(hConstant)
	return ok && len(c.typ) == 0 && len(c.rows) == 1
}

func (b *binder) checkDuplicateTables(have, add []scopeItem) error {
	seen := map[string]bool{}
	for _, it := range have {
		if it.table != "" {
			seen[it.table] = true
		}
	}
	for _, it := range add {
		if it.table != "" && seen[it.table] {
			return sqlerr.New(sqlerr.DuplicateAlias, "table name %q specified more than once", it.table)
		}
	}
	return nil
}

// bindTableRef binds one FROM item on its own: its relation and the
// scope items of its columns (numbered from 0).
func (b *binder) bindTableRef(n *pg.Node, parent *scope) (hrel, []scopeItem, error) {
	switch x := n.GetNode().(type) {
	case *pg.Node_RangeVar:
		return b.bindRangeVar(x.RangeVar)
	case *pg.Node_RangeSubselect:
		// LATERAL where there is nothing to the left changes nothing.
		return b.bindSubselect(x.RangeSubselect, parent)
	case *pg.Node_JoinExpr:
		return b.bindJoin(x.JoinExpr, parent)
	case *pg.Node_RangeFunction:
		rel, items, err := b.bindRangeFunction(x.RangeFunction, unit, &scope{parent: parent})
		return rel, items, err
	}
	return nil, nil, unsupported("FROM item %s", nodeName(n))
}

// bindSubselect binds a subquery in FROM whose names resolve in parent.
func (b *binder) bindSubselect(rs *pg.RangeSubselect, parent *scope) (hrel, []scopeItem, error) {
	q, err := b.bindQuery(rs.Subquery.GetSelectStmt(), parent)
	if err != nil {
		return nil, nil, err
	}
	if len(q.records) == 0 {
		rel, err := b.nested(q)
		if err != nil {
			return nil, nil, err
		}
		items, err := aliasItems(rel, "", q.names[:q.visible], rs.Alias)
		return rel, items, err
	}
	// The subquery's records keep their fields, after its visible
	// columns, for field selection ((alias.r).x).
	var keep []int
	for _, r := range q.records {
		for _, f := range r.fields {
			keep = append(keep, f.col)
		}
	}
	rel, err := b.nestedKeeping(q, keep)
	if err == nil {
		rel, err = b.resolveUnknown(rel)
	}
	if err != nil {
		return nil, nil, err
	}
	items, err := aliasItems(rel, "", q.names[:q.visible], rs.Alias)
	if err != nil {
		return nil, nil, err
	}
	pos := q.visible
	for _, r := range q.records {
		fields := make([]recordScopeField, len(r.fields))
		for i, f := range r.fields {
			fields[i] = recordScopeField{name: f.name, col: pos, typ: f.typ}
			pos++
		}
		items[r.output].fields = fields
	}
	return rel, items, nil
}

// aliasItems returns the scope items of a FROM item's columns, renamed
// by its alias.
func aliasItems(rel hrel, table string, names []string, alias *pg.Alias) ([]scopeItem, error) {
	names = append([]string(nil), names...)
	if alias != nil {
		table = alias.Aliasname
		if len(alias.Colnames) > len(names) {
			return nil, sqlerr.New(sqlerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", table, len(names), len(alias.Colnames))
		}
		for i, c := range alias.Colnames {
			names[i] = c.GetString_().GetSval()
		}
	}
	ts := rel.types()
	items := make([]scopeItem, len(names))
	for i, name := range names {
		items[i] = scopeItem{table: table, name: name, col: i, typ: ts[i]}
	}
	return items, nil
}

func (b *binder) bindRangeVar(rv *pg.RangeVar) (hrel, []scopeItem, error) {
	if rv.Schemaname == "" && rv.Catalogname == "" {
		for i := len(b.ctes) - 1; i >= 0; i-- {
			if c := b.ctes[i]; c.name == rv.Relname {
				items, err := aliasItems(c.rel, c.name, c.names, rv.Alias)
				return c.rel, items, err
			}
		}
	}
	name := QualifiedName{Database: rv.Catalogname, Schema: rv.Schemaname, Name: rv.Relname}
	r, err := b.cat.ResolveRelation(name)
	if err != nil {
		return nil, nil, errorAt(err, b.sql, rv.Location)
	}
	rel, err := b.readRelation(r)
	if err != nil {
		return nil, nil, errorAt(err, b.sql, rv.Location)
	}
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	items, err := aliasItems(rel, rv.Relname, names, rv.Alias)
	if err == nil && r.ID != 0 && (r.Kind == KindTable || r.Kind == KindMaterializedView) {
		for i := range items {
			items[i].source = ColumnSource{Relation: r.ID, Column: items[i].col + 1}
		}
	}
	return rel, items, err
}

// readRelation returns the relation that reading a catalog relation
// reads: a Get, or a view's definition inlined.
func (b *binder) readRelation(r Relation) (hrel, error) {
	if r.Kind == KindSequence {
		return nil, unsupported("reading sequence %q as a relation", r.Name.Name)
	}
	b.noteRead(r)
	if r.Kind != KindView {
		ts := make([]expr.ColumnType, len(r.Columns))
		for i, c := range r.Columns {
			ts[i] = c.Type
		}
		return hGet{id: r.ID, name: r.Name.Name, typ: ts}, nil
	}
	if r.Plan != nil {
		return hInline{plan: r.Plan}, nil
	}
	if b.viewDepth > 64 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "views nested too deeply at %q", r.Name.String())
	}
	stmts, err := pg.Parse(r.SQL)
	if err != nil || len(stmts.Stmts) != 1 || stmts.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, sqlerr.AssertionFailedf("view %s has a bad definition %q", r.Name.String(), r.SQL)
	}
	// The definition is bound on its own: no enclosing scope, no CTEs of
	// the reading query, and its own text for positions.
	cat := b.cat
	if vc, ok := cat.(ViewCatalog); ok {
		cat = vc.ForView(r)
	}
	vb := &binder{cat: cat, sql: r.SQL, viewDepth: b.viewDepth + 1, reads: b.reads, via: r.ID}
	q, err := vb.bindQuery(stmts.Stmts[0].Stmt.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	if len(vb.params) > 0 {
		return nil, sqlerr.AssertionFailedf("view %s has parameters", r.Name.String())
	}
	return vb.nested(q)
}

// bindRangeFunction binds a table function over each row of left, whose
// columns sc describes: the result is left's columns and the function's.
func (b *binder) bindRangeFunction(rf *pg.RangeFunction, left hrel, sc *scope) (hrel, []scopeItem, error) {
	if rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return nil, nil, unsupported("this form of function in FROM")
	}
	fc := rf.Functions[0].GetList().GetItems()[0].GetFuncCall()
	if fc == nil {
		return nil, nil, unsupported("this function in FROM")
	}
	name, err := funcName(fc)
	if err != nil {
		return nil, nil, errorAt(err, b.sql, fc.Location)
	}
	if name == "unnest" || name == "generate_subscripts" {
		return b.bindUnnest(rf, fc, left, sc, name)
	}
	if _, ok := jsonbSRFs[name]; ok {
		return b.bindJSONBSRF(rf, fc, left, sc, name)
	}
	if name == "pg_get_keywords" && len(fc.Args) == 0 {
		// The keywords are the relation pg_catalog.freshet_keywords.
		alias := rf.Alias
		if alias == nil {
			alias = &pg.Alias{Aliasname: name}
		}
		rv := &pg.Node{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Schemaname: "pg_catalog", Relname: "freshet_keywords",
			Inh: true, Relpersistence: "p", Alias: alias, Location: fc.Location}}}
		r, items, err := b.bindTableRef(rv, sc.parent)
		if err != nil || isUnit(left) {
			return r, items, err
		}
		return hJoin{left: left, right: r, kind: joinInner}, shifted(items, len(left.types())), nil
	}
	if name != "generate_series" {
		return b.bindScalarFunctionInFrom(rf, fc, name, left, sc)
	}
	args, err := b.bindFunctionArgs(fc, sc)
	if err != nil {
		return nil, nil, err
	}
	if len(args) < 2 || len(args) > 3 {
		return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
	}
	// generate_series over integers: int4 if every argument is, else
	// int8; numeric and timestamps are not supported.
	t := repr.Int4
	for _, a := range args {
		switch a.typ().Type.Kind() {
		case repr.KindInt8:
			t = repr.Int8
		case repr.KindInt2, repr.KindInt4, repr.KindUnknown:
		default:
			if isNumeric(a.typ().Type.Kind()) || isDateTime(a.typ().Type.Kind()) {
				return nil, nil, errorAt(unsupported("generate_series over %s", typeName(a.typ().Type)), b.sql, fc.Location)
			}
			return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
		}
	}
	for i, a := range args {
		if args[i], err = b.coerceTo(a, t); err != nil {
			return nil, nil, errorAt(err, b.sql, fc.Location)
		}
	}
	rel := hFlatMap{input: left, fn: expr.GenerateSeries, args: args, typ: t}
	col := len(left.types())
	table, colName, err := functionNames(rf, name)
	if err != nil {
		return nil, nil, err
	}
	return rel, []scopeItem{{table: table, name: colName, col: col, typ: expr.ColumnType{Type: t}}}, nil
}

func (b *binder) bindJoin(j *pg.JoinExpr, parent *scope) (hrel, []scopeItem, error) {
	left, litems, err := b.bindTableRef(j.Larg, parent)
	if err != nil {
		return nil, nil, err
	}
	var right hrel
	var ritems []scopeItem
	lateral := false
	if rs := j.Rarg.GetRangeSubselect(); rs != nil && rs.Lateral {
		if j.Jointype == pg.JoinType_JOIN_RIGHT || j.Jointype == pg.JoinType_JOIN_FULL {
			table := ""
			if len(litems) > 0 {
				table = litems[0].table
			}
			return nil, nil, sqlerr.New(sqlerr.InvalidColumnReference, "invalid reference to FROM-clause entry for table %q", table).
				WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
		}
		lateral = true
		right, ritems, err = b.bindSubselect(rs, &scope{items: litems, parent: parent})
	} else {
		right, ritems, err = b.bindTableRef(j.Rarg, parent)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := b.checkDuplicateTables(litems, ritems); err != nil {
		return nil, nil, err
	}
	larity := len(left.types())
	ritems = shifted(ritems, larity)
	kind := map[pg.JoinType]joinKind{
		pg.JoinType_JOIN_INNER: joinInner, pg.JoinType_JOIN_LEFT: joinLeft,
		pg.JoinType_JOIN_RIGHT: joinRight, pg.JoinType_JOIN_FULL: joinFull,
	}[j.Jointype]
	join := hJoin{left: left, right: right, kind: kind, lateral: lateral}
	items := append(append([]scopeItem(nil), litems...), ritems...)
	sc := &scope{items: items, parent: parent}

	using := make([]string, 0, len(j.UsingClause))
	for _, u := range j.UsingClause {
		using = append(using, u.GetString_().GetSval())
	}
	if j.IsNatural {
		rnames := map[string]bool{}
		for _, it := range ritems {
			if !it.unqualifiedHidden {
				rnames[it.name] = true
			}
		}
		for _, it := range litems {
			if !it.unqualifiedHidden && rnames[it.name] {
				using = append(using, it.name)
			}
		}
	}
	var merged []scopeItem
	var mergedExprs []hscalar
	if len(using) > 0 {
		var on hscalar
		hidden := map[int]bool{}
		for _, name := range using {
			l, err := usingColumn(litems, name, "left")
			if err != nil {
				return nil, nil, err
			}
			r, err := usingColumn(ritems, name, "right")
			if err != nil {
				return nil, nil, err
			}
			hidden[l.col], hidden[r.col] = true, true
			lc := hColumn{index: l.col, t: l.typ, name: l.table + "." + name}
			rc := hColumn{index: r.col, t: r.typ, name: r.table + "." + name}
			eq, err := b.binaryOp("=", lc, rc)
			if err != nil {
				return nil, nil, err
			}
			if on, err = b.and(on, eq); err != nil {
				return nil, nil, err
			}
			// The merged column: the left one, the right one for a RIGHT
			// join, the first not NULL for a FULL join, in their common type.
			both, t, err := b.unify([]hscalar{lc, rc}, "JOIN/USING")
			if err != nil {
				return nil, nil, err
			}
			var m hscalar
			switch kind {
			case joinRight:
				m = both[1]
			case joinFull:
				m = hVariadic{fn: expr.Coalesce, args: both, t: expr.ColumnType{Type: t, Nullable: l.typ.Nullable && r.typ.Nullable}}
			default:
				m = both[0]
			}
			mergedExprs = append(mergedExprs, m)
			merged = append(merged, scopeItem{name: name, typ: m.typ()})
		}
		join.on = on
		for i := range items {
			if hidden[items[i].col] {
				items[i].unqualifiedHidden, items[i].starHidden = true, true
			}
		}
	} else if j.Quals != nil {
		on, err := b.bindExpr(j.Quals, &exprCtx{scope: sc, clause: "JOIN conditions"})
		if err != nil {
			return nil, nil, err
		}
		if join.on, err = b.coerceBool(on, "JOIN/ON"); err != nil {
			return nil, nil, errorAt(err, b.sql, nodeLocation(j.Quals))
		}
	}
	var rel hrel = join
	if len(merged) > 0 {
		var outs []int
		rel, outs = mapOutputs(rel, mergedExprs)
		for i := range merged {
			merged[i].col = outs[i]
		}
		items = append(merged, items...)
	}
	if j.Alias != nil {
		// An aliased join hides the names of the tables inside it.
		var visible []scopeItem
		for _, it := range items {
			if !it.unqualifiedHidden {
				it.table = j.Alias.Aliasname
				visible = append(visible, it)
			}
		}
		if len(j.Alias.Colnames) > len(visible) {
			return nil, nil, sqlerr.New(sqlerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", j.Alias.Aliasname, len(visible), len(j.Alias.Colnames))
		}
		for i, c := range j.Alias.Colnames {
			visible[i].name = c.GetString_().GetSval()
		}
		items = visible
	}
	return rel, items, nil
}

func usingColumn(items []scopeItem, name, side string) (scopeItem, error) {
	var found []scopeItem
	for _, it := range items {
		if it.name == name && !it.unqualifiedHidden {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 0:
		return scopeItem{}, sqlerr.New(sqlerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
	case 1:
		return found[0], nil
	}
	return scopeItem{}, sqlerr.New(sqlerr.AmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
}

// referencesColumns reports whether the arguments of a function in FROM
// name any column (outside subqueries, which are not allowed there).
func referencesColumns(rf *pg.RangeFunction) bool {
	found := false
	for _, f := range rf.Functions {
		walkNodes(f, func(n *pg.Node) bool {
			if n.GetColumnRef() != nil {
				found = true
			}
			return !found
		})
	}
	return found
}

// bindFunctionArgs binds the arguments of a function in FROM in scope
// sc, which holds the FROM items before it; subqueries are refused.
func (b *binder) bindFunctionArgs(fc *pg.FuncCall, sc *scope) ([]hscalar, error) {
	ctx := &exprCtx{scope: sc, clause: "functions in FROM"}
	var args []hscalar
	for _, a := range fc.Args {
		s, err := b.bindExpr(a, ctx)
		if err != nil {
			return nil, err
		}
		if hasSubquery(s) {
			return nil, errorAt(unsupported("subqueries in the arguments of functions in FROM"), b.sql, nodeLocation(a))
		}
		args = append(args, s)
	}
	return args, nil
}

// functionNames returns the names a function in FROM goes by: its
// table's and its one column's, the function's name unless aliased.
func functionNames(rf *pg.RangeFunction, name string) (table, column string, err error) {
	if rf.Alias == nil {
		return name, name, nil
	}
	table, column = rf.Alias.Aliasname, rf.Alias.Aliasname
	switch len(rf.Alias.Colnames) {
	case 0:
	case 1:
		column = rf.Alias.Colnames[0].GetString_().GetSval()
	default:
		return "", "", sqlerr.New(sqlerr.InvalidColumnReference, "too many column aliases specified for function %s", name)
	}
	return table, column, nil
}
