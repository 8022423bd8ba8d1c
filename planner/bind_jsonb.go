package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// jsonbOps are jsonb's operators (expr/jsonb_funcs.go). The comparison
// operators are the generic ones (resolveBinary).
var jsonbOps = map[string]expr.VariadicFunc{
	"->": expr.JSONBGet, "->>": expr.JSONBGetText, "#>": expr.JSONBPath, "#>>": expr.JSONBPathText,
	"@>": expr.JSONBContains, "<@": expr.JSONBContained, "?": expr.JSONBExists, "?|": expr.JSONBExistsAny,
	"?&": expr.JSONBExistsAll, "||": expr.JSONBConcat, "-": expr.JSONBDelete,
}

var textArray = repr.ArrayOf(repr.Text)

// jsonOps are the operators of json (expr/json_ops.go), by the jsonb
// operator they mirror.
var jsonOps = map[expr.VariadicFunc]expr.VariadicFunc{
	expr.JSONBGet: expr.JSONGet, expr.JSONBGetText: expr.JSONGetText,
	expr.JSONBPath: expr.JSONPath, expr.JSONBPathText: expr.JSONPathText,
}

// bindJSONBOp binds op when it is a jsonb operator of these operands, or
// one of json's: ok is false when it is not, and op is left to the other
// operators.
func (b *binder) bindJSONBOp(op string, l, r hscalar) (s hscalar, ok bool, err error) {
	fn, known := jsonbOps[op]
	lk, rk := l.typ().Type.Kind(), r.typ().Type.Kind()
	if jf, isJSON := jsonOps[fn]; known && isJSON && lk == repr.KindJSON {
		return b.bindJSONOp(op, jf, l, r)
	}
	isJSONB := func(k repr.Kind) bool { return k == repr.KindJSONB }
	switch {
	case !known:
		return nil, false, nil
	case (fn == expr.JSONBConcat || fn == expr.JSONBContains || fn == expr.JSONBContained) &&
		(isJSONB(lk) && (isJSONB(rk) || rk == repr.KindUnknown) || lk == repr.KindUnknown && isJSONB(rk)):
		// Both sides jsonb. (jsonb || text is text's ||.)
	case !isJSONB(lk) || fn == expr.JSONBConcat:
		return nil, false, nil
	}
	fail := func() (hscalar, bool, error) { return nil, true, errNoOperator(op, l.typ().Type, r.typ().Type) }
	if l, err = b.coerceTo(l, repr.JSONBType); err != nil {
		return fail()
	}
	var rt repr.Type
	switch fn {
	case expr.JSONBGet, expr.JSONBGetText, expr.JSONBDelete:
		switch {
		case rk == repr.KindUnknown || rk.IsString():
			rt = repr.Text
		case rk == repr.KindInt2 || rk == repr.KindInt4:
			rt = repr.Int4
		case fn == expr.JSONBDelete && r.typ().Type.IsArray():
			rt = textArray
		default:
			return fail()
		}
	case expr.JSONBPath, expr.JSONBPathText, expr.JSONBExistsAny, expr.JSONBExistsAll:
		rt = textArray
	case expr.JSONBExists:
		rt = repr.Text
	default:
		rt = repr.JSONBType
	}
	if r, err = b.coerceTo(r, rt); err != nil {
		return fail()
	}
	call := expr.CallVariadic{Func: fn, Args: []expr.Scalar{expr.Column{Index: 0}, expr.Column{Index: 1}}}
	t := call.Typ([]expr.ColumnType{l.typ(), r.typ()})
	return hVariadic{fn: fn, args: []hscalar{l, r}, t: t}, true, nil
}

// bindJSONOp binds json operator fn (->, ->>, #>, #>>) of json l and
// key, index or path r.
func (b *binder) bindJSONOp(op string, fn expr.VariadicFunc, l, r hscalar) (hscalar, bool, error) {
	rk := r.typ().Type.Kind()
	rt := textArray
	if fn == expr.JSONGet || fn == expr.JSONGetText {
		switch {
		case rk == repr.KindUnknown || rk.IsString():
			rt = repr.Text
		case rk == repr.KindInt2 || rk == repr.KindInt4:
			rt = repr.Int4
		default:
			return nil, true, errNoOperator(op, l.typ().Type, r.typ().Type)
		}
	}
	r, err := b.coerceTo(r, rt)
	if err != nil {
		return nil, true, errNoOperator(op, l.typ().Type, r.typ().Type)
	}
	call := expr.CallVariadic{Func: fn, Args: []expr.Scalar{expr.Column{Index: 0}, expr.Column{Index: 1}}}
	t := call.Typ([]expr.ColumnType{l.typ(), r.typ()})
	return hVariadic{fn: fn, args: []hscalar{l, r}, t: t}, true, nil
}

// jsonbFuncs are the jsonb functions of one jsonb argument and more of
// fixed types, and json_typeof and json_array_length.
var jsonbFuncs = map[string]struct {
	fn   expr.VariadicFunc
	args []repr.Type
}{
	"json_typeof":        {expr.JSONTypeof, []repr.Type{repr.JSON}},
	"json_array_length":  {expr.JSONArrayLength, []repr.Type{repr.JSON}},
	"jsonb_typeof":       {expr.JSONBTypeof, []repr.Type{repr.JSONBType}},
	"jsonb_array_length": {expr.JSONBArrayLength, []repr.Type{repr.JSONBType}},
	"jsonb_strip_nulls":  {expr.JSONBStripNulls, []repr.Type{repr.JSONBType}},
	"jsonb_pretty":       {expr.JSONBPretty, []repr.Type{repr.JSONBType}},
	"jsonb_set":          {expr.JSONBSet, []repr.Type{repr.JSONBType, textArray, repr.JSONBType, repr.Bool}},
}

// bindJSONBFunc binds a function of jsonbFuncs; ok is false for any
// other name.
func (b *binder) bindJSONBFunc(name string, args []hscalar) (s hscalar, ok bool, err error) {
	f, known := jsonbFuncs[name]
	if !known {
		return nil, false, nil
	}
	min := len(f.args)
	if f.fn == expr.JSONBSet {
		min = 3 // create_missing defaults to true
	}
	if len(args) < min || len(args) > len(f.args) {
		return nil, true, errNoFunction(name, args)
	}
	out := make([]hscalar, len(args))
	types := make([]expr.ColumnType, len(args))
	scalars := make([]expr.Scalar, len(args))
	for i, a := range args {
		if out[i], err = b.coerceTo(a, f.args[i]); err != nil {
			return nil, true, errNoFunction(name, args)
		}
		types[i], scalars[i] = out[i].typ(), expr.Column{Index: i}
	}
	t := expr.CallVariadic{Func: f.fn, Args: scalars}.Typ(types)
	return hVariadic{fn: f.fn, args: out, t: t}, true, nil
}

// jsonbSRFs are jsonb's set-returning functions: what they yield and
// their columns' names and types.
var jsonbSRFs = map[string]struct {
	fn      expr.TableFunc
	columns []string
	value   expr.VariadicFunc // each: the value of a key, from the object
	json    bool              // of json, not jsonb
}{
	"jsonb_array_elements":      {expr.JSONBArrayElements, []string{"value"}, 0, false},
	"jsonb_array_elements_text": {expr.JSONBArrayElementsText, []string{"value"}, 0, false},
	"jsonb_object_keys":         {expr.JSONBObjectKeys, []string{"jsonb_object_keys"}, 0, false},
	"jsonb_each":                {expr.JSONBEach, []string{"key", "value"}, expr.JSONBGet, false},
	"jsonb_each_text":           {expr.JSONBEachText, []string{"key", "value"}, expr.JSONBGetText, false},
	"json_array_elements":       {expr.JSONArrayElements, []string{"value"}, 0, true},
	"json_array_elements_text":  {expr.JSONArrayElementsText, []string{"value"}, 0, true},
	"json_object_keys":          {expr.JSONObjectKeys, []string{"json_object_keys"}, 0, true},
	"json_each":                 {expr.JSONEach, []string{"key", "value"}, expr.JSONGet, true},
	"json_each_text":            {expr.JSONEach, []string{"key", "value"}, expr.JSONGetText, true},
}

// bindJSONBSRF binds a jsonb set-returning function in FROM over each row
// of left. jsonb_each(j) is the keys of j and, beside each, j -> key.
func (b *binder) bindJSONBSRF(rf *pg.RangeFunction, fc *pg.FuncCall, left hrel, sc *scope, name string) (hrel, []scopeItem, error) {
	f := jsonbSRFs[name]
	args, err := b.bindFunctionArgs(fc, sc)
	if err != nil {
		return nil, nil, err
	}
	if len(args) != 1 {
		return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
	}
	argType := repr.JSONBType
	if f.json {
		argType = repr.JSON
	}
	j, err := b.coerceTo(args[0], argType)
	if err != nil {
		return nil, nil, errorAt(errNoFunction(name, args), b.sql, fc.Location)
	}
	typ := repr.Text
	switch f.fn {
	case expr.JSONBArrayElements:
		typ = repr.JSONBType
	case expr.JSONArrayElements, expr.JSONEach:
		typ = repr.JSON
	}
	col := len(left.types())
	var rel hrel = hFlatMap{input: left, fn: f.fn, args: []hscalar{j}, typ: typ}
	types := []expr.ColumnType{{Type: typ, Nullable: f.fn == expr.JSONBArrayElementsText || f.fn == expr.JSONArrayElementsText}}
	if f.fn == expr.JSONEach {
		// Each member [key, value] (the column no name reaches), then
		// its key and its value: by position, as a json object may
		// repeat a key.
		pair := hColumn{level: 0, index: col, t: expr.ColumnType{Type: repr.JSON}, name: "member"}
		at := func(i int32) hscalar { return hLiteral{v: repr.NewInt4(i), t: repr.Int4} }
		kt, vt := expr.ColumnType{Type: repr.Text}, expr.ColumnType{Type: repr.JSON, Nullable: true}
		if f.value == expr.JSONGetText {
			vt.Type = repr.Text
		}
		rel = hMap{input: rel, scalars: []hscalar{
			hVariadic{fn: expr.JSONGetText, args: []hscalar{pair, at(0)}, t: kt},
			hVariadic{fn: f.value, args: []hscalar{pair, at(1)}, t: vt},
		}}
		types, col = []expr.ColumnType{kt, vt}, col+1
	} else if f.value != 0 {
		key := hColumn{level: 0, index: col, t: expr.ColumnType{Type: repr.Text}, name: "key"}
		vt := repr.JSONBType
		if f.value == expr.JSONBGetText {
			vt = repr.Text
		}
		ct := expr.ColumnType{Type: vt, Nullable: true}
		rel = hMap{input: rel, scalars: []hscalar{hVariadic{fn: f.value, args: []hscalar{j, key}, t: ct}}}
		types = append(types, ct)
	}
	table, names := name, f.columns
	if rf.Alias != nil {
		table = rf.Alias.Aliasname
		if len(rf.Alias.Colnames) > len(names) {
			return nil, nil, sqlerr.New(sqlerr.InvalidColumnReference, "too many column aliases specified for function %s", name)
		}
		names = append([]string(nil), names...)
		for i, c := range rf.Alias.Colnames {
			names[i] = c.GetString_().GetSval()
		}
		if (f.fn == expr.JSONBObjectKeys || f.fn == expr.JSONObjectKeys) && len(names) == 1 && len(rf.Alias.Colnames) == 0 {
			names[0] = table
		}
	}
	items := make([]scopeItem, len(names))
	for i := range names {
		items[i] = scopeItem{table: table, name: names[i], col: col + i, typ: types[i]}
	}
	return rel, items, nil
}
