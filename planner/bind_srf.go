package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// setReturningNames are the set-returning functions, which FROM takes
// (bindRangeFunction) and the select list takes through bindSelectSRF.
var setReturningNames = map[string]bool{"generate_series": true, "unnest": true}

// selectListSRFs returns the calls of set-returning functions in the
// select list of this query level (not inside subqueries).
func selectListSRFs(list []*pg.Node) []*pg.FuncCall {
	var out []*pg.FuncCall
	for _, n := range list {
		walkNodes(n, func(n *pg.Node) bool {
			switch x := n.GetNode().(type) {
			case *pg.Node_SubLink:
				return false
			case *pg.Node_FuncCall:
				if name, err := funcName(x.FuncCall); err == nil && setReturningNames[name] {
					out = append(out, x.FuncCall)
					return false
				}
			}
			return true
		})
	}
	return out
}

// bindSelectSRF binds the set-returning function called in the select
// list, as PostgreSQL runs it: once per row of rel, the row repeated for
// each value it yields and dropped when it yields none, so that
// SELECT k, unnest(a) FROM t is SELECT k, u FROM t, unnest(a) u. Each
// call then reads the column the function appends (b.srfColumns). Every
// call must be the same one: several different set-returning functions
// run in lockstep in PostgreSQL, which is not supported, nor are they
// with aggregates or GROUP BY, where they run after grouping.
func (b *binder) bindSelectSRF(stmt *pg.SelectStmt, rel hrel, sc *scope) (hrel, error) {
	calls := selectListSRFs(stmt.TargetList)
	if len(calls) == 0 {
		return rel, nil
	}
	if len(stmt.GroupClause) > 0 || stmt.HavingClause != nil || containsAggregate(stmt.TargetList) {
		return nil, errorAt(unsupported("set-returning functions in the select list of a query with aggregates or GROUP BY"), b.sql, calls[0].Location)
	}
	first := stripNodeLocations(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: calls[0]}})
	for _, c := range calls[1:] {
		if !proto.Equal(first, stripNodeLocations(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: c}})) {
			return nil, errorAt(unsupported("more than one set-returning function in the select list"), b.sql, c.Location)
		}
	}
	rf := &pg.RangeFunction{Lateral: true, Functions: []*pg.Node{{Node: &pg.Node_List{List: &pg.List{
		Items: []*pg.Node{{Node: &pg.Node_FuncCall{FuncCall: calls[0]}}, {}}}}}}}
	out, items, err := b.bindRangeFunction(rf, rel, sc)
	if err != nil {
		return nil, err
	}
	if b.srfColumns == nil {
		b.srfColumns = map[*pg.FuncCall]hColumn{}
	}
	col := hColumn{level: 0, index: items[0].col, t: items[0].typ, name: items[0].name}
	for _, c := range calls {
		b.srfColumns[c] = col
	}
	return out, nil
}
