package compute

import (
	"encoding/binary"
	"math"
	"slices"

	"freshet/arrange"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
)

// A TopK with a limit is kept as a FirstN (arrange.FirstN): its input is
// arranged by the group key with each row's val its ORDER BY encoded so
// that byte order is the order, then the row, then the length of the
// encoded order (4 bytes). A group's first vals are then its first rows
// in the order, ties broken by the rows' bytes as the generic TopK
// breaks them, and a change reads the offset and limit's rows, not the
// group: a view of the ten greatest orders no longer reads every order
// at every write.
//
// Each ORDER BY column is its encoding when it sorts ascending with
// NULLs last (NULL's tag is the greatest), and the encoding with every
// byte complemented when descending with NULLs first; the other two
// orders put a byte before it that places NULL (0x00 first, 0x02 last)
// around every value (0x01). Intervals and jsonb stay on the generic
// TopK: their SQL order ties values whose encodings differ.

// firstsOf reports whether n is kept as a FirstN.
func firstsOf(n expr.TopK) bool {
	if n.Limit < 1 || n.Offset < 0 || n.Offset > math.MaxInt64-n.Limit {
		return false
	}
	types := n.Input.Typ()
	for _, o := range n.Order {
		switch types[o.Column].Type.Kind() {
		case repr.KindInterval, repr.KindJSONB:
			return false
		}
	}
	return true
}

// topKFirsts renders n, which firstsOf accepts.
func (r *renderer) topKFirsts(n expr.TopK) (Collection, error) {
	in, err := r.render(n.Input)
	if err != nil {
		return Collection{}, err
	}
	offset, limit := n.Offset, n.Limit
	var keyed dataflow.Stream[arrange.Update]
	if len(n.GroupKey) == 0 {
		// One group, which one worker would arrange whole: its rows are
		// spread over buckets first, each bucket's first rows kept
		// wherever it lands, and the group's first rows are the first
		// of theirs.
		byBucket := arrange.Arrange(r.firstsUpdates(in, nil, n.Order, firstsBuckets), "topk firsts by bucket")
		buckets := arrange.FirstN(byBucket, "topk buckets", offset+limit, func(_ []byte, in []arrange.ValCount) []arrange.ValCount {
			// A copy that no one keeps: the vals view the trace's
			// batches, which a merge may retire.
			return slices.Clone(in)
		})
		vals := flatten(buckets, "topk buckets output", func(_, val []byte) []byte { return val })
		keyed = dataflow.Map(vals, "topk one group", dataflow.Pipeline[arrange.Update](), func(u arrange.Update) arrange.Update {
			return arrange.Update{Key: []byte{}, Val: u.Key, Time: u.Time, Diff: u.Diff}
		})
	} else {
		keyed = r.firstsUpdates(in, n.GroupKey, n.Order, 0)
	}
	a := arrange.Arrange(keyed, "topk firsts")
	var out []arrange.ValCount
	res := arrange.FirstN(a, "topk", offset+limit, func(_ []byte, firsts []arrange.ValCount) []arrange.ValCount {
		// FirstN copies the vals it keeps before it asks again.
		out = out[:0]
		skip, left := offset, limit
		for _, vc := range firsts {
			c := vc.Count
			s := min(skip, c)
			c, skip = c-s, skip-s
			c = min(c, left)
			left -= c
			if c > 0 {
				out = append(out, arrange.ValCount{Val: firstsRow(vc.Val), Count: c})
			}
		}
		return out
	})
	rows, _ := r.flattenTagged(res, "topk output", flatVal)
	return Collection{Rows: rows, Errs: in.Errs}, nil
}

// firstsRow returns the row that a FirstN val of a TopK holds.
func firstsRow(val []byte) []byte {
	end := len(val) - 4
	return val[binary.BigEndian.Uint32(val[end:]):end]
}

// firstsBuckets is how many buckets a TopK of one group spreads its rows
// over: enough to share them among the workers, few enough that the
// buckets' first rows are few.
const firstsBuckets = 16

// firstsUpdates keys each row of c by the group columns, or, given
// buckets and no group, by a bucket its bytes hash to; its val is the
// encoded order, the row and the order's length.
func (r *renderer) firstsUpdates(c Collection, group []int, order []expr.ColumnOrder, buckets int) dataflow.Stream[arrange.Update] {
	end := 0
	for _, g := range group {
		end = max(end, g+1)
	}
	for _, o := range order {
		end = max(end, o.Column+1)
	}
	return dataflow.Unary(c.Rows, "topk firsts key", dataflow.Pipeline[arrange.Update](), func(_ *dataflow.Operator, cap *dataflow.Capability, in *dataflow.Input[arrange.Update], out *dataflow.Output[arrange.Update]) func() {
		cap.Release()
		var raw [][]byte
		var p repr.RowPacker
		keys := make([]expr.Scalar, len(group))
		for i, g := range group {
			keys[i] = expr.Column{Index: g}
		}
		gk := newGroupKeys(keys)
		return func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					// The scratch views the last row.
					clear(raw)
					return
				}
				res := make([]arrange.Update, len(data))
				size := 0
				for _, u := range data {
					// The key, the order (a byte more a column at most)
					// and the row are each at most the row.
					size += 3*len(u.Key) + len(order) + 4
				}
				arena := make([]byte, 0, size)
				for i, u := range data {
					raw = rawColumns(u.Key, end, raw)
					// Group columns never fail to evaluate.
					var key []byte
					key, arena, _ = gk.make(raw, nil, &p, arena)
					if len(group) == 0 && buckets > 0 {
						// The same bucket for a row on every worker, as a
						// row's retraction must land in its insertion's.
						b := int(arrange.KeyHash(u.Key) % uint64(buckets))
						key = segmentVals[b : b+1 : b+1]
					}
					at := len(arena)
					for _, o := range order {
						arena = appendOrdered(arena, raw[o.Column], o)
					}
					n := len(arena) - at
					arena = append(arena, u.Key...)
					arena = binary.BigEndian.AppendUint32(arena, uint32(n))
					res[i] = arrange.Update{Key: key, Val: arena[at:len(arena):len(arena)], Time: u.Time, Diff: u.Diff}
				}
				out.GiveSlice(t, res)
			}
		}
	})
}

// appendOrdered appends a column's encoding d so that the bytes order
// as o orders the values.
func appendOrdered(buf, d []byte, o expr.ColumnOrder) []byte {
	null := repr.IsNullEncoding(d)
	switch {
	case !o.Desc && !o.NullsFirst:
		return append(buf, d...)
	case o.Desc && o.NullsFirst:
		return appendComplement(buf, d)
	case null && o.NullsFirst:
		return append(buf, 0x00)
	case null:
		return append(buf, 0x02)
	case o.Desc:
		return appendComplement(append(buf, 0x01), d)
	default:
		return append(append(buf, 0x01), d...)
	}
}

func appendComplement(buf, d []byte) []byte {
	for _, b := range d {
		buf = append(buf, ^b)
	}
	return buf
}
