package arrange

import (
	"bytes"
	"math"
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
// returns false, having kept nothing, if a key does not order strictly
// after the one before it (the order of Batch's keys, bytes.Compare), or
// if the keys do not fit a batch's offsets.
func KeysBatch(rows [][]byte, ends [][]uint32, at uint64) (*Batch, bool) {
	if len(rows) != len(ends) {
		panic(assertionFailedf("KeysBatch: %d pieces of rows and %d of ends", len(rows), len(ends)))
	}
	size, n := 0, 0
	for p := range rows {
		if k := len(ends[p]); k > 0 && int(ends[p][k-1]) != len(rows[p]) {
			panic(assertionFailedf("KeysBatch: piece %d ends at %d of its %d bytes", p, ends[p][k-1], len(rows[p])))
		}
		size += len(rows[p])
		n += len(ends[p])
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
	var last []byte
	for p, piece := range rows {
		base := uint32(len(keyBytes))
		from := uint32(0)
		for _, end := range ends[p] {
			key := piece[from:end]
			if len(keyOff) > 1 && bytes.Compare(key, last) <= 0 {
				return nil, false
			}
			last = key
			keyOff = append(keyOff, base+end)
			from = end
		}
		keyBytes = append(keyBytes, piece...)
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
