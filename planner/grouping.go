package planner

import (
	"reflect"
	"slices"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// grouping places the expressions of an aggregating query over its
// Reduce, whose output is the group keys followed by the aggregates.
// Expressions are bound over the FROM relation first; ungroup then
// rewrites them: a group key expression becomes its key column, an
// aggregate call its aggregate column, and any other column of the FROM
// relation is 42803.
type grouping struct {
	b *binder
	// keys are the group key expressions over the FROM relation.
	keys []hscalar
	// aggs are the aggregates found so far, deduplicated, and the
	// GROUPING() calls.
	aggs []hAggregate
	// sets are the grouping sets of ROLLUP, CUBE and GROUPING SETS, each
	// a list of key indexes; nil for a plain GROUP BY.
	sets [][]int
}

// keyColumns returns the FROM relation with the key expressions that are
// not plain columns appended, and the key columns.
func (g *grouping) keyColumns(input hrel) (hrel, []int) {
	arity := len(input.types())
	var cols []int
	var extra []hscalar
	for _, k := range g.keys {
		if c, ok := k.(hColumn); ok && c.level == 0 {
			cols = append(cols, c.index)
			continue
		}
		cols = append(cols, arity+len(extra))
		extra = append(extra, k)
	}
	if len(extra) > 0 {
		input = hMap{input: input, scalars: extra}
	}
	return input, cols
}

// reduce builds the Reduce over input (the FROM relation). With grouping
// sets it is the union of one Reduce per set, each giving the same
// columns: every key, NULL where its set leaves the key out, then every
// aggregate, and each GROUPING() call's value for the set.
func (g *grouping) reduce(input hrel) hrel {
	in, cols := g.keyColumns(input)
	if g.sets == nil {
		return hReduce{input: in, groupKey: cols, aggs: g.aggs}
	}
	var real []hAggregate
	at := make([]int, len(g.aggs)) // each aggregate's place among real
	for i, a := range g.aggs {
		if a.grouping == nil {
			at[i] = len(real)
			real = append(real, a)
		}
	}
	var branches []hrel
	for _, set := range g.sets {
		var keyCols []int
		for _, k := range set {
			keyCols = append(keyCols, cols[k])
		}
		red := hReduce{input: in, groupKey: keyCols, aggs: real}
		rt := red.types()
		var outs []hscalar
		for k, key := range g.keys {
			t := key.typ()
			t.Nullable = true
			if j := slices.Index(set, k); j >= 0 {
				outs = append(outs, hColumn{level: 0, index: j, t: rt[j]})
			} else {
				outs = append(outs, hLiteral{v: repr.Null, t: t.Type})
			}
		}
		for i, a := range g.aggs {
			if a.grouping == nil {
				outs = append(outs, hColumn{level: 0, index: len(set) + at[i], t: rt[len(set)+at[i]]})
				continue
			}
			// Bit n-1-j is set when the j-th argument is no key of
			// this set, as PostgreSQL's GROUPING() gives it.
			v := int32(0)
			for _, k := range a.grouping {
				v <<= 1
				if !slices.Contains(set, k) {
					v |= 1
				}
			}
			outs = append(outs, hLiteral{v: repr.NewInt4(v), t: repr.Int4})
		}
		rel, o := mapOutputs(red, outs)
		branches = append(branches, hProject{input: rel, outputs: o})
	}
	return hUnion{inputs: branches}
}

// filtered is an aggregate's argument under FILTER (WHERE pred): the
// argument where pred holds, NULL elsewhere, which every aggregate skips.
func filtered(arg, pred hscalar) hscalar {
	t := arg.typ()
	t.Nullable = true
	return hIf{cond: pred, then: arg, els: hLiteral{v: repr.Null, t: t.Type}, t: t}
}

// equalScalars reports whether two bound expressions are the same
// expression, wherever they were written.
func equalScalars(a, b hscalar) bool {
	return reflect.DeepEqual(byValue(stripLocations(a)), byValue(stripLocations(b)))
}

// sameAggregate reports whether two aggregates of a grouping compute the
// same thing.
func sameAggregate(a, b hAggregate) bool {
	for _, x := range []*hAggregate{&a, &b} {
		x.arg, x.filter = byValue(x.arg), byValue(x.filter)
		x.order = slices.Clone(x.order)
		for i := range x.order {
			x.order[i].s = byValue(x.order[i].s)
		}
	}
	return reflect.DeepEqual(a, b)
}

// byValue returns s, for reflect.DeepEqual to compare, with every
// literal replaced by its value as text: a datum holds a string's bytes,
// or a decimal, behind a pointer, which DeepEqual compares as an
// address, so that two 'a's written apart would differ.
func byValue(s hscalar) hscalar {
	if l, ok := s.(hLiteral); ok {
		v := literalValue{null: l.v.IsNull(), t: l.t}
		if !v.null {
			v.text = repr.FormatText(l.v)
		}
		return v
	}
	return mapChildren(s, byValue)
}

// literalValue is a literal as byValue gives it: only compared, never
// planned.
type literalValue struct {
	null bool
	text string
	t    repr.Type
}

func (l literalValue) typ() expr.ColumnType { return expr.ColumnType{Type: l.t} }

// stripLocations returns s without the source positions it carries.
func stripLocations(s hscalar) hscalar {
	if a, ok := s.(hAgg); ok {
		a.loc = 0
		s = a
	}
	return mapChildren(s, stripLocations)
}

// ungroup rewrites s, bound over the FROM relation, over the Reduce.
func (g *grouping) ungroup(s hscalar) (hscalar, error) {
	for i, k := range g.keys {
		if equalScalars(s, k) {
			return hColumn{level: 0, index: i, t: k.typ(), name: columnName(k)}, nil
		}
	}
	switch x := s.(type) {
	case hAgg:
		return g.aggregate(x)
	case hGrouping:
		var keys []int
		for _, a := range x.args {
			i := slices.IndexFunc(g.keys, func(k hscalar) bool { return equalScalars(k, a) })
			if i < 0 {
				return nil, sqlerr.New(sqlerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
			}
			keys = append(keys, i)
		}
		if g.sets == nil {
			// One grouping set, with every key.
			return hLiteral{v: repr.NewInt4(0), t: repr.Int4}, nil
		}
		agg := hAggregate{grouping: keys}
		i := slices.IndexFunc(g.aggs, func(o hAggregate) bool { return sameAggregate(o, agg) })
		if i < 0 {
			i = len(g.aggs)
			g.aggs = append(g.aggs, agg)
		}
		return hColumn{level: 0, index: len(g.keys) + i, t: expr.ColumnType{Type: repr.Int4}, name: "grouping"}, nil
	case hColumn:
		if x.level == 0 {
			return nil, sqlerr.New(sqlerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", x.name)
		}
		return x, nil
	}
	if r := subqueryOf(s); r != nil {
		// A subquery may refer to this query's columns only through its
		// group keys.
		nr, err := mapRelRefs(r, 1, func(c hColumn, depth int) (hscalar, error) {
			if c.level != depth {
				return c, nil
			}
			for i, k := range g.keys {
				if kc, ok := k.(hColumn); ok && kc.level == 0 && kc.index == c.index {
					c.index = i
					return c, nil
				}
			}
			return nil, sqlerr.New(sqlerr.GroupingError, "subquery uses ungrouped column %q from outer query", c.name)
		})
		if err != nil {
			return nil, err
		}
		s = withSubquery(s, nr)
	}
	cs := scalarChildren(s)
	if len(cs) == 0 {
		return s, nil
	}
	ncs := make([]hscalar, len(cs))
	for i, c := range cs {
		n, err := g.ungroup(c)
		if err != nil {
			return nil, err
		}
		ncs[i] = n
	}
	return withScalarChildren(s, ncs), nil
}

func columnName(s hscalar) string {
	if c, ok := s.(hColumn); ok {
		return c.name
	}
	return ""
}

// aggregate returns the scalar over the Reduce's output that computes an
// aggregate call, adding the primitive aggregates it needs.
func (g *grouping) aggregate(a hAgg) (hscalar, error) {
	arg := a.arg
	if arg == nil {
		arg = hLiteral{v: repr.NewBool(true), t: repr.Bool}
	}
	// array_agg keeps NULL values, so a filtered row cannot be one: its
	// FILTER goes to the reduction, which leaves the row out.
	keepsNulls := a.name == "array_agg" || a.name == "jsonb_agg" || a.name == "json_agg"
	if a.filter != nil && !keepsNulls {
		arg = filtered(arg, a.filter)
	}
	colOf := func(fn expr.AggregateFunc, arg hscalar) hColumn {
		agg := hAggregate{fn: fn, arg: stripLocations(arg), distinct: a.distinct, delim: a.delim, fraction: a.fraction, desc: a.desc}
		if keepsNulls && a.filter != nil {
			agg.filter = stripLocations(a.filter)
		}
		if fn == expr.StringAgg || fn == expr.ArrayAgg { // jsonb_agg and json_agg too: an ArrayAgg
			for _, o := range a.order {
				agg.order = append(agg.order, hAggOrder{s: stripLocations(o.s), desc: o.desc, nullsFirst: o.nullsFirst})
			}
		}
		i := len(g.aggs)
		for j, o := range g.aggs {
			if sameAggregate(o, agg) {
				i = j
				break
			}
		}
		if i == len(g.aggs) {
			g.aggs = append(g.aggs, agg)
		}
		return hColumn{level: 0, index: len(g.keys) + i, t: aggregateType(fn, arg.typ().Type), name: a.name}
	}
	return aggregateValue(a, arg, colOf)
}

// aggregateValue returns the scalar that computes aggregate call a, whose
// argument (FILTER applied) is arg, from the primitive aggregates it
// needs (expr's aggregate functions); prim returns the column of the
// primitive aggregate fn of an argument, adding it if it is new. A
// Reduce (grouping.aggregate) and a window (bindWindowAgg) share it, so
// an aggregate means the same in both.
func aggregateValue(a hAgg, arg hscalar, colOf func(fn expr.AggregateFunc, arg hscalar) hColumn) (hscalar, error) {
	col := func(fn expr.AggregateFunc) hColumn { return colOf(fn, arg) }
	switch a.name {
	case "count":
		return col(expr.Count), nil
	case "sum":
		return col(expr.Sum), nil
	case "min":
		return col(expr.Min), nil
	case "max":
		return col(expr.Max), nil
	case "bool_and", "every", "bool_or":
		// From two counts, which a view keeps by accumulation: the
		// non-NULL values and the TRUE ones. bool_and is whether they
		// are equal, bool_or whether any is TRUE; NULL with no values.
		boolean := expr.ColumnType{Type: repr.Bool, Nullable: true}
		zero := hLiteral{v: repr.NewInt8(0), t: repr.Int8}
		n := colOf(expr.Count, arg)
		trues := colOf(expr.Count, hIf{cond: arg, then: hLiteral{v: repr.NewBool(true), t: repr.Bool}, els: hLiteral{v: repr.Null, t: repr.Bool}, t: boolean})
		v := hBinary{fn: expr.Gt, left: trues, right: zero, t: boolean}
		if a.name != "bool_or" {
			v = hBinary{fn: expr.Eq, left: trues, right: n, t: boolean}
		}
		return hIf{cond: hBinary{fn: expr.Eq, left: n, right: zero, t: boolean}, then: hLiteral{v: repr.Null, t: repr.Bool}, els: v, t: boolean}, nil
	case "percentile_cont":
		return col(expr.PercentileCont), nil
	case "percentile_disc":
		return col(expr.PercentileDisc), nil
	case "mode":
		return col(expr.Mode), nil
	case "string_agg":
		return col(expr.StringAgg), nil
	case "array_agg":
		return col(expr.ArrayAgg), nil
	case "jsonb_agg":
		// The values as array_agg collects them, in its order, as a
		// JSON array.
		return hVariadic{fn: expr.ToJSONB, args: []hscalar{col(expr.ArrayAgg)}, t: expr.ColumnType{Type: repr.JSONBType, Nullable: true}}, nil
	case "json_agg":
		// The same, written as json_agg writes it ([1, 2], each
		// element as to_json gives it).
		return hVariadic{fn: expr.JSONAgg, args: []hscalar{col(expr.ArrayAgg)}, t: expr.ColumnType{Type: repr.JSON, Nullable: true}}, nil
	case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		// From the count, the sum and the sum of squares, in numeric,
		// as PostgreSQL computes them for integers and numerics: all
		// three are kept by accumulation in a view. Floats go through
		// numeric too and come out as float8.
		x := hCast{arg: arg, to: repr.Numeric}
		n := colOf(expr.Count, arg)
		sx := colOf(expr.Sum, x)
		sq := expr.ColumnType{Type: repr.ArithType(repr.OpMul, x.typ().Type, x.typ().Type), Nullable: true}
		sx2 := colOf(expr.Sum, hBinary{fn: expr.Mul, left: x, right: x, t: sq})
		fn := map[string]expr.VariadicFunc{"stddev": expr.StddevSamp, "stddev_samp": expr.StddevSamp, "stddev_pop": expr.StddevPop,
			"variance": expr.VarSamp, "var_samp": expr.VarSamp, "var_pop": expr.VarPop}[a.name]
		stddev := fn == expr.StddevSamp || fn == expr.StddevPop
		t := repr.StatsType(stddev, sx2.typ().Type.DisplayScale())
		var s hscalar = hVariadic{fn: fn, args: []hscalar{n, sx, sx2}, t: expr.ColumnType{Type: t, Nullable: true}}
		if arg.typ().Type.Kind().IsFloat() {
			s = hCast{arg: s, to: repr.Float8}
		}
		return s, nil
	case "avg":
		// avg is sum / count, computed in numeric (float8 for floats) as
		// PostgreSQL does: avg of 1 and 2 is 1.5000000000000000.
		t := repr.Numeric
		if arg.typ().Type.Kind().IsFloat() {
			t = repr.Float8
		}
		sum, count := col(expr.Sum), col(expr.Count)
		return hBinary{
			fn:    expr.Div,
			left:  hCast{arg: sum, to: t},
			right: hCast{arg: count, to: t},
			t:     expr.ColumnType{Type: t, Nullable: true},
		}, nil
	}
	return nil, sqlerr.AssertionFailedf("unknown aggregate %s", a.name)
}
