package expr

import (
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// The array functions, PostgreSQL's, over one-dimensional arrays with
// lower bound 1 (repr/array.go):
//
//	ArrayConstruct(e1, …, en)      ARRAY[e1, …, en]; the planner casts the
//	                               elements to one type and builds an
//	                               empty ARRAY[] as a literal
//	ArraySubscript(a, i)           a[i]: NULL out of bounds
//	ArrayAny(x, a, op)             x op ANY (a); op a literal BinaryFunc
//	ArrayAll(x, a, op)             x op ALL (a)
//	ArrayToString(a, d[, n])       the non-NULL elements' text joined by d,
//	                               NULLs written as n if given
//	ArrayLength(a, dim)            the length of dimension dim: NULL for an
//	ArrayLower(a, dim)             empty array or a dimension other than 1
//	ArrayUpper(a, dim)
//	Cardinality(a)                 the number of elements
//	StringToArray(s, d[, n])       s split at d into text[] (each character
//	                               if d is NULL, all of s if d is empty),
//	                               fields equal to n as NULL
//	ArrayCat(a, b)                 a || b: the elements of a then b; a NULL
//	                               array counts as empty, NULL if both are
//	ArrayAppend(a, e)              a || e, a with e (maybe NULL) added
//	ArrayPrepend(e, a)             e || a

func (f VariadicFunc) isArray() bool { return f >= ArrayConstruct && f <= ArrayPrepend }

func (c CallVariadic) arrayTyp(input []ColumnType) ColumnType {
	arg := func(i int) ColumnType { return c.Args[i].Typ(input) }
	switch c.Func {
	case ArrayConstruct:
		return ColumnType{Type: repr.ArrayOf(arg(0).Type)}
	case ArraySubscript:
		return ColumnType{Type: arg(0).Type.Elem(), Nullable: true}
	case ArrayAny, ArrayAll:
		return ColumnType{Type: repr.Bool, Nullable: true}
	case ArrayToString:
		return ColumnType{Type: repr.Text, Nullable: arg(0).Nullable || arg(1).Nullable}
	case ArrayLength, ArrayLower, ArrayUpper:
		return ColumnType{Type: repr.Int4, Nullable: true}
	case Cardinality:
		return ColumnType{Type: repr.Int4, Nullable: arg(0).Nullable}
	case StringToArray:
		return ColumnType{Type: repr.ArrayOf(repr.Text), Nullable: arg(0).Nullable}
	case ArrayCat:
		return ColumnType{Type: arg(0).Type, Nullable: arg(0).Nullable && arg(1).Nullable}
	case ArrayAppend:
		return ColumnType{Type: arg(0).Type}
	case ArrayPrepend:
		return ColumnType{Type: arg(1).Type}
	}
	return ColumnType{Nullable: true}
}

func (c CallVariadic) evalArray(row []repr.Datum) (repr.Datum, error) {
	args := make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil {
			return repr.Null, err
		}
		args[i] = v
	}
	switch c.Func {
	case ArrayConstruct:
		// The planner cast the elements to one type: the array's
		// element kind is any non-NULL element's.
		var elem repr.Type
		for _, a := range args {
			if !a.IsNull() {
				elem = a.Kind().Type()
				break
			}
		}
		return repr.NewArray(elem, args), nil
	case StringToArray:
		return stringToArray(args)
	case ArrayCat, ArrayAppend, ArrayPrepend:
		return arrayConcat(c.Func, args[0], args[1])
	}
	// Every other function is NULL for a NULL array.
	if args[0].IsNull() && c.Func != ArrayAny && c.Func != ArrayAll {
		return repr.Null, nil
	}
	switch c.Func {
	case ArraySubscript:
		// The planner made an int2vector's subscript 1-based.
		if args[1].IsNull() {
			return repr.Null, nil
		}
		elems, err := args[0].Elems()
		if err != nil {
			return repr.Null, err
		}
		i := args[1].Int()
		if i < 1 || i > int64(len(elems)) {
			return repr.Null, nil
		}
		return elems[i-1], nil
	case ArrayAny, ArrayAll:
		return quantified(c.Func == ArrayAll, BinaryFunc(args[2].Int()), args[0], args[1])
	case ArrayToString:
		if args[1].IsNull() {
			return repr.Null, nil
		}
		elems, err := args[0].Elems()
		if err != nil {
			return repr.Null, err
		}
		var b strings.Builder
		first := true
		for _, e := range elems {
			text := ""
			if e.IsNull() {
				if len(args) < 3 || args[2].IsNull() {
					continue
				}
				text = args[2].Text()
			} else {
				text = repr.FormatText(e)
			}
			if !first {
				b.WriteString(args[1].Text())
			}
			first = false
			b.WriteString(text)
		}
		return repr.NewText(b.String()), nil
	case ArrayLength, ArrayLower, ArrayUpper:
		n := args[0].ArrayLen()
		if args[1].IsNull() || args[1].Int() != 1 || n == 0 {
			return repr.Null, nil
		}
		lower := 1
		if args[0].IsVector() {
			// An int2vector's subscripts start at 0.
			lower = 0
		}
		switch c.Func {
		case ArrayLower:
			return repr.NewInt4(int32(lower)), nil
		case ArrayUpper:
			return repr.NewInt4(int32(lower + n - 1)), nil
		}
		return repr.NewInt4(int32(n)), nil
	case Cardinality:
		return repr.NewInt4(int32(args[0].ArrayLen())), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown array function %d", c.Func)
}

// quantified is x op ANY (a) or, if all, x op ALL (a), with SQL's
// three-valued logic: ANY is TRUE if op holds for some element, else
// NULL if x or some element is NULL, else FALSE (so FALSE for an empty
// array); ALL is FALSE if op fails for some element, else NULL if a
// NULL took part, else TRUE.
func quantified(all bool, op BinaryFunc, x, a repr.Datum) (repr.Datum, error) {
	if a.IsNull() {
		return repr.Null, nil
	}
	elems, err := a.Elems()
	if err != nil {
		return repr.Null, err
	}
	sawNull := false
	for _, e := range elems {
		r, err := CallBinary{Func: op, Left: Literal{Value: x}, Right: Literal{Value: e}}.Eval(nil)
		if err != nil {
			return repr.Null, err
		}
		switch {
		case r.IsNull():
			sawNull = true
		case r.Bool() != all:
			return repr.NewBool(!all), nil
		}
	}
	if sawNull {
		return repr.Null, nil
	}
	return repr.NewBool(all), nil
}

func stringToArray(args []repr.Datum) (repr.Datum, error) {
	if args[0].IsNull() {
		return repr.Null, nil
	}
	s := args[0].Text()
	var fields []string
	switch {
	case s == "":
		// PostgreSQL: an empty string is an empty array.
	case args[1].IsNull():
		fields = make([]string, 0, len(s))
		for _, r := range s {
			fields = append(fields, string(r))
		}
	case args[1].Text() == "":
		fields = []string{s}
	default:
		fields = strings.Split(s, args[1].Text())
	}
	elems := make([]repr.Datum, len(fields))
	for i, f := range fields {
		if len(args) > 2 && !args[2].IsNull() && f == args[2].Text() {
			elems[i] = repr.Null
		} else {
			elems[i] = repr.NewText(f)
		}
	}
	return repr.NewArray(repr.Text, elems), nil
}

// arrayConcat is ||, array_cat, array_append and array_prepend.
func arrayConcat(f VariadicFunc, a, b repr.Datum) (repr.Datum, error) {
	elems := func(d repr.Datum) ([]repr.Datum, error) {
		if d.IsNull() {
			return nil, nil
		}
		return d.Elems()
	}
	var out []repr.Datum
	var kindOf repr.Datum
	switch f {
	case ArrayCat:
		if a.IsNull() && b.IsNull() {
			return repr.Null, nil
		}
		x, err := elems(a)
		if err != nil {
			return repr.Null, err
		}
		y, err := elems(b)
		if err != nil {
			return repr.Null, err
		}
		out = append(x, y...)
	case ArrayAppend:
		x, err := elems(a)
		if err != nil {
			return repr.Null, err
		}
		out = append(x, b)
	case ArrayPrepend:
		y, err := elems(b)
		if err != nil {
			return repr.Null, err
		}
		out = append([]repr.Datum{a}, y...)
	}
	for _, e := range out {
		if !e.IsNull() {
			kindOf = e
			break
		}
	}
	return repr.NewArray(kindOf.Kind().Type(), out), nil
}
