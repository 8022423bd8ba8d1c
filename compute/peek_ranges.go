package compute

import (
	"bytes"
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// KeyRange is a run of an arrangement's keys that a peek reads: the keys
// that begin with Prefix and, when Lo or Hi is set, whose next column's
// encoding lies from Lo (nil: the first) up to Hi (nil: the last),
// Hi itself included if HiIncl.
type KeyRange struct {
	Prefix []byte
	Lo, Hi []byte
	HiIncl bool
}

// Start returns the least key the range may hold, to seek to.
func (r KeyRange) Start() []byte {
	return append(slices.Clip(r.Prefix), r.Lo...)
}

// Past reports whether key, at or after Start, is past the range: no
// later key is in it.
func (r KeyRange) Past(key []byte) bool {
	if !bytes.HasPrefix(key, r.Prefix) {
		return true
	}
	if r.Hi == nil {
		return false
	}
	rest := key[len(r.Prefix):]
	// The next column's encoding is self-delimiting: it is Hi exactly
	// when rest begins with Hi, and otherwise orders against Hi as rest
	// does.
	if bytes.HasPrefix(rest, r.Hi) {
		return !r.HiIncl
	}
	return bytes.Compare(rest, r.Hi) > 0
}

// KeyRanges returns the runs of an arrangement's keys that hold every
// row the peek may keep, in key order and apart, so that a read seeks
// to each and stops at its end rather than read the whole arrangement;
// nil when the peek bounds no leading key column. keys are the
// arrangement's key columns, in the order its key packs them; nil for an
// arrangement of whole rows, whose key is the row. score says how much of
// the key the runs bound: two for each column pinned, one more for a
// column after them bounded by a list or a range, so that the read can
// choose among arrangements.
//
// The Filters over the Get's columns (below any Project) bound a column
// with a predicate `column = constant` (it is pinned), an OR of such
// predicates on one column (`column IN (…)`), or `column < constant` and
// the like. A key packs its columns' encodings back to back; equal
// values have equal encodings, and the encodings order as the values do,
// NULL last (repr.Row). So every row the predicates keep has a key that
// begins with the pinned columns' constants in key order, up to the
// first column not pinned, followed by an encoding of that column
// within its list or range. The steps still run on every row read: the
// runs only skip rows that cannot pass them.
func (p Peek) KeyRanges(keys []int) (ranges []KeyRange, score int) {
	b := p.bounds
	if keys == nil {
		keys = make([]int, len(p.types))
		for i := range keys {
			keys[i] = i
		}
	}
	var prefix []byte
	k := 0
	for _, c := range keys {
		enc, ok := b.pinned[c]
		if !ok {
			break
		}
		prefix = append(prefix, enc...)
		k++
	}
	if k < len(keys) {
		c := keys[k]
		if list, ok := b.lists[c]; ok {
			for _, enc := range list {
				ranges = append(ranges, KeyRange{Prefix: append(slices.Clip(prefix), enc...)})
			}
			return ranges, 2*k + 1
		}
		lo, hasLo := b.lo[c]
		hi, hasHi := b.hi[c]
		if hasLo || hasHi {
			if hasLo && hasHi && bytes.Compare(lo, hi.enc) > 0 {
				return []KeyRange{}, 2*k + 1 // nothing lies between
			}
			return []KeyRange{{Prefix: prefix, Lo: lo, Hi: hi.enc, HiIncl: hi.incl}}, 2*k + 1
		}
	}
	if k == 0 {
		return nil, 0
	}
	return []KeyRange{{Prefix: prefix}}, 2 * k
}

// seekRanges returns the runs of keys of an arrangement of get's whole
// rows that hold every row steps (bottom-up, over get) may keep, as a
// peek of them reads (KeyRanges); nil when the steps bound no leading
// column. The arrangement's key is the stored row, whose leading
// columns are get's.
func seekRanges(get expr.Get, steps []expr.Relation) []KeyRange {
	p := Peek{Get: get, steps: steps, types: reprTypes(get.Types)}
	p.bounds = p.boundsOf()
	ranges, _ := p.KeyRanges(nil)
	return ranges
}

// keyBounds is what a peek's predicates say of its columns, each as an
// encoding: the constant a column is pinned to, the constants of a list
// it is in (sorted, once each), and its tightest lower and upper bounds.
// PeekOf gathers it once; KeyRanges only reads it, for every
// arrangement a read may choose.
type keyBounds struct {
	pinned map[int][]byte
	lists  map[int][][]byte
	lo     map[int][]byte
	hi     map[int]bound
}

// bound is an upper bound's encoding and whether it is itself allowed.
type bound struct {
	enc  []byte
	incl bool
}

// boundsOf gathers the bounds that the Filters over the Get's columns
// (below any Project) put on them.
func (p Peek) boundsOf() keyBounds {
	b := keyBounds{pinned: map[int][]byte{}, lists: map[int][][]byte{}, lo: map[int][]byte{}, hi: map[int]bound{}}
steps:
	for _, s := range p.steps {
		switch n := s.(type) {
		case expr.Filter:
			for _, pr := range n.Predicates {
				b.add(p, pr)
			}
		case expr.Map:
			// A Map appends columns: the Get's keep their places.
		default:
			break steps
		}
	}
	for c, list := range b.lists {
		slices.SortFunc(list, bytes.Compare)
		b.lists[c] = slices.CompactFunc(list, bytes.Equal)
	}
	return b
}

func (b *keyBounds) add(p Peek, pr expr.Scalar) {
	if c, v, ok := p.pins(pr); ok {
		if _, seen := b.pinned[c]; !seen {
			b.pinned[c] = repr.AppendDatum(nil, v)
		}
		return
	}
	if c, list, ok := p.inList(pr); ok {
		if _, seen := b.lists[c]; !seen {
			b.lists[c] = list
		}
		return
	}
	call, ok := pr.(expr.CallBinary)
	if !ok {
		return
	}
	op := call.Func
	col, lit, ok := p.columnAndConstant(call.Left, call.Right)
	if !ok {
		// `constant op column` is `column op' constant`.
		if col, lit, ok = p.columnAndConstant(call.Right, call.Left); !ok {
			return
		}
		switch op {
		case expr.Lt:
			op = expr.Gt
		case expr.Lte:
			op = expr.Gte
		case expr.Gt:
			op = expr.Lt
		case expr.Gte:
			op = expr.Lte
		default:
			return
		}
	}
	enc := repr.AppendDatum(nil, lit)
	switch op {
	case expr.Gt, expr.Gte:
		// A strict bound reads the rows equal to it too; the predicate
		// then drops them.
		if lo, ok := b.lo[col]; !ok || bytes.Compare(enc, lo) > 0 {
			b.lo[col] = enc
		}
	case expr.Lt, expr.Lte:
		incl := op == expr.Lte
		hi, ok := b.hi[col]
		switch c := bytes.Compare(enc, hi.enc); {
		case !ok || c < 0:
			b.hi[col] = bound{enc: enc, incl: incl}
		case c == 0 && !incl:
			b.hi[col] = bound{enc: enc}
		}
	}
}

// inList returns the column and the constants' encodings of a predicate
// that is an OR of `column = constant` on one column (`column IN (…)`,
// as planned), each as pins takes it.
func (p Peek) inList(pr expr.Scalar) (int, [][]byte, bool) {
	call, ok := pr.(expr.CallBinary)
	if !ok || call.Func != expr.Or {
		return 0, nil, false
	}
	var list [][]byte
	col := -1
	var walk func(s expr.Scalar) bool
	walk = func(s expr.Scalar) bool {
		if c, ok := s.(expr.CallBinary); ok && c.Func == expr.Or {
			return walk(c.Left) && walk(c.Right)
		}
		c, v, ok := p.pins(s)
		if !ok || col >= 0 && c != col {
			return false
		}
		col = c
		list = append(list, repr.AppendDatum(nil, v))
		return true
	}
	if !walk(pr) {
		return 0, nil, false
	}
	return col, list, true
}

// columnAndConstant returns the column of a and the value of b if a is a
// column of the Get and b a constant fit to compare with it by encoding
// (pins).
func (p Peek) columnAndConstant(a, b expr.Scalar) (int, repr.Datum, bool) {
	col, okc := a.(expr.Column)
	lit, okl := b.(expr.Literal)
	if !okc || !okl || col.Index < 0 || col.Index >= len(p.types) || lit.Value.IsNull() {
		return 0, repr.Datum{}, false
	}
	k := p.types[col.Index].Kind()
	if lit.Type.Kind() != k || lit.Value.Kind() != k || !seekKinds[k] {
		return 0, repr.Datum{}, false
	}
	return col.Index, lit.Value, true
}
