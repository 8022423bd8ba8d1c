package planner

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// bindExpr binds a scalar expression. Errors get the position of the
// innermost node that has one.
func (b *binder) bindExpr(n *pg.Node, c *exprCtx) (hscalar, error) {
	s, err := b.bindExprNode(n, c)
	if err != nil {
		return nil, errorAt(err, b.sql, nodeLocation(n))
	}
	return s, nil
}

func (b *binder) bindExprNode(n *pg.Node, c *exprCtx) (hscalar, error) {
	switch x := n.GetNode().(type) {
	case *pg.Node_ColumnRef:
		return b.bindColumnRef(x.ColumnRef, c)
	case *pg.Node_AConst:
		return bindConst(x.AConst)
	case *pg.Node_ParamRef:
		if b.macroArgs != nil {
			return b.macroArg(int(x.ParamRef.Number))
		}
		return b.param(int(x.ParamRef.Number))
	case *pg.Node_TypeCast:
		t, err := b.typeFromName(x.TypeCast.TypeName)
		if err != nil {
			return nil, err
		}
		if ae := x.TypeCast.Arg.GetAArrayExpr(); ae != nil && len(ae.Elements) == 0 && t.IsArray() {
			// ARRAY[]::t is the empty array of t.
			return hLiteral{v: repr.NewArray(t.Elem(), nil), t: t}, nil
		}
		arg, err := b.bindExpr(x.TypeCast.Arg, c)
		if err != nil {
			return nil, err
		}
		out, err := b.explicitCast(arg, t)
		if err != nil && sqlerr.Code(err) != sqlerr.CannotCoerce {
			// A literal that does not read as the type: PostgreSQL points
			// at the literal.
			return nil, errorAt(err, b.sql, nodeLocation(x.TypeCast.Arg))
		}
		return out, err
	case *pg.Node_AExpr:
		return b.bindAExpr(x.AExpr, c)
	case *pg.Node_BoolExpr:
		return b.bindBoolExpr(x.BoolExpr, c)
	case *pg.Node_NullTest:
		if x.NullTest.Argisrow {
			return nil, unsupported("IS NULL on a row")
		}
		arg, err := b.bindExpr(x.NullTest.Arg, c)
		if err != nil {
			return nil, err
		}
		var s hscalar = hUnary{fn: expr.IsNull, arg: arg, t: expr.ColumnType{Type: repr.Bool}}
		if x.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			s = hUnary{fn: expr.Not, arg: s, t: expr.ColumnType{Type: repr.Bool}}
		}
		return s, nil
	case *pg.Node_BooleanTest:
		return b.bindBooleanTest(x.BooleanTest, c)
	case *pg.Node_CaseExpr:
		return b.bindCase(x.CaseExpr, c)
	case *pg.Node_CoalesceExpr:
		return b.bindVariadic(expr.Coalesce, "COALESCE", x.CoalesceExpr.Args, c)
	case *pg.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_GREATEST {
			return b.bindVariadic(expr.Greatest, "GREATEST", x.MinMaxExpr.Args, c)
		}
		return b.bindVariadic(expr.Least, "LEAST", x.MinMaxExpr.Args, c)
	case *pg.Node_FuncCall:
		return b.bindFunc(x.FuncCall, c)
	case *pg.Node_SubLink:
		return b.bindSubLink(x.SubLink, c)
	case *pg.Node_SetToDefault:
		return nil, sqlerr.New(sqlerr.SyntaxError, "DEFAULT is not allowed in this context")
	case *pg.Node_SqlvalueFunction:
		now := hVariadic{fn: expr.Now, t: expr.ColumnType{Type: repr.TimestampTZ}}
		switch x.SqlvalueFunction.Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:
			return now, nil
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			// The date, timestamp and precision forms of now(), in the
			// session's time zone.
			return b.explicitCast(now, repr.Date)
		case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:
			return b.explicitCast(now, repr.Timestamp)
		case pg.SQLValueFunctionOp_SVFOP_LOCALTIME:
			return b.explicitCast(now, repr.Time)
		case pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			t, err := repr.TypeFromName("time", []int32{x.SqlvalueFunction.Typmod})
			if err != nil {
				return nil, err
			}
			return b.explicitCast(now, t)
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
			// PostgreSQL's current_time is a timetz.
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "current_time is not supported: its type, time with time zone (timetz), is not supported").
				WithHint("localtime is the time of day without a time zone.")
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			name := "timestamptz"
			if x.SqlvalueFunction.Op == pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N {
				name = "timestamp"
			}
			t, err := repr.TypeFromName(name, []int32{x.SqlvalueFunction.Typmod})
			if err != nil {
				return nil, err
			}
			return b.explicitCast(now, t)
		}
		if fn, ok := sessionValueFunctions[x.SqlvalueFunction.Op]; ok {
			if fn == expr.CurrentDatabase {
				if lit, ok := b.databaseLiteral(); ok {
					return lit, nil
				}
			}
			return hVariadic{fn: fn, t: expr.CallVariadic{Func: fn}.Typ(nil)}, nil
		}
		return nil, unsupported("%s", sqlValueFunctionName(x.SqlvalueFunction.Op))
	case *pg.Node_RowExpr:
		return nil, unsupported("row constructors")
	case *pg.Node_AArrayExpr:
		return b.bindArrayExpr(x.AArrayExpr, c)
	case *pg.Node_AIndirection:
		return b.bindIndirection(x.AIndirection, c)
	case *pg.Node_CollateClause:
		return b.bindCollate(x.CollateClause, c)
	case *pg.Node_GroupingFunc:
		if !c.aggs || c.inAgg {
			return nil, errorAt(sqlerr.New(sqlerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), b.sql, x.GroupingFunc.Location)
		}
		var args []hscalar
		for _, a := range x.GroupingFunc.Args {
			s, err := b.bindExpr(a, &exprCtx{scope: c.scope, clause: c.clause, aggs: true, inAgg: true})
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
		if len(args) > 31 {
			return nil, errorAt(sqlerr.New(sqlerr.TooManyArguments, "GROUPING must have fewer than 32 arguments"), b.sql, x.GroupingFunc.Location)
		}
		return hGrouping{args: args}, nil
	}
	return nil, unsupported("expression %s", nodeName(n))
}

// nodeName names a node's type for messages.
func nodeName(n *pg.Node) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", n.GetNode()), "*pg_query.Node_")
}

func bindConst(c *pg.A_Const) (hscalar, error) {
	if c.Isnull {
		return hLiteral{v: repr.Null, t: repr.Unknown}, nil
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return hLiteral{v: repr.NewInt4(v.Ival.Ival), t: repr.Int4}, nil
	case *pg.A_Const_Fval:
		return numberLiteral(v.Fval.Fval)
	case *pg.A_Const_Sval:
		return hLiteral{v: repr.NewString(repr.KindUnknown, v.Sval.Sval), t: repr.Unknown}, nil
	case *pg.A_Const_Boolval:
		return hLiteral{v: repr.NewBool(v.Boolval.Boolval), t: repr.Bool}, nil
	case *pg.A_Const_Bsval:
		return nil, unsupported("bit string literals")
	}
	return nil, sqlerr.AssertionFailedf("empty constant")
}

// numberLiteral types a numeric literal as PostgreSQL does: an integer
// that fits int4 is int4, else int8, else numeric; any other is numeric.
func numberLiteral(s string) (hscalar, error) {
	l, err := numberValue(s)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// numberValue is numberLiteral's literal, not yet a scalar.
func numberValue(s string) (hLiteral, error) {
	if !strings.ContainsAny(s, ".eE") {
		// Decimal, whatever its leading zeros: 0777 is 777, not octal.
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			if v == int64(int32(v)) {
				return hLiteral{v: repr.NewInt4(int32(v)), t: repr.Int4}, nil
			}
			return hLiteral{v: repr.NewInt8(v), t: repr.Int8}, nil
		}
	}
	d, err := repr.ParseText(repr.Numeric, s)
	if err != nil {
		return hLiteral{}, err
	}
	return hLiteral{v: d, t: repr.Numeric}, nil
}

func (b *binder) bindColumnRef(ref *pg.ColumnRef, c *exprCtx) (hscalar, error) {
	var names []string
	for _, f := range ref.Fields {
		switch f := f.GetNode().(type) {
		case *pg.Node_String_:
			names = append(names, f.String_.Sval)
		case *pg.Node_AStar:
			return nil, unsupported("%s as a value", strings.Join(append(names, "*"), "."))
		}
	}
	if c.scope == nil {
		if c.clause == "DEFAULT" {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression")
		}
		return nil, sqlerr.New(sqlerr.InvalidColumnReference, "argument of %s must not contain variables", c.clause)
	}
	var table, name string
	switch len(names) {
	case 1:
		name = names[0]
	case 2, 3:
		table, name = names[len(names)-2], names[len(names)-1]
	default:
		return nil, sqlerr.New(sqlerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	col, err := c.scope.resolveColumn(table, name)
	if sqlerr.Code(err) == sqlerr.UndefinedColumn && table == "" {
		for sc := c.scope; sc != nil; sc = sc.parent {
			if sc.hasTable(name) {
				return nil, unsupported("whole-row reference %q", name)
			}
		}
	}
	return col, err
}

// typeFromName resolves a TypeName node.
func (b *binder) typeFromName(tn *pg.TypeName) (repr.Type, error) {
	if tn.Setof || tn.PctType {
		return repr.Type{}, unsupported("this type name")
	}
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().GetSval())
	}
	if len(names) == 0 {
		return repr.Type{}, sqlerr.AssertionFailedf("type name without names")
	}
	name := names[len(names)-1]
	if len(names) > 1 && names[len(names)-2] != "pg_catalog" {
		t, err := b.enumType(names)
		if err != nil {
			return repr.Type{}, errorAt(err, b.sql, tn.Location)
		}
		return b.withArrayBounds(t, tn)
	}
	var mods []int32
	for _, m := range tn.Typmods {
		ac := m.GetAConst()
		if ac == nil || ac.GetIval() == nil {
			return repr.Type{}, sqlerr.New(sqlerr.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
		mods = append(mods, ac.GetIval().Ival)
	}
	t, err := repr.TypeFromName(name, mods)
	if sqlerr.Code(err) == sqlerr.UndefinedObject && len(names) == 1 && len(mods) == 0 {
		t, err = b.enumType(names)
	}
	if err != nil {
		return repr.Type{}, errorAt(err, b.sql, tn.Location)
	}
	return b.withArrayBounds(t, tn)
}

// withArrayBounds returns t, or an array of t if tn has array bounds.
func (b *binder) withArrayBounds(t repr.Type, tn *pg.TypeName) (repr.Type, error) {
	if len(tn.ArrayBounds) > 0 {
		// int[], int[3] and int[][] are all int[]: PostgreSQL enforces
		// neither the size nor the number of dimensions.
		if t.ArrayOID() == 0 && !t.IsArray() {
			return repr.Type{}, errorAt(sqlerr.New(sqlerr.UndefinedObject, "type %s[] does not exist", t), b.sql, tn.Location)
		}
		t = repr.ArrayOf(t)
	}
	return t, nil
}

func (b *binder) bindAExpr(e *pg.A_Expr, c *exprCtx) (hscalar, error) {
	op := ""
	if len(e.Name) > 0 {
		op = e.Name[len(e.Name)-1].GetString_().GetSval()
	}
	switch e.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if e.Lexpr == nil {
			arg, err := b.bindExpr(e.Rexpr, c)
			if err != nil {
				return nil, err
			}
			return b.prefixOp(op, arg)
		}
		l, err := b.bindExpr(e.Lexpr, c)
		if err != nil {
			return nil, err
		}
		if e.Rexpr == nil {
			return nil, unsupported("postfix operators")
		}
		r, err := b.bindExpr(e.Rexpr, c)
		if err != nil {
			return nil, err
		}
		switch op {
		case "~", "~*", "!~", "!~*":
			return b.bindRegex(op, l, r)
		}
		return b.binaryOp(op, l, r)
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, r, err := b.bindPair(e.Lexpr, e.Rexpr, c)
		if err != nil {
			return nil, err
		}
		fn := expr.IsDistinctFrom
		if e.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			fn = expr.IsNotDistinctFrom
		}
		return b.comparison(fn, "=", l, r)
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		l, r, err := b.bindPair(e.Lexpr, e.Rexpr, c)
		if err != nil {
			return nil, err
		}
		// NULLIF(l, r) is l's value, of l's type, unless l = r.
		switch {
		case isUnknown(l) && isUnknown(r):
			l, err = b.coerceTo(l, repr.Text)
		case isUnknown(l):
			l, err = b.coerceTo(l, r.typ().Type.Base())
		}
		if err != nil {
			return nil, err
		}
		eq, err := b.binaryOp("=", l, r)
		if err != nil {
			return nil, err
		}
		t := l.typ()
		t.Nullable = true
		return hIf{cond: eq, then: hLiteral{v: repr.Null, t: t.Type}, els: l, t: t}, nil
	case pg.A_Expr_Kind_AEXPR_IN:
		return b.bindInList(e, op, c)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		return b.bindBetween(e, c)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE, pg.A_Expr_Kind_AEXPR_SIMILAR:
		// Bind the operands first, so that their errors come first.
		l, r, err := b.bindPair(e.Lexpr, e.Rexpr, c)
		if err != nil {
			return nil, err
		}
		if e.Kind == pg.A_Expr_Kind_AEXPR_SIMILAR {
			return nil, unsupported("SIMILAR TO")
		}
		return b.bindLike(op, l, r)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return b.bindArrayQuantified(e, op, c)
	}
	return nil, unsupported("operator expression")
}

func (b *binder) bindPair(l, r *pg.Node, c *exprCtx) (hscalar, hscalar, error) {
	ls, err := b.bindExpr(l, c)
	if err != nil {
		return nil, nil, err
	}
	rs, err := b.bindExpr(r, c)
	if err != nil {
		return nil, nil, err
	}
	return ls, rs, nil
}

// comparison builds a comparison function (IS DISTINCT FROM and its
// negation) with the operand types that op resolves to.
func (b *binder) comparison(fn expr.BinaryFunc, op string, l, r hscalar) (hscalar, error) {
	eq, err := b.binaryOp(op, l, r)
	if err != nil {
		return nil, err
	}
	e, ok := eq.(hBinary)
	if !ok {
		return nil, sqlerr.AssertionFailedf("operator %s built %T", op, eq)
	}
	nullable := e.left.typ().Nullable || e.right.typ().Nullable
	if fn == expr.IsDistinctFrom || fn == expr.IsNotDistinctFrom {
		nullable = false
	}
	return hBinary{fn: fn, left: e.left, right: e.right, t: expr.ColumnType{Type: repr.Bool, Nullable: nullable}}, nil
}

func (b *binder) prefixOp(op string, arg hscalar) (hscalar, error) {
	t := arg.typ().Type
	switch {
	case t.Kind() == repr.KindUnknown && (op == "-" || op == "+"):
		return nil, sqlerr.New(sqlerr.AmbiguousFunction, "operator is not unique: %s unknown", op).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	case op == "-" && (isNumeric(t.Kind()) || t.Kind() == repr.KindInterval):
		return hUnary{fn: expr.Neg, arg: arg, t: arg.typ()}, nil
	case op == "-" && t.Kind() == repr.KindTime:
		// -time is -interval, through the implicit cast, as in
		// PostgreSQL.
		iv, err := b.coerceTo(arg, repr.Interval)
		if err != nil {
			return nil, err
		}
		return hUnary{fn: expr.Neg, arg: iv, t: iv.typ()}, nil
	case op == "+" && isNumeric(t.Kind()):
		return arg, nil
	}
	return nil, sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s", op, typeName(t)).
		WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
}

// and and or build the boolean connectives over boolean operands.
func (b *binder) and(l, r hscalar) (hscalar, error) { return b.logic(expr.And, l, r) }

func (b *binder) or(l, r hscalar) (hscalar, error) { return b.logic(expr.Or, l, r) }

func (b *binder) logic(fn expr.BinaryFunc, l, r hscalar) (hscalar, error) {
	if l == nil {
		return r, nil
	}
	t := expr.ColumnType{Type: repr.Bool, Nullable: l.typ().Nullable || r.typ().Nullable}
	return hBinary{fn: fn, left: l, right: r, t: t}, nil
}

func (b *binder) not(s hscalar) (hscalar, error) {
	return hUnary{fn: expr.Not, arg: s, t: expr.ColumnType{Type: repr.Bool, Nullable: s.typ().Nullable}}, nil
}

func (b *binder) bindBoolExpr(e *pg.BoolExpr, c *exprCtx) (hscalar, error) {
	name := map[pg.BoolExprType]string{pg.BoolExprType_AND_EXPR: "AND", pg.BoolExprType_OR_EXPR: "OR", pg.BoolExprType_NOT_EXPR: "NOT"}[e.Boolop]
	var args []hscalar
	for _, a := range e.Args {
		s, err := b.bindExpr(a, c)
		if err != nil {
			return nil, err
		}
		if s, err = b.coerceBool(s, name); err != nil {
			return nil, errorAt(err, b.sql, nodeLocation(a))
		}
		args = append(args, s)
	}
	if e.Boolop == pg.BoolExprType_NOT_EXPR {
		return b.not(args[0])
	}
	var out hscalar
	for _, a := range args {
		var err error
		if e.Boolop == pg.BoolExprType_AND_EXPR {
			out, err = b.and(out, a)
		} else {
			out, err = b.or(out, a)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *binder) bindBooleanTest(e *pg.BooleanTest, c *exprCtx) (hscalar, error) {
	arg, err := b.bindExpr(e.Arg, c)
	if err != nil {
		return nil, err
	}
	names := map[pg.BoolTestType]string{
		pg.BoolTestType_IS_TRUE: "IS TRUE", pg.BoolTestType_IS_NOT_TRUE: "IS NOT TRUE",
		pg.BoolTestType_IS_FALSE: "IS FALSE", pg.BoolTestType_IS_NOT_FALSE: "IS NOT FALSE",
		pg.BoolTestType_IS_UNKNOWN: "IS UNKNOWN", pg.BoolTestType_IS_NOT_UNKNOWN: "IS NOT UNKNOWN",
	}
	if arg, err = b.coerceBool(arg, names[e.Booltesttype]); err != nil {
		return nil, err
	}
	fn := map[pg.BoolTestType]expr.UnaryFunc{
		pg.BoolTestType_IS_TRUE: expr.IsTrue, pg.BoolTestType_IS_NOT_TRUE: expr.IsTrue,
		pg.BoolTestType_IS_FALSE: expr.IsFalse, pg.BoolTestType_IS_NOT_FALSE: expr.IsFalse,
		pg.BoolTestType_IS_UNKNOWN: expr.IsNull, pg.BoolTestType_IS_NOT_UNKNOWN: expr.IsNull,
	}[e.Booltesttype]
	var s hscalar = hUnary{fn: fn, arg: arg, t: expr.ColumnType{Type: repr.Bool}}
	switch e.Booltesttype {
	case pg.BoolTestType_IS_NOT_TRUE, pg.BoolTestType_IS_NOT_FALSE, pg.BoolTestType_IS_NOT_UNKNOWN:
		s = hUnary{fn: expr.Not, arg: s, t: expr.ColumnType{Type: repr.Bool}}
	}
	return s, nil
}

func (b *binder) bindCase(e *pg.CaseExpr, c *exprCtx) (hscalar, error) {
	var arg hscalar
	if e.Arg != nil {
		var err error
		if arg, err = b.bindExpr(e.Arg, c); err != nil {
			return nil, err
		}
	}
	var conds, results []hscalar
	for _, w := range e.Args {
		cw := w.GetCaseWhen()
		cond, err := b.bindExpr(cw.Expr, c)
		if err != nil {
			return nil, err
		}
		if arg != nil {
			if cond, err = b.binaryOp("=", arg, cond); err != nil {
				return nil, errorAt(err, b.sql, cw.Location)
			}
		} else if cond, err = b.coerceBool(cond, "CASE/WHEN"); err != nil {
			return nil, errorAt(err, b.sql, nodeLocation(cw.Expr))
		}
		res, err := b.bindExpr(cw.Result, c)
		if err != nil {
			return nil, err
		}
		conds, results = append(conds, cond), append(results, res)
	}
	var els hscalar = hLiteral{v: repr.Null, t: repr.Unknown}
	if e.Defresult != nil {
		var err error
		if els, err = b.bindExpr(e.Defresult, c); err != nil {
			return nil, err
		}
	}
	// PostgreSQL unifies the ELSE first, then the THENs in order.
	all, t, err := b.unify(append([]hscalar{els}, results...), "CASE")
	if err != nil {
		return nil, err
	}
	out := all[0]
	for i := len(conds) - 1; i >= 0; i-- {
		ct := expr.ColumnType{Type: t, Nullable: all[i+1].typ().Nullable || out.typ().Nullable}
		out = hIf{cond: conds[i], then: all[i+1], els: out, t: ct}
	}
	return out, nil
}

func (b *binder) bindVariadic(fn expr.VariadicFunc, name string, argNodes []*pg.Node, c *exprCtx) (hscalar, error) {
	var args []hscalar
	for _, a := range argNodes {
		s, err := b.bindExpr(a, c)
		if err != nil {
			return nil, err
		}
		args = append(args, s)
	}
	args, t, err := b.unify(args, name)
	if err != nil {
		return nil, err
	}
	nullable := true
	for _, a := range args {
		if !a.typ().Nullable {
			nullable = false
		}
	}
	return hVariadic{fn: fn, args: args, t: expr.ColumnType{Type: t, Nullable: nullable}}, nil
}

// bindInList binds `x IN (a, b, ...)` as x = a OR x = b ..., and NOT IN
// as x <> a AND x <> b ..., so that each comparison is visible to later
// rewrites.
func (b *binder) bindInList(e *pg.A_Expr, op string, c *exprCtx) (hscalar, error) {
	x, err := b.bindExpr(e.Lexpr, c)
	if err != nil {
		return nil, err
	}
	var items []hscalar
	for _, n := range e.Rexpr.GetList().GetItems() {
		s, err := b.bindExpr(n, c)
		if err != nil {
			return nil, err
		}
		items = append(items, s)
	}
	// Like PostgreSQL, compare in the common type of all the values if
	// there is one, and else item by item.
	if all, _, err := b.unify(append([]hscalar{x}, items...), "IN"); err == nil {
		x, items = all[0], all[1:]
	}
	var out hscalar
	for _, it := range items {
		cmp, err := b.binaryOp(op, x, it)
		if err != nil {
			return nil, err
		}
		if op == "=" {
			out, err = b.or(out, cmp)
		} else {
			out, err = b.and(out, cmp)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *binder) bindBetween(e *pg.A_Expr, c *exprCtx) (hscalar, error) {
	x, err := b.bindExpr(e.Lexpr, c)
	if err != nil {
		return nil, err
	}
	bounds := e.Rexpr.GetList().GetItems()
	lo, hi, err := b.bindPair(bounds[0], bounds[1], c)
	if err != nil {
		return nil, err
	}
	between := func(lo, hi hscalar) (hscalar, error) {
		ge, err := b.binaryOp(">=", x, lo)
		if err != nil {
			return nil, err
		}
		le, err := b.binaryOp("<=", x, hi)
		if err != nil {
			return nil, err
		}
		return b.and(ge, le)
	}
	switch e.Kind {
	case pg.A_Expr_Kind_AEXPR_BETWEEN:
		return between(lo, hi)
	case pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		lt, err := b.binaryOp("<", x, lo)
		if err != nil {
			return nil, err
		}
		gt, err := b.binaryOp(">", x, hi)
		if err != nil {
			return nil, err
		}
		return b.or(lt, gt)
	}
	s1, err := between(lo, hi)
	if err != nil {
		return nil, err
	}
	s2, err := between(hi, lo)
	if err != nil {
		return nil, err
	}
	s, err := b.or(s1, s2)
	if err != nil {
		return nil, err
	}
	if e.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
		return b.not(s)
	}
	return s, nil
}

func (b *binder) bindSubLink(l *pg.SubLink, c *exprCtx) (hscalar, error) {
	sel := l.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, unsupported("this subquery")
	}
	switch l.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK, pg.SubLinkType_EXPR_SUBLINK, pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
	case pg.SubLinkType_ARRAY_SUBLINK:
		return b.bindArraySubLink(l, c)
	default:
		return nil, unsupported("comparing a row with a subquery")
	}
	leave := b.enterSubquery()
	q, err := b.bindQuery(sel, c.scope)
	leave()
	if err != nil {
		return nil, err
	}
	rel, err := b.nested(q)
	if err != nil {
		return nil, err
	}
	switch l.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		return hExists{rel: rel}, nil
	case pg.SubLinkType_EXPR_SUBLINK:
		if q.visible != 1 {
			return nil, sqlerr.New(sqlerr.SyntaxError, "subquery must return only one column")
		}
		return hSubquery{rel: rel}, nil
	}
	if l.Testexpr.GetRowExpr() != nil {
		return nil, unsupported("comparing a row with a subquery")
	}
	x, err := b.bindExpr(l.Testexpr, c)
	if err != nil {
		return nil, err
	}
	if q.visible != 1 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "subquery has too many columns")
	}
	op := "="
	if len(l.OperName) > 0 {
		op = l.OperName[len(l.OperName)-1].GetString_().GetSval()
	}
	fn, ok := binaryOps[op]
	if !ok || !fn.IsComparison() {
		return nil, unsupported("operator %s with ANY or ALL", op)
	}
	// Resolve `x op y` for the subquery's column y, and cast both sides
	// to the operator's operand types.
	y := hColumn{level: 0, index: 0, t: rel.types()[0]}
	xt, yt := x.typ().Type, y.t.Type
	switch {
	case isUnknown(x) && yt.Kind() == repr.KindUnknown:
		xt, yt = repr.Text, repr.Text
	case isUnknown(x):
		xt = yt.Base()
	case yt.Kind() == repr.KindUnknown:
		yt = xt.Base()
	}
	lt, rt, _, err := resolveBinary(fn, op, xt, yt)
	if err != nil {
		return nil, err
	}
	if x, err = b.coerceTo(x, lt); err != nil {
		return nil, err
	}
	if rel, err = b.coerceColumns(rel, []repr.Type{rt}, repr.CastImplicit, "IN"); err != nil {
		return nil, err
	}
	return hQuantified{left: x, op: fn, all: l.SubLinkType == pg.SubLinkType_ALL_SUBLINK, rel: rel}, nil
}

func sqlValueFunctionName(op pg.SQLValueFunctionOp) string {
	name := strings.TrimPrefix(op.String(), "SVFOP_")
	return strings.ToUpper(strings.TrimSuffix(name, "_N"))
}

// nodeLocation returns the byte offset of a node in the statement text,
// or -1.
func nodeLocation(n *pg.Node) int32 {
	switch x := n.GetNode().(type) {
	case *pg.Node_GroupingFunc:
		return x.GroupingFunc.Location
	case *pg.Node_ColumnRef:
		return x.ColumnRef.Location
	case *pg.Node_AConst:
		return x.AConst.Location
	case *pg.Node_ParamRef:
		return x.ParamRef.Location
	case *pg.Node_TypeCast:
		return x.TypeCast.Location
	case *pg.Node_AExpr:
		return x.AExpr.Location
	case *pg.Node_BoolExpr:
		return x.BoolExpr.Location
	case *pg.Node_NullTest:
		return x.NullTest.Location
	case *pg.Node_BooleanTest:
		return x.BooleanTest.Location
	case *pg.Node_CaseExpr:
		return x.CaseExpr.Location
	case *pg.Node_CoalesceExpr:
		return x.CoalesceExpr.Location
	case *pg.Node_MinMaxExpr:
		return x.MinMaxExpr.Location
	case *pg.Node_FuncCall:
		return x.FuncCall.Location
	case *pg.Node_SubLink:
		return x.SubLink.Location
	case *pg.Node_SqlvalueFunction:
		return x.SqlvalueFunction.Location
	case *pg.Node_ResTarget:
		return x.ResTarget.Location
	case *pg.Node_SortBy:
		return x.SortBy.Location
	case *pg.Node_RangeVar:
		return x.RangeVar.Location
	case *pg.Node_RowExpr:
		return x.RowExpr.Location
	case *pg.Node_AArrayExpr:
		return x.AArrayExpr.Location
	case *pg.Node_SetToDefault:
		return x.SetToDefault.Location
	}
	return -1
}

// bindLike binds x [NOT] LIKE p and x [NOT] ILIKE p (operators ~~, !~~,
// ~~* and !~~*) over text; an untyped operand is text.
func (b *binder) bindLike(op string, l, r hscalar) (hscalar, error) {
	fn := expr.Like
	if strings.HasSuffix(op, "*") {
		fn = expr.ILike
	}
	return b.bindTextMatch(fn, op, l, r)
}

// bindRegex binds the regular expression operators ~, ~*, !~ and !~* over
// text. A constant pattern is compiled here, so that an invalid one fails
// the statement before it runs and the compiled form is cached for it.
func (b *binder) bindRegex(op string, l, r hscalar) (hscalar, error) {
	fn := expr.Regex
	if strings.HasSuffix(op, "*") {
		fn = expr.RegexI
	}
	res, err := b.bindTextMatch(fn, op, l, r)
	if err != nil {
		return nil, err
	}
	if lit, ok := r.(hLiteral); ok && !lit.v.IsNull() {
		if _, err := expr.CompileRegex(repr.FormatText(lit.v), fn == expr.RegexI); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// bindTextMatch binds a pattern match fn of text l against pattern r,
// negated when op starts with !; an untyped operand is text.
func (b *binder) bindTextMatch(fn expr.BinaryFunc, op string, l, r hscalar) (hscalar, error) {
	var err error
	for _, s := range []*hscalar{&l, &r} {
		k := (*s).typ().Type.Kind()
		switch {
		case k == repr.KindUnknown:
			if *s, err = b.coerceTo(*s, repr.Text); err != nil {
				return nil, err
			}
		case k != repr.KindText && k != repr.KindVarchar && k != repr.KindBpchar && k != repr.KindName && k != repr.KindChar:
			return nil, errNoOperator(op, l.typ().Type, r.typ().Type)
		}
	}
	t := expr.ColumnType{Type: repr.Bool, Nullable: l.typ().Nullable || r.typ().Nullable}
	var res hscalar = hBinary{fn: fn, left: l, right: r, t: t}
	if strings.HasPrefix(op, "!") {
		res = hUnary{fn: expr.Not, arg: res, t: t}
	}
	return res, nil
}
