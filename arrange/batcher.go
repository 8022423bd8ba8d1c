package arrange

import (
	"math"

	"freshet/dataflow"
	"freshet/internal/prefault"
)

// Batcher collects updates in any order and seals them into batches.
//
// Seal(upper) returns a batch of exactly the staged updates with time <
// upper, sorted and consolidated, and keeps the rest for a later seal.
// The batcher's lower starts at the lower it was made with and moves to
// each seal's upper, so the batches it returns tile time.
//
// It is a merge batcher. Updates are staged in a pending chunk of fixed
// size; a full chunk is sorted and consolidated and becomes a chain of
// level 0. Once mergeFanIn chains of one level are the newest, they are
// merged in one pass into a chain of the next level. Every update is
// then sorted once, within its chunk, and copied O(log(n/chunkLen) /
// log(mergeFanIn)) times, at most mergeFanIn-1 chains wait at each
// level, and no buffer grows with the number of updates staged. Sealing
// merges the chains that hold times below upper in one pass that feeds
// the batch's Builder and keeps the rest.
//
// The merges can be done at once (Push, Seal) or a piece at a time
// (Stage, BeginSeal and Work), so that an operator can spread them over
// several runs.
//
// The zero value is a Batcher with lower 0, ready for use.
type Batcher struct {
	// lower is the Lower of the next seal.
	// Invariant: every update staged since the last seal began has time
	// >= lower.
	lower uint64

	// pending takes pushes, unsorted; nil until the first.
	pending *chunk
	// chains are sorted and consolidated, oldest first.
	chains []chain
	// merge, if not nil, merges the mergeFanIn chains taken from the end
	// of chains; its output goes back at merge.at.
	merge *chainMerge
	// seal, if not nil, is the seal in progress.
	seal *sealing
	// free holds emptied chunks of full size for reuse; spare, an
	// emptied smaller one, for the next pending chunk.
	free  []*chunk
	spare *chunk
	// bursting reports whether a pending chunk filled since the last
	// seal, so that the next one is made at full size at once.
	bursting bool
	// bytesPerUpdate is the key and val bytes an update took in the last
	// pending chunk, which sizes the arenas of new chunks (0: none yet).
	bytesPerUpdate int

	// n is the number of updates staged: pushed and not yet sealed or
	// cancelled by a consolidation.
	n int
	// frontier is at or below the time of every update staged since the
	// last seal began, and of every update that seal kept.
	frontier uint64

	// run, if not nil, holds every update staged since the batcher was
	// last empty, which came in (key, val, time) order, as a table's log
	// read back from storage does, consolidated: a seal whose
	// upper is past all of them (runMax) takes it as its batch, with no
	// chunk, sort or merge, and no copy of the updates beside the batch.
	// A seal below all of them keeps it, and one between splits it (see
	// BeginSeal); the first update out of order spills it into a chain,
	// and the batcher goes on as usual.
	run    *Builder
	runMax uint64
	// expect sizes the next run's columns (Expect).
	expect sizeHint

	// limit, if not zero, is the updates per chunk instead of chunkLen
	// (tests use small chunks to cross their boundaries).
	limit int

	// account, if set, is charged the bytes the batcher holds; charged
	// is what it was last charged. held is the bytes of every chunk the
	// batcher holds but the pending one.
	account *dataflow.Account
	charged int64
	held    int64
}

// sealing is a seal begun and not yet done.
type sealing struct {
	lower, upper uint64
	// chains hold times below upper; one final merge of them all builds
	// the batch, once a merge in progress when the seal began is done.
	chains []chain
	// kept hold no time below upper; they go back to the batcher.
	kept  []chain
	merge *chainMerge
	out   Builder
	// fromRun counts the updates of a run taken as the batch (see
	// Batcher.run): they leave the staged count when the seal ends.
	fromRun int
}

// freeChunks is how many emptied chunks of full size a batcher keeps for
// reuse: a merge frees one chunk for about every one it fills, and a
// burst of pushes between seals takes them for its pending chunks.
const freeChunks = 4

// mergeFanIn is how many chains of one level the batcher merges at once.
// A merge of k chains compares log2(k) times an update, as merging them
// two at a time would, but copies it once instead of log2(k) times; more
// chains make more of them wait unmerged, each a chunk or more.
const mergeFanIn = 16

// NewBatcher returns a batcher whose first sealed batch starts at lower.
func NewBatcher(lower uint64) *Batcher {
	return &Batcher{lower: lower, frontier: Done}
}

// newAccountedBatcher returns a batcher of the dataflow b builds, whose
// staged bytes are charged to the dataflow's memory account.
func newAccountedBatcher(b *dataflow.Builder, lower uint64) *Batcher {
	return &Batcher{lower: lower, frontier: Done, account: b.Account()}
}

// recharge brings the account's charge to the bytes the batcher's
// chunks and the batch being sealed hold now.
func (b *Batcher) recharge() {
	if b.account == nil {
		return
	}
	held := b.held
	if b.pending != nil {
		held += b.pending.size()
	}
	if b.seal != nil {
		held += b.seal.out.bytes()
	}
	if b.run != nil {
		held += b.run.bytes()
	}
	if held != b.charged {
		b.account.Add(held - b.charged)
		b.charged = held
	}
}

// Lower returns the Lower of the next batch Seal returns. Once a seal
// has begun, it is that seal's upper.
func (b *Batcher) Lower() uint64 { return b.lower }

// Len returns the number of updates staged, a seal in progress included.
// It counts pushes not yet consolidated, so updates that will cancel may
// still be counted.
func (b *Batcher) Len() int { return b.n }

// Frontier returns a time at or below every staged update's time, or Done
// if nothing is staged: the least time at which the batcher may still
// emit an update. Right after Seal it is exact.
func (b *Batcher) Frontier() uint64 {
	if b.seal != nil {
		return min(b.frontier, b.seal.upper)
	}
	if b.n == 0 {
		return Done
	}
	return b.frontier
}

// Push stages one update, and does any merging that it makes due at
// once; key and val are copied. The time must be at or after the
// batcher's lower, since the batch that would hold an earlier time was
// sealed already; breaking that is a bug and panics with an
// *AssertionError.
func (b *Batcher) Push(key, val []byte, time uint64, diff int64) {
	if b.Stage(key, val, time, diff) && b.seal == nil {
		b.mergeChains(math.MaxInt)
		b.recharge()
	}
}

// Stage stages one update as Push does, but leaves the merging of chains
// to Work (see Busy). It reports whether it filled a chunk.
func (b *Batcher) Stage(key, val []byte, time uint64, diff int64) bool {
	if time < b.lower || time == Done {
		panic(assertionFailedf("batcher: update at time %d, but lower is %d", time, b.lower))
	}
	if diff == 0 {
		return false
	}
	if b.stageInRun(key, val, time, diff) {
		b.recharge()
		return false
	}
	if b.pending == nil {
		b.pending = b.newPending()
	}
	b.pending.push(key, val, keyPrefix(key), time, diff)
	if b.n == 0 {
		b.frontier = time
	} else {
		b.frontier = min(b.frontier, time)
	}
	b.n++
	filled := b.pending.full(b.chunkLimit())
	if filled {
		b.bursting = true
		b.flushPending()
	}
	b.recharge()
	return filled
}

// Busy reports whether the batcher has work for Work: a seal in
// progress, or chains due to be merged.
func (b *Batcher) Busy() bool {
	if b.seal != nil || b.merge != nil {
		return true
	}
	return b.mergeDue()
}

// mergeDue reports whether the newest mergeFanIn chains are of one
// level, and so due to be merged.
func (b *Batcher) mergeDue() bool {
	k := len(b.chains)
	if k < mergeFanIn {
		return false
	}
	level := b.chains[k-1].level
	for _, c := range b.chains[k-mergeFanIn : k-1] {
		if c.level != level {
			return false
		}
	}
	return true
}

// Expect tells an empty batcher about the updates it is about to be
// staged: how many, and their key and val bytes. If they come in order,
// the run they make is built in columns of that size once its first
// expectAfter updates are in, rather than grown and trimmed; updates in
// no order make no run that long, and the hint costs nothing.
func (b *Batcher) Expect(updates, keyBytes, valBytes int) {
	b.expect = sizeHint{keys: updates, keyBytes: keyBytes, vals: updates, valBytes: valBytes, upds: updates}
}

// stageInRun stages the update in the run and reports whether it did:
// when the batcher holds nothing but the run, and the update does not
// order before the run's last. An update that cannot go in spills the
// run, if any, into a chain.
func (b *Batcher) stageInRun(key, val []byte, time uint64, diff int64) bool {
	if b.run == nil {
		if b.n != 0 || b.seal != nil || b.merge != nil || len(b.chains) > 0 || b.pending != nil && len(b.pending.recs) > 0 {
			return false
		}
		b.run = &Builder{}
		b.runMax = time
		b.frontier = time
	} else {
		if !b.run.Accepts(key, val, time) {
			b.spillRun()
			return false
		}
		b.runMax = max(b.runMax, time)
		b.frontier = min(b.frontier, time)
	}
	// The builder sums an update into the last when they share (key,
	// val, time), and drops a zero sum.
	before := b.run.nUpds
	b.run.Push(key, val, time, diff)
	b.n += b.run.nUpds - before
	if b.expect.upds > 0 && b.run.nUpds >= expectAfter {
		// So many in order: the rest will likely be, and the run's
		// columns are sized for all of them.
		b.run.reserve(b.expect)
		b.expect = sizeHint{}
	}
	return true
}

// expectAfter is how many updates a run takes in order before it is
// sized as Expect said: updates in no order spill the run long before,
// and leave no columns sized for nothing.
const expectAfter = 256

// splitRun begins a seal at upper whose batch is the run's updates at
// times below upper, and keeps the others as the run; the run has
// updates on both sides of upper.
func (b *Batcher) splitRun(upper uint64) {
	old := b.run.Done(Description{Lower: b.lower, Upper: b.runMax + 1})
	s := &sealing{lower: b.lower, upper: upper}
	s.out.reserve(old.sizeHint())
	rest := &Builder{}
	least := uint64(Done)
	c := old.Cursor()
	for ; c.KeyValid(); c.StepKey() {
		for ; c.ValValid(); c.StepVal() {
			key, val := c.Key(), c.Val()
			c.History(func(t uint64, d int64) {
				if t < upper {
					s.out.Push(key, val, t, d)
					return
				}
				rest.Push(key, val, t, d)
				least = min(least, t)
			})
		}
	}
	s.fromRun = s.out.nUpds
	b.run, b.seal = rest, s
	b.lower = upper
	b.frontier = least
}

// spillRun moves the run's updates, sorted and consolidated as they are,
// into chunks that make the oldest chain.
func (b *Batcher) spillRun() {
	r := b.run
	b.run = nil
	if r.nUpds == 0 {
		return
	}
	batch := r.Done(Description{Lower: 0, Upper: b.runMax + 1})
	ch := chain{least: Done}
	// A run shorter than a chunk, and no free chunk to take (as when an
	// INSERT's rows, not in order, end the run a few rows in, on every
	// statement), goes into a chunk of its own size: a chunk of full
	// size, zeroed, cost more than the run.
	var c *chunk
	if n := batch.Len(); n < b.chunkLimit() && len(b.free) == 0 {
		c = &chunk{recs: make([]staged, 0, n), arena: make([]byte, 0, updateBytes(batch)), least: Done}
		b.held += c.size()
	}
	cur := batch.Cursor()
	for ; cur.KeyValid(); cur.StepKey() {
		for ; cur.ValValid(); cur.StepVal() {
			key, val := cur.Key(), cur.Val()
			cur.History(func(t uint64, d int64) {
				if c == nil || c.full(b.chunkLimit()) {
					if c != nil {
						ch.add(c)
					}
					c = b.newChunk()
				}
				held := c.size()
				c.push(key, val, keyPrefix(key), t, d)
				b.held += c.size() - held
			})
		}
	}
	ch.add(c)
	b.chains = append([]chain{ch}, b.chains...)
}

// updateBytes returns the key and val bytes of batch's updates, counted
// once for each update, as a chunk holds them.
func updateBytes(batch *Batch) int {
	n := 0
	for cur := batch.Cursor(); cur.KeyValid(); cur.StepKey() {
		for ; cur.ValValid(); cur.StepVal() {
			times, _ := cur.Updates()
			n += len(times) * (len(cur.Key()) + len(cur.Val()))
		}
	}
	return n
}

// Seal returns a batch described by [lower, upper) holding exactly the
// staged updates with time < upper, sorted and consolidated, and keeps the
// others. The batcher's lower becomes upper. upper may be Done to seal
// everything; it must not be below the lower. No seal may be in
// progress.
func (b *Batcher) Seal(upper uint64) *Batch {
	b.BeginSeal(upper)
	for {
		if batch := b.Work(math.MaxInt); batch != nil {
			return batch
		}
	}
}

// BeginSeal begins a seal at upper, which Work completes: from now on
// the batcher's lower is upper, and updates staged meanwhile are kept for
// later seals. No seal may be in progress already.
func (b *Batcher) BeginSeal(upper uint64) {
	if upper < b.lower {
		panic(assertionFailedf("batcher: seal at %d below lower %d", upper, b.lower))
	}
	if b.seal != nil {
		panic(assertionFailedf("batcher: seal at %d while the seal at %d is in progress", upper, b.seal.upper))
	}
	if b.run != nil {
		switch {
		case b.runMax < upper:
			// The run is the batch: nothing else is staged.
			s := &sealing{lower: b.lower, upper: upper, out: *b.run, fromRun: b.run.nUpds}
			b.run, b.seal = nil, s
			b.lower = upper
			b.frontier = Done
			b.recharge()
			return
		case b.frontier >= upper:
			// No time of the run is below upper (a replayed log, all at
			// the time it was compacted to, before the seal past it):
			// the batch is empty, and the run stays as it is.
			b.seal = &sealing{lower: b.lower, upper: upper}
			b.lower = upper
			b.recharge()
			return
		default:
			// Times on both sides of upper, as when a replayed log's
			// last writes are at the time its input's frontier has
			// reached but not passed: the run splits in one pass into
			// the batch and a run of the rest.
			b.splitRun(upper)
			b.recharge()
			return
		}
	}
	if b.pending != nil && len(b.pending.recs) > 0 {
		b.flushPending()
	}
	s := &sealing{lower: b.lower, upper: upper, merge: b.merge}
	var h sizeHint
	if m := s.merge; m != nil {
		h = m.hint
	}
	// A chain with no time below upper is kept as it is. A merge in
	// progress is the seal's first: its output goes among the chains to
	// seal, at the place of its inputs.
	at := -1
	for i, c := range b.chains {
		if s.merge != nil && s.merge.at == i {
			at = len(s.chains)
		}
		if c.least >= upper {
			s.kept = append(s.kept, c)
			continue
		}
		s.chains = append(s.chains, c)
		h.upds += c.n
		h.keyBytes += c.keyBytes
		h.valBytes += c.valBytes
	}
	if s.merge != nil {
		if at < 0 {
			at = len(s.chains)
		}
		s.merge.at = at
	}
	// Size the batch once, for the case that nothing is kept, nothing
	// cancels and no key repeats; Builder.Done trims what that
	// overestimates.
	h.keys, h.vals = h.upds, h.upds
	s.out.reserve(h)
	b.chains, b.merge, b.seal = nil, nil, s
	b.lower = upper
	b.frontier = Done
	b.recharge()
}

// Work spends up to fuel, counted in updates read, on the batcher's
// merges: the seal in progress, else chains due to be merged. It returns
// the sealed batch when this call completed the seal, nil otherwise.
func (b *Batcher) Work(fuel int) *Batch {
	defer b.recharge()
	if b.seal == nil {
		b.mergeChains(fuel)
		return nil
	}
	s := b.seal
	for {
		if s.merge == nil {
			if len(s.chains) == 0 {
				// Nothing to seal, as every time a frontier moves without
				// an update: no merge to make.
				return b.finishSeal()
			}
			if len(s.chains) > 1 {
				if c, ok := concatDisjoint(s.chains); ok {
					s.chains = append(s.chains[:0], c)
				}
			}
			s.merge = newChainMerge(s.chains...)
			s.merge.final, s.merge.upper, s.merge.build = true, s.upper, &s.out
			clear(s.chains)
			s.chains = s.chains[:0]
		}
		fuel = s.merge.step(b, fuel)
		if !s.merge.done() {
			return nil
		}
		m := s.merge
		s.merge = nil
		if !m.final {
			s.chains = insertChain(s.chains, m.at, m.out)
			continue
		}
		if m.out.n > 0 {
			s.kept = append(s.kept, m.out)
		}
		return b.finishSeal()
	}
}

// finishSeal ends the seal in progress, whose chains are all merged, and
// returns its batch.
func (b *Batcher) finishSeal() *Batch {
	s := b.seal
	for _, c := range s.kept {
		b.frontier = min(b.frontier, c.least)
	}
	// The kept chains are older than any staged during the seal.
	if len(s.kept) > 0 {
		b.chains = append(s.kept, b.chains...)
	}
	b.n -= s.fromRun
	b.seal = nil
	if !b.bursting {
		// No chunk filled since the last seal: the burst that made the
		// free chunks is over, and they would only hold memory.
		b.dropFree()
	}
	b.bursting = false
	return s.out.Done(Description{Lower: s.lower, Upper: s.upper})
}

// mergeChains merges the newest mergeFanIn chains while they are of one
// level, until fuel is spent.
func (b *Batcher) mergeChains(fuel int) {
	for {
		if b.merge == nil {
			if !b.mergeDue() {
				return
			}
			k := len(b.chains)
			group := b.chains[k-mergeFanIn:]
			if c, ok := concatDisjoint(group); ok {
				clear(group)
				b.chains = append(b.chains[:k-mergeFanIn], c)
				continue
			}
			b.merge = newChainMerge(group...)
			b.merge.at = k - mergeFanIn
			clear(group)
			b.chains = b.chains[:k-mergeFanIn]
		}
		fuel = b.merge.step(b, fuel)
		if !b.merge.done() {
			return
		}
		b.chains = insertChain(b.chains, b.merge.at, b.merge.out)
		b.merge = nil
	}
}

// insertChain inserts c into chains at i, unless it is empty.
func insertChain(chains []chain, i int, c chain) []chain {
	if c.n == 0 {
		return chains
	}
	chains = append(chains, chain{})
	copy(chains[i+1:], chains[i:])
	chains[i] = c
	return chains
}

// flushPending sorts and consolidates the pending chunk and makes it the
// newest chain, unless nothing survives, in which case it is reused.
func (b *Batcher) flushPending() {
	p := b.pending
	before := len(p.recs)
	if before > 0 {
		b.bytesPerUpdate = max(1, len(p.arena)/before)
	}
	p.consolidate()
	b.n -= before - len(p.recs)
	if len(p.recs) == 0 {
		p.reset()
		return
	}
	c := chain{least: Done}
	c.add(p)
	b.chains = append(b.chains, c)
	b.held += p.size()
	b.pending = nil
}

// chunkLimit returns the number of updates a chunk holds.
func (b *Batcher) chunkLimit() int {
	if b.limit > 0 {
		return b.limit
	}
	return chunkLen
}

// newPending returns a chunk for pushes. Outside a burst it starts small
// and grows by append, so that a batcher that sees a few updates a seal
// holds little memory.
func (b *Batcher) newPending() *chunk {
	if !b.bursting {
		if c := b.spare; c != nil {
			b.spare = nil
			b.held -= c.size()
			return c
		}
		return &chunk{least: Done}
	}
	c := b.newChunk()
	b.held -= c.size() // the pending chunk is charged apart
	return c
}

// newChunk returns an empty chunk of full size, counted in held.
func (b *Batcher) newChunk() *chunk {
	if k := len(b.free); k > 0 {
		c := b.free[k-1]
		b.free[k-1] = nil
		b.free = b.free[:k-1]
		return c
	}
	limit := b.chunkLimit()
	arena := limit * (chunkBytes / chunkLen)
	if b.bytesPerUpdate > 0 {
		// Room for a chunk of updates as large as the last ones pushed,
		// and an eighth more; the arena grows if later ones are larger.
		arena = min(arena, limit*b.bytesPerUpdate*9/8)
	}
	c := &chunk{
		recs:  make([]staged, 0, limit),
		arena: make([]byte, 0, arena),
		least: Done,
	}
	// A new chunk is filled whole before it is read: it is mapped in at
	// once, not a page fault at a time.
	prefault.Slice(c.recs)
	prefault.Slice(c.arena)
	b.held += c.size()
	return c
}

// release takes back a chunk that has been read: it is kept for reuse
// if it is of full size and few are kept, else left to the collector.
func (b *Batcher) release(c *chunk) {
	if len(b.free) < freeChunks && cap(c.recs) >= b.chunkLimit() {
		c.reset()
		b.free = append(b.free, c)
		return
	}
	if b.spare == nil && cap(c.recs) < b.chunkLimit() {
		c.reset()
		b.spare = c
		return
	}
	b.drop(c)
}

// Rest lets go of the chunks kept for reuse when nothing is staged and no
// seal is in progress: an owner whose burst is sealed and worked through
// calls it so that the burst's spare chunks are not held until its next
// seal, which may be long in coming when no write arrives.
func (b *Batcher) Rest() {
	if b.n != 0 || b.seal != nil || b.merge != nil {
		return
	}
	b.dropFree()
	if p := b.pending; p != nil && len(p.recs) == 0 && cap(p.recs) >= b.chunkLimit() {
		// A full-size pending chunk left empty by a consolidation.
		b.pending = nil
	}
	b.bursting = false
	b.recharge()
}

// dropFree forgets the chunks kept for reuse.
func (b *Batcher) dropFree() {
	for i, c := range b.free {
		b.drop(c)
		b.free[i] = nil
	}
	b.free = b.free[:0]
}

// drop forgets a chunk counted in held.
func (b *Batcher) drop(c *chunk) { b.held -= c.size() }
