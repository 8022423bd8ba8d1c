package arrange

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// keyPieces deals keys, in order, into pieces of random sizes (some
// empty), as a restart's chunks of a table's log.
func keyPieces(rng *rand.Rand, keys [][]byte) ([][]byte, [][]uint32) {
	var rows [][]byte
	var ends [][]uint32
	for len(keys) > 0 || rng.IntN(4) == 0 {
		k := min(len(keys), rng.IntN(20))
		var piece []byte
		var e []uint32
		for _, key := range keys[:k] {
			piece = append(piece, key...)
			e = append(e, uint32(len(piece)))
		}
		rows, ends = append(rows, piece), append(ends, e)
		keys = keys[k:]
	}
	return rows, ends
}

// TestKeysBatch checks that the batch KeysBatch builds from keys in
// order is, column for column, the batch a Batcher builds from the same
// inserts, and that keys out of order, or repeated, are refused.
func TestKeysBatch(t *testing.T) {
	forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
		const at = 7
		var keys [][]byte
		for range rng.IntN(300) {
			key := make([]byte, rng.IntN(6))
			for i := range key {
				key[i] = byte(rng.IntN(4))
			}
			keys = append(keys, key)
		}
		slices.SortFunc(keys, bytes.Compare)
		keys = slices.CompactFunc(keys, bytes.Equal)

		bt := NewBatcher(0)
		for _, k := range keys {
			bt.Stage(k, nil, at, 1)
		}
		want := bt.Seal(at + 1)
		rows, ends := keyPieces(rng, keys)
		got, ok := KeysBatch(rows, ends, at)
		if !ok {
			t.Fatalf("%d keys in order refused", len(keys))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("KeysBatch of %d keys:\n got %+v\nwant %+v", len(keys), got, want)
		}

		if len(keys) < 2 {
			return
		}
		// Two neighbours swapped, or one repeated, are refused.
		i := rng.IntN(len(keys) - 1)
		swapped := slices.Clone(keys)
		swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
		rows, ends = keyPieces(rng, swapped)
		if b, ok := KeysBatch(rows, ends, at); ok || b != nil {
			t.Fatalf("keys %d and %d swapped: accepted", i, i+1)
		}
		repeated := slices.Insert(slices.Clone(keys), i, keys[i])
		rows, ends = keyPieces(rng, repeated)
		if b, ok := KeysBatch(rows, ends, at); ok || b != nil {
			t.Fatalf("key %d repeated: accepted", i)
		}
	})
}
