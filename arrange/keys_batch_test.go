package arrange

import (
	"bytes"
	"fmt"
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
		released := 0
		got, ok := KeysBatch(rows, ends, at, func(p int) {
			if rows[p] != nil || ends[p] != nil || p != released {
				t.Fatalf("piece %d released out of turn, or not cleared", p)
			}
			released++
		})
		if !ok {
			t.Fatalf("%d keys in order refused", len(keys))
		}
		if len(keys) > 0 && released != len(rows) {
			t.Fatalf("%d of %d pieces released", released, len(rows))
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
		for what, ks := range map[string][][]byte{
			fmt.Sprintf("keys %d and %d swapped", i, i+1): swapped,
			fmt.Sprintf("key %d repeated", i):             slices.Insert(slices.Clone(keys), i, keys[i]),
		} {
			rows, ends = keyPieces(rng, ks)
			kept := slices.Clone(rows)
			if b, ok := KeysBatch(rows, ends, at, func(int) { t.Fatalf("%s: a piece released", what) }); ok || b != nil {
				t.Fatalf("%s: accepted", what)
			}
			for p := range rows {
				if !bytes.Equal(rows[p], kept[p]) || (len(kept[p]) > 0) != (rows[p] != nil) {
					t.Fatalf("%s: piece %d changed", what, p)
				}
			}
		}
	})
}

// TestKeysBatchEmpty checks a shard with no rows, in no pieces or empty
// ones, and a piece whose bytes have no ends.
func TestKeysBatchEmpty(t *testing.T) {
	for _, pieces := range []int{0, 1, 3} {
		b, ok := KeysBatch(make([][]byte, pieces), make([][]uint32, pieces), 4, nil)
		want := NewBatcher(0).Seal(5)
		if !ok || !reflect.DeepEqual(b, want) {
			t.Fatalf("%d empty pieces: %+v, %v; want %+v", pieces, b, ok, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a piece of bytes with no ends: no panic")
		}
	}()
	KeysBatch([][]byte{{1, 2}}, [][]uint32{nil}, 4, nil)
}

// TestKeysBatchMerged checks that the batch KeysBatchMerged builds from
// keys in order but for a tail (keys the run already holds, keys between
// its keys, repeats among themselves) is, column for column, the batch
// a Batcher builds from the same inserts, repeats summed; and that a log
// whose run holds less than seven eighths of its keys is refused, its
// pieces unchanged.
func TestKeysBatchMerged(t *testing.T) {
	forSeeds(t, 40, func(t *testing.T, rng *rand.Rand) {
		const at = 7
		randomKey := func() []byte {
			key := make([]byte, 1+rng.IntN(5))
			for i := range key {
				key[i] = byte(rng.IntN(4))
			}
			return key
		}
		var run [][]byte
		for range 8 + rng.IntN(300) {
			run = append(run, randomKey())
		}
		slices.SortFunc(run, bytes.Compare)
		run = slices.CompactFunc(run, bytes.Equal)
		tail := rng.IntN(len(run)/7 + 1)
		if rng.IntN(4) == 0 {
			// Past an eighth: refused.
			tail = len(run)/7 + 1 + rng.IntN(len(run))
		}
		keys := slices.Clone(run)
		for range tail {
			switch rng.IntN(3) {
			case 0:
				keys = append(keys, run[rng.IntN(len(run))])
			case 1:
				keys = append(keys, keys[len(run)+rng.IntN(len(keys)-len(run)+1)-1])
			default:
				keys = append(keys, randomKey())
			}
		}
		rows, ends := keyPieces(rng, keys)
		kept := slices.Clone(rows)
		got, ok := KeysBatchMerged(rows, ends, at)
		// The run is the keys up to the first out of order.
		inRun := 1
		for inRun < len(keys) && bytes.Compare(keys[inRun], keys[inRun-1]) > 0 {
			inRun++
		}
		if wantOK := inRun*8 >= len(keys)*7; ok != wantOK {
			t.Fatalf("%d keys, %d in the run: accepted %v, want %v", len(keys), inRun, ok, wantOK)
		}
		if !ok {
			for p := range rows {
				if !bytes.Equal(rows[p], kept[p]) {
					t.Fatalf("refused, but piece %d changed", p)
				}
			}
			return
		}
		bt := NewBatcher(0)
		for _, k := range keys {
			bt.Stage(k, nil, at, 1)
		}
		want := bt.Seal(at + 1)
		var gotUpdates, wantUpdates []string
		for _, pair := range []struct {
			b   *Batch
			out *[]string
		}{{got, &gotUpdates}, {want, &wantUpdates}} {
			c := pair.b.Cursor()
			for ; c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					c.History(func(tm uint64, d int64) {
						*pair.out = append(*pair.out, fmt.Sprintf("%x@%d:%d", c.Key(), tm, d))
					})
				}
			}
		}
		if !slices.Equal(gotUpdates, wantUpdates) {
			t.Fatalf("%d keys, %d in the run:\n got %v\nwant %v", len(keys), inRun, gotUpdates, wantUpdates)
		}
		if got.Description() != want.Description() {
			t.Fatalf("description %+v, want %+v", got.Description(), want.Description())
		}
	})
}

// TestKeysBatchMergedAtTheBound checks the bound itself: seven keys in
// order and one after are taken, six and two are not.
func TestKeysBatchMergedAtTheBound(t *testing.T) {
	for _, c := range []struct {
		run  int
		take bool
	}{{7, true}, {6, false}} {
		var keys [][]byte
		for i := range c.run {
			keys = append(keys, []byte{byte(10 + i)})
		}
		for len(keys) < 8 {
			keys = append(keys, []byte{byte(len(keys) - c.run)})
		}
		rows, ends := keyPieces(rand.New(rand.NewPCG(1, 2)), keys)
		if _, ok := KeysBatchMerged(rows, ends, 3); ok != c.take {
			t.Fatalf("%d of 8 keys in order: taken %v, want %v", c.run, ok, c.take)
		}
	}
}

// BenchmarkKeysBatchMerged builds the batch of a replayed log of 1M
// table rows (an int4 id and two more columns, as packed) in order, then
// 3,000 rows of ids it already holds, as a restart after three 1,000-row
// INSERTs of old ids replays it; ns/op is one batch.
func BenchmarkKeysBatchMerged(b *testing.B) {
	const n, again = 1_000_000, 3_000
	row := func(id int) []byte {
		return []byte{0x04, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id), 0x04, 0, 0, byte(id % 97), 0x07, 0x02, byte(id % 13)}
	}
	var rows [][]byte
	var ends [][]uint32
	var piece []byte
	var e []uint32
	add := func(r []byte) {
		if len(e) == 4096 {
			rows, ends = append(rows, piece), append(ends, e)
			piece, e = nil, nil
		}
		piece = append(piece, r...)
		e = append(e, uint32(len(piece)))
	}
	for id := range n {
		add(row(id))
	}
	for id := range again {
		add(append(row(id*7), 1))
	}
	rows, ends = append(rows, piece), append(ends, e)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := KeysBatchMerged(rows, ends, 5); !ok {
			b.Fatal("declined")
		}
	}
}
