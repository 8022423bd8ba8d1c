package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"freshet/expr"
	"freshet/repr"
)

// setReturningNames are the set-returning functions, which FROM takes
// (bindRangeFunction) and the select list takes through bindSelectSRF.
var setReturningNames = map[string]bool{"generate_series": true, "unnest": true, "generate_subscripts": true, "_pg_expandarray": true,
	"jsonb_array_elements": true, "jsonb_array_elements_text": true, "jsonb_object_keys": true, "jsonb_each": true, "jsonb_each_text": true,
	"json_array_elements": true, "json_array_elements_text": true, "json_object_keys": true, "json_each": true, "json_each_text": true}

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

// bindSelectSRF binds the set-returning functions called in the select
// list, as PostgreSQL runs them: once per row of rel, the row repeated
// for each value they yield and dropped when they yield none, so that
// SELECT k, unnest(a) FROM t is SELECT k, u FROM t, unnest(a) u. Each
// call then reads its value from a column or scalar over rel
// (b.callColumns). The same call may appear more than once. Different
// calls run in lockstep, as in PostgreSQL, as long as each is unnest or
// generate_subscripts of an array: row k of the output holds element k
// of each, NULL past its end. Other combinations are not supported, nor
// are set-returning functions with aggregates or GROUP BY, where they
// run after grouping.
func (b *binder) bindSelectSRF(stmt *pg.SelectStmt, rel hrel, sc *scope) (hrel, error) {
	calls := selectListSRFs(stmt.TargetList)
	if len(calls) == 0 {
		return rel, nil
	}
	if len(stmt.GroupClause) > 0 || stmt.HavingClause != nil || containsAggregate(stmt.TargetList) {
		return nil, errorAt(unsupported("set-returning functions in the select list of a query with aggregates or GROUP BY"), b.sql, calls[0].Location)
	}
	// Group the calls by what they call.
	var distinct [][]*pg.FuncCall
	var keys []*pg.Node
	for _, c := range calls {
		key := stripNodeLocations(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: c}})
		found := false
		for i, k := range keys {
			if proto.Equal(k, key) {
				distinct[i] = append(distinct[i], c)
				found = true
				break
			}
		}
		if !found {
			keys = append(keys, key)
			distinct = append(distinct, []*pg.FuncCall{c})
		}
	}
	if b.callColumns == nil {
		b.callColumns = map[*pg.FuncCall]hscalar{}
	}
	if name, _ := funcName(calls[0]); name == "jsonb_each" || name == "jsonb_each_text" || name == "json_each" || name == "json_each_text" {
		// PostgreSQL yields a record (key, value) here.
		return nil, errorAt(unsupported("%s in the select list", name), b.sql, calls[0].Location)
	}
	if len(distinct) > 1 || isRecordSRF(calls[0]) {
		return b.bindLockstepSRFs(distinct, rel, sc)
	}
	rf := &pg.RangeFunction{Lateral: true, Functions: []*pg.Node{{Node: &pg.Node_List{List: &pg.List{
		Items: []*pg.Node{{Node: &pg.Node_FuncCall{FuncCall: calls[0]}}, {}}}}}}}
	out, items, err := b.bindRangeFunction(rf, rel, sc)
	if err != nil {
		return nil, err
	}
	col := hColumn{level: 0, index: items[0].col, t: items[0].typ, name: items[0].name}
	for _, c := range calls {
		b.callColumns[c] = col
	}
	return out, nil
}

// bindLockstepSRFs binds several different unnest and
// generate_subscripts calls of one select list: a row k = 1 … n for each
// input row, n the longest of the arrays, and each call's value at k.
func (b *binder) bindLockstepSRFs(calls [][]*pg.FuncCall, rel hrel, sc *scope) (hrel, error) {
	ctx := &exprCtx{scope: sc, clause: "SELECT"}
	type srf struct {
		name  string
		array hscalar
		dim   hscalar
	}
	var srfs []srf
	var counts []hscalar
	for _, group := range calls {
		fc := group[0]
		name, err := funcName(fc)
		if err != nil {
			return nil, errorAt(err, b.sql, fc.Location)
		}
		if _, jsonb := jsonbSRFs[name]; jsonb || name == "generate_series" || (name == "unnest" || name == "_pg_expandarray") && len(fc.Args) != 1 || (name == "generate_subscripts" && len(fc.Args) != 2) {
			return nil, errorAt(unsupported("more than one set-returning function in the select list"), b.sql, fc.Location)
		}
		var args []hscalar
		for _, a := range fc.Args {
			s, err := b.bindExpr(a, ctx)
			if err != nil {
				return nil, err
			}
			if hasSubquery(s) {
				return nil, errorAt(unsupported("subqueries in the arguments of set-returning functions"), b.sql, nodeLocation(a))
			}
			args = append(args, s)
		}
		if !args[0].typ().Type.IsArray() {
			return nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
		}
		s := srf{name: name, array: args[0]}
		count := hscalar(hVariadic{fn: expr.Cardinality, args: []hscalar{args[0]}, t: expr.ColumnType{Type: repr.Int4, Nullable: true}})
		if name == "generate_subscripts" {
			if s.dim, err = b.coerceTo(args[1], repr.Int4); err != nil {
				return nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
			}
			isOne, err := b.binaryOp("=", s.dim, hLiteral{v: repr.NewInt4(1), t: repr.Int4})
			if err != nil {
				return nil, err
			}
			count = hIf{cond: isOne, then: count, els: hLiteral{v: repr.Null, t: repr.Int4}, t: expr.ColumnType{Type: repr.Int4, Nullable: true}}
		}
		srfs = append(srfs, s)
		counts = append(counts, count)
	}
	n := hVariadic{fn: expr.Greatest, args: counts, t: expr.ColumnType{Type: repr.Int4, Nullable: true}}
	col := len(rel.types())
	rel = hFlatMap{input: rel, fn: expr.GenerateSeries, args: []hscalar{hLiteral{v: repr.NewInt4(1), t: repr.Int4}, n}, typ: repr.Int4}
	k := hColumn{level: 0, index: col, t: expr.ColumnType{Type: repr.Int4}, name: "k"}
	for i, s := range srfs {
		var v hscalar
		switch s.name {
		case "unnest":
			v = hVariadic{fn: expr.ArraySubscript, args: []hscalar{s.array, k}, t: expr.ColumnType{Type: s.array.typ().Type.Elem(), Nullable: true}}
		case "_pg_expandarray":
			// The record (x, n): element k and its position k, while k is
			// within the array.
			x := hVariadic{fn: expr.ArraySubscript, args: []hscalar{s.array, k}, t: expr.ColumnType{Type: s.array.typ().Type.Elem(), Nullable: true}}
			within, err := b.binaryOp("<=", k, counts[i])
			if err != nil {
				return nil, err
			}
			n := hIf{cond: within, then: k, els: hLiteral{v: repr.Null, t: repr.Int4}, t: expr.ColumnType{Type: repr.Int4, Nullable: true}}
			rec, err := b.record([]recordField{{"x", x}, {"n", n}})
			if err != nil {
				return nil, err
			}
			for _, c := range calls[i] {
				b.records[c] = rec
			}
			v = rec.text
		default:
			// Subscript k - 1 + the array's lower bound, while k is
			// within the array's length.
			within, err := b.binaryOp("<=", k, counts[i])
			if err != nil {
				return nil, err
			}
			offset := int32(0)
			if s.array.typ().Type.IsVector() {
				offset = -1
			}
			sub, err := b.binaryOp("+", k, hLiteral{v: repr.NewInt4(offset), t: repr.Int4})
			if err != nil {
				return nil, err
			}
			v = hIf{cond: within, then: sub, els: hLiteral{v: repr.Null, t: repr.Int4}, t: expr.ColumnType{Type: repr.Int4, Nullable: true}}
		}
		for _, c := range calls[i] {
			b.callColumns[c] = v
		}
	}
	return rel, nil
}
