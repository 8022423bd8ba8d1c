package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// windowFuncs are the window functions the planner supports.
var windowFuncs = map[string]expr.WindowFunc{"row_number": expr.RowNumber, "rank": expr.Rank, "dense_rank": expr.DenseRank}

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
// and ORDER BY of stmt over rel, the rows of FROM and WHERE: for each
// distinct OVER clause, the partition and order expressions are mapped
// onto rel and a Window appends the functions' values, which the calls
// then read (b.callColumns). row_number, rank and dense_rank are
// supported, with PARTITION BY and ORDER BY and the default frame; not
// with aggregates or GROUP BY in the same query (where windows run
// after grouping), nor named windows.
func (b *binder) bindWindows(stmt *pg.SelectStmt, rel hrel, sc *scope) (hrel, error) {
	var sortNodes []*pg.Node
	for _, n := range stmt.SortClause {
		sortNodes = append(sortNodes, n.GetSortBy().Node)
	}
	calls := selectListWindows(stmt.TargetList, sortNodes)
	if len(calls) == 0 {
		return rel, nil
	}
	if len(stmt.GroupClause) > 0 || stmt.HavingClause != nil || containsAggregate(stmt.TargetList) || containsAggregate(sortNodes) {
		return nil, errorAt(unsupported("window functions in a query with aggregates or GROUP BY"), b.sql, calls[0].Location)
	}
	// Group the calls by their OVER clause.
	var specs []*pg.WindowDef
	var groups [][]*pg.FuncCall
	for _, fc := range calls {
		name, err := funcName(fc)
		if err != nil {
			return nil, errorAt(err, b.sql, fc.Location)
		}
		if _, ok := windowFuncs[name]; !ok {
			if aggregateNames[name] {
				return nil, errorAt(unsupported("aggregate %s as a window function", name), b.sql, fc.Location)
			}
			return nil, errorAt(unsupported("window function %s", name), b.sql, fc.Location)
		}
		if len(fc.Args) > 0 || fc.AggStar || fc.AggDistinct || fc.AggFilter != nil {
			return nil, errorAt(errNoFunction(name, nil), b.sql, fc.Location)
		}
		w := fc.Over
		if w.Name != "" || w.Refname != "" {
			return nil, errorAt(unsupported("named windows"), b.sql, fc.Location)
		}
		key := stripNodeLocations(&pg.Node{Node: &pg.Node_WindowDef{WindowDef: w}})
		found := false
		for i, s := range specs {
			if proto.Equal(stripNodeLocations(&pg.Node{Node: &pg.Node_WindowDef{WindowDef: s}}), key) {
				groups[i] = append(groups[i], fc)
				found = true
				break
			}
		}
		if !found {
			specs = append(specs, w)
			groups = append(groups, []*pg.FuncCall{fc})
		}
	}
	if b.callColumns == nil {
		b.callColumns = map[*pg.FuncCall]hscalar{}
	}
	ctx := &exprCtx{scope: sc, clause: "window definitions"}
	for i, w := range specs {
		var exprs []hscalar
		for _, p := range w.PartitionClause {
			s, err := b.bindExpr(p, ctx)
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, s)
		}
		nParts := len(exprs)
		var orders []expr.ColumnOrder
		for _, n := range w.OrderClause {
			sb := n.GetSortBy()
			if len(sb.UseOp) > 0 {
				return nil, errorAt(unsupported("ORDER BY USING"), b.sql, sb.Location)
			}
			s, err := b.bindExpr(sb.Node, ctx)
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, s)
			desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
			nullsFirst := desc
			switch sb.SortbyNulls {
			case pg.SortByNulls_SORTBY_NULLS_FIRST:
				nullsFirst = true
			case pg.SortByNulls_SORTBY_NULLS_LAST:
				nullsFirst = false
			}
			orders = append(orders, expr.ColumnOrder{Desc: desc, NullsFirst: nullsFirst})
		}
		for _, s := range exprs {
			if hasSubquery(s) {
				return nil, unsupported("subqueries in window definitions")
			}
			if s.typ().Type.Kind() == repr.KindUnknown {
				return nil, sqlerr.New(sqlerr.IndeterminateDatatype, "could not determine the type of a window's PARTITION BY or ORDER BY expression")
			}
		}
		width := len(rel.types())
		var cols []int
		rel, cols = mapOutputs(rel, append(identityColumns(rel), exprs...))
		cols = cols[width:]
		for j := range orders {
			orders[j].Column = cols[nParts+j]
		}
		var funcs []expr.WindowFunc
		for _, fc := range groups[i] {
			name, _ := funcName(fc)
			funcs = append(funcs, windowFuncs[name])
		}
		base := len(rel.types())
		rel = hWindow{input: rel, partition: cols[:nParts], order: orders, funcs: funcs}
		for j, fc := range groups[i] {
			b.callColumns[fc] = hColumn{level: 0, index: base + j, t: expr.ColumnType{Type: repr.Int8}}
		}
	}
	return rel, nil
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
