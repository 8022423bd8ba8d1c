package arrange

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"freshet/dataflow"
)

func TestBatcherSeal(t *testing.T) {
	type seal struct {
		upper    uint64
		want     []update
		frontier uint64 // Frontier() right after the seal
	}
	for _, tc := range []struct {
		name  string
		lower uint64
		push  []update
		seals []seal
	}{
		{
			name:  "nothing staged seals an empty batch",
			seals: []seal{{upper: 5, frontier: Done}, {upper: 5, frontier: Done}},
		},
		{
			name: "unsorted input comes out sorted",
			push: []update{{"b", "x", 2, 1}, {"a", "y", 1, 1}, {"a", "x", 3, 1}, {"a", "x", 1, 1}, {"", "", 0, 1}},
			seals: []seal{{upper: 10, frontier: Done, want: []update{
				{"", "", 0, 1}, {"a", "x", 1, 1}, {"a", "x", 3, 1}, {"a", "y", 1, 1}, {"b", "x", 2, 1},
			}}},
		},
		{
			name:  "duplicates are summed and zeros dropped",
			push:  []update{{"a", "x", 1, 1}, {"b", "x", 1, 1}, {"a", "x", 1, 2}, {"b", "x", 1, -1}, {"c", "x", 1, 0}},
			seals: []seal{{upper: 2, frontier: Done, want: []update{{"a", "x", 1, 3}}}},
		},
		{
			name:  "seal keeps later updates for later seals",
			lower: 3,
			push:  []update{{"a", "x", 7, 1}, {"a", "x", 3, 1}, {"b", "x", 5, 1}, {"b", "x", 5, 1}, {"c", "x", 9, 1}, {"c", "x", 9, -1}},
			seals: []seal{
				{upper: 5, frontier: 5, want: []update{{"a", "x", 3, 1}}},
				{upper: 5, frontier: 5},
				{upper: 7, frontier: 7, want: []update{{"b", "x", 5, 2}}},
				{upper: Done, frontier: Done, want: []update{{"a", "x", 7, 1}}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(tc.lower)
			for _, u := range tc.push {
				b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
			}
			lower := tc.lower
			for _, s := range tc.seals {
				batch := b.Seal(s.upper)
				mustValidate(t, batch)
				if got := contents(batch.Cursor()); !slices.Equal(got, s.want) {
					t.Fatalf("seal at %d: got %v, want %v", s.upper, got, s.want)
				}
				if d := batch.Description(); d != (Description{Lower: lower, Upper: s.upper}) {
					t.Fatalf("seal at %d: description %v", s.upper, d)
				}
				if b.Lower() != s.upper || b.Frontier() != s.frontier {
					t.Fatalf("seal at %d: lower %d, frontier %d; want frontier %d", s.upper, b.Lower(), b.Frontier(), s.frontier)
				}
				lower = s.upper
			}
		})
	}
}

func TestBatcherRejects(t *testing.T) {
	b := NewBatcher(5)
	mustPanicAssertion(t, func() { b.Push([]byte("a"), nil, 4, 1) })
	mustPanicAssertion(t, func() { b.Push([]byte("a"), nil, Done, 1) })
	mustPanicAssertion(t, func() { b.Seal(4) })
	b.Seal(8)
	mustPanicAssertion(t, func() { b.Push([]byte("a"), nil, 7, 1) })
}

// TestBatcherConsolidatesWhileStaging checks that a stream cancelling
// itself between seals holds memory for its net size, not its length.
func TestBatcherConsolidatesWhileStaging(t *testing.T) {
	var b Batcher
	key := []byte("some-key-of-16-b")
	for i := range 3 * chunkLen {
		b.Push(key, []byte{byte(i % 7)}, 1, 1)
		b.Push(key, []byte{byte(i % 7)}, 1, -1)
	}
	if b.Len() > chunkLen {
		t.Fatalf("%d updates staged; want at most %d", b.Len(), chunkLen)
	}
	if batch := b.Seal(2); batch.Len() != 0 {
		t.Fatalf("sealed %d updates, want none", batch.Len())
	}
}

// batcherModel is the reference a batcher is checked against: the
// accumulated diff of every (key, val, time) staged and not yet sealed.
type batcherModel map[update]int64

func (m batcherModel) push(u update) { m[update{u.key, u.val, u.time, 0}] += u.diff }

// seal removes and returns, sorted, the nonzero sums before upper.
func (m batcherModel) seal(upper uint64) []update {
	var want []update
	for k, d := range m {
		if k.time < upper {
			if d != 0 {
				want = append(want, update{k.key, k.val, k.time, d})
			}
			delete(m, k)
		}
	}
	slices.SortFunc(want, func(x, y update) int {
		return cmp.Or(strings.Compare(x.key, y.key), strings.Compare(x.val, y.val), cmp.Compare(x.time, y.time))
	})
	return want
}

// frontier returns the least time with a nonzero sum, or Done.
func (m batcherModel) frontier() uint64 {
	f := Done
	for k, d := range m {
		if d != 0 {
			f = min(f, k.time)
		}
	}
	return f
}

// randomBatcherUpdate returns an update at or after lower, many of them
// beyond the next seal, with keys that share prefixes so that sorting
// and merging compare bytes past the prefix.
func randomBatcherUpdate(rng *rand.Rand, lower uint64, keys int) update {
	key := fmt.Sprint(rng.IntN(keys))
	if rng.IntN(4) == 0 {
		key = "shared-prefix-" + key
	}
	return update{key: key, val: fmt.Sprint(rng.IntN(3)), time: lower + uint64(rng.IntN(4)), diff: int64(rng.IntN(3) - 1)}
}

// TestBatcherMatchesModel pushes random seeded updates, many at times
// after the next seal, in bursts that fill many chunks (of a few sizes,
// small ones to cross their boundaries often), and checks every sealed
// batch, and the frontier after it, against a model.
func TestBatcherMatchesModel(t *testing.T) {
	forSeeds(t, 12, func(t *testing.T, rng *rand.Rand) {
		limit := []int{1, 3, radixMin, 500, 0}[rng.IntN(5)]
		b := &Batcher{frontier: Done, limit: limit}
		model := batcherModel{}
		lower := uint64(0)
		for round := range 8 {
			size := max(limit, 64)
			if limit == 0 {
				size = chunkLen
			}
			n := rng.IntN(5 * size)
			for range n {
				u := randomBatcherUpdate(rng, lower, []int{10, 1000, 50_000}[rng.IntN(3)])
				b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
				model.push(u)
			}
			upper := lower + uint64(rng.IntN(3))
			batch := b.Seal(upper)
			mustValidate(t, batch)
			if got, want := contents(batch.Cursor()), model.seal(upper); !slices.Equal(got, want) {
				t.Fatalf("limit %d, round %d: sealed %d updates, want %d", limit, round, len(got), len(want))
			}
			if got, want := b.Frontier(), model.frontier(); got != want {
				t.Fatalf("limit %d, round %d: frontier %d after the seal, want %d", limit, round, got, want)
			}
			lower = upper
		}
		if b.Seal(Done).Len() != len(model.seal(Done)) || b.Len() != 0 || b.Frontier() != Done {
			t.Fatalf("limit %d: the last seal left %d staged", limit, b.Len())
		}
	})
}

// TestBatcherSlicedSealMatchesWhole stages the same random updates into
// two batchers, one sealing at once (Push, Seal) and one a piece of fuel
// at a time (Stage, Work between pushes, BeginSeal, more pushes during
// the seal), and checks that they seal the same batches.
func TestBatcherSlicedSealMatchesWhole(t *testing.T) {
	forSeeds(t, 12, func(t *testing.T, rng *rand.Rand) {
		limit := []int{2, radixMin, 300}[rng.IntN(3)]
		whole := &Batcher{frontier: Done, limit: limit}
		sliced := &Batcher{frontier: Done, limit: limit}
		fuel := 1 + rng.IntN(7)
		work := func() *Batch {
			for sliced.Busy() {
				if batch := sliced.Work(fuel); batch != nil {
					return batch
				}
			}
			return nil
		}
		lower := uint64(0)
		var early []update // staged into sliced during its seal
		for round := range 6 {
			for _, u := range early {
				whole.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
			}
			early = early[:0]
			for range rng.IntN(20 * limit) {
				u := randomBatcherUpdate(rng, lower, 200)
				whole.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
				sliced.Stage([]byte(u.key), []byte(u.val), u.time, u.diff)
				if rng.IntN(limit) == 0 && work() != nil {
					t.Fatalf("round %d: Work returned a batch with no seal begun", round)
				}
			}
			upper := lower + uint64(rng.IntN(3))
			want := whole.Seal(upper)
			sliced.BeginSeal(upper)
			var got *Batch
			for got == nil {
				got = sliced.Work(fuel)
				if got == nil && rng.IntN(3) == 0 {
					// Updates staged during the seal are at or after
					// its upper and stay for the next.
					u := randomBatcherUpdate(rng, upper, 200)
					sliced.Stage([]byte(u.key), []byte(u.val), u.time, u.diff)
					early = append(early, u)
				}
			}
			mustValidate(t, got)
			if got.Description() != want.Description() || !slices.Equal(contents(got.Cursor()), contents(want.Cursor())) {
				t.Fatalf("round %d (fuel %d): sliced seal %v gave %d updates, whole %v gave %d",
					round, fuel, got.Description(), got.Len(), want.Description(), want.Len())
			}
			lower = upper
		}
	})
}

// heldFromScratch returns the bytes a batcher holds, counted chunk by
// chunk: what its account should be charged.
func heldFromScratch(b *Batcher) int64 {
	var n int64
	chunks := func(cs []*chunk) {
		for _, c := range cs {
			n += c.size()
		}
	}
	chains := func(chs []chain) {
		for _, ch := range chs {
			chunks(ch.chunks)
		}
	}
	merge := func(m *chainMerge) {
		if m != nil {
			for _, r := range m.in {
				chunks(r.chunks)
			}
			chunks(m.read)
			chunks(m.out.chunks)
		}
	}
	if b.pending != nil {
		n += b.pending.size()
	}
	if b.spare != nil {
		n += b.spare.size()
	}
	if b.run != nil {
		n += b.run.bytes()
	}
	chunks(b.free)
	chains(b.chains)
	merge(b.merge)
	if s := b.seal; s != nil {
		chains(s.chains)
		chains(s.kept)
		merge(s.merge)
		n += s.out.bytes()
	}
	return n
}

// TestBatcherChargesWhatItHolds stages, works and seals random updates,
// a piece of fuel at a time, into a batcher with an account, and checks
// after every step that the account holds exactly the bytes of the
// chunks the batcher holds (and of the batch a seal is building).
func TestBatcherChargesWhatItHolds(t *testing.T) {
	forSeeds(t, 8, func(t *testing.T, rng *rand.Rand) {
		var acct dataflow.Account
		b := &Batcher{frontier: Done, limit: []int{2, radixMin, 300}[rng.IntN(3)], account: &acct}
		check := func(when string) {
			if got, want := acct.Bytes(), heldFromScratch(b); got != want {
				t.Fatalf("%s: account holds %d bytes, the batcher %d", when, got, want)
			}
		}
		lower := uint64(0)
		for round := range 10 {
			for range rng.IntN(40 * b.limit) {
				u := randomBatcherUpdate(rng, lower, 300)
				if rng.IntN(2) == 0 {
					b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
				} else {
					b.Stage([]byte(u.key), []byte(u.val), u.time, u.diff)
				}
				check("push")
				if rng.IntN(b.limit) == 0 && b.seal == nil {
					b.Work(1 + rng.IntN(50))
					check("work")
				}
			}
			upper := lower + uint64(rng.IntN(3))
			b.BeginSeal(upper)
			check("begin seal")
			for b.Work(1+rng.IntN(50)) == nil {
				check(fmt.Sprintf("round %d: seal", round))
			}
			check(fmt.Sprintf("round %d: sealed", round))
			lower = upper
		}
		b.Seal(Done)
		check("sealed everything")
	})
}

// TestBatcherLetsGoOfABurstsChunks seals a burst of pushes, which leaves
// full-size chunks kept for the next burst, then a seal of a few
// updates: with the burst over, the batcher must hold no more than the
// small chunk its pushes used, and its account must say so.
func TestBatcherLetsGoOfABurstsChunks(t *testing.T) {
	var acct dataflow.Account
	b := &Batcher{frontier: Done, account: &acct}
	// In descending order: a burst in order would be a sorted run,
	// with no chunk.
	for i := range 5 * chunkLen {
		b.Push([]byte(fmt.Sprintf("key%08d", 5*chunkLen-i)), nil, 0, 1)
	}
	if got := b.Seal(1).Len(); got != 5*chunkLen {
		t.Fatalf("the burst sealed %d updates, want %d", got, 5*chunkLen)
	}
	if len(b.free) == 0 {
		t.Fatal("no chunk kept for reuse after a burst: the test no longer covers the release")
	}
	// The burst's keys are 11 bytes: its chunks' arenas are sized for
	// that, not for chunkBytes.
	for _, c := range b.free {
		if got, want := cap(c.arena), chunkLen*11*9/8; got > want {
			t.Fatalf("a chunk of 11-byte updates has an arena of %d bytes, want at most %d", got, want)
		}
	}
	for i := range 10 {
		b.Push([]byte(fmt.Sprintf("small%02d", i)), nil, 1, 1)
	}
	if got := b.Seal(2).Len(); got != 10 {
		t.Fatalf("the small seal sealed %d updates, want 10", got)
	}
	if len(b.free) != 0 {
		t.Fatalf("%d full-size chunks still kept after a seal with no burst", len(b.free))
	}
	if got, want := acct.Bytes(), heldFromScratch(b); got != want || got > chunkBytes/8 {
		t.Fatalf("the batcher holds %d bytes (from scratch %d) after a small seal", got, want)
	}
}

// TestBatcherRestLetsGoOfABurstsChunks checks that Rest, once a burst is
// sealed, lets go of the chunks kept for reuse without waiting for
// another seal, and does nothing while updates are staged.
func TestBatcherRestLetsGoOfABurstsChunks(t *testing.T) {
	var acct dataflow.Account
	b := &Batcher{frontier: Done, account: &acct}
	// In descending order: a burst in order would be a sorted run,
	// with no chunk.
	for i := range 5 * chunkLen {
		b.Push([]byte(fmt.Sprintf("key%08d", 5*chunkLen-i)), nil, 0, 1)
	}
	b.Push([]byte("later"), nil, 5, 1)
	if got := b.Seal(1).Len(); got != 5*chunkLen {
		t.Fatalf("the burst sealed %d updates, want %d", got, 5*chunkLen)
	}
	if len(b.free) == 0 {
		t.Fatal("no chunk kept for reuse after a burst: the test no longer covers the release")
	}
	b.Rest()
	if len(b.free) == 0 {
		t.Fatal("Rest let go of the chunks while an update is staged")
	}
	for i := range 5 * chunkLen {
		b.Push([]byte(fmt.Sprintf("key%08d", 5*chunkLen-i)), nil, 5, 1)
	}
	if got := b.Seal(Done).Len(); got != 5*chunkLen+1 {
		t.Fatalf("the second burst sealed %d updates, want %d", got, 5*chunkLen+1)
	}
	if len(b.free) == 0 {
		t.Fatal("no chunk kept for reuse after the second burst: the test no longer covers Rest")
	}
	b.Rest()
	if len(b.free) != 0 || b.pending != nil && cap(b.pending.recs) >= chunkLen {
		t.Fatalf("%d full-size chunks still kept after Rest", len(b.free))
	}
	if got, want := acct.Bytes(), heldFromScratch(b); got != want || got > chunkBytes/8 {
		t.Fatalf("the batcher holds %d bytes (from scratch %d) after Rest", got, want)
	}
}

// TestBatcherConcatenatesSortedChains stages updates in their sorted
// order, as a table loaded in its key order is, and checks that the
// batcher's merges move its chunks rather than copy them (every chunk it
// holds is one it filled from pushes), and that what it seals matches
// the model. Some updates repeat the previous one, at a chunk's end and
// the next one's start too, where chains must be merged, not
// concatenated.
func TestBatcherConcatenatesSortedChains(t *testing.T) {
	forSeeds(t, 12, func(t *testing.T, rng *rand.Rand) {
		limit := []int{1, 3, radixMin, 500}[rng.IntN(4)]
		b := &Batcher{frontier: Done, limit: limit}
		model := batcherModel{}
		filled := map[*chunk]bool{}
		repeats, withRepeats := 0, rng.IntN(2) == 0
		// Two updates out of order, which order before all the others,
		// at a time past a first seal, are kept by that seal in a chunk:
		// the batcher is then not empty when the rest come, so that
		// they are not one sorted run (which no chunk holds) but chunks.
		for _, k := range []string{"a-second", "a-first"} {
			b.Stage([]byte(k), []byte("v"), 5, 1)
			model.push(update{key: k, val: "v", time: 5, diff: 1})
		}
		if batch := b.Seal(1); batch.Len() != 0 || len(b.chains) == 0 {
			t.Fatalf("the first seal sealed %d updates and kept %d chains", batch.Len(), len(b.chains))
		}
		model.seal(1)
		for _, c := range b.chains {
			for _, ch := range c.chunks {
				filled[ch] = true
			}
		}
		for i := range 20 * max(limit, 64) {
			key := fmt.Sprintf("k%08d", i)
			u := update{key: key, val: "v", time: 1, diff: 1}
			if withRepeats && i > 0 && rng.IntN(50) == 0 {
				u.key = fmt.Sprintf("k%08d", i-1) // equal to the previous update
				repeats++
			}
			if b.Stage([]byte(u.key), []byte(u.val), u.time, u.diff) {
				c := b.chains[len(b.chains)-1]
				filled[c.chunks[len(c.chunks)-1]] = true
			}
			b.Work(math.MaxInt)
			model.push(u)
		}
		if len(filled) < 2 {
			t.Fatalf("limit %d: %d chunks filled: the updates did not go through chunks", limit, len(filled))
		}
		if !withRepeats {
			for _, c := range b.chains {
				for _, ch := range c.chunks {
					if !filled[ch] {
						t.Fatalf("limit %d: a chain holds a chunk a merge made: sorted updates were copied", limit)
					}
				}
			}
		}
		batch := b.Seal(Done)
		mustValidate(t, batch)
		if got, want := contents(batch.Cursor()), model.seal(Done); !slices.Equal(got, want) {
			t.Fatalf("limit %d, %d repeats: sealed %d updates, want %d", limit, repeats, len(got), len(want))
		}
		if b.Len() != 0 {
			t.Fatalf("limit %d: %d left staged", limit, b.Len())
		}
	})
}

// TestBatcherSortedRun stages updates in (key, val, time) order, as a
// table's log is read back, some repeating the last (key, val, time) so
// that they sum or cancel, and now and then one out of order or a seal
// below some staged time, and checks every sealed batch and frontier
// against the model. A burst that stays in order and is sealed past all
// its times must never have filled a chunk: the run is the batch.
func TestBatcherSortedRun(t *testing.T) {
	forSeeds(t, 40, func(t *testing.T, rng *rand.Rand) {
		limit := []int{1, 3, radixMin, 0}[rng.IntN(4)]
		b := &Batcher{frontier: Done, limit: limit}
		model := batcherModel{}
		lower := uint64(0)
		for round := range 6 {
			disorder := rng.IntN(3) == 0
			kept := b.Len() > 0
			heldBefore := b.held
			key := 0
			for i := range rng.IntN(300) {
				u := update{key: fmt.Sprintf("k%05d", key), val: fmt.Sprint(rng.IntN(2)), time: lower + uint64(rng.IntN(2)), diff: int64(rng.IntN(3) - 1)}
				switch r := rng.IntN(10); {
				case r < 6:
					key++
					u.key = fmt.Sprintf("k%05d", key)
					u.val = "0"
				case r < 9 && i > 0:
					// The last update again: it sums into it.
					u.key, u.val, u.time = fmt.Sprintf("k%05d", key), "0", lower+1
				}
				if disorder && rng.IntN(100) == 0 {
					u.key = "a-out-of-order"
				}
				b.Stage([]byte(u.key), []byte(u.val), u.time, u.diff)
				for b.seal == nil && b.Busy() {
					b.Work(1 + rng.IntN(20))
				}
				model.push(u)
			}
			runOnly := b.run != nil && !kept && len(b.chains) == 0
			upper := lower + uint64(rng.IntN(3))
			b.BeginSeal(upper)
			// Updates staged during the seal, in order after the others
			// and past upper, go on the run that the seal keeps.
			during := rng.IntN(3)
			for i := range during {
				u := update{key: fmt.Sprintf("k%05d", key+1+i), val: "0", time: upper + 1, diff: 1}
				b.Stage([]byte(u.key), []byte(u.val), u.time, u.diff)
				model.push(u)
			}
			var batch *Batch
			for batch == nil {
				batch = b.Work(1 + rng.IntN(20))
			}
			if b.run != nil && len(b.chains) == 0 && (b.pending == nil || len(b.pending.recs) == 0) {
				// All that is staged is the run, consolidated: Len is
				// exact.
				n := 0
				for k, d := range model {
					if d != 0 && k.time >= upper {
						n++
					}
				}
				if b.Len() != n {
					t.Fatalf("limit %d, round %d: %d staged after the seal, the model holds %d", limit, round, b.Len(), n)
				}
			}
			mustValidate(t, batch)
			if got, want := contents(batch.Cursor()), model.seal(upper); !slices.Equal(got, want) {
				t.Fatalf("limit %d, round %d: sealed\n%v\nwant\n%v", limit, round, got, want)
			}
			if got, want := b.Frontier(), model.frontier(); got != want {
				t.Fatalf("limit %d, round %d: frontier %d, want %d", limit, round, got, want)
			}
			if runOnly && during == 0 && upper > lower+1 && (len(b.chains) > 0 || b.held > heldBefore) {
				t.Fatalf("limit %d, round %d: a run sealed whole left %d chains, held %d bytes, %d before", limit, round, len(b.chains), b.held, heldBefore)
			}
			lower = upper
		}
		if got, want := contents(b.Seal(Done).Cursor()), model.seal(Done); !slices.Equal(got, want) || b.Len() != 0 {
			t.Fatalf("limit %d: the last seal %v, want %v; %d left", limit, got, want, b.Len())
		}
	})
}

// TestBatcherExpect: a batcher told what is coming (Expect), rightly or
// not, seals the same batch as one told nothing, whether the updates
// come in order (a run sized once expectAfter of them are in), in order
// for a while and then not (the sized run spills), or in no order.
func TestBatcherExpect(t *testing.T) {
	forSeeds(t, 10, func(t *testing.T, rng *rand.Rand) {
		n := 2*expectAfter + rng.IntN(2000)
		var ups []update
		for i := range n {
			ups = append(ups, update{fmt.Sprintf("key-%06d", i), valPool[rng.IntN(len(valPool))], 3, 1 + rng.Int64N(3)})
		}
		orders := map[string][]update{"sorted": ups}
		late := slices.Clone(ups)
		late[len(late)-1], late[expectAfter+10] = late[expectAfter+10], late[len(late)-1]
		orders["out of order late"] = late
		shuffled := slices.Clone(ups)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		orders["shuffled"] = shuffled
		keyBytes := 0
		for _, u := range ups {
			keyBytes += len(u.key)
		}
		for name, in := range orders {
			seal := func(expect func(*Batcher)) []update {
				b := NewBatcher(0)
				expect(b)
				for _, u := range in {
					b.Stage([]byte(u.key), []byte(u.val), u.time, u.diff)
					for b.Busy() {
						b.Work(1 << 20)
					}
				}
				batch := b.Seal(4)
				mustValidate(t, batch)
				return contents(batch.Cursor())
			}
			want := seal(func(*Batcher) {})
			for _, hint := range [][3]int{{n, keyBytes, 0}, {n / 3, keyBytes / 3, 1}, {3 * n, 3 * keyBytes, 5 * n}} {
				if got := seal(func(b *Batcher) { b.Expect(hint[0], hint[1], hint[2]) }); !slices.Equal(got, want) {
					t.Fatalf("%s, Expect%v: sealed %d updates, %d without", name, hint, len(got), len(want))
				}
			}
		}
	})
}

// TestBatcherSpillsAShortRunIntoItsOwnSize stages a few updates in order
// and then one out of order, which spills the run into a chain, as every
// statement of an INSERT whose rows are not in order does: the run's
// chunk must be sized for its updates, not a full chunk, and the seal
// must hold every update in order.
func TestBatcherSpillsAShortRunIntoItsOwnSize(t *testing.T) {
	var acct dataflow.Account
	b := &Batcher{frontier: Done, account: &acct}
	for i := range 5 {
		b.Stage([]byte(fmt.Sprintf("key%02d", 2*i+1)), nil, 0, 1)
	}
	b.Stage([]byte("key00"), nil, 0, 1)
	if len(b.chains) != 1 {
		t.Fatalf("%d chains after an update out of order, want the spilled run's", len(b.chains))
	}
	b.recharge()
	if got, want := acct.Bytes(), heldFromScratch(b); got != want || got > 1024 {
		t.Fatalf("the batcher holds %d bytes (from scratch %d) after spilling a run of 5", got, want)
	}
	batch := b.Seal(1)
	var keys []string
	for cur := batch.Cursor(); cur.KeyValid(); cur.StepKey() {
		keys = append(keys, string(cur.Key()))
	}
	if want := "key00 key01 key03 key05 key07 key09"; strings.Join(keys, " ") != want {
		t.Fatalf("sealed %v, want %s", keys, want)
	}
}
