package expr

import (
	"strconv"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// The jsonb operators and functions, PostgreSQL 15's:
//
//	JSONBGet(j, k)          j -> k: an object's field (k text) or an
//	                        array's element (k int4, negative from the
//	                        end); NULL if there is none
//	JSONBGetText(j, k)      j ->> k: the same as text
//	JSONBPath(j, p)         j #> p: the value at path p (text[])
//	JSONBPathText(j, p)     j #>> p: the same as text
//	JSONBContains(a, b)     a @> b; JSONBContained(a, b) is a <@ b
//	JSONBExists(j, k)       j ? k: k is a top-level key or string element;
//	                        JSONBExistsAny (?|) and JSONBExistsAll (?&)
//	                        of a text[]
//	JSONBConcat(a, b)       a || b
//	JSONBDelete(j, k)       j - k: without key or string element k
//	                        (text), element k (int4), or the keys of k
//	                        (text[])
//	JSONBBuildObject, JSONBBuildArray, ToJSONB
//	                        json_build_object's, json_build_array's and
//	                        to_json's JSON, as jsonb
//	JSONBTypeof, JSONBArrayLength, JSONBStripNulls, JSONBPretty
//	JSONBSet(j, p, v[, create_missing])
//
// All are NULL for a NULL argument but the builders, which take NULL as
// JSON null (to_jsonb(NULL) is NULL).

func (f VariadicFunc) isJSONB() bool { return f >= JSONBGet && f <= JSONBSet }

// jsonbBuilt maps the jsonb builders to the json function that writes
// their text.
var jsonbBuilt = map[VariadicFunc]VariadicFunc{
	JSONBBuildObject: JSONBuildObject, JSONBBuildArray: JSONBuildArray, ToJSONB: ToJSON,
}

func (c CallVariadic) jsonbTyp(input []ColumnType) ColumnType {
	nullable := false
	for _, a := range c.Args {
		nullable = nullable || a.Typ(input).Nullable
	}
	switch c.Func {
	case JSONBGet, JSONBGetText, JSONBPath, JSONBPathText:
		nullable = true
	case JSONBBuildObject, JSONBBuildArray:
		nullable = false
	}
	t := repr.JSONBType
	switch c.Func {
	case JSONBGetText, JSONBPathText, JSONBTypeof, JSONBPretty:
		t = repr.Text
	case JSONBContains, JSONBContained, JSONBExists, JSONBExistsAny, JSONBExistsAll:
		t = repr.Bool
	case JSONBArrayLength:
		t = repr.Int4
	}
	return ColumnType{Type: t, Nullable: nullable}
}

func (c CallVariadic) evalJSONB(row []repr.Datum) (repr.Datum, error) {
	if json, ok := jsonbBuilt[c.Func]; ok {
		d, err := CallVariadic{Func: json, Args: c.Args}.evalJSONNamed(row, c.Func.String())
		if err != nil || d.IsNull() {
			return repr.Null, err
		}
		return repr.Cast(d, repr.JSONBType)
	}
	args, err := c.strictArgs(row)
	if err != nil || args == nil {
		return repr.Null, err
	}
	j, err := args[0].JSONB()
	if err != nil {
		return repr.Null, err
	}
	switch c.Func {
	case JSONBGet, JSONBGetText:
		if j.Kind == repr.JSONBArray && args[1].Kind().IsString() {
			return repr.Null, nil // a text key names no element
		}
		v, ok := jsonbStep(&j, args[1])
		return jsonbResult(v, ok, c.Func == JSONBGetText)
	case JSONBPath, JSONBPathText:
		path, err := args[1].Elems()
		if err != nil {
			return repr.Null, err
		}
		v, ok, isNull, _ := walkPath(j, path, func(v repr.JSONB, k repr.Datum) (repr.JSONB, bool, error) {
			next, ok := jsonbStep(&v, k)
			return next, ok, nil
		})
		if isNull {
			return repr.Null, nil
		}
		return jsonbResult(v, ok, c.Func == JSONBPathText)
	case JSONBContains, JSONBContained:
		k, err := args[1].JSONB()
		if err != nil {
			return repr.Null, err
		}
		if c.Func == JSONBContained {
			j, k = k, j
		}
		return repr.NewBool(jsonbContains(&j, &k, true)), nil
	case JSONBExists:
		return repr.NewBool(jsonbExists(&j, args[1].Text())), nil
	case JSONBExistsAny, JSONBExistsAll:
		keys, err := args[1].Elems()
		if err != nil {
			return repr.Null, err
		}
		all := c.Func == JSONBExistsAll
		for _, k := range keys {
			if k.IsNull() {
				continue // PostgreSQL skips NULL keys
			}
			if jsonbExists(&j, k.Text()) != all {
				return repr.NewBool(!all), nil
			}
		}
		return repr.NewBool(all), nil
	case JSONBConcat:
		k, err := args[1].JSONB()
		if err != nil {
			return repr.Null, err
		}
		v := jsonbConcat(&j, &k)
		return repr.NewJSONB(&v), nil
	case JSONBDelete:
		return jsonbDelete(&j, args[1])
	case JSONBTypeof:
		return repr.NewText(j.Kind.String()), nil
	case JSONBArrayLength:
		switch j.Kind {
		case repr.JSONBArray:
			return repr.NewInt4(int32(len(j.Elems))), nil
		case repr.JSONBObject:
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot get array length of a scalar")
	case JSONBStripNulls:
		v := jsonbStripNulls(j)
		return repr.NewJSONB(&v), nil
	case JSONBPretty:
		return repr.NewText(string(repr.AppendJSONBPretty(nil, &j))), nil
	case JSONBSet:
		return jsonbSet(&j, args)
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown jsonb function %d", c.Func)
}

// jsonbResult returns v as jsonb, or as text (a string's value, NULL
// for JSON null); NULL if !ok.
func jsonbResult(v repr.JSONB, ok, text bool) (repr.Datum, error) {
	switch {
	case !ok:
		return repr.Null, nil
	case !text:
		return repr.NewJSONB(&v), nil
	case v.Kind == repr.JSONBNull:
		return repr.Null, nil
	case v.Kind == repr.JSONBString:
		return repr.NewText(v.Str), nil
	}
	return repr.NewText(string(repr.AppendJSONBText(nil, &v))), nil
}

// jsonbStep returns the field or element of v that k names: a text key
// of an object, or an array index, an integer or text that reads as
// one, negative from the end.
func jsonbStep(v *repr.JSONB, k repr.Datum) (repr.JSONB, bool) {
	switch v.Kind {
	case repr.JSONBObject:
		if !k.Kind().IsString() {
			return repr.JSONB{}, false
		}
		return v.Get(k.Text())
	case repr.JSONBArray:
		i := k.Int()
		if k.Kind().IsString() {
			n, err := strconv.ParseInt(strings.TrimSpace(k.Text()), 10, 32)
			if err != nil {
				return repr.JSONB{}, false
			}
			i = n
		}
		if i < 0 {
			i += int64(len(v.Elems))
		}
		if i < 0 || i >= int64(len(v.Elems)) {
			return repr.JSONB{}, false
		}
		return v.Elems[i], true
	}
	return repr.JSONB{}, false
}

// jsonbContains reports whether a contains b, as PostgreSQL's
// JsonbDeepContains: an object contains an object whose every key it
// has with a contained value; an array contains an array whose every
// element it contains (a scalar equal to one of its scalars, a
// container contained in one of its containers of the same kind). At
// the top, an array contains a scalar it has, and a scalar contains
// only an equal scalar.
func jsonbContains(a, b *repr.JSONB, top bool) bool {
	if !a.IsContainer() || !b.IsContainer() {
		if top && a.Kind == repr.JSONBArray && !b.IsContainer() {
			return jsonbArrayHas(a, b)
		}
		return !a.IsContainer() && !b.IsContainer() && repr.JSONBEqual(a, b)
	}
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == repr.JSONBObject {
		for i, k := range b.Keys {
			av, ok := a.Get(k)
			if !ok || av.IsContainer() != b.Elems[i].IsContainer() || !jsonbContains(&av, &b.Elems[i], false) {
				return false
			}
		}
		return true
	}
	for i := range b.Elems {
		if !jsonbArrayHas(a, &b.Elems[i]) {
			return false
		}
	}
	return true
}

// jsonbArrayHas reports whether array a contains element e.
func jsonbArrayHas(a, e *repr.JSONB) bool {
	for i := range a.Elems {
		x := &a.Elems[i]
		if x.IsContainer() == e.IsContainer() && jsonbContains(x, e, false) {
			return true
		}
	}
	return false
}

// jsonbExists reports whether k is a key of object v, or a string
// element of array v, or scalar v's string.
func jsonbExists(v *repr.JSONB, k string) bool {
	switch v.Kind {
	case repr.JSONBObject:
		_, ok := v.Get(k)
		return ok
	case repr.JSONBArray:
		for _, e := range v.Elems {
			if e.Kind == repr.JSONBString && e.Str == k {
				return true
			}
		}
		return false
	}
	return v.Kind == repr.JSONBString && v.Str == k
}

// jsonbConcat is a || b: two objects merge, the right's value winning
// for a key both have; otherwise the operands' elements concatenate,
// an operand that is not an array counting as an array of itself.
func jsonbConcat(a, b *repr.JSONB) repr.JSONB {
	if a.Kind == repr.JSONBObject && b.Kind == repr.JSONBObject {
		keys := append(append([]string(nil), a.Keys...), b.Keys...)
		vals := append(append([]repr.JSONB(nil), a.Elems...), b.Elems...)
		return repr.NewJSONBObject(keys, vals)
	}
	elems := func(v *repr.JSONB) []repr.JSONB {
		if v.Kind == repr.JSONBArray {
			return v.Elems
		}
		return []repr.JSONB{*v}
	}
	return repr.JSONB{Kind: repr.JSONBArray, Elems: append(append([]repr.JSONB(nil), elems(a)...), elems(b)...)}
}

// jsonbDelete is j - k.
func jsonbDelete(j *repr.JSONB, k repr.Datum) (repr.Datum, error) {
	if !j.IsContainer() {
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot delete from scalar")
	}
	var drop func(int) bool
	switch {
	case k.Kind().IsInt():
		if j.Kind == repr.JSONBObject {
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot delete from object using integer index")
		}
		i := k.Int()
		if i < 0 {
			i += int64(len(j.Elems))
		}
		drop = func(n int) bool { return int64(n) == i }
	default:
		var keys []string
		if k.Kind() == repr.KindArray {
			elems, err := k.Elems()
			if err != nil {
				return repr.Null, err
			}
			for _, e := range elems {
				if !e.IsNull() {
					keys = append(keys, e.Text())
				}
			}
		} else {
			keys = []string{k.Text()}
		}
		drop = func(n int) bool {
			s := &j.Elems[n]
			if j.Kind == repr.JSONBObject {
				return containsString(keys, j.Keys[n])
			}
			return s.Kind == repr.JSONBString && containsString(keys, s.Str)
		}
	}
	out := repr.JSONB{Kind: j.Kind}
	for n := range j.Elems {
		if drop(n) {
			continue
		}
		if j.Kind == repr.JSONBObject {
			out.Keys = append(out.Keys, j.Keys[n])
		}
		out.Elems = append(out.Elems, j.Elems[n])
	}
	return repr.NewJSONB(&out), nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonbStripNulls drops the object fields whose value is null, at every
// level; array elements stay.
func jsonbStripNulls(v repr.JSONB) repr.JSONB {
	if !v.IsContainer() {
		return v
	}
	out := repr.JSONB{Kind: v.Kind}
	for i, e := range v.Elems {
		if v.Kind == repr.JSONBObject {
			if e.Kind == repr.JSONBNull {
				continue
			}
			out.Keys = append(out.Keys, v.Keys[i])
		}
		out.Elems = append(out.Elems, jsonbStripNulls(e))
	}
	return out
}

// jsonbSet is jsonb_set(j, path, v[, create_missing]): j with the value
// at path replaced by v, or added if the last step is missing and
// create_missing (true by default) holds.
func jsonbSet(j *repr.JSONB, args []repr.Datum) (repr.Datum, error) {
	if !j.IsContainer() {
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot set path in scalar")
	}
	path, err := args[1].Elems()
	if err != nil {
		return repr.Null, err
	}
	for i, p := range path {
		if p.IsNull() {
			return repr.Null, sqlerr.New(sqlerr.NullValueNotAllowed, "path element at position %d is null", i+1)
		}
	}
	nv, err := args[2].JSONB()
	if err != nil {
		return repr.Null, err
	}
	create := len(args) < 4 || args[3].Bool()
	out, err := setPath(*j, path, 0, &nv, create)
	if err != nil {
		return repr.Null, err
	}
	return repr.NewJSONB(&out), nil
}

func setPath(v repr.JSONB, path []repr.Datum, level int, nv *repr.JSONB, create bool) (repr.JSONB, error) {
	if level >= len(path) || !v.IsContainer() {
		return v, nil
	}
	last := level == len(path)-1
	step := path[level].Text()
	if v.Kind == repr.JSONBObject {
		keys := append([]string(nil), v.Keys...)
		vals := append([]repr.JSONB(nil), v.Elems...)
		for i, k := range keys {
			if k != step {
				continue
			}
			if last {
				vals[i] = *nv
				return repr.NewJSONBObject(keys, vals), nil
			}
			sub, err := setPath(vals[i], path, level+1, nv, create)
			vals[i] = sub
			return repr.NewJSONBObject(keys, vals), err
		}
		if last && create {
			return repr.NewJSONBObject(append(keys, step), append(vals, *nv)), nil
		}
		return v, nil
	}
	idx, err := strconv.ParseInt(step, 10, 32)
	if err != nil {
		return v, sqlerr.New(sqlerr.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", level+1, step)
	}
	n := int64(len(v.Elems))
	if idx < 0 {
		idx += n
	}
	elems := append([]repr.JSONB(nil), v.Elems...)
	switch {
	case idx >= 0 && idx < n:
		if last {
			elems[idx] = *nv
		} else if elems[idx], err = setPath(elems[idx], path, level+1, nv, create); err != nil {
			return v, err
		}
	case last && create && idx < 0:
		elems = append([]repr.JSONB{*nv}, elems...)
	case last && create:
		elems = append(elems, *nv)
	}
	return repr.JSONB{Kind: repr.JSONBArray, Elems: elems}, nil
}

// jsonbTableFunc yields the elements or keys of j (TableFunc).
func jsonbTableFunc(f TableFunc, j repr.Datum) ([]repr.Datum, error) {
	if j.IsNull() {
		return nil, nil
	}
	v, err := j.JSONB()
	if err != nil {
		return nil, err
	}
	if f != JSONBArrayElements && f != JSONBArrayElementsText {
		switch {
		case v.Kind == repr.JSONBObject:
			out := make([]repr.Datum, len(v.Keys))
			for i, k := range v.Keys {
				out[i] = repr.NewText(k)
			}
			return out, nil
		case f != JSONBObjectKeys:
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on a non-object", f)
		case v.Kind == repr.JSONBArray:
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on an array", f)
		}
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on a scalar", f)
	}
	switch v.Kind {
	case repr.JSONBArray:
		out := make([]repr.Datum, len(v.Elems))
		for i := range v.Elems {
			if out[i], err = jsonbResult(v.Elems[i], true, f == JSONBArrayElementsText); err != nil {
				return nil, err
			}
		}
		return out, nil
	case repr.JSONBObject:
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot extract elements from an object")
	}
	return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot extract elements from a scalar")
}
