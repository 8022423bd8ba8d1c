package expr

import (
	"freshet/repr"
	"freshet/sqlerr"
)

// Relation is a node of a relational plan. Its output is a multiset of
// rows with the types Typ returns.
type Relation interface {
	// Typ returns the output's column types.
	Typ() []ColumnType
	// Children returns the direct inputs, in order.
	Children() []Relation
}

// Row is one row of a Constant with its multiplicity.
type Row struct {
	Datums []repr.Datum
	Diff   int64
}

// Constant is a fixed collection (VALUES, or a folded subplan).
type Constant struct {
	Rows  []Row
	Types []ColumnType
}

// Get reads a collection outside the plan: a table, a view, an index.
type Get struct {
	ID    GlobalID
	Name  string
	Types []ColumnType
}

// LocalGet reads the binding of an enclosing Let.
type LocalGet struct {
	ID    LocalID
	Types []ColumnType
}

// Let binds Value to ID within Body.
type Let struct {
	ID          LocalID
	Value, Body Relation
}

// Map appends one column per scalar, each evaluated over the input row
// extended by the columns appended before it.
type Map struct {
	Input   Relation
	Scalars []Scalar
}

// Filter keeps the rows where every predicate is TRUE.
type Filter struct {
	Input      Relation
	Predicates []Scalar
}

// Project keeps the listed input columns, in order; a column may repeat.
type Project struct {
	Input   Relation
	Outputs []int
}

// TableFunc is a function that maps a row to any number of rows.
type TableFunc uint8

const (
	// GenerateSeries(start, stop[, step]) over integers yields one column.
	GenerateSeries TableFunc = iota + 1
	// Unnest(array) yields the array's elements, NULLs included, in
	// order; nothing for a NULL array.
	Unnest
	// Value(x) yields x: a function that returns one value, called in
	// FROM, is a table of one row.
	Value
	// GenerateSubscripts(array, dim) yields the subscripts of dimension
	// dim of the array (int4): 1 to its length (0 to length-1 for an
	// int2vector); nothing for a NULL or empty array or another
	// dimension.
	GenerateSubscripts
	// JSONBArrayElements(j) yields the elements of array j (jsonb), and
	// JSONBArrayElementsText(j) them as text (a string's value, NULL for
	// null); JSONBObjectKeys(j) yields the keys of object j (text).
	// JSONBEach(j) and JSONBEachText(j) yield the keys of object j too,
	// to which the planner adds their values (jsonb_each(j) is the keys
	// k and j -> k). Other values are errors (22023), NULL yields
	// nothing.
	JSONBArrayElements
	JSONBArrayElementsText
	JSONBObjectKeys
	JSONBEach
	JSONBEachText
	// JSONArrayElements, JSONArrayElementsText and JSONObjectKeys are
	// json's: elements as their text in the value (json), as text, and
	// every key in order, repeated ones too (json_ops.go). JSONEach(j)
	// yields every member of object j in order, repeated keys too, as
	// the json array [key, value], the value's text as it is in j; the
	// planner takes json_each's and json_each_text's columns from it.
	JSONArrayElements
	JSONArrayElementsText
	JSONObjectKeys
	JSONEach
)

var tableFuncNames = map[TableFunc]string{GenerateSeries: "generate_series", Unnest: "unnest", Value: "value",
	GenerateSubscripts: "generate_subscripts", JSONBArrayElements: "jsonb_array_elements",
	JSONBArrayElementsText: "jsonb_array_elements_text", JSONBObjectKeys: "jsonb_object_keys", JSONBEach: "jsonb_each",
	JSONBEachText: "jsonb_each_text", JSONArrayElements: "json_array_elements",
	JSONArrayElementsText: "json_array_elements_text", JSONObjectKeys: "json_object_keys", JSONEach: "json_each"}

func (f TableFunc) String() string { return tableFuncNames[f] }

// FlatMap appends the columns of Func(Args) to each input row, one output
// row per row the function yields.
type FlatMap struct {
	Input Relation
	Func  TableFunc
	Args  []Scalar
	// Type is the type of the appended column.
	Type repr.Type
}

// Join is the cross product of its inputs, restricted to rows where the
// scalars of each equivalence class are equal (NULL equals NULL). Scalars
// refer to the columns of the concatenated inputs.
type Join struct {
	Inputs       []Relation
	Equivalences [][]Scalar
}

// AggregateFunc is an aggregate function.
type AggregateFunc uint8

const (
	// Count counts the rows where Expr is not NULL (count(*) counts a
	// TRUE literal).
	Count AggregateFunc = iota + 1
	// Sum is the sum of the non-NULL values, NULL when there are none;
	// int2/int4 sum to int8, int8 to numeric.
	Sum
	// Min and Max skip NULLs; NULL when there are no values.
	Min
	Max
	// StringAgg joins the non-NULL text values with Delimiter between
	// them, in bytewise order of the values so that the result does not
	// depend on arrival order; NULL when there are none.
	StringAgg
	// ArrayAgg collects the values, NULLs included, into an array, in
	// the order of Compare (NULLs last) so that the result does not
	// depend on arrival order; NULL when there are no rows.
	ArrayAgg
	// PercentileCont, PercentileDisc and Mode are the ordered-set
	// aggregates over the non-NULL values sorted (Desc: descending): the
	// value at Fraction of the way, interpolated (float8), the first
	// value at or past Fraction, and the most frequent value (the first
	// in the order among equals). NULL with no values, or a Fraction of
	// -1 (NULL).
	PercentileCont
	PercentileDisc
	Mode
)

var aggNames = map[AggregateFunc]string{Count: "count", Sum: "sum", Min: "min", Max: "max", StringAgg: "string_agg", ArrayAgg: "array_agg",
	PercentileCont: "percentile_cont", PercentileDisc: "percentile_disc", Mode: "mode"}

func (f AggregateFunc) String() string { return aggNames[f] }

// Aggregate is one aggregate of a Reduce.
type Aggregate struct {
	Func AggregateFunc
	Expr Scalar
	// Distinct aggregates each distinct non-NULL value once.
	Distinct bool
	// Delimiter separates the values of StringAgg; unused otherwise.
	Delimiter string
	// Fraction and Desc are an ordered-set aggregate's percentile (-1
	// for NULL) and order.
	Fraction float64
	Desc     bool
	// Order, for StringAgg and ArrayAgg, orders the values by these
	// scalars of each row (ORDER BY inside the call); ties, and a call
	// without it, keep the value order described above. The other
	// aggregates do not depend on order and ignore it.
	Order []AggregateOrder
	// Filter, if set, leaves out the rows where it is not true (FILTER
	// (WHERE …)). The planner sets it for the aggregates that keep NULL
	// values (ArrayAgg); for the others a NULL argument in the filtered
	// rows does the same.
	Filter Scalar
}

// AggregateOrder is one ORDER BY item inside an aggregate call.
type AggregateOrder struct {
	Expr       Scalar
	Desc       bool
	NullsFirst bool
}

// Typ returns the aggregate's result type over input.
func (a Aggregate) Typ(input []ColumnType) ColumnType {
	t := a.Expr.Typ(input).Type
	switch a.Func {
	case ArrayAgg:
		return ColumnType{Type: repr.ArrayOf(t), Nullable: true}
	case Count:
		return ColumnType{Type: repr.Int8}
	case PercentileCont:
		return ColumnType{Type: repr.Float8, Nullable: true}
	case Sum:
		switch t.Kind() {
		case repr.KindInt2, repr.KindInt4:
			return ColumnType{Type: repr.Int8, Nullable: true}
		case repr.KindInt8:
			return ColumnType{Type: repr.Numeric, Nullable: true}
		case repr.KindNumeric:
			// A sum keeps the largest display scale of its terms.
			return ColumnType{Type: repr.ArithType(repr.OpAdd, t, t), Nullable: true}
		}
	}
	return ColumnType{Type: t, Nullable: true}
}

// Reduce groups the input by the key scalars and computes the aggregates
// per group: one row per group that has input, the key columns followed
// by the aggregates. NULL keys group together. With no input it has no
// rows, even with an empty key (the planner adds the default row).
type Reduce struct {
	Input      Relation
	GroupKey   []Scalar
	Aggregates []Aggregate
}

// ColumnOrder is one column of a sort order. NullsFirst says where NULLs
// go whatever the direction; PostgreSQL's default, which the planner
// writes out, is NullsFirst == Desc.
type ColumnOrder struct {
	Column     int
	Desc       bool
	NullsFirst bool
}

// TopK keeps, per group of the GroupKey columns, the rows ranked Offset
// through Offset+Limit-1 by Order (all rows after Offset if Limit < 0).
// Rows equal under Order are ranked by their full contents, so the result
// is deterministic.
type TopK struct {
	Input    Relation
	GroupKey []int
	Order    []ColumnOrder
	Limit    int64
	Offset   int64
}

// Distinct keeps each row with a positive count once.
type Distinct struct{ Input Relation }

// Negate negates every count.
type Negate struct{ Input Relation }

// Threshold keeps the rows with a positive count, with that count.
type Threshold struct{ Input Relation }

// Union adds its inputs' counts. The inputs have one arity.
type Union struct{ Inputs []Relation }

// Typ implements Relation. An unconstrained numeric column has the
// display scale that all its values have, so that VALUES (1.50) prints
// 1.50 after passing through a row.
func (c Constant) Typ() []ColumnType {
	var ts []ColumnType
	for i, ct := range c.Types {
		if !ct.Type.IsUnconstrainedNumeric() {
			continue
		}
		scale, found := 0, false
		for _, r := range c.Rows {
			if s, ok := r.Datums[i].NumericScale(); ok && (!found || s < scale) {
				scale, found = s, true
			}
		}
		if t := repr.Numeric.WithDisplayScale(scale); t != ct.Type {
			if ts == nil {
				ts = append([]ColumnType(nil), c.Types...)
			}
			ts[i].Type = t
		}
	}
	if ts == nil {
		return c.Types
	}
	return ts
}

// Typ implements Relation.
func (g Get) Typ() []ColumnType { return g.Types }

// Typ implements Relation.
func (g LocalGet) Typ() []ColumnType { return g.Types }

// Typ implements Relation.
func (l Let) Typ() []ColumnType { return l.Body.Typ() }

// Typ implements Relation.
func (m Map) Typ() []ColumnType {
	ts := append([]ColumnType(nil), m.Input.Typ()...)
	for _, s := range m.Scalars {
		ts = append(ts, s.Typ(ts))
	}
	return ts
}

// Typ implements Relation.
func (f Filter) Typ() []ColumnType {
	ts := append([]ColumnType(nil), f.Input.Typ()...)
	// A column compared with `=` or tested IS NOT NULL by a filter is no
	// longer NULL; only the simple, common case is recognised.
	for _, p := range f.Predicates {
		if u, ok := p.(CallUnary); ok && u.Func == Not {
			if n, ok := u.Arg.(CallUnary); ok && n.Func == IsNull {
				if c, ok := n.Arg.(Column); ok {
					ts[c.Index].Nullable = false
				}
			}
		}
	}
	return ts
}

// Typ implements Relation.
func (p Project) Typ() []ColumnType {
	in := p.Input.Typ()
	ts := make([]ColumnType, len(p.Outputs))
	for i, c := range p.Outputs {
		ts[i] = in[c]
	}
	return ts
}

// Typ implements Relation.
func (f FlatMap) Typ() []ColumnType {
	return append(append([]ColumnType(nil), f.Input.Typ()...), ColumnType{Type: f.Type})
}

// Typ implements Relation.
func (j Join) Typ() []ColumnType {
	var ts []ColumnType
	for _, in := range j.Inputs {
		ts = append(ts, in.Typ()...)
	}
	return ts
}

// Typ implements Relation.
func (r Reduce) Typ() []ColumnType {
	in := r.Input.Typ()
	var ts []ColumnType
	for _, k := range r.GroupKey {
		ts = append(ts, k.Typ(in))
	}
	for _, a := range r.Aggregates {
		ts = append(ts, a.Typ(in))
	}
	return ts
}

// Typ implements Relation.
func (t TopK) Typ() []ColumnType { return t.Input.Typ() }

// Typ implements Relation.
func (d Distinct) Typ() []ColumnType { return d.Input.Typ() }

// Typ implements Relation.
func (n Negate) Typ() []ColumnType { return n.Input.Typ() }

// Typ implements Relation.
func (t Threshold) Typ() []ColumnType { return t.Input.Typ() }

// Typ implements Relation.
func (u Union) Typ() []ColumnType {
	ts := append([]ColumnType(nil), u.Inputs[0].Typ()...)
	// The type of each column: over the inputs that may give it a value,
	// for a numeric display scale that all of them have (a NULL-padded
	// input, as in an outer join, gives none).
	typed := nullColumns(u.Inputs[0])
	for i, null := range typed {
		typed[i] = !null
	}
	for _, in := range u.Inputs[1:] {
		nulls := nullColumns(in)
		for i, c := range in.Typ() {
			ts[i].Nullable = ts[i].Nullable || c.Nullable
			switch {
			case nulls[i]:
			case typed[i]:
				ts[i].Type = repr.EitherType(ts[i].Type, c.Type)
			default:
				ts[i].Type, typed[i] = c.Type, true
			}
		}
	}
	return ts
}

// nullColumns reports for each column of r whether it is NULL in every
// row (or r has no rows), as far as a look at literals and constants
// tells: a NULL literal mapped in, a constant column of NULLs, and what
// passes them on.
func nullColumns(r Relation) []bool {
	switch n := r.(type) {
	case Constant:
		out := make([]bool, len(n.Types))
		for i := range out {
			out[i] = true
			for _, row := range n.Rows {
				if !row.Datums[i].IsNull() {
					out[i] = false
					break
				}
			}
		}
		return out
	case Map:
		out := nullColumns(n.Input)
		for _, s := range n.Scalars {
			l, ok := s.(Literal)
			out = append(out, ok && l.Value.IsNull())
		}
		return out
	case Project:
		in := nullColumns(n.Input)
		out := make([]bool, len(n.Outputs))
		for i, c := range n.Outputs {
			out[i] = in[c]
		}
		return out
	case Filter:
		return nullColumns(n.Input)
	case TopK:
		return nullColumns(n.Input)
	case Window:
		return append(nullColumns(n.Input), make([]bool, len(n.Funcs))...)
	case Distinct:
		return nullColumns(n.Input)
	case Negate:
		return nullColumns(n.Input)
	case Threshold:
		return nullColumns(n.Input)
	case Let:
		return nullColumns(n.Body)
	case Union:
		out := nullColumns(n.Inputs[0])
		for _, in := range n.Inputs[1:] {
			for i, null := range nullColumns(in) {
				out[i] = out[i] && null
			}
		}
		return out
	}
	return make([]bool, len(r.Typ()))
}

// Children implements Relation.
func (Constant) Children() []Relation { return nil }

// Children implements Relation.
func (Get) Children() []Relation { return nil }

// Children implements Relation.
func (LocalGet) Children() []Relation { return nil }

// Children implements Relation.
func (l Let) Children() []Relation { return []Relation{l.Value, l.Body} }

// Children implements Relation.
func (m Map) Children() []Relation { return []Relation{m.Input} }

// Children implements Relation.
func (f Filter) Children() []Relation { return []Relation{f.Input} }

// Children implements Relation.
func (p Project) Children() []Relation { return []Relation{p.Input} }

// Children implements Relation.
func (f FlatMap) Children() []Relation { return []Relation{f.Input} }

// Children implements Relation.
func (j Join) Children() []Relation { return j.Inputs }

// Children implements Relation.
func (r Reduce) Children() []Relation { return []Relation{r.Input} }

// Children implements Relation.
func (t TopK) Children() []Relation { return []Relation{t.Input} }

// Children implements Relation.
func (d Distinct) Children() []Relation { return []Relation{d.Input} }

// Children implements Relation.
func (n Negate) Children() []Relation { return []Relation{n.Input} }

// Children implements Relation.
func (t Threshold) Children() []Relation { return []Relation{t.Input} }

// Children implements Relation.
func (u Union) Children() []Relation { return u.Inputs }

// Check verifies that every column reference is in range and that union
// inputs agree in arity. The planner runs it on every plan it makes; a
// failure is a bug (XX000).
func Check(r Relation) error {
	for _, c := range r.Children() {
		if err := Check(c); err != nil {
			return err
		}
	}
	checkScalars := func(arity int, ss ...Scalar) error {
		for _, s := range ss {
			for _, c := range s.Columns(nil) {
				if c < 0 || c >= arity {
					return sqlerr.AssertionFailedf("column #%d out of range for arity %d in %s", c, arity, s)
				}
			}
		}
		return nil
	}
	switch n := r.(type) {
	case Recursive:
		if b, st := len(n.Base.Typ()), len(n.Step.Typ()); b != st {
			return sqlerr.AssertionFailedf("recursive term of %d columns over a base of %d", st, b)
		}
	case Map:
		arity := len(n.Input.Typ())
		for _, s := range n.Scalars {
			if err := checkScalars(arity, s); err != nil {
				return err
			}
			arity++
		}
	case Filter:
		return checkScalars(len(n.Input.Typ()), n.Predicates...)
	case Project:
		return checkScalars(len(n.Input.Typ()), columns(n.Outputs)...)
	case FlatMap:
		return checkScalars(len(n.Input.Typ()), n.Args...)
	case Join:
		arity := len(n.Typ())
		for _, class := range n.Equivalences {
			if err := checkScalars(arity, class...); err != nil {
				return err
			}
		}
	case Reduce:
		arity := len(n.Input.Typ())
		if err := checkScalars(arity, n.GroupKey...); err != nil {
			return err
		}
		for _, a := range n.Aggregates {
			if err := checkScalars(arity, a.Expr); err != nil {
				return err
			}
			if a.Filter != nil {
				if err := checkScalars(arity, a.Filter); err != nil {
					return err
				}
			}
			for _, o := range a.Order {
				if err := checkScalars(arity, o.Expr); err != nil {
					return err
				}
			}
		}
	case TopK:
		arity := len(n.Input.Typ())
		cols := columns(n.GroupKey)
		for _, o := range n.Order {
			cols = append(cols, Column{o.Column})
		}
		return checkScalars(arity, cols...)
	case Window:
		arity := len(n.Input.Typ())
		cols := columns(n.PartitionBy)
		for _, o := range n.Order {
			cols = append(cols, Column{o.Column})
		}
		for _, f := range n.Funcs {
			cols = append(cols, columns(f.Args)...)
		}
		return checkScalars(arity, cols...)
	case Union:
		arity := len(n.Inputs[0].Typ())
		for _, in := range n.Inputs[1:] {
			if len(in.Typ()) != arity {
				return sqlerr.AssertionFailedf("union of arities %d and %d", arity, len(in.Typ()))
			}
		}
	}
	return nil
}

func columns(cs []int) []Scalar {
	ss := make([]Scalar, len(cs))
	for i, c := range cs {
		ss[i] = Column{c}
	}
	return ss
}

// WithChildren returns r with its inputs replaced by cs, in Children's
// order.
func WithChildren(r Relation, cs []Relation) Relation {
	switch n := r.(type) {
	case Let:
		n.Value, n.Body = cs[0], cs[1]
		return n
	case Recursive:
		n.Base, n.Step = cs[0], cs[1]
		return n
	case Map:
		n.Input = cs[0]
		return n
	case Filter:
		n.Input = cs[0]
		return n
	case Project:
		n.Input = cs[0]
		return n
	case FlatMap:
		n.Input = cs[0]
		return n
	case Join:
		n.Inputs = cs
		return n
	case Reduce:
		n.Input = cs[0]
		return n
	case TopK:
		n.Input = cs[0]
		return n
	case Window:
		n.Input = cs[0]
		return n
	case Distinct:
		return Distinct{Input: cs[0]}
	case Negate:
		return Negate{Input: cs[0]}
	case Threshold:
		return Threshold{Input: cs[0]}
	case Union:
		n.Inputs = cs
		return n
	}
	return r
}

// Recursive is WITH RECURSIVE: Base's rows, then Step's over the rows the
// last round added (LocalGet ID within Step), round after round until a
// round adds none; with Distinct (UNION rather than UNION ALL) a row
// already produced, or produced twice in a round, is added once. Its
// value is every row produced. It is evaluated to a fixpoint before a
// query runs (ExpandRecursive), not maintained: views refuse it.
type Recursive struct {
	ID         LocalID
	Base, Step Relation
	Distinct   bool
}

// Typ implements Relation: Base's columns, NULL where either term may
// give NULL.
func (r Recursive) Typ() []ColumnType {
	ts := append([]ColumnType(nil), r.Base.Typ()...)
	for i, t := range r.Step.Typ() {
		if i < len(ts) {
			ts[i].Nullable = ts[i].Nullable || t.Nullable
		}
	}
	return ts
}

// Children implements Relation.
func (r Recursive) Children() []Relation { return []Relation{r.Base, r.Step} }

// ContainsRecursive reports whether r holds a Recursive.
func ContainsRecursive(r Relation) bool {
	if _, ok := r.(Recursive); ok {
		return true
	}
	for _, c := range r.Children() {
		if ContainsRecursive(c) {
			return true
		}
	}
	return false
}

// ExpandRecursive returns r with each Recursive replaced by the Constant
// of its rows, innermost first, computing each round with eval (a read
// of a plan that holds no Recursive). A round's working rows reach Step
// through a Let of ID. ctxErr, called between rounds, ends a recursion
// that does not (a cancel, statement_timeout), as in PostgreSQL, where
// nothing else bounds one either.
func ExpandRecursive(r Relation, eval func(Relation) (Collection, error), ctxErr func() error) (Relation, error) {
	cs := r.Children()
	if len(cs) > 0 {
		ncs := make([]Relation, len(cs))
		changed := false
		for i, c := range cs {
			n, err := ExpandRecursive(c, eval, ctxErr)
			if err != nil {
				return nil, err
			}
			ncs[i] = n
			changed = changed || ContainsRecursive(c)
		}
		if changed {
			r = WithChildren(r, ncs)
		}
	}
	rec, ok := r.(Recursive)
	if !ok {
		return r, nil
	}
	types := rec.Typ()
	base, err := eval(rec.Base)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var all []Row
	// add keeps the rows of a round that count: each once per count,
	// or once and only if new for UNION.
	add := func(rows Collection) []Row {
		var fresh []Row
		for _, row := range rows {
			if row.Diff <= 0 {
				continue
			}
			if rec.Distinct {
				k := string(repr.PackRow(row.Datums...))
				if seen[k] {
					continue
				}
				seen[k] = true
				row.Diff = 1
			}
			fresh = append(fresh, row)
		}
		all = append(all, fresh...)
		return fresh
	}
	work := add(base)
	for len(work) > 0 {
		if err := ctxErr(); err != nil {
			return nil, err
		}
		step := Let{ID: rec.ID, Value: Constant{Rows: work, Types: types}, Body: rec.Step}
		rows, err := eval(step)
		if err != nil {
			return nil, err
		}
		work = add(rows)
	}
	return Constant{Rows: all, Types: types}, nil
}
