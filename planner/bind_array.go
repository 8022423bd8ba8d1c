package planner

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// bindArrayExpr binds ARRAY[e1, …]: the elements are cast to the type
// they resolve to together, as a CASE's branches are. An empty ARRAY[]
// needs a cast to give it a type (TypeCast binds ARRAY[]::t).
func (b *binder) bindArrayExpr(ae *pg.A_ArrayExpr, c *exprCtx) (hscalar, error) {
	if len(ae.Elements) == 0 {
		return nil, errorAt(sqlerr.New(sqlerr.IndeterminateDatatype, "cannot determine type of empty array").
			WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[]."), b.sql, ae.Location)
	}
	var elems []hscalar
	for _, e := range ae.Elements {
		s, err := b.bindExpr(e, c)
		if err != nil {
			return nil, err
		}
		if s.typ().Type.IsArray() {
			return nil, errorAt(unsupported("arrays of more than one dimension"), b.sql, nodeLocation(e))
		}
		elems = append(elems, s)
	}
	elems, t, err := b.unify(elems, "ARRAY")
	if err != nil {
		return nil, errorAt(err, b.sql, ae.Location)
	}
	if t.ArrayOID() == 0 {
		return nil, errorAt(sqlerr.New(sqlerr.UndefinedObject, "could not find array type for data type %s", typeName(t)), b.sql, ae.Location)
	}
	return hVariadic{fn: expr.ArrayConstruct, args: elems, t: expr.ColumnType{Type: repr.ArrayOf(t)}}, nil
}

// bindIndirection binds a[i] (and a[i][j] as far as one dimension
// goes), and the field selection (r).f of a record (bind_record.go).
// Slices (a[1:2]) are not supported.
func (b *binder) bindIndirection(ind *pg.A_Indirection, c *exprCtx) (hscalar, error) {
	var s hscalar
	var err error
	rest := ind.Indirection
	if len(rest) > 0 && rest[0].GetString_() != nil {
		s, err = b.selectField(ind.Arg, rest[0].GetString_().GetSval(), c)
		rest = rest[1:]
	} else {
		s, err = b.bindExpr(ind.Arg, c)
	}
	if err != nil {
		return nil, err
	}
	for _, n := range rest {
		idx := n.GetAIndices()
		if idx == nil {
			return nil, unsupported("field selection")
		}
		if idx.IsSlice {
			return nil, unsupported("array slices")
		}
		t := s.typ().Type
		if t.Kind() == repr.KindUnknown {
			return nil, sqlerr.New(sqlerr.IndeterminateDatatype, "cannot subscript a value of unknown type")
		}
		if !t.IsArray() {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", typeName(t))
		}
		i, err := b.bindExpr(idx.Uidx, c)
		if err != nil {
			return nil, err
		}
		if i, err = b.coerceTo(i, repr.Int4); err != nil {
			return nil, errorAt(sqlerr.New(sqlerr.DatatypeMismatch, "array subscript must have type integer"), b.sql, nodeLocation(idx.Uidx))
		}
		if _, ok := s.(hVariadic); ok && s.(hVariadic).fn == expr.ArraySubscript {
			return nil, unsupported("arrays of more than one dimension")
		}
		if t.IsVector() {
			// An int2vector's subscripts start at 0.
			one := hLiteral{v: repr.NewInt4(1), t: repr.Int4}
			if i, err = b.binaryOp("+", i, one); err != nil {
				return nil, err
			}
		}
		s = hVariadic{fn: expr.ArraySubscript, args: []hscalar{s, i}, t: expr.ColumnType{Type: t.Elem(), Nullable: true}}
	}
	return s, nil
}

// quantifiedOps are the operators x op ANY/ALL (array) takes.
var quantifiedOps = map[string]expr.BinaryFunc{
	"=": expr.Eq, "<>": expr.NotEq, "!=": expr.NotEq, "<": expr.Lt, "<=": expr.Lte, ">": expr.Gt, ">=": expr.Gte,
}

// bindArrayQuantified binds x op ANY (array) and x op ALL (array). An
// untyped literal array ('{1,2}') takes an array of x's type; otherwise
// x and the elements are cast to the type they resolve to together.
func (b *binder) bindArrayQuantified(e *pg.A_Expr, op string, c *exprCtx) (hscalar, error) {
	fn, ok := quantifiedOps[op]
	if !ok {
		return nil, unsupported("operator %s with ANY or ALL", op)
	}
	x, a, err := b.bindPair(e.Lexpr, e.Rexpr, c)
	if err != nil {
		return nil, err
	}
	at := a.typ().Type
	if at.Kind() == repr.KindUnknown {
		xt := x.typ().Type
		if xt.Kind() == repr.KindUnknown {
			xt = repr.Text
		}
		if a, err = b.coerceTo(a, repr.ArrayOf(xt.Base())); err != nil {
			return nil, errorAt(err, b.sql, nodeLocation(e.Rexpr))
		}
		at = a.typ().Type
	}
	if !at.IsArray() {
		return nil, errorAt(sqlerr.New(sqlerr.WrongObjectType, "op ANY/ALL (array) requires array on right side"), b.sql, nodeLocation(e.Rexpr))
	}
	// Resolve the operand types as x op element would.
	elem := hLiteral{v: repr.Null, t: at.Elem()}
	cmp, err := b.binaryOp(op, x, elem)
	if err != nil {
		return nil, errorAt(err, b.sql, e.Location)
	}
	bin, ok := cmp.(hBinary)
	if !ok {
		return nil, unsupported("operator %s with ANY or ALL on type %s", op, typeName(at))
	}
	x = bin.left
	if et := bin.right.typ().Type; et != at.Elem() {
		if a, err = b.coerceTo(a, repr.ArrayOf(et)); err != nil {
			return nil, errorAt(err, b.sql, nodeLocation(e.Rexpr))
		}
	}
	q := expr.ArrayAny
	if e.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL {
		q = expr.ArrayAll
	}
	opArg := hLiteral{v: repr.NewInt2(int16(fn)), t: repr.Int2}
	return hVariadic{fn: q, args: []hscalar{x, a, opArg}, t: expr.ColumnType{Type: repr.Bool, Nullable: true}}, nil
}

// arrayFuncs are the array functions bound by bindArrayFunc, with their
// numbers of arguments.
var arrayFuncs = map[string]struct {
	fn    expr.VariadicFunc
	nargs []int
}{
	"array_to_string": {expr.ArrayToString, []int{2, 3}},
	"array_length":    {expr.ArrayLength, []int{2}},
	"array_lower":     {expr.ArrayLower, []int{2}},
	"array_upper":     {expr.ArrayUpper, []int{2}},
	"cardinality":     {expr.Cardinality, []int{1}},
	"string_to_array": {expr.StringToArray, []int{2, 3}},
}

// bindArrayFunc binds a function of arrayFuncs; ok is false for any
// other name.
func (b *binder) bindArrayFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	f, known := arrayFuncs[name]
	if !known {
		return nil, false, nil
	}
	fits := false
	for _, n := range f.nargs {
		fits = fits || n == len(args)
	}
	if !fits {
		return nil, true, errNoFunction(name, args)
	}
	out := make([]hscalar, len(args))
	for i, a := range args {
		want := repr.Text
		switch {
		case f.fn == expr.StringToArray:
		case i == 0:
			// The array: an untyped literal is text[].
			t := a.typ().Type
			if t.Kind() == repr.KindUnknown {
				want = repr.ArrayOf(repr.Text)
			} else if !t.IsArray() {
				return nil, true, errNoFunction(name, args)
			} else {
				want = t
			}
		case f.fn == expr.ArrayLength || f.fn == expr.ArrayLower || f.fn == expr.ArrayUpper:
			want = repr.Int4
		}
		c, err := b.coerceTo(a, want)
		if err != nil {
			return nil, true, errNoFunction(name, args)
		}
		out[i] = c
	}
	var t expr.ColumnType
	switch f.fn {
	case expr.ArrayToString:
		t = expr.ColumnType{Type: repr.Text, Nullable: true}
	case expr.StringToArray:
		t = expr.ColumnType{Type: repr.ArrayOf(repr.Text), Nullable: true}
	default:
		t = expr.ColumnType{Type: repr.Int4, Nullable: true}
	}
	return hVariadic{fn: f.fn, args: out, t: t}, true, nil
}

// bindArraySubLink binds ARRAY(subquery) as the scalar subquery
// (SELECT coalesce(array_agg(v), '{}') FROM (subquery) AS s(v)): the
// subquery's rows as an array, empty when there are none. array_agg
// orders its values ascending, which is the order of ORDER BY 1; any
// other ORDER BY of the subquery becomes array_agg's own
// (arraySubLinkOrder).
func (b *binder) bindArraySubLink(l *pg.SubLink, c *exprCtx) (hscalar, error) {
	sel := proto.Clone(l.Subselect.GetSelectStmt()).(*pg.SelectStmt)
	if len(sel.TargetList) > 1 {
		return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "subquery must return only one column"), b.sql, l.Location)
	}
	if len(sel.TargetList) == 1 {
		if cr := sel.TargetList[0].GetResTarget().GetVal().GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			return nil, errorAt(unsupported("ARRAY(SELECT * …)"), b.sql, l.Location)
		}
	}
	loc := l.Location
	colnames := []*pg.Node{pg.MakeStrNode("freshet_array_value")}
	var order []*pg.Node
	if len(sel.SortClause) > 0 {
		if len(sel.SortClause) != 1 || !sortsByFirstColumnAscending(sel) {
			var err error
			if order, err = arraySubLinkOrder(sel, &colnames, loc); err != nil {
				return nil, errorAt(err, b.sql, l.Location)
			}
		}
		if sel.LimitCount == nil && sel.LimitOffset == nil {
			sel.SortClause = nil
		}
	}
	colRef := arrayColumnRef("freshet_array_value", loc)
	agg := &pg.Node{Node: &pg.Node_FuncCall{FuncCall: &pg.FuncCall{
		Funcname: []*pg.Node{pg.MakeStrNode("array_agg")}, Args: []*pg.Node{colRef}, AggOrder: order,
		Funcformat: pg.CoercionForm_COERCE_EXPLICIT_CALL, Location: loc}}}
	empty := &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: "{}"}}, Location: loc}}}
	coalesce := &pg.Node{Node: &pg.Node_CoalesceExpr{CoalesceExpr: &pg.CoalesceExpr{Args: []*pg.Node{agg, empty}, Location: loc}}}
	wrapper := &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: coalesce, Location: loc}}}},
		FromClause: []*pg.Node{{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
			Subquery: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}},
			Alias:    &pg.Alias{Aliasname: "freshet_array", Colnames: colnames},
		}}}},
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}
	return b.bindSubLink(&pg.SubLink{
		SubLinkType: pg.SubLinkType_EXPR_SUBLINK,
		Subselect:   &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: wrapper}},
		Location:    loc,
	}, c)
}

// arraySubLinkOrder returns the ORDER BY of array_agg that keeps the
// order of ARRAY(sel)'s ORDER BY: an item that is the output column
// orders by it, any other is added to sel's select list as a column of
// its own (named in colnames, after the value's) to order by, so that
// ARRAY(SELECT label … ORDER BY position) keeps its order. sel must be a
// plain SELECT for that: not DISTINCT, as PostgreSQL requires of an
// ORDER BY expression outside the select list.
func arraySubLinkOrder(sel *pg.SelectStmt, colnames *[]*pg.Node, loc int32) ([]*pg.Node, error) {
	var order []*pg.Node
	for i, n := range sel.SortClause {
		sb := n.GetSortBy()
		if sb == nil || len(sb.UseOp) > 0 {
			return nil, unsupported("ARRAY subqueries with ORDER BY … USING")
		}
		if ac := sb.Node.GetAConst(); ac != nil && ac.GetIval() != nil && ac.GetIval().Ival != 1 {
			return nil, sqlerr.New(sqlerr.InvalidColumnReference, "ORDER BY position %d is not in select list", ac.GetIval().Ival)
		}
		key := "freshet_array_value"
		if !sortsByOutput(sel, sb) {
			if sel.Op != pg.SetOperation_SETOP_NONE || len(sel.DistinctClause) > 0 {
				return nil, unsupported("ARRAY subqueries of DISTINCT or set operations ordered by other than their column")
			}
			key = fmt.Sprintf("freshet_array_key%d", i+1)
			sel.TargetList = append(sel.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: sb.Node, Location: loc}}})
			*colnames = append(*colnames, pg.MakeStrNode(key))
		}
		order = append(order, &pg.Node{Node: &pg.Node_SortBy{SortBy: &pg.SortBy{
			Node: arrayColumnRef(key, loc), SortbyDir: sb.SortbyDir, SortbyNulls: sb.SortbyNulls, Location: loc}}})
	}
	return order, nil
}

// arrayColumnRef is a reference to the column name of ARRAY()'s subquery.
func arrayColumnRef(name string, loc int32) *pg.Node {
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
		Fields: []*pg.Node{pg.MakeStrNode(name)}, Location: loc}}}
}

// sortsByFirstColumnAscending reports whether sel's one ORDER BY item is
// its first output column, by position or as written, ascending with
// NULLs last (the default).
func sortsByFirstColumnAscending(sel *pg.SelectStmt) bool {
	sb := sel.SortClause[0].GetSortBy()
	if sb == nil || len(sel.TargetList) == 0 {
		return false
	}
	if sb.SortbyDir == pg.SortByDir_SORTBY_DESC || sb.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_FIRST || len(sb.UseOp) > 0 {
		return false
	}
	return sortsByOutput(sel, sb)
}

// sortsByOutput reports whether ORDER BY item sb of sel is sel's first
// output column, by position, by its name or as written.
func sortsByOutput(sel *pg.SelectStmt, sb *pg.SortBy) bool {
	if len(sel.TargetList) == 0 {
		return false
	}
	if ac := sb.Node.GetAConst(); ac != nil && ac.GetIval() != nil {
		return ac.GetIval().Ival == 1
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil {
		return false
	}
	if cr := sb.Node.GetColumnRef(); cr != nil && rt.Name != "" && len(cr.Fields) == 1 && cr.Fields[0].GetString_().GetSval() == rt.Name {
		return true
	}
	return proto.Equal(stripNodeLocations(sb.Node), stripNodeLocations(rt.Val))
}

// stripNodeLocations returns a copy of n with every location field zero,
// so that two spellings of one expression compare equal.
func stripNodeLocations(n *pg.Node) *pg.Node {
	c := proto.Clone(n).(*pg.Node)
	var strip func(m protoreflect.Message)
	strip = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Name() == "location" && fd.Kind() == protoreflect.Int32Kind:
				m.Clear(fd)
			case fd.Message() != nil && fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					strip(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				strip(v.Message())
			}
			return true
		})
	}
	strip(c.ProtoReflect())
	return c
}

// bindUnnest binds unnest(array) in FROM over each row of left: one row
// per element, in order, NULL elements included; none for a NULL or
// empty array.
//
// generate_subscripts(array, dim) is bound here too: the subscripts of
// the array's elements.
func (b *binder) bindUnnest(rf *pg.RangeFunction, fc *pg.FuncCall, left hrel, sc *scope, name string) (hrel, []scopeItem, error) {
	args, err := b.bindFunctionArgs(fc, sc)
	if err != nil {
		return nil, nil, err
	}
	if name == "unnest" && len(args) != 1 {
		return nil, nil, errorAt(unsupported("unnest of more than one array"), b.sql, fc.Location)
	}
	if name == "generate_subscripts" && len(args) != 2 {
		return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
	}
	t := args[0].typ().Type
	if t.Kind() == repr.KindUnknown {
		return nil, nil, errorAt(sqlerr.New(sqlerr.IndeterminateDatatype, "could not determine polymorphic type because input has type unknown"), b.sql, fc.Location)
	}
	if !t.IsArray() {
		return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
	}
	fn, typ := expr.Unnest, t.Elem()
	if name == "generate_subscripts" {
		dim, err := b.coerceTo(args[1], repr.Int4)
		if err != nil {
			return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
		}
		args[1] = dim
		fn, typ = expr.GenerateSubscripts, repr.Int4
	}
	rel := hFlatMap{input: left, fn: fn, args: args, typ: typ}
	col := len(left.types())
	table, colName, err := functionNames(rf, name)
	if err != nil {
		return nil, nil, err
	}
	return rel, []scopeItem{{table: table, name: colName, col: col, typ: expr.ColumnType{Type: typ, Nullable: true}}}, nil
}

// bindCurrentSchemas binds current_schemas(include_implicit): the
// schemas of the search path, which Freshet fixes at public, with
// pg_catalog first when include_implicit is true, as PostgreSQL lists
// them (its name[] is text[] here).
func (b *binder) bindCurrentSchemas(args []hscalar) (hscalar, error) {
	if len(args) != 1 {
		return nil, errNoFunction("current_schemas", args)
	}
	arg, err := b.coerceTo(args[0], repr.Bool)
	if err != nil {
		return nil, errNoFunction("current_schemas", args)
	}
	t := repr.ArrayOf(repr.Text)
	list := func(names ...string) hLiteral {
		var ds []repr.Datum
		for _, n := range names {
			ds = append(ds, repr.NewText(n))
		}
		return hLiteral{v: repr.NewArray(repr.Text, ds), t: t}
	}
	ct := expr.ColumnType{Type: t, Nullable: true}
	isNull := hUnary{fn: expr.IsNull, arg: arg, t: expr.ColumnType{Type: repr.Bool}}
	return hIf{cond: isNull, then: hLiteral{v: repr.Null, t: t},
		els: hIf{cond: arg, then: list("pg_catalog", "public"), els: list("public"), t: ct}, t: ct}, nil
}

// bindScalarFunctionInFrom binds a function that returns one value,
// called in FROM (FROM string_to_array(…) s, FROM now()): a table of one
// row and one column, named after the function unless aliased.
func (b *binder) bindScalarFunctionInFrom(rf *pg.RangeFunction, fc *pg.FuncCall, name string, left hrel, sc *scope) (hrel, []scopeItem, error) {
	ctx := &exprCtx{scope: sc, clause: "functions in FROM"}
	s, err := b.bindExpr(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: fc}}, ctx)
	if err != nil {
		return nil, nil, err
	}
	if hasSubquery(s) {
		return nil, nil, errorAt(unsupported("subqueries in the arguments of functions in FROM"), b.sql, fc.Location)
	}
	t := s.typ()
	t.Nullable = true
	rel := hFlatMap{input: left, fn: expr.Value, args: []hscalar{s}, typ: t.Type}
	col := len(left.types())
	table, colName, err := functionNames(rf, name)
	if err != nil {
		return nil, nil, err
	}
	return rel, []scopeItem{{table: table, name: colName, col: col, typ: t}}, nil
}

// bindArrayConcat binds || with an array operand: two arrays (an
// untyped literal is read as the other's type) concatenate, an element
// and an array append or prepend it.
func (b *binder) bindArrayConcat(l, r hscalar) (hscalar, error) {
	lt, rt := l.typ().Type, r.typ().Type
	var err error
	switch {
	case lt.IsArray() && rt.Kind() == repr.KindUnknown:
		r, err = b.coerceTo(r, lt)
	case rt.IsArray() && lt.Kind() == repr.KindUnknown:
		l, err = b.coerceTo(l, rt)
	}
	if err != nil {
		return nil, err
	}
	lt, rt = l.typ().Type, r.typ().Type
	nullable := l.typ().Nullable && r.typ().Nullable
	switch {
	case lt.IsArray() && rt.IsArray():
		elem, err := unifyTypes([]repr.Type{lt.Elem(), rt.Elem()}, "ARRAY")
		if err != nil {
			return nil, errNoOperator("||", lt, rt)
		}
		t := repr.ArrayOf(elem)
		if l, err = b.coerceTo(l, t); err != nil {
			return nil, err
		}
		if r, err = b.coerceTo(r, t); err != nil {
			return nil, err
		}
		return hVariadic{fn: expr.ArrayCat, args: []hscalar{l, r}, t: expr.ColumnType{Type: t, Nullable: nullable}}, nil
	case lt.IsArray():
		if r, err = b.coerceTo(r, lt.Elem()); err != nil {
			return nil, errNoOperator("||", lt, rt)
		}
		return hVariadic{fn: expr.ArrayAppend, args: []hscalar{l, r}, t: expr.ColumnType{Type: lt.Base()}}, nil
	default:
		if l, err = b.coerceTo(l, rt.Elem()); err != nil {
			return nil, errNoOperator("||", lt, rt)
		}
		return hVariadic{fn: expr.ArrayPrepend, args: []hscalar{l, r}, t: expr.ColumnType{Type: rt.Base()}}, nil
	}
}
