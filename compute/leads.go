package compute

import (
	"bytes"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// A reduction whose aggregates are all min, max and count is kept as
// leads (arrange.Leads): its input is arranged by the group key with one
// val per row and aggregate, in a segment of its own per aggregate, and
// each group's output is read from the first live val of each segment.
//
//   - min(x): the segment holds x's encoding for every row whose x is
//     not NULL. Rows encode in the order of the values they hold
//     (repr's invariant), so the segment's lead is the least value.
//   - max(x): the same with every byte complemented, which reverses the
//     order of encodings that are self-delimiting, as a datum's is; the
//     lead is the greatest value.
//   - count(x): the segment's one val, once per row whose x is not NULL;
//     its accumulated count is the count.
//   - a last segment's one val, once per row, says whether the group
//     exists (a group of NULLs still has a row).
//
// A change to a group costs a seek per segment in the arrangement and
// the retracted vals stepped past, where the generic reduction reads the
// whole group at every change: a max over a million rows is kept at the
// cost of a few seeks, not a million values. min and max of intervals
// and jsonb stay generic: their SQL order ties values whose encodings
// differ ('1 mon' and '30 days').

// leadAggregate is how one aggregate of a reduction kept as leads reads
// a row.
type leadAggregate struct {
	fn expr.AggregateFunc
	// arg and filter are the aggregate's argument and FILTER, evaluated
	// on the decoded row, unless col or every say otherwise.
	arg, filter expr.Scalar
	// col, if not -1, is the column that is the argument, with no
	// filter: its bytes are cut from the row without decoding.
	col int
	// every is set for a count of a non-NULL literal with no filter
	// (count(*)): every row counts.
	every bool
}

// leadsOf returns how n's aggregates are kept as leads, and reports
// whether they can be: every aggregate is a min or max (of a type whose
// encodings order as its values) or a non-DISTINCT count, and there are
// fewer than 256 segments.
func leadsOf(n expr.Reduce) ([]leadAggregate, bool) {
	if len(n.Aggregates) == 0 || len(n.Aggregates) > 255 {
		return nil, false
	}
	types := n.Input.Typ()
	aggs := make([]leadAggregate, len(n.Aggregates))
	for i, ag := range n.Aggregates {
		switch ag.Func {
		case expr.Min, expr.Max:
			switch ag.Expr.Typ(types).Type.Kind() {
			case repr.KindInterval, repr.KindJSONB:
				return nil, false
			}
		case expr.Count:
			if ag.Distinct {
				return nil, false
			}
		default:
			return nil, false
		}
		la := leadAggregate{fn: ag.Func, arg: ag.Expr, filter: ag.Filter, col: -1}
		if ag.Filter == nil {
			switch e := ag.Expr.(type) {
			case expr.Column:
				la.col = e.Index
			case expr.Literal:
				la.every = ag.Func == expr.Count && !e.Value.IsNull()
			}
		}
		aggs[i] = la
	}
	return aggs, true
}

// leads renders n, whose aggregates leadsOf gave as aggs.
func (r *renderer) leads(n expr.Reduce, aggs []leadAggregate) (Collection, error) {
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	types := reprTypes(n.Input.Typ())
	keyed, keyErrs := r.leadUpdates(in, types, n.GroupKey, aggs)
	a := arrange.Arrange(keyed, "reduce leads")
	exists := len(aggs)
	var buf []byte
	var out [1]arrange.ValCount
	res := arrange.Leads(a, "reduce", len(aggs)+1, func(_ []byte, leads []arrange.ValCount) []arrange.ValCount {
		if leads[exists].Count <= 0 {
			return nil
		}
		// Leads copies the vals it keeps before it asks again.
		buf = append(buf[:0], tagRow)
		for i, ag := range aggs {
			l := leads[i]
			switch {
			case ag.fn == expr.Count:
				buf = repr.AppendDatum(buf, repr.NewInt8(l.Count))
			case l.Val == nil:
				buf = repr.AppendDatum(buf, repr.Null)
			case ag.fn == expr.Min:
				buf = append(buf, l.Val[1:]...)
			default:
				for _, b := range l.Val[1:] {
					buf = append(buf, ^b)
				}
			}
		}
		out[0] = arrange.ValCount{Val: buf, Count: 1}
		return out[:]
	})
	rows, errs := r.flattenTagged(res, "reduce output", flatKeyVal)
	return Collection{Rows: rows, Errs: dataflow.Concat(dataflow.Concat(in.Errs, keyErrs, "reduce key errors"), errs, "reduce errors")}, nil
}

// leadUpdates turns each row of c into its updates for a Leads: keyed by
// the group key, one val per aggregate that the row enters and one that
// it exists. A row whose key or aggregates fail to evaluate gives its
// error instead.
func (r *renderer) leadUpdates(c Collection, types []repr.Type, keys []expr.Scalar, aggs []leadAggregate) (dataflow.Stream[arrange.Update], dataflow.Stream[arrange.Update]) {
	ob := r.b.NewOperator("reduce leads key")
	in := dataflow.NewInput(ob, c.Rows, dataflow.Pipeline[arrange.Update]())
	out, keyed := dataflow.NewOutput[arrange.Update](ob)
	errOut, errs := dataflow.NewOutput[arrange.Update](ob)
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, c := range caps {
			c.Release()
		}
		k := newLeadKeyer(types, keys, aggs)
		return dataflow.ScheduleFunc(func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					k.forget()
					return
				}
				// The updates are given away: each message has its own.
				// A row makes an update per min and max, and one per count
				// and existence unless it follows a row of its group.
				k.res = make([]arrange.Update, 0, len(data)*k.extremes+len(aggs)+1)
				k.arena = make([]byte, 0, len(data)*k.extremes*8)
				k.bad, k.lastKey = nil, nil
				for _, u := range data {
					k.add(u)
				}
				out.GiveSlice(t, k.res)
				errOut.GiveSlice(t, k.bad)
				// The keys are views of the rows.
				k.res, k.arena, k.bad, k.lastKey = nil, nil, nil, nil
			}
		})
	})
	return keyed, errs
}

// leadKeyer makes a Leads' updates of rows.
type leadKeyer struct {
	key  groupKeys
	aggs []leadAggregate
	// rawEnd is one past the last column cut from a row; decode says
	// whether any scalar must be evaluated on the decoded row.
	rawEnd int
	decode bool
	reader columnReader
	// extremes is the number of mins and maxes.
	extremes int

	raw     [][]byte
	scratch []repr.Datum
	p       repr.RowPacker
	// A row's vals (enc, at vals) and one evaluated datum's encoding.
	enc, datum []byte
	vals       []span

	// The group and time of the message's last row, and the index in
	// res of its update of each segment's constant val, or -1.
	lastKey  []byte
	lastTime uint64
	constAt  []int

	// The current message's updates, the bytes of their keys and vals,
	// and its errors.
	res   []arrange.Update
	arena []byte
	bad   []arrange.Update
}

func newLeadKeyer(types []repr.Type, keys []expr.Scalar, aggs []leadAggregate) *leadKeyer {
	k := &leadKeyer{key: newGroupKeys(keys), aggs: aggs}
	k.rawEnd = k.key.rawEnd()
	var scalars []expr.Scalar
	if k.key.evaluated() {
		scalars = append(scalars, keys...)
	}
	for _, ag := range aggs {
		switch {
		case ag.every:
		case ag.col >= 0:
			k.rawEnd = max(k.rawEnd, ag.col+1)
		default:
			scalars = append(scalars, ag.arg)
			if ag.filter != nil {
				scalars = append(scalars, ag.filter)
			}
		}
	}
	k.decode = len(scalars) > 0
	k.reader = newColumnReader(types, scalars)
	k.constAt = make([]int, len(aggs)+1)
	for _, ag := range aggs {
		if ag.fn != expr.Count {
			k.extremes++
		}
	}
	return k
}

// forget drops the scratch's views of the last row.
func (k *leadKeyer) forget() {
	clear(k.raw)
	clear(k.scratch)
}

// add appends u's updates to res, or its error to bad. A row of the
// same group and time as the row before it (every row of a global
// aggregate's message) adds its diff to that group's update of each
// count's val and of the existence val instead of making one: they are
// the same (key, val, time), which the arrangement would sum anyway.
func (k *leadKeyer) add(u arrange.Update) {
	if k.rawEnd > 0 {
		k.raw = rawColumns(u.Key, k.rawEnd, k.raw)
	}
	if k.decode {
		k.scratch = k.reader.decode(u.Key, k.scratch)
	}
	var key []byte
	var err error
	if key, k.arena, err = k.key.make(k.raw, k.scratch, &k.p, k.arena); err != nil {
		k.bad = append(k.bad, errorUpdate(err, u.Time, u.Diff))
		return
	}
	// Every aggregate is evaluated before anything is appended, so that
	// a row that fails leaves no update behind: vals[i] is aggregate i's
	// val after its segment byte, in enc, or start -1 if the row does
	// not enter it.
	k.enc = k.enc[:0]
	k.vals = k.vals[:0]
	for _, ag := range k.aggs {
		var v []byte
		switch {
		case ag.every:
		case ag.col >= 0:
			v = k.raw[ag.col]
			if repr.IsNullEncoding(v) {
				k.vals = append(k.vals, span{-1, -1})
				continue
			}
		default:
			if ag.filter != nil {
				keep, err := ag.filter.Eval(k.scratch)
				if err != nil {
					k.bad = append(k.bad, errorUpdate(err, u.Time, u.Diff))
					return
				}
				if keep.IsNull() || !keep.Bool() {
					k.vals = append(k.vals, span{-1, -1})
					continue
				}
			}
			d, err := ag.arg.Eval(k.scratch)
			if err != nil {
				k.bad = append(k.bad, errorUpdate(err, u.Time, u.Diff))
				return
			}
			if d.IsNull() {
				k.vals = append(k.vals, span{-1, -1})
				continue
			}
			k.datum = repr.AppendDatum(k.datum[:0], d)
			v = k.datum
		}
		start := len(k.enc)
		switch ag.fn {
		case expr.Min:
			k.enc = append(k.enc, v...)
		case expr.Max:
			for _, b := range v {
				k.enc = append(k.enc, ^b)
			}
		}
		k.vals = append(k.vals, span{start, len(k.enc)})
	}
	if k.lastKey == nil || u.Time != k.lastTime || !bytes.Equal(key, k.lastKey) {
		k.lastKey, k.lastTime = key, u.Time
		for i := range k.constAt {
			k.constAt[i] = -1
		}
	}
	for i, ag := range k.aggs {
		v := k.vals[i]
		switch {
		case v.start < 0:
		case ag.fn == expr.Count:
			k.constant(i, key, u)
		default:
			at := len(k.arena)
			k.arena = append(k.arena, byte(i))
			k.arena = append(k.arena, k.enc[v.start:v.end]...)
			k.res = append(k.res, arrange.Update{Key: key, Val: k.arena[at:len(k.arena):len(k.arena)], Time: u.Time, Diff: u.Diff})
		}
	}
	k.constant(len(k.aggs), key, u)
}

// span is a range of a buffer; start -1 for none.
type span struct{ start, end int }

// constant adds u's diff to the update of key's one val of segment seg
// that the run of rows of key and u's time made, or makes it.
func (k *leadKeyer) constant(seg int, key []byte, u arrange.Update) {
	if j := k.constAt[seg]; j >= 0 {
		k.res[j].Diff += u.Diff
		return
	}
	k.constAt[seg] = len(k.res)
	k.res = append(k.res, arrange.Update{Key: key, Val: segmentVals[seg : seg+1 : seg+1], Time: u.Time, Diff: u.Diff})
}

// segmentVals[s] is segment s's constant val.
var segmentVals = func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()
