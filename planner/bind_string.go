package planner

import (
	"freshet/expr"
	"freshet/repr"
)

// stringFuncs are the string functions of expr/string_funcs.go: their
// argument types by number of arguments. A nil list takes any number of
// arguments of any type, each read as text (format's and concat_ws's
// after the first).
var stringFuncs = map[string]struct {
	fn   expr.VariadicFunc
	sigs map[int][]repr.Type
}{
	"format":         {expr.Format, nil},
	"concat_ws":      {expr.ConcatWS, nil},
	"parse_ident":    {expr.ParseIdent, map[int][]repr.Type{1: {repr.Text}, 2: {repr.Text, repr.Bool}}},
	"split_part":     {expr.SplitPart, map[int][]repr.Type{3: {repr.Text, repr.Text, repr.Int4}}},
	"lpad":           {expr.LPad, map[int][]repr.Type{2: {repr.Text, repr.Int4}, 3: {repr.Text, repr.Int4, repr.Text}}},
	"rpad":           {expr.RPad, map[int][]repr.Type{2: {repr.Text, repr.Int4}, 3: {repr.Text, repr.Int4, repr.Text}}},
	"left":           {expr.Left, map[int][]repr.Type{2: {repr.Text, repr.Int4}}},
	"right":          {expr.Right, map[int][]repr.Type{2: {repr.Text, repr.Int4}}},
	"repeat":         {expr.Repeat, map[int][]repr.Type{2: {repr.Text, repr.Int4}}},
	"reverse":        {expr.Reverse, map[int][]repr.Type{1: {repr.Text}}},
	"starts_with":    {expr.StartsWith, map[int][]repr.Type{2: {repr.Text, repr.Text}}},
	"quote_literal":  {expr.QuoteLiteral, map[int][]repr.Type{1: {repr.Text}}},
	"quote_nullable": {expr.QuoteNullable, map[int][]repr.Type{1: {repr.Text}}},
	"md5":            {expr.MD5, map[int][]repr.Type{1: {repr.Text}}},
}

// bindStringFunc binds a function of stringFuncs; ok is false for any
// other name.
func (b *binder) bindStringFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	f, known := stringFuncs[name]
	if !known {
		return nil, false, nil
	}
	out := make([]hscalar, len(args))
	if f.sigs == nil {
		if len(args) == 0 {
			return nil, true, errNoFunction(name, args)
		}
		for i, a := range args {
			t := a.typ().Type
			switch {
			case i == 0 || t.Kind() == repr.KindUnknown:
				out[i], err = b.coerceTo(a, repr.Text)
			case isRegKind(t.Kind()):
				out[i], err = b.regText(a)
			default:
				// Any other argument is printed by its output function
				// (true is t), as PostgreSQL's are.
				out[i] = a
			}
			if err != nil {
				return nil, true, errNoFunction(name, args)
			}
		}
	} else {
		types, fits := f.sigs[len(args)]
		if !fits {
			return nil, true, errNoFunction(name, args)
		}
		for i, a := range args {
			if out[i], err = b.coerceTo(a, types[i]); err != nil {
				return nil, true, errNoFunction(name, args)
			}
		}
	}
	nullable := false
	for _, a := range out {
		nullable = nullable || a.typ().Nullable
	}
	t := expr.ColumnType{Type: repr.Text, Nullable: nullable}
	switch f.fn {
	case expr.ParseIdent:
		t.Type = repr.ArrayOf(repr.Text)
	case expr.StartsWith:
		t.Type = repr.Bool
	case expr.ConcatWS, expr.Format:
		t.Nullable = out[0].typ().Nullable
	case expr.QuoteNullable:
		t.Nullable = false
	}
	return hVariadic{fn: f.fn, args: out, t: t}, true, nil
}

// jsonFuncs are the json functions of expr/json_funcs.go, which take
// arguments of any type (an untyped literal is text).
var jsonFuncs = map[string]expr.VariadicFunc{
	"json_build_object": expr.JSONBuildObject,
	"json_build_array":  expr.JSONBuildArray,
	"to_json":           expr.ToJSON,
	// The jsonb builders build the same JSON, then read it as jsonb.
	"jsonb_build_object": expr.JSONBBuildObject,
	"jsonb_build_array":  expr.JSONBBuildArray,
	"to_jsonb":           expr.ToJSONB,
}

// bindJSONFunc binds a function of jsonFuncs; ok is false for any other
// name.
func (b *binder) bindJSONFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	fn, known := jsonFuncs[name]
	if !known {
		return nil, false, nil
	}
	if (fn == expr.ToJSON || fn == expr.ToJSONB) && len(args) != 1 {
		return nil, true, errNoFunction(name, args)
	}
	out := make([]hscalar, len(args))
	for i, a := range args {
		switch t := a.typ().Type; {
		case t.Kind() == repr.KindUnknown:
			out[i], err = b.coerceTo(a, repr.Text)
		case isRegKind(t.Kind()):
			out[i], err = b.regText(a)
		case t.Kind() == repr.KindTimestampTZ && b.zoneLiteral() != nil:
			// Written with the session zone's offset.
			out[i] = hVariadic{fn: expr.TimestampTZJSON, args: []hscalar{b.zoneLiteral(), a}, t: expr.ColumnType{Type: repr.JSON, Nullable: a.typ().Nullable}}
		default:
			out[i] = a
		}
		if err != nil {
			return nil, true, err
		}
	}
	nullable := (fn == expr.ToJSON || fn == expr.ToJSONB) && out[0].typ().Nullable
	t := repr.JSON
	if fn == expr.JSONBBuildObject || fn == expr.JSONBBuildArray || fn == expr.ToJSONB {
		t = repr.JSONBType
	}
	return hVariadic{fn: fn, args: out, t: expr.ColumnType{Type: t, Nullable: nullable}}, true, nil
}

// mathFuncs are the double precision math functions, with their
// argument counts.
var mathFuncs = map[string]struct {
	fn   expr.VariadicFunc
	args int
}{
	"sqrt": {expr.Sqrt, 1}, "cbrt": {expr.Cbrt, 1}, "exp": {expr.Exp, 1}, "ln": {expr.Ln, 1},
	"log": {expr.Log10, 1}, "log10": {expr.Log10, 1}, "power": {expr.Power, 2}, "pow": {expr.Power, 2},
	"sign": {expr.Sign, 1}, "trunc": {expr.Trunc, 1}, "pi": {expr.Pi, 0},
	"degrees": {expr.Degrees, 1}, "radians": {expr.Radians, 1},
}

// bindMath binds a math function of double precision arguments: an
// integer, real or untyped argument is read as double precision, which
// PostgreSQL prefers among the numeric types. The numeric forms, whose
// results have PostgreSQL's own display scales, are not supported yet.
func (b *binder) bindMath(name string, args []hscalar) (hscalar, error) {
	call := make([]hscalar, len(args))
	nullable := false
	for i, a := range args {
		switch k := a.typ().Type.Kind(); {
		case k == repr.KindNumeric:
			return nil, unsupported("%s of numeric (cast the argument to double precision)", name)
		case k.IsInt(), k.IsFloat(), k == repr.KindUnknown:
		default:
			return nil, errNoFunction(name, args)
		}
		f, err := b.coerceTo(a, repr.Float8)
		if err != nil {
			return nil, err
		}
		call[i] = f
		nullable = nullable || f.typ().Nullable
	}
	return hVariadic{fn: mathFuncs[name].fn, args: call, t: expr.ColumnType{Type: repr.Float8, Nullable: nullable}}, nil
}
