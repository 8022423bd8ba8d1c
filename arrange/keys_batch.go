package arrange

import (
	"bytes"
	"math"
	"slices"
	"sort"

	"freshet/internal/prefault"
)

// KeysBatch builds the batch a Batcher from time 0, sealed at at+1,
// would build from inserts of distinct keys at time at, each with an
// empty val, given in order — but by copying the keys into the batch's
// column once, where staging them costs a comparison and a push into
// every column an update. A table's log read back in the order of its
// rows, at a restart, is arranged this way.
//
// The keys come in pieces: key i of piece p is
// rows[p][ends[p][i-1]:ends[p][i]] (from 0 for the first). KeysBatch
// first checks, allocating nothing, that every key orders strictly after
// the one before it (the order of Batch's keys, bytes.Compare) and that
// they fit a batch's offsets; if not, it returns false and leaves the
// pieces as they were. Otherwise it takes the pieces: once a piece is
// copied, it sets rows[p] and ends[p] to nil and calls release(p), if
// not nil, so that the caller can let go of it too and the collector
// can reclaim it while the rest is copied.
func KeysBatch(rows [][]byte, ends [][]uint32, at uint64, release func(piece int)) (*Batch, bool) {
	if len(rows) != len(ends) {
		panic(assertionFailedf("KeysBatch: %d pieces of rows and %d of ends", len(rows), len(ends)))
	}
	size, n := 0, 0
	var last []byte
	for p, piece := range rows {
		e := ends[p]
		if k := len(e); k > 0 && int(e[k-1]) != len(piece) || k == 0 && len(piece) > 0 {
			panic(assertionFailedf("KeysBatch: piece %d has %d bytes and %d ends", p, len(piece), k))
		}
		from := uint32(0)
		for _, end := range e {
			key := piece[from:end]
			if n > 0 && bytes.Compare(key, last) <= 0 {
				return nil, false
			}
			last = key
			from = end
			n++
		}
		size += len(piece)
	}
	desc := Description{Lower: 0, Upper: at + 1}
	if at == Done || size > math.MaxUint32 {
		return nil, false
	}
	if n == 0 {
		return &Batch{desc: desc}, true
	}
	keyBytes := make([]byte, 0, size)
	keyOff := make([]uint32, 1, n+1)
	// Both are filled to the end, now.
	prefault.Slice(keyBytes)
	prefault.Slice(keyOff)
	for p, piece := range rows {
		base := uint32(len(keyBytes))
		for _, end := range ends[p] {
			keyOff = append(keyOff, base+end)
		}
		keyBytes = append(keyBytes, piece...)
		rows[p], ends[p] = nil, nil
		if release != nil {
			release(p)
		}
	}
	b := &Batch{desc: desc, keyBytes: keyBytes, keyOff: keyOff, valCount: n, n: n}
	b.time0[0] = at
	b.diff0[0] = 1
	if invariants {
		if err := b.validate(); err != nil {
			panic(err)
		}
	}
	return b, true
}

// keysInRun is how much of a log, at least, KeysBatchMerged takes as
// copied in order: seven eighths of its keys.
const keysInRunNum, keysInRunDen = 7, 8

// KeysBatchMerged is KeysBatch for inserts at time at whose keys come in
// order but for a few: a log read back in the order of its rows, with
// rows inserted since that order before the last one (ids written again,
// say). The keys up to the first that does not order after the one
// before it are the run; the rest are sorted, and the two merged into
// the batch, equal keys summed. It reports false, having changed
// nothing, when the run holds less than seven eighths of the keys, or
// the keys do not fit a batch's offsets: a Batcher is then the way.
// Unlike KeysBatch it lets go of no piece before it is done.
func KeysBatchMerged(rows [][]byte, ends [][]uint32, at uint64) (*Batch, bool) {
	if len(rows) != len(ends) {
		panic(assertionFailedf("KeysBatchMerged: %d pieces of rows and %d of ends", len(rows), len(ends)))
	}
	type ref struct{ p, from, to uint32 }
	var (
		run, n, size int
		inRun        = true
		last         []byte
		rest         []ref
	)
	for p, piece := range rows {
		from := uint32(0)
		for _, end := range ends[p] {
			key := piece[from:end]
			if inRun && n > 0 && bytes.Compare(key, last) <= 0 {
				inRun = false
			}
			if inRun {
				run++
				last = key
			} else {
				rest = append(rest, ref{uint32(p), from, end})
			}
			from = end
			n++
		}
		size += len(piece)
	}
	if n == 0 || run*keysInRunDen < n*keysInRunNum || size > math.MaxUint32 || at == Done {
		return nil, false
	}
	key := func(r ref) []byte { return rows[r.p][r.from:r.to] }
	slices.SortFunc(rest, func(x, y ref) int { return bytes.Compare(key(x), key(y)) })
	var b Builder
	b.reserve(sizeHint{keys: n, keyBytes: size, upds: n})
	prefault.Slice(b.keyBytes)
	prefault.Slice(b.keyOff)
	// The run's keys are copied in bulk (appendKeys, from a batch that
	// views a piece) up to each of the rest's keys, which is pushed
	// where it sorts, and summed with a run key equal to it.
	next, taken := 0, 0
	var view Batch
	var off []uint32
	for p, piece := range rows {
		if taken == run {
			break
		}
		k := min(len(ends[p]), run-taken)
		if k == 0 {
			continue // an empty piece
		}
		taken += k
		off = append(append(off[:0], 0), ends[p][:k]...)
		view = Batch{keyBytes: piece, keyOff: off, valCount: k, n: k}
		view.time0[0], view.diff0[0] = at, 1
		for lo := 0; lo < k; {
			hi := k
			if next < len(rest) {
				r := key(rest[next])
				hi = lo + sort.Search(k-lo, func(j int) bool { return bytes.Compare(view.key(lo+j), r) >= 0 })
			}
			if hi > lo {
				b.closeKey()
				b.appendKeys(&view, lo, hi, 0)
				lo = hi
			}
			if lo < k {
				// The next of the rest sorts at or before run key lo.
				r := key(rest[next])
				next++
				b.Push(r, nil, at, 1)
				if bytes.Equal(view.key(lo), r) {
					b.Push(view.key(lo), nil, at, 1)
					lo++
				}
			}
		}
	}
	for ; next < len(rest); next++ {
		b.Push(key(rest[next]), nil, at, 1)
	}
	return b.Done(Description{Lower: 0, Upper: at + 1}), true
}
