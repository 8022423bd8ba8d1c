package coord

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/internal/prefault"
	"freshet/repr"
)

// TestReplayInPartsMatchesWhole: a table's log read in parts, each part
// dealing its rows into shards of its own on its own goroutine, arranges
// into the same batch for every worker, and the same counts, as the log
// read whole: the parts' chunks are joined in the log's order, and a key
// value's counts add up across parts (a row inserted in one part and
// deleted in another counts nothing). Logs in row order and in none,
// with deletions and repeats, cut at seeded random places.
func TestReplayInPartsMatchesWhole(t *testing.T) {
	const seed = 41
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	o := &catalog.Object{Name: "t", Columns: []catalog.Column{{Name: "k", Type: repr.Int4}, {Name: "v", Type: repr.Int4}}}
	key := catalog.UniqueKey{Name: "t_pkey", Columns: []int{0}, Primary: true}
	type update struct {
		row  []byte
		diff int64
	}
	for round := range 20 {
		sorted := round%2 == 0
		var log []update
		var live []int32
		for i := range int32(2000 + rng.IntN(20000)) {
			k := i
			if !sorted {
				k = rng.Int32N(1 << 20)
			}
			log = append(log, update{repr.PackRow(repr.NewInt4(k), repr.NewInt4(i)), 1})
			live = append(live, k)
			if !sorted && rng.IntN(5) == 0 && len(live) > 1 {
				// Delete an earlier row: its insertion is likely in
				// another part.
				j := rng.IntN(len(live) - 1)
				log = append(log, update{log[j].row, -1})
			}
		}
		keys := func() *tableKeys {
			return &tableKeys{columns: o.Columns, keys: []*uniqueKey{newUniqueKey(key)}}
		}
		whole := func(n int, fn func(int, uint64, []byte, int64) error) (int, error) {
			for _, u := range log {
				if err := fn(0, 3, u.row, u.diff); err != nil {
					return 0, err
				}
			}
			return 1, nil
		}
		wantKeys := keys()
		want, err := replayLogParts(3, o, 9, wantKeys, whole)
		if err != nil {
			t.Fatal(err)
		}
		parts := 2 + rng.IntN(2)
		cuts := []int{0}
		for range parts - 1 {
			cuts = append(cuts, rng.IntN(len(log)+1))
		}
		slices.Sort(cuts)
		cuts = append(cuts, len(log))
		inParts := func(n int, fn func(int, uint64, []byte, int64) error) (int, error) {
			var wg sync.WaitGroup
			errs := make([]error, parts)
			for p := range parts {
				wg.Go(func() {
					for _, u := range log[cuts[p]:cuts[p+1]] {
						if errs[p] = fn(p, 3, u.row, u.diff); errs[p] != nil {
							return
						}
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return 0, err
				}
			}
			return parts, nil
		}
		gotKeys := keys()
		got, err := replayLogParts(3, o, 9, gotKeys, inParts)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("round %d (sorted %v, %d updates cut at %v)", round, sorted, len(log), cuts)
		if got.updates != want.updates || got.rows != want.rows {
			t.Fatalf("%s: %d updates, %d rows; read whole %d, %d", what, got.updates, got.rows, want.updates, want.rows)
		}
		for w := range want.batches {
			if g, x := batchText(got.batches[w]), batchText(want.batches[w]); g != x {
				t.Fatalf("%s: worker %d's batch differs from the whole log's:\n%.300s\nwant\n%.300s", what, w, g, x)
			}
		}
		if g, x := gotKeys.keys[0].counts, wantKeys.keys[0].counts; !maps.Equal(g, x) {
			t.Fatalf("%s: %d key values counted, %d read whole", what, len(g), len(x))
		}
	}
}

// batchText lists a batch's description and updates.
func batchText(b *arrange.Batch) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%v:", b.Description())
	c := b.Cursor()
	for ; c.KeyValid(); c.StepKey() {
		for ; c.ValValid(); c.StepVal() {
			c.History(func(tm uint64, d int64) { fmt.Fprintf(&s, " %x@%d%+d", c.Key(), tm, d) })
		}
	}
	return s.String()
}

// TestReplayShardDealsWithoutGrowing deals rows of seeded random sizes,
// a few far above the average, into a shard: no chunk's rows are ever
// copied to a larger array (a chunk's bytes are sized for its rows at
// the average so far, and mapped in whole), and the chunks hold every
// row, in order.
func TestReplayShardDealsWithoutGrowing(t *testing.T) {
	const seed = 43
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	var s replayShard
	var want [][]byte
	first := map[*replayChunk]*byte{}
	for i := range 60000 {
		n := 1 + rng.IntN(40)
		switch rng.IntN(1000) {
		case 0:
			n = 300 << 10 // above a chunk of full size
		case 1, 2, 3:
			n = 2000 + rng.IntN(20000)
		}
		row := make([]byte, n)
		for j := range row {
			row[j] = byte(i + j)
		}
		want = append(want, row)
		s.deal(row, 1)
		c := s.chunks[len(s.chunks)-1]
		if _, ok := first[c]; !ok {
			first[c] = unsafe.SliceData(c.rows)
		}
	}
	var got [][]byte
	for k, c := range s.chunks {
		if unsafe.SliceData(c.rows) != first[c] {
			t.Fatalf("chunk %d's rows were copied to a larger array", k)
		}
		from := uint32(0)
		for _, end := range c.ends {
			got = append(got, c.rows[from:end])
			from = end
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the chunks hold %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("row %d: got %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}

// TestFullReplayChunkIsMappedInWhole: a chunk of full size is sized to be
// worth mapping in whole (prefault.Min) even when its rows are short, so
// that filling it takes no page faults.
func TestFullReplayChunkIsMappedInWhole(t *testing.T) {
	for _, avg := range []int{1, 14, 20, 200} {
		if c := newReplayChunk(6, avg, avg); cap(c.rows) < prefault.Min {
			t.Errorf("a full chunk for rows of %d bytes holds %d bytes, below %d", avg, cap(c.rows), prefault.Min)
		}
	}
}

// TestReplayOfAMostlySortedLog: a shard of inserts in row order but for
// rows inserted since (keys the table already held, with other values,
// and rows repeated) arranges into the batch a batcher builds from the
// same rows, through the merge of its sorted run and the rest
// (arrange.KeysBatchMerged), not the batcher.
func TestReplayOfAMostlySortedLog(t *testing.T) {
	const seed = 43
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 8))
	for round := range 10 {
		var rows [][]byte
		n := 1000 + rng.IntN(20000)
		for i := range int32(n) {
			rows = append(rows, repr.PackRow(repr.NewInt4(i), repr.NewInt4(i)))
		}
		for range rng.IntN(n / 8) {
			if rng.IntN(3) == 0 {
				rows = append(rows, rows[rng.IntN(len(rows))])
				continue
			}
			k := rng.Int32N(int32(n))
			rows = append(rows, repr.PackRow(repr.NewInt4(k), repr.NewInt4(-k)))
		}
		var s replayShard
		bt := arrange.NewBatcher(0)
		for _, r := range rows {
			s.deal(r, 1)
			bt.Stage(r, nil, 9, 1)
		}
		want := bt.Seal(10)
		if _, ok := s.inOrder(9); ok {
			t.Fatalf("round %d: taken as in order", round)
		}
		got, ok := s.mostlyInOrder(9)
		if !ok {
			t.Fatalf("round %d: %d rows, %d of them at the end, not taken as mostly in order", round, len(rows), len(rows)-n)
		}
		if g, w := batchText(got), batchText(want); g != w {
			t.Fatalf("round %d: the merged batch differs from the batcher's:\n%.300s\nwant\n%.300s", round, g, w)
		}
		if s.chunks != nil {
			t.Fatalf("round %d: the chunks were kept", round)
		}
	}
}
