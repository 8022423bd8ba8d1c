package expr

import (
	"freshet/repr"
	"freshet/sqlerr"
)

// The json functions, PostgreSQL's:
//
//	JSONBuildObject(k1, v1, …)   {"k1" : v1, …}, the keys' text as
//	                             strings, the values as to_json gives them
//	JSONBuildArray(v1, …)        [v1, …]
//	ToJSON(v)                    v as a JSON value (repr.AppendJSON); NULL
//	                             for NULL
//	JSONAgg(a)                   json_agg's result from array_agg's: the
//	                             elements as to_json gives them, NULL as
//	                             null, in [e1, e2, …]; NULL for NULL

func (f VariadicFunc) isJSON() bool { return f >= JSONBuildObject && f <= JSONAgg }

func (c CallVariadic) evalJSON(row []repr.Datum) (repr.Datum, error) {
	return c.evalJSONNamed(row, c.Func.String())
}

// evalJSONNamed is evalJSON for the SQL function name, which errors
// name.
func (c CallVariadic) evalJSONNamed(row []repr.Datum, name string) (repr.Datum, error) {
	args := make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil {
			return repr.Null, err
		}
		args[i] = v
	}
	var buf []byte
	switch c.Func {
	case ToJSON:
		if args[0].IsNull() {
			return repr.Null, nil
		}
		buf = repr.AppendJSON(buf, args[0])
	case JSONAgg:
		if args[0].IsNull() {
			return repr.Null, nil
		}
		elems, err := args[0].Elems()
		if err != nil {
			return repr.Null, err
		}
		buf = appendJSONArray(buf, elems)
	case JSONBuildArray:
		buf = appendJSONArray(buf, args)
	case JSONBuildObject:
		if len(args)%2 != 0 {
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "argument list must have even number of elements").
				WithHint("The arguments of %s() must consist of alternating keys and values.", name)
		}
		buf = append(buf, '{')
		for i := 0; i < len(args); i += 2 {
			if args[i].IsNull() {
				return repr.Null, sqlerr.New(sqlerr.NullValueNotAllowed, "argument %d cannot be null", i+1).
					WithHint("Object keys should be text.")
			}
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = repr.AppendJSONKey(buf, repr.FormatText(args[i]))
			buf = append(buf, " : "...)
			buf = repr.AppendJSON(buf, args[i+1])
		}
		buf = append(buf, '}')
	}
	return repr.NewJSON(string(buf)), nil
}

// appendJSONArray appends the json array of ds, each element as to_json
// writes it, separated as json_build_array and json_agg separate them.
func appendJSONArray(buf []byte, ds []repr.Datum) []byte {
	buf = append(buf, '[')
	for i, d := range ds {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = repr.AppendJSON(buf, d)
	}
	return append(buf, ']')
}
