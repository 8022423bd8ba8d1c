package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// aggregateNames are the aggregate functions the planner supports.
var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bool_and": true, "bool_or": true, "every": true, "string_agg": true,
	"array_agg": true, "jsonb_agg": true, "json_agg": true,
	"stddev": true, "stddev_samp": true, "stddev_pop": true, "variance": true, "var_samp": true, "var_pop": true,
	"percentile_cont": true, "percentile_disc": true, "mode": true,
}

// windowOnlyNames are the functions that are only window functions:
// called without OVER, they are 42809, as in PostgreSQL.
var windowOnlyNames = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true, "ntile": true,
	"lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true,
}

// knownFunctions are PostgreSQL functions that exist but that the
// planner cannot express with expr's scalars yet: naming one is 0A000,
// not 42883, which would claim it does not exist.
var knownFunctions = map[string]bool{
	"trim":              true,
	"age":               true,
	"current_timestamp": true, "clock_timestamp": true, "statement_timestamp": true,
	"log": true, "trunc": true, "jsonb_object_agg": true,
	"nextval":        true,
	"regexp_matches": true,
	"date":           true, "timezone": true, "make_date": true, "justify_days": true, "justify_hours": true,
}

func funcName(fc *pg.FuncCall) (string, error) {
	var names []string
	for _, n := range fc.Funcname {
		names = append(names, n.GetString_().GetSval())
	}
	name := names[len(names)-1]
	if len(names) > 1 && names[len(names)-2] == "information_schema" && name == "_pg_expandarray" {
		return name, nil
	}
	if len(names) > 1 && names[len(names)-2] != "pg_catalog" {
		return "", sqlerr.New(sqlerr.UndefinedFunction, "function %s does not exist", strings.Join(names, "."))
	}
	return name, nil
}

func (b *binder) bindFunc(fc *pg.FuncCall, c *exprCtx) (hscalar, error) {
	if col, ok := b.callColumns[fc]; ok {
		return col, nil
	}
	name, err := funcName(fc)
	if err != nil {
		return nil, err
	}
	if fc.Over != nil {
		// The select list's and ORDER BY's window calls were computed
		// before (bind_window.go): any other place is not allowed.
		return nil, sqlerr.New(sqlerr.WindowingError, "window functions are not allowed in %s", c.clause)
	}
	if windowOnlyNames[name] {
		return nil, errorAt(sqlerr.New(sqlerr.WrongObjectType, "window function %s requires an OVER clause", name), b.sql, fc.Location)
	}
	if orderedSetNames[name] {
		return b.bindOrderedSet(name, fc, c)
	}
	if fc.AggWithinGroup {
		return nil, unsupported("WITHIN GROUP")
	}
	if fc.FuncVariadic {
		return nil, unsupported("VARIADIC")
	}
	if aggregateNames[name] {
		return b.bindAggregate(name, fc, c)
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "%s is not an aggregate function", name)
	}
	if s, ok, err := b.bindCatalogMacro(name, fc, c); ok || err != nil {
		return s, err
	}
	var args []hscalar
	for _, a := range fc.Args {
		s, err := b.bindExpr(a, c)
		if err != nil {
			return nil, err
		}
		args = append(args, s)
	}
	if s, ok, err := bindCatalogFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindSessionFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindArrayFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindEnumFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindByteaFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindStringFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindJSONFunc(name, args); ok || err != nil {
		return s, err
	}
	if s, ok, err := b.bindJSONBFunc(name, args); ok || err != nil {
		return s, err
	}
	if name == "current_schemas" {
		return b.bindCurrentSchemas(args)
	}
	switch {
	case name == "abs" && len(args) == 1:
		t := args[0].typ().Type
		if isNumeric(t.Kind()) {
			return hUnary{fn: expr.Abs, arg: args[0], t: args[0].typ()}, nil
		}
	case (name == "lower" || name == "upper" || name == "length" || name == "char_length" || name == "character_length") && len(args) == 1:
		arg := args[0]
		k := arg.typ().Type.Kind()
		if k == repr.KindUnknown {
			var err error
			if arg, err = b.coerceTo(arg, repr.Text); err != nil {
				return nil, err
			}
			k = repr.KindText
		}
		if k == repr.KindText || k == repr.KindVarchar || k == repr.KindBpchar || k == repr.KindName || k == repr.KindChar {
			fn, t := expr.Lower, repr.Text
			switch name {
			case "upper":
				fn = expr.Upper
			case "length", "char_length", "character_length":
				fn, t = expr.Length, repr.Int4
			}
			return hUnary{fn: fn, arg: arg, t: expr.ColumnType{Type: t, Nullable: arg.typ().Nullable}}, nil
		}
	case (name == "octet_length" || name == "ascii") && len(args) == 1:
		arg, err := b.coerceTo(args[0], repr.Text)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		fn := expr.OctetLength
		if name == "ascii" {
			fn = expr.ASCII
		}
		return hUnary{fn: fn, arg: arg, t: expr.ColumnType{Type: repr.Int4, Nullable: arg.typ().Nullable}}, nil
	case name == "chr" && len(args) == 1:
		arg, err := b.coerceTo(args[0], repr.Int4)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		return hUnary{fn: expr.Chr, arg: arg, t: expr.ColumnType{Type: repr.Text, Nullable: arg.typ().Nullable}}, nil
	case name == "pg_typeof" && len(args) == 1:
		// The argument's type, known when the statement is planned.
		return hLiteral{v: repr.NewOID(repr.KindRegtype, args[0].typ().Type.OID()), t: repr.Regtype}, nil
	case (name == "floor" || name == "ceil" || name == "ceiling") && len(args) == 1:
		arg := args[0]
		k := arg.typ().Type.Kind()
		if isNumeric(k) {
			// Integers and float4 go through float8, numeric stays
			// numeric, as PostgreSQL's floor(float8) and floor(numeric).
			if k != repr.KindNumeric && k != repr.KindFloat8 {
				var err error
				if arg, err = b.coerceTo(arg, repr.Float8); err != nil {
					return nil, err
				}
			}
			fn := expr.Floor
			if name != "floor" {
				fn = expr.Ceil
			}
			return hUnary{fn: fn, arg: arg, t: arg.typ()}, nil
		}
	case name == "round" && (len(args) == 1 || len(args) == 2):
		x := args[0]
		k := x.typ().Type.Kind()
		if !isNumeric(k) {
			break
		}
		var err error
		if len(args) == 2 || k == repr.KindNumeric || k.IsInt() {
			// round(numeric[, int]); integers round as numeric.
			if len(args) == 1 && k != repr.KindNumeric {
				if x, err = b.coerceTo(x, repr.Float8); err != nil {
					return nil, err
				}
			} else if x, err = b.coerceTo(x, repr.Numeric); err != nil {
				return nil, err
			}
		} else if x, err = b.coerceTo(x, repr.Float8); err != nil {
			return nil, err
		}
		rargs := []hscalar{x}
		if len(args) == 2 {
			n, err := b.coerceTo(args[1], repr.Int4)
			if err != nil {
				return nil, err
			}
			rargs = append(rargs, n)
		}
		return hVariadic{fn: expr.Round, args: rargs, t: expr.ColumnType{Type: x.typ().Type.Base(), Nullable: true}}, nil
	case (name == "substr" || name == "substring") && (len(args) == 2 || len(args) == 3):
		s, err := b.coerceTo(args[0], repr.Text)
		if err != nil {
			return nil, err
		}
		sargs := []hscalar{s}
		for _, a := range args[1:] {
			if !a.typ().Type.Kind().IsInt() && a.typ().Type.Kind() != repr.KindUnknown {
				return nil, errNoFunction(name, args)
			}
			a, err := b.coerceTo(a, repr.Int8)
			if err != nil {
				return nil, err
			}
			sargs = append(sargs, a)
		}
		return hVariadic{fn: expr.Substr, args: sargs, t: expr.ColumnType{Type: repr.Text, Nullable: true}}, nil
	case name == "btrim" || name == "ltrim" || name == "rtrim" || name == "replace" || name == "regexp_replace" || name == "strpos" || name == "position" || name == "concat":
		fn := map[string]expr.VariadicFunc{"btrim": expr.BTrim, "ltrim": expr.LTrim, "rtrim": expr.RTrim,
			"replace": expr.Replace, "regexp_replace": expr.RegexpReplace, "strpos": expr.StrPos, "position": expr.StrPos, "concat": expr.Concat2}[name]
		want := map[string][2]int{"btrim": {1, 2}, "ltrim": {1, 2}, "rtrim": {1, 2}, "replace": {3, 3}, "regexp_replace": {3, 4},
			"strpos": {2, 2}, "position": {2, 2}, "concat": {1, 100}}[name]
		if len(args) < want[0] || len(args) > want[1] {
			break
		}
		targs := make([]hscalar, len(args))
		for i, a := range args {
			k := a.typ().Type.Kind()
			var err error
			switch {
			case name == "concat" && k != repr.KindUnknown:
				targs[i] = a
				continue
			case k != repr.KindUnknown && !k.IsString():
				return nil, errNoFunction(name, args)
			}
			if targs[i], err = b.coerceTo(a, repr.Text); err != nil {
				return nil, err
			}
		}
		// position(sub IN s) arrives as position(s, sub): strpos's order.
		t := expr.ColumnType{Type: repr.Text, Nullable: true}
		switch name {
		case "strpos", "position":
			t.Type = repr.Int4
		case "concat":
			t.Nullable = false
		}
		return hVariadic{fn: fn, args: targs, t: t}, nil
	case name == "pg_get_expr" && (len(args) == 2 || len(args) == 3):
		// pg_catalog keeps expressions (adbin, indexprs) as their SQL
		// text, so showing one is returning it.
		e, err := b.coerceTo(args[0], repr.Text)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		return e, nil
	case name == "format_type" && len(args) == 2:
		// format_type(oid, int4).
		oid, err := b.coerceTo(args[0], repr.OID)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		mod, err := b.coerceTo(args[1], repr.Int4)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		return b.formatType(oid, mod), nil
	case name == "make_time" && len(args) == 3:
		var typed [3]hscalar
		for i, want := range []repr.Type{repr.Int4, repr.Int4, repr.Float8} {
			a, err := b.coerceTo(args[i], want)
			if err != nil {
				return nil, errNoFunction(name, args)
			}
			typed[i] = a
		}
		return hVariadic{fn: expr.MakeTime, args: typed[:], t: expr.ColumnType{Type: repr.Time, Nullable: true}}, nil
	case (name == "now" || name == "transaction_timestamp" || name == "statement_timestamp") && len(args) == 0:
		// The statement's read time: one value for the whole statement.
		return hVariadic{fn: expr.Now, t: expr.ColumnType{Type: repr.TimestampTZ}}, nil
	case (name == "date_part" || name == "extract" || name == "date_trunc") && len(args) == 2:
		field, err := b.coerceTo(args[0], repr.Text)
		if err != nil {
			return nil, err
		}
		ts := args[1]
		if ts.typ().Type.Kind() == repr.KindTime {
			// Fields of a time of day: no zone applies. date_trunc
			// truncates it as the interval it casts to.
			fn, t := expr.DatePart, repr.Float8
			switch name {
			case "extract":
				fn, t = expr.Extract, repr.Numeric
			case "date_trunc":
				fn, t = expr.DateTrunc, repr.Interval
			}
			return hVariadic{fn: fn, args: []hscalar{field, ts}, t: expr.ColumnType{Type: t, Nullable: true}}, nil
		}
		switch ts.typ().Type.Kind() {
		case repr.KindTimestamp, repr.KindTimestampTZ:
		case repr.KindDate, repr.KindUnknown:
			if ts, err = b.coerceTo(ts, repr.Timestamp); err != nil {
				return nil, err
			}
		default:
			return nil, errNoFunction(name, args)
		}
		fn, t := expr.DatePart, repr.Float8
		switch name {
		case "extract":
			fn, t = expr.Extract, repr.Numeric
		case "date_trunc":
			fn, t = expr.DateTrunc, ts.typ().Type.Base()
		}
		return b.zonedDatePart(fn, field, ts, t, b.zoneLiteral())
	case name == "date_trunc" && len(args) == 3:
		// date_trunc(field, timestamptz, zone): truncated in zone.
		field, err := b.coerceTo(args[0], repr.Text)
		if err != nil {
			return nil, err
		}
		ts, err := b.coerceTo(args[1], repr.TimestampTZ)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		zone, err := b.coerceTo(args[2], repr.Text)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		return b.zonedDatePart(expr.DateTrunc, field, ts, repr.TimestampTZ, zone)
	case mathFuncs[name].fn != 0 && len(args) == mathFuncs[name].args:
		return b.bindMath(name, args)
	case name == "to_char" && len(args) == 2:
		return b.bindToChar(args)
	case (name == "to_timestamp" || name == "to_date") && len(args) == 2:
		return b.bindParseTemplate(name, args)
	case name == "to_timestamp" && len(args) == 1:
		secs, err := b.coerceTo(args[0], repr.Float8)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		return hVariadic{fn: expr.EpochToTimestamp, args: []hscalar{secs}, t: expr.ColumnType{Type: repr.TimestampTZ, Nullable: secs.typ().Nullable}}, nil
	case name == "timezone" && len(args) == 2:
		// timezone(zone, ts), which AT TIME ZONE calls.
		return b.atTimeZone(args[0], args[1])
	case name == "mod" && len(args) == 2:
		if isNumeric(args[0].typ().Type.Kind()) && isNumeric(args[1].typ().Type.Kind()) {
			return b.binaryOp("%", args[0], args[1])
		}
	case setReturningNames[name]:
		return nil, unsupported("set-returning functions in %s", c.clause)
	case knownFunctions[name]:
		return nil, unsupported("function %s", name)
	}
	return nil, errNoFunction(name, args)
}

func errNoFunction(name string, args []hscalar) *sqlerr.Error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = typeName(a.typ().Type)
	}
	return sqlerr.New(sqlerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func (b *binder) bindAggregate(name string, fc *pg.FuncCall, c *exprCtx) (hscalar, error) {
	switch {
	case c.inAgg:
		return nil, sqlerr.New(sqlerr.GroupingError, "aggregate function calls cannot be nested")
	case !c.aggs:
		return nil, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in %s", c.clause)
	}
	orders := len(fc.AggOrder) > 0 && (name == "string_agg" || name == "array_agg" || name == "jsonb_agg" || name == "json_agg")
	if len(fc.AggOrder) > 0 && !orders && name != "count" && name != "sum" && name != "avg" && name != "min" && name != "max" {
		return nil, unsupported("ORDER BY in aggregate %s", name)
	}
	inner := &exprCtx{scope: c.scope, clause: c.clause, aggs: true, inAgg: true}
	agg := hAgg{name: name, distinct: fc.AggDistinct, loc: fc.Location}
	switch {
	case fc.AggStar:
		if name != "count" {
			return nil, sqlerr.New(sqlerr.SyntaxError, "%s(*) specified, but %s is not a parameterless aggregate function", name, name)
		}
	case name == "string_agg" && len(fc.Args) == 2:
		arg, err := b.bindExpr(fc.Args[0], inner)
		if err != nil {
			return nil, err
		}
		delim, err := b.bindExpr(fc.Args[1], inner)
		if err != nil {
			return nil, err
		}
		if arg, err = b.aggregateArg(name, arg); err != nil {
			return nil, err
		}
		if delim, err = b.aggregateArg(name, delim); err != nil {
			return nil, err
		}
		lit, ok := delim.(hLiteral)
		if !ok {
			return nil, unsupported("string_agg with a delimiter that is not a constant")
		}
		if !lit.v.IsNull() {
			agg.delim = repr.FormatText(lit.v)
		}
		agg.arg = arg
	case len(fc.Args) != 1 || name == "string_agg":
		var args []hscalar
		for _, a := range fc.Args {
			s, err := b.bindExpr(a, inner)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
		return nil, errNoFunction(name, args)
	default:
		arg, err := b.bindExpr(fc.Args[0], inner)
		if err != nil {
			return nil, err
		}
		if arg, err = b.aggregateArg(name, arg); err != nil {
			return nil, err
		}
		if onlyOuterColumns(arg) {
			// PostgreSQL makes such an aggregate one of the enclosing
			// query's.
			return nil, unsupported("aggregates of an enclosing query's columns in a subquery")
		}
		agg.arg = arg
	}
	if orders {
		// ORDER BY inside the call orders string_agg's and array_agg's
		// values; the other aggregates do not depend on order.
		for _, n := range fc.AggOrder {
			sb := n.GetSortBy()
			if len(sb.UseOp) > 0 {
				return nil, unsupported("ORDER BY USING")
			}
			o, err := b.bindExpr(sb.Node, inner)
			if err != nil {
				return nil, err
			}
			if o.typ().Type.Kind() == repr.KindUnknown {
				if o, err = b.coerceTo(o, repr.Text); err != nil {
					return nil, err
				}
			}
			if agg.distinct && !equalScalars(stripLocations(o), stripLocations(agg.arg)) {
				return nil, errorAt(sqlerr.New(sqlerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"), b.sql, sb.Location)
			}
			desc, nullsFirst := sortDirection(sb)
			agg.order = append(agg.order, hAggOrder{s: o, desc: desc, nullsFirst: nullsFirst})
		}
	}
	var err error
	agg.filter, err = b.bindAggFilter(fc, inner)
	return agg, err
}

// aggregateArg checks the argument type of an aggregate, resolving an
// untyped argument as PostgreSQL would.
func (b *binder) aggregateArg(name string, arg hscalar) (hscalar, error) {
	t := arg.typ().Type
	k := t.Kind()
	switch name {
	case "count":
		if k == repr.KindUnknown {
			return b.coerceTo(arg, repr.Text)
		}
		return arg, nil
	case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		switch {
		case k == repr.KindUnknown:
			// PostgreSQL picks the float8 form for an untyped literal.
			return b.coerceTo(arg, repr.Float8)
		case k == repr.KindInterval:
			return nil, errNoFunction(name, []hscalar{arg})
		case isNumeric(k):
			return arg, nil
		}
	case "sum", "avg":
		switch {
		case k == repr.KindUnknown:
			return nil, sqlerr.New(sqlerr.AmbiguousFunction, "function %s(unknown) is not unique", name)
		case k == repr.KindInterval:
			return nil, unsupported("%s of interval", name)
		case k == repr.KindTime:
			// PostgreSQL sums a time as the interval it casts to.
			return nil, unsupported("%s of time (of interval)", name)
		case isNumeric(k):
			return arg, nil
		}
	case "min", "max":
		switch {
		case k == repr.KindUnknown:
			return b.coerceTo(arg, repr.Text)
		case k != repr.KindBool && k != repr.KindUUID && k != repr.KindBytea && k != repr.KindJSONB:
			// PostgreSQL 15 has no min or max of uuid, bytea or jsonb.
			return arg, nil
		}
	case "string_agg":
		switch k {
		case repr.KindUnknown:
			return b.coerceTo(arg, repr.Text)
		case repr.KindText, repr.KindVarchar, repr.KindBpchar, repr.KindName, repr.KindChar:
			return b.coerceTo(arg, repr.Text)
		}
	case "array_agg", "jsonb_agg", "json_agg":
		switch {
		case k == repr.KindUnknown:
			return b.coerceTo(arg, repr.Text)
		case k == repr.KindArray:
			return nil, unsupported("%s of arrays (arrays of more than one dimension)", name)
		case name == "json_agg" && k == repr.KindTimestampTZ && b.zoneLiteral() != nil:
			// Written with the session zone's offset, as to_json writes
			// it: the values are collected as json.
			return hVariadic{fn: expr.TimestampTZJSON, args: []hscalar{b.zoneLiteral(), arg}, t: expr.ColumnType{Type: repr.JSON, Nullable: arg.typ().Nullable}}, nil
		case t.ArrayOID() != 0:
			return arg, nil
		}
	case "bool_and", "bool_or", "every":
		if k == repr.KindUnknown {
			return b.coerceTo(arg, repr.Bool)
		}
		if k == repr.KindBool {
			return arg, nil
		}
	}
	return nil, errNoFunction(name, []hscalar{arg})
}

// aggResultType is the SQL result type of an aggregate call.
func aggResultType(a hAgg) repr.Type {
	switch a.name {
	case "count":
		return repr.Int8
	case "bool_and", "bool_or", "every":
		return repr.Bool
	case "avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		if a.arg.typ().Type.Kind().IsFloat() {
			return repr.Float8
		}
		return repr.Numeric
	case "sum":
		return aggregateType(expr.Sum, a.arg.typ().Type).Type
	case "array_agg":
		return repr.ArrayOf(a.arg.typ().Type)
	case "jsonb_agg":
		return repr.JSONBType
	case "json_agg":
		return repr.JSON
	}
	return a.arg.typ().Type
}

// onlyOuterColumns reports whether s refers to columns, all of them of
// enclosing queries.
func onlyOuterColumns(s hscalar) bool {
	outer, local := false, false
	_, _ = mapScalarRefs(s, 0, func(c hColumn, depth int) (hscalar, error) {
		switch {
		case c.level > depth:
			outer = true
		case c.level == depth:
			local = true
		}
		return c, nil
	})
	return outer && !local
}

// orderedSetNames are the ordered-set aggregates: their input is the
// WITHIN GROUP (ORDER BY …) expression.
var orderedSetNames = map[string]bool{"percentile_cont": true, "percentile_disc": true, "mode": true}

// bindOrderedSet binds percentile_cont(f), percentile_disc(f) and mode()
// WITHIN GROUP (ORDER BY value [DESC]). The fraction must be a constant
// between 0 and 1 (22003 outside); arrays of fractions are not
// supported. percentile_cont takes double precision values, as
// PostgreSQL casts them.
func (b *binder) bindOrderedSet(name string, fc *pg.FuncCall, c *exprCtx) (hscalar, error) {
	switch {
	case !fc.AggWithinGroup:
		return nil, errorAt(sqlerr.New(sqlerr.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name), b.sql, fc.Location)
	case c.inAgg:
		return nil, sqlerr.New(sqlerr.GroupingError, "aggregate function calls cannot be nested")
	case !c.aggs:
		return nil, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in %s", c.clause)
	case fc.AggDistinct:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cannot use DISTINCT with WITHIN GROUP")
	case len(fc.AggOrder) != 1:
		return nil, errNoFunction(name, nil)
	}
	inner := &exprCtx{scope: c.scope, clause: c.clause, aggs: true, inAgg: true}
	agg := hAgg{name: name, loc: fc.Location}
	wantArgs := 1
	if name == "mode" {
		wantArgs = 0
	}
	if len(fc.Args) != wantArgs {
		return nil, errorAt(sqlerr.New(sqlerr.UndefinedFunction, "function %s with %d direct arguments does not exist", name, len(fc.Args)), b.sql, fc.Location)
	}
	if wantArgs == 1 {
		f, err := b.bindExpr(fc.Args[0], inner)
		if err != nil {
			return nil, err
		}
		if f.typ().Type.Kind() == repr.KindArray {
			return nil, unsupported("%s of an array of fractions", name)
		}
		f, ok, err := b.coerce(f, repr.Float8, repr.CastImplicit)
		if err == nil && ok {
			f, err = foldScalar(f)
		}
		if err != nil {
			return nil, err
		}
		lit, isLit := f.(hLiteral)
		if !ok || !isLit {
			return nil, unsupported("%s with a fraction that is not a constant", name)
		}
		if lit.v.IsNull() {
			agg.fraction = -1 // NULL fraction: NULL result
		} else {
			v := lit.v.Float()
			if v < 0 || v > 1 || v != v {
				return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", repr.FormatText(lit.v))
			}
			agg.fraction = v
		}
	}
	sb := fc.AggOrder[0].GetSortBy()
	if len(sb.UseOp) > 0 {
		return nil, unsupported("ORDER BY USING")
	}
	v, err := b.bindExpr(sb.Node, inner)
	if err != nil {
		return nil, err
	}
	switch k := v.typ().Type.Kind(); {
	case name == "percentile_cont":
		if v, err = b.coerceTo(v, repr.Float8); err != nil {
			return nil, errNoFunction(name, []hscalar{v})
		}
	case k == repr.KindUnknown:
		if v, err = b.coerceTo(v, repr.Text); err != nil {
			return nil, err
		}
	}
	agg.arg = v
	agg.desc = sb.SortbyDir == pg.SortByDir_SORTBY_DESC
	agg.filter, err = b.bindAggFilter(fc, inner)
	return agg, err
}

// bindAggFilter binds an aggregate call's FILTER (WHERE …), or returns
// nil without one.
func (b *binder) bindAggFilter(fc *pg.FuncCall, inner *exprCtx) (hscalar, error) {
	if fc.AggFilter == nil {
		return nil, nil
	}
	f, err := b.bindExpr(fc.AggFilter, inner)
	if err != nil {
		return nil, err
	}
	return b.coerceBool(f, "FILTER")
}
