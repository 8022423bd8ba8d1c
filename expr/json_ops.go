package expr

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// The json operators and functions, PostgreSQL 15's, over a json value's
// text as it was written (json keeps its input; jsonb_funcs.go has
// jsonb's):
//
//	JSONGet(j, k)        j -> k: an object's field (k text; of repeated
//	                     keys the last) or an array's element (k int4,
//	                     negative from the end), as its text in j,
//	                     spaces inside it kept; NULL if there is none
//	JSONGetText(j, k)    j ->> k: the same as text: a string's value,
//	                     NULL for JSON null
//	JSONPath(j, p)       j #> p: the value at path p (text[])
//	JSONPathText(j, p)   j #>> p: the same as text
//	JSONTypeof(j)        json_typeof(j)
//	JSONArrayLength(j)   json_array_length(j)

func (f VariadicFunc) isJSONOp() bool { return f >= JSONGet && f <= JSONArrayLength }

func (c CallVariadic) jsonOpTyp(input []ColumnType) ColumnType {
	nullable := false
	for _, a := range c.Args {
		nullable = nullable || a.Typ(input).Nullable
	}
	switch c.Func {
	case JSONGet, JSONPath:
		return ColumnType{Type: repr.JSON, Nullable: true}
	case JSONGetText, JSONPathText:
		return ColumnType{Type: repr.Text, Nullable: true}
	case JSONTypeof:
		return ColumnType{Type: repr.Text, Nullable: nullable}
	}
	return ColumnType{Type: repr.Int4, Nullable: nullable}
}

func (c CallVariadic) evalJSONOp(row []repr.Datum) (repr.Datum, error) {
	args, err := c.strictArgs(row)
	if err != nil || args == nil {
		return repr.Null, err
	}
	j := strings.TrimSpace(args[0].Text())
	switch c.Func {
	case JSONGet, JSONGetText:
		if jsonTypeof(j) == "array" && args[1].Kind().IsString() {
			return repr.Null, nil // a text key names no element
		}
		v, ok, err := jsonStep(j, args[1])
		if err != nil {
			return repr.Null, err
		}
		return jsonResult(v, ok, c.Func == JSONGetText)
	case JSONPath, JSONPathText:
		path, err := args[1].Elems()
		if err != nil {
			return repr.Null, err
		}
		v, ok, isNull, err := walkPath(j, path, jsonStep)
		if err != nil || isNull {
			return repr.Null, err
		}
		return jsonResult(v, ok, c.Func == JSONPathText)
	case JSONTypeof:
		return repr.NewText(jsonTypeof(j)), nil
	case JSONArrayLength:
		switch jsonTypeof(j) {
		case "array":
			elems, err := jsonElems(j)
			return repr.NewInt4(int32(len(elems))), err
		case "object":
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "cannot get array length of a scalar")
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown json function %d", c.Func)
}

// walkPath follows path from v one step at a time, for #> and #>> on
// json and jsonb alike: ok is false once a step finds nothing, isNull
// if the path holds a NULL (the operator's result is then NULL).
func walkPath[V any](v V, path []repr.Datum, step func(V, repr.Datum) (V, bool, error)) (_ V, ok, isNull bool, err error) {
	ok = true
	for _, p := range path {
		if p.IsNull() {
			return v, false, true, nil
		}
		if v, ok, err = step(v, p); err != nil || !ok {
			return v, ok, false, err
		}
	}
	return v, ok, false, nil
}

// jsonTypeof is the JSON type of value text j, from its first byte.
func jsonTypeof(j string) string {
	if j == "" {
		return "null"
	}
	switch j[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// jsonResult returns the value text v as json, or as text (a string's
// value, NULL for JSON null); NULL if !ok.
func jsonResult(v string, ok, text bool) (repr.Datum, error) {
	switch {
	case !ok:
		return repr.Null, nil
	case !text:
		return repr.NewJSON(v), nil
	case v == "null":
		return repr.Null, nil
	case strings.HasPrefix(v, `"`):
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return repr.Null, jsonCorrupt(err)
		}
		return repr.NewText(s), nil
	}
	return repr.NewText(v), nil
}

// jsonStep returns the text of the field or element of value text j
// that k names, as jsonbStep does for jsonb: a text key of an object
// (the last of repeated keys), or an array index, an integer or text that
// reads as one, negative from the end.
func jsonStep(j string, k repr.Datum) (string, bool, error) {
	switch jsonTypeof(j) {
	case "object":
		if !k.Kind().IsString() {
			return "", false, nil
		}
		return jsonField(j, k.Text())
	case "array":
		i := k.Int()
		if k.Kind().IsString() {
			n, err := strconv.ParseInt(strings.TrimSpace(k.Text()), 10, 32)
			if err != nil {
				return "", false, nil
			}
			i = n
		}
		elems, err := jsonElems(j)
		if err != nil {
			return "", false, err
		}
		if i < 0 {
			i += int64(len(elems))
		}
		if i < 0 || i >= int64(len(elems)) {
			return "", false, nil
		}
		return elems[i], true, nil
	}
	return "", false, nil
}

// jsonField returns the text of field key of object text j, the last of
// repeated ones.
func jsonField(j, key string) (string, bool, error) {
	dec := json.NewDecoder(strings.NewReader(j))
	if _, err := dec.Token(); err != nil {
		return "", false, jsonCorrupt(err)
	}
	var found string
	ok := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false, jsonCorrupt(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", false, jsonCorrupt(err)
		}
		if name, _ := t.(string); name == key {
			found, ok = string(raw), true
		}
	}
	return found, ok, nil
}

// jsonElems returns the texts of array text j's elements.
func jsonElems(j string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(j))
	if _, err := dec.Token(); err != nil {
		return nil, jsonCorrupt(err)
	}
	var out []string
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonCorrupt(err)
		}
		out = append(out, string(raw))
	}
	return out, nil
}

// jsonCorrupt is the error of a stored json value that does not read as
// JSON: its input was checked, so this is never expected.
func jsonCorrupt(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail("%v", err)
}

// jsonTableFunc yields the elements or keys of json value j (TableFunc),
// with PostgreSQL's errors for the wrong kind of value.
func jsonTableFunc(f TableFunc, j repr.Datum) ([]repr.Datum, error) {
	if j.IsNull() {
		return nil, nil
	}
	text := strings.TrimSpace(j.Text())
	kind := jsonTypeof(text)
	if f == JSONEach {
		switch kind {
		case "object":
			return jsonMembers(text)
		case "array":
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot deconstruct an array as an object")
		}
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot deconstruct a scalar")
	}
	if f == JSONObjectKeys {
		switch kind {
		case "object":
			keys, err := jsonKeys(text)
			if err != nil {
				return nil, err
			}
			out := make([]repr.Datum, len(keys))
			for i, k := range keys {
				out[i] = repr.NewText(k)
			}
			return out, nil
		case "array":
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on an array", f)
		}
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on a scalar", f)
	}
	switch kind {
	case "array":
		elems, err := jsonElems(text)
		if err != nil {
			return nil, err
		}
		out := make([]repr.Datum, len(elems))
		for i, e := range elems {
			if out[i], err = jsonResult(e, true, f == JSONArrayElementsText); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "object":
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on a non-array", f)
	}
	return nil, sqlerr.New(sqlerr.InvalidParameterValue, "cannot call %s on a scalar", f)
}

// eachJSONMember calls f with each member of object text j in order,
// repeated keys too: its key and its value's text as it is in j.
func eachJSONMember(j string, f func(key string, value []byte)) error {
	dec := json.NewDecoder(strings.NewReader(j))
	if _, err := dec.Token(); err != nil {
		return jsonCorrupt(err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return jsonCorrupt(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonCorrupt(err)
		}
		k, _ := t.(string)
		f(k, raw)
	}
	return nil
}

// jsonKeys returns object text j's keys in order, repeated ones too.
func jsonKeys(j string) ([]string, error) {
	var keys []string
	err := eachJSONMember(j, func(k string, _ []byte) { keys = append(keys, k) })
	return keys, err
}

// jsonMembers returns object text j's members in order, repeated keys
// too, each as the json array [key, value], the value's text as it is
// in j.
func jsonMembers(j string) ([]repr.Datum, error) {
	var out []repr.Datum
	var buf []byte
	err := eachJSONMember(j, func(k string, raw []byte) {
		buf = repr.AppendJSONKey(append(buf[:0], '['), k)
		buf = append(append(append(buf, ", "...), raw...), ']')
		out = append(out, repr.NewJSON(string(buf)))
	})
	return out, err
}
