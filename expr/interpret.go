package expr

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strings"

	"freshet/repr"
	"freshet/sqlerr"
)

// Collection is a consolidated multiset of rows: no row twice, no zero
// count, sorted by the rows' encoding so that equal collections are equal
// slices.
type Collection []Row

// Env holds the collections a plan's Gets read.
type Env map[GlobalID]Collection

// Interpret evaluates r from scratch over env. It is the reference that
// incremental renderings are tested against, written for clarity, not
// speed: joins are nested loops.
func Interpret(r Relation, env Env) (Collection, error) {
	in := interpreter{env: env, locals: map[LocalID]Collection{}}
	rows, err := in.eval(r)
	if err != nil {
		return nil, err
	}
	return Consolidate(rows), nil
}

type interpreter struct {
	env    Env
	locals map[LocalID]Collection
}

func (in *interpreter) eval(r Relation) ([]Row, error) {
	switch n := r.(type) {
	case Constant:
		return n.Rows, nil
	case Get:
		return in.env[n.ID], nil
	case LocalGet:
		return in.locals[n.ID], nil
	case Let:
		v, err := in.eval(n.Value)
		if err != nil {
			return nil, err
		}
		in.locals[n.ID] = Consolidate(v)
		return in.eval(n.Body)
	case Recursive:
		r, err := ExpandRecursive(n, func(p Relation) (Collection, error) {
			rows, err := in.eval(p)
			return Consolidate(rows), err
		}, func() error { return nil })
		if err != nil {
			return nil, err
		}
		return in.eval(r)
	case Map:
		rows, err := in.eval(n.Input)
		if err != nil {
			return nil, err
		}
		out := make([]Row, 0, len(rows))
		for _, row := range rows {
			ds := append([]repr.Datum(nil), row.Datums...)
			for _, s := range n.Scalars {
				v, err := s.Eval(ds)
				if err != nil {
					return nil, err
				}
				ds = append(ds, v)
			}
			out = append(out, Row{ds, row.Diff})
		}
		return out, nil
	case Filter:
		rows, err := in.eval(n.Input)
		if err != nil {
			return nil, err
		}
		var out []Row
		for _, row := range rows {
			keep, err := allTrue(n.Predicates, row.Datums)
			if err != nil {
				return nil, err
			}
			if keep {
				out = append(out, row)
			}
		}
		return out, nil
	case Project:
		rows, err := in.eval(n.Input)
		if err != nil {
			return nil, err
		}
		out := make([]Row, len(rows))
		for i, row := range rows {
			ds := make([]repr.Datum, len(n.Outputs))
			for j, c := range n.Outputs {
				ds[j] = row.Datums[c]
			}
			out[i] = Row{ds, row.Diff}
		}
		return out, nil
	case FlatMap:
		return in.flatMap(n)
	case Join:
		return in.join(n)
	case Reduce:
		return in.reduce(n)
	case TopK:
		return in.topK(n)
	case Window:
		return in.window(n)
	case Distinct:
		rows, err := in.eval(n.Input)
		if err != nil {
			return nil, err
		}
		var out []Row
		for _, row := range Consolidate(rows) {
			if row.Diff > 0 {
				out = append(out, Row{row.Datums, 1})
			}
		}
		return out, nil
	case Negate:
		rows, err := in.eval(n.Input)
		if err != nil {
			return nil, err
		}
		out := make([]Row, len(rows))
		for i, row := range rows {
			out[i] = Row{row.Datums, -row.Diff}
		}
		return out, nil
	case Threshold:
		rows, err := in.eval(n.Input)
		if err != nil {
			return nil, err
		}
		var out []Row
		for _, row := range Consolidate(rows) {
			if row.Diff > 0 {
				out = append(out, row)
			}
		}
		return out, nil
	case Union:
		var out []Row
		for _, i := range n.Inputs {
			rows, err := in.eval(i)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
		return out, nil
	}
	return nil, sqlerr.AssertionFailedf("interpret: unknown relation %T", r)
}

func allTrue(preds []Scalar, row []repr.Datum) (bool, error) {
	for _, p := range preds {
		v, err := p.Eval(row)
		if err != nil {
			return false, err
		}
		if v.IsNull() || !v.Bool() {
			return false, nil
		}
	}
	return true, nil
}

func (in *interpreter) flatMap(n FlatMap) ([]Row, error) {
	rows, err := in.eval(n.Input)
	if err != nil {
		return nil, err
	}
	var out []Row
	for _, row := range rows {
		args := make([]repr.Datum, len(n.Args))
		for i, a := range n.Args {
			if args[i], err = a.Eval(row.Datums); err != nil {
				return nil, err
			}
		}
		vals, err := EvalTableFunc(n.Func, args, n.Type)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			out = append(out, Row{append(append([]repr.Datum(nil), row.Datums...), v), row.Diff})
		}
	}
	return out, nil
}

// EvalTableFunc evaluates a table function over its arguments and returns
// the values of the column it appends, one per output row.
func EvalTableFunc(f TableFunc, args []repr.Datum, t repr.Type) ([]repr.Datum, error) {
	switch f {
	case GenerateSeries:
		return generateSeries(args, t)
	case Unnest:
		if args[0].IsNull() {
			return nil, nil
		}
		return args[0].ArrayElems(t)
	case Value:
		return args[:1], nil
	case GenerateSubscripts:
		if args[0].IsNull() || args[1].IsNull() || args[1].Int() != 1 {
			return nil, nil
		}
		lower := 1
		if args[0].IsVector() {
			lower = 0
		}
		out := make([]repr.Datum, args[0].ArrayLen())
		for i := range out {
			out[i] = repr.NewInt4(int32(lower + i))
		}
		return out, nil
	case JSONBArrayElements, JSONBArrayElementsText, JSONBObjectKeys, JSONBEach, JSONBEachText:
		return jsonbTableFunc(f, args[0])
	case JSONArrayElements, JSONArrayElementsText, JSONObjectKeys, JSONEach:
		return jsonTableFunc(f, args[0])
	}
	return nil, sqlerr.AssertionFailedf("unknown table function %d", f)
}

// seriesPrealloc bounds how many values generate_series sizes its
// output for before it knows them.
const seriesPrealloc = 1 << 20

// generateSeries yields start, start+step, … up to stop inclusive; no
// rows if an argument is NULL; step 0 is an error, as in PostgreSQL.
func generateSeries(args []repr.Datum, t repr.Type) ([]repr.Datum, error) {
	for _, a := range args {
		if a.IsNull() {
			return nil, nil
		}
	}
	start, stop, step := args[0].Int(), args[1].Int(), int64(1)
	if len(args) > 2 {
		step = args[2].Int()
	}
	if step == 0 {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "step size cannot equal zero")
	}
	// Sized once for the series, up to a bound: a series too long to
	// hold fails on memory as it grows, not before it starts.
	var out []repr.Datum
	if n := (stop - start) / step; n >= 0 {
		out = make([]repr.Datum, 0, min(uint64(n)+1, seriesPrealloc))
	}
	for v := start; (step > 0 && v <= stop) || (step < 0 && v >= stop); v += step {
		d, err := repr.Cast(repr.NewInt8(v), t)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		if (step > 0 && v > stop-step) || (step < 0 && v < stop-step) {
			break // the next step would overflow past stop
		}
	}
	return out, nil
}

func (in *interpreter) join(n Join) ([]Row, error) {
	product := []Row{{Datums: nil, Diff: 1}}
	for _, i := range n.Inputs {
		rows, err := in.eval(i)
		if err != nil {
			return nil, err
		}
		var next []Row
		for _, l := range product {
			for _, r := range rows {
				ds := append(append([]repr.Datum(nil), l.Datums...), r.Datums...)
				next = append(next, Row{ds, l.Diff * r.Diff})
			}
		}
		product = next
	}
	var out []Row
	for _, row := range product {
		ok, err := equivalent(n.Equivalences, row.Datums)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, row)
		}
	}
	return out, nil
}

// equivalent reports whether every class's scalars are equal over row,
// comparing encodings, so NULL equals NULL.
func equivalent(classes [][]Scalar, row []repr.Datum) (bool, error) {
	for _, class := range classes {
		var first []byte
		for i, s := range class {
			v, err := s.Eval(row)
			if err != nil {
				return false, err
			}
			enc := repr.AppendDatum(nil, v)
			if i == 0 {
				first = enc
			} else if !bytes.Equal(first, enc) {
				return false, nil
			}
		}
	}
	return true, nil
}

func (in *interpreter) reduce(n Reduce) ([]Row, error) {
	rows, err := in.eval(n.Input)
	if err != nil {
		return nil, err
	}
	type group struct {
		key  []repr.Datum
		rows []Row
	}
	groups := map[string]*group{}
	var order []string
	for _, row := range Consolidate(rows) {
		key := make([]repr.Datum, len(n.GroupKey))
		for i, k := range n.GroupKey {
			if key[i], err = k.Eval(row.Datums); err != nil {
				return nil, err
			}
		}
		enc := string(repr.PackRow(key...))
		g := groups[enc]
		if g == nil {
			g = &group{key: key}
			groups[enc] = g
			order = append(order, enc)
		}
		g.rows = append(g.rows, row)
	}
	var out []Row
	for _, enc := range order {
		g := groups[enc]
		total := int64(0)
		for _, r := range g.rows {
			total += r.Diff
		}
		if total <= 0 {
			continue
		}
		ds := append([]repr.Datum(nil), g.key...)
		for _, a := range n.Aggregates {
			v, err := aggregate(a, g.rows)
			if err != nil {
				return nil, err
			}
			ds = append(ds, v)
		}
		out = append(out, Row{ds, 1})
	}
	return out, nil
}

// EvalAggregate computes one aggregate over a group's rows, each with its
// count. Rows with a count of zero or less contribute nothing.
func EvalAggregate(a Aggregate, rows []Row) (repr.Datum, error) { return aggregate(a, rows) }

// aggregate computes one aggregate over a group's rows (with counts).
func aggregate(a Aggregate, rows []Row) (repr.Datum, error) {
	type val struct {
		v repr.Datum
		n int64
		// keys are the values of the call's ORDER BY, when it orders.
		keys []repr.Datum
	}
	ordered := len(a.Order) > 0 && (a.Func == StringAgg || a.Func == ArrayAgg)
	var vals []val
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Diff <= 0 {
			continue
		}
		if a.Filter != nil {
			keep, err := a.Filter.Eval(r.Datums)
			if err != nil {
				return repr.Null, err
			}
			if keep.IsNull() || !keep.Bool() {
				continue
			}
		}
		v, err := a.Expr.Eval(r.Datums)
		if err != nil {
			return repr.Null, err
		}
		if v.IsNull() && a.Func != ArrayAgg {
			continue
		}
		n := r.Diff
		if a.Distinct {
			enc := string(repr.AppendDatum(nil, v))
			if seen[enc] {
				continue
			}
			seen[enc] = true
			n = 1
		}
		var keys []repr.Datum
		if ordered {
			keys = make([]repr.Datum, len(a.Order))
			for i, o := range a.Order {
				if keys[i], err = o.Expr.Eval(r.Datums); err != nil {
					return repr.Null, err
				}
			}
		}
		vals = append(vals, val{v, n, keys})
	}
	if ordered {
		// By the ORDER BY, then by value, so that ties come out the
		// same whatever order the rows arrived in.
		ords := make([]ColumnOrder, len(a.Order))
		for i, o := range a.Order {
			ords[i] = ColumnOrder{Column: i, Desc: o.Desc, NullsFirst: o.NullsFirst}
		}
		slices.SortStableFunc(vals, func(x, y val) int {
			if c := compareOrder(ords, x.keys, y.keys); c != 0 {
				return c
			}
			return repr.Compare(x.v, y.v)
		})
		if a.Func == ArrayAgg {
			if len(vals) == 0 {
				return repr.Null, nil
			}
			var elems []repr.Datum
			t := vals[0].v.Kind().Type()
			for _, v := range vals {
				for range v.n {
					elems = append(elems, v.v)
				}
				if !v.v.IsNull() {
					t = v.v.Kind().Type()
				}
			}
			return repr.NewArray(t, elems), nil
		}
		if len(vals) == 0 {
			return repr.Null, nil
		}
		var b strings.Builder
		first := true
		for _, v := range vals {
			for range v.n {
				if !first {
					b.WriteString(a.Delimiter)
				}
				first = false
				b.WriteString(repr.FormatText(v.v))
			}
		}
		return repr.NewText(b.String()), nil
	}
	switch a.Func {
	case PercentileCont, PercentileDisc, Mode:
		if len(vals) == 0 || (a.Func != Mode && a.Fraction < 0) {
			return repr.Null, nil
		}
		slices.SortStableFunc(vals, func(x, y val) int {
			c := sqlCompare(x.v, y.v)
			if a.Desc {
				c = -c
			}
			return c
		})
		var total int64
		for _, v := range vals {
			total += v.n
		}
		// at returns the value at 0-based position pos of the order.
		at := func(pos int64) repr.Datum {
			for _, v := range vals {
				if pos < v.n {
					return v.v
				}
				pos -= v.n
			}
			return vals[len(vals)-1].v
		}
		switch a.Func {
		case PercentileDisc:
			pos := int64(math.Ceil(a.Fraction * float64(total)))
			return at(max(pos, 1) - 1), nil
		case PercentileCont:
			exact := a.Fraction * float64(total-1)
			lo, hi := int64(math.Floor(exact)), int64(math.Ceil(exact))
			x := at(lo).Float()
			if lo == hi {
				return repr.NewFloat8(x), nil
			}
			y := at(hi).Float()
			return repr.NewFloat8(x + (y-x)*(exact-float64(lo))), nil
		}
		// Mode: the longest run of equal values, the first among equals.
		var best repr.Datum
		bestN, runN := int64(0), int64(0)
		for i, v := range vals {
			if i > 0 && sqlCompare(v.v, vals[i-1].v) == 0 {
				runN += v.n
			} else {
				runN = v.n
			}
			if runN > bestN {
				best, bestN = v.v, runN
			}
		}
		return best, nil
	case Count:
		total := int64(0)
		for _, v := range vals {
			total += v.n
		}
		return repr.NewInt8(total), nil
	case Sum:
		if len(vals) == 0 {
			return repr.Null, nil
		}
		var rt repr.Type
		switch vals[0].v.Kind() {
		case repr.KindInt2, repr.KindInt4:
			rt = repr.Int8
		case repr.KindInt8, repr.KindNumeric:
			rt = repr.Numeric
		default:
			rt = vals[0].v.Kind().Type()
		}
		sum, err := repr.Cast(repr.NewInt4(0), rt)
		if err != nil {
			return repr.Null, err
		}
		for _, v := range vals {
			x, err := repr.Cast(v.v, rt)
			if err != nil {
				return repr.Null, err
			}
			n, err := repr.Cast(repr.NewInt8(v.n), rt)
			if err != nil {
				return repr.Null, err
			}
			if x, err = repr.Mul(x, n); err != nil {
				return repr.Null, err
			}
			if sum, err = repr.Add(sum, x); err != nil {
				return repr.Null, err
			}
		}
		return sum, nil
	case Min, Max:
		best := repr.Null
		for _, v := range vals {
			if best.IsNull() {
				best = v.v
				continue
			}
			c := sqlCompare(v.v, best)
			if (a.Func == Min && c < 0) || (a.Func == Max && c > 0) {
				best = v.v
			}
		}
		return best, nil
	case ArrayAgg:
		if len(vals) == 0 {
			return repr.Null, nil
		}
		var elems []repr.Datum
		for _, v := range vals {
			for i := int64(0); i < v.n; i++ {
				elems = append(elems, v.v)
			}
		}
		slices.SortFunc(elems, repr.Compare)
		// NULLs sort last: the first element, if any is not NULL, has
		// the elements' kind.
		return repr.NewArray(elems[0].Kind().Type(), elems), nil
	case StringAgg:
		if len(vals) == 0 {
			return repr.Null, nil
		}
		texts := make([]string, 0, len(vals))
		for _, v := range vals {
			for i := int64(0); i < v.n; i++ {
				texts = append(texts, repr.FormatText(v.v))
			}
		}
		sort.Strings(texts)
		return repr.NewText(strings.Join(texts, a.Delimiter)), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown aggregate %d", a.Func)
}

func (in *interpreter) topK(n TopK) ([]Row, error) {
	rows, err := in.eval(n.Input)
	if err != nil {
		return nil, err
	}
	groups := map[string][]Row{}
	var order []string
	for _, row := range Consolidate(rows) {
		if row.Diff <= 0 {
			continue
		}
		key := make([]repr.Datum, len(n.GroupKey))
		for i, c := range n.GroupKey {
			key[i] = row.Datums[c]
		}
		enc := string(repr.PackRow(key...))
		if _, ok := groups[enc]; !ok {
			order = append(order, enc)
		}
		groups[enc] = append(groups[enc], row)
	}
	var out []Row
	for _, enc := range order {
		g := groups[enc]
		slices.SortStableFunc(g, func(a, b Row) int { return CompareRows(n.Order, a.Datums, b.Datums) })
		skip, take := n.Offset, n.Limit
		for _, row := range g {
			for c := int64(0); c < row.Diff; c++ {
				if skip > 0 {
					skip--
					continue
				}
				if take == 0 {
					break
				}
				out = append(out, Row{row.Datums, 1})
				if take > 0 {
					take--
				}
			}
		}
	}
	return out, nil
}

// CompareRows orders two rows by order, then by their full encodings.
func CompareRows(order []ColumnOrder, a, b []repr.Datum) int {
	if c := compareOrder(order, a, b); c != 0 {
		return c
	}
	return bytes.Compare(repr.PackRow(a...), repr.PackRow(b...))
}

// compareOrder orders two rows by order alone: 0 for rows that tie.
func compareOrder(order []ColumnOrder, a, b []repr.Datum) int {
	for _, o := range order {
		x, y := a[o.Column], b[o.Column]
		var c int
		switch {
		case x.IsNull() && y.IsNull():
			c = 0
		case x.IsNull() != y.IsNull():
			// Where NULLs go does not depend on the direction.
			c = 1
			if x.IsNull() == o.NullsFirst {
				c = -1
			}
			return c
		default:
			c = sqlCompare(x, y)
		}
		if o.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Consolidate sums the counts of equal rows, drops zero counts, and
// sorts by encoding.
func Consolidate(rows []Row) Collection {
	type entry struct {
		enc []byte
		row Row
	}
	byEnc := map[string]*entry{}
	var entries []*entry
	for _, r := range rows {
		enc := repr.PackRow(r.Datums...)
		e := byEnc[string(enc)]
		if e == nil {
			e = &entry{enc: enc, row: Row{r.Datums, 0}}
			byEnc[string(enc)] = e
			entries = append(entries, e)
		}
		e.row.Diff += r.Diff
	}
	slices.SortFunc(entries, func(a, b *entry) int { return bytes.Compare(a.enc, b.enc) })
	out := make(Collection, 0, len(entries))
	for _, e := range entries {
		if e.row.Diff != 0 {
			out = append(out, e.row)
		}
	}
	return out
}
