package arrange

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Spine is the list of a trace's batches, kept in levels by size class
// like an LSM tree and merged with fuel, so that no insert waits for a
// large merge.
//
// Level i holds batches of size class 2^i, oldest first; the level's two
// oldest are merged while any newer ones wait. Lower levels hold newer
// data, so reading the levels from the top down, each oldest first, reads
// the batches in time order, and they tile time. A merge's output joins
// the level above as its newest batch, which makes sizes grow
// geometrically and gives each update O(log n) merges over its life.
//
// Insert pays for merging with fuel proportional to the inserted batch's
// size class (see Insert), so the merge of two large batches is spread
// over the inserts that follow it. Until a merge completes, readers see
// its two inputs. A batch that lands on a level whose merge is still in
// progress waits there rather than forcing that merge to finish: were fuel
// ever short, readers would see a few more batches, but no insert would
// stall.
//
// Merges apply logical compaction: a merge started when the spine's since
// is s advances every time t to max(t, s), clamped into the output batch,
// and consolidates. Nothing else compacts, so a batch that is never
// merged keeps its times; Exert starts merges when there is spare time.
//
// The zero value is an empty spine at time 0 with effort 1.
type Spine struct {
	// effort scales the fuel each insert gives every merge in progress.
	// Values below 1 mean 1.
	effort int64

	// levels[i] holds size class 2^i.
	levels []level

	// upper is the first time past every batch.
	// Invariant: the batches tile [0, upper).
	upper uint64
	// since is the frontier new merges compact to. It never decreases.
	since uint64

	// work counts every unit of fuel spent merging, including roll-ups
	// and Exert. Tests hold each insert's share to its bound.
	work int64
}

// level is one size class of a spine.
// Invariant: without a merge, a level holds at most one waiting batch;
// two would have started one.
type level struct {
	// merge, if set, merges the level's two oldest batches.
	merge *merger
	// inPlace is set when merge compacts the spine's lone batch, whose
	// output stays on this level rather than moving up.
	inPlace bool
	// waiting are the level's other batches, oldest first, all newer
	// than merge's inputs.
	waiting []*Batch
}

// NewSpine returns an empty spine at time 0 whose inserts give each merge
// in progress 8·effort fuel per update of their size class. Effort 1
// finishes every merge before its level is needed again; more effort
// merges sooner, leaving fewer batches to read.
func NewSpine(effort int) *Spine {
	return &Spine{effort: int64(max(effort, 1))}
}

// Upper returns the first time past every batch: the Lower the next
// inserted batch must have.
func (s *Spine) Upper() uint64 { return s.upper }

// Since returns the frontier new merges compact to.
func (s *Spine) Since() uint64 { return s.since }

// SetSince advances the frontier that merges started from now on compact
// to. It never moves back: a since below the current one is ignored. A
// merge already in progress keeps the since it started with.
func (s *Spine) SetSince(since uint64) { s.since = max(s.since, since) }

// Work returns the total fuel spent merging so far.
func (s *Spine) Work() int64 { return s.work }

// Pending returns the merge work still to do: the input updates the
// merges in progress have not yet merged.
func (s *Spine) Pending() int64 {
	var n int64
	for i := range s.levels {
		if m := s.levels[i].merge; m != nil && !m.done() {
			n += m.remaining()
		}
	}
	return n
}

// Batches appends the batches readers see to dst, oldest first, and
// returns it. A merge in progress shows as its two inputs.
func (s *Spine) Batches(dst []*Batch) []*Batch {
	for i := len(s.levels) - 1; i >= 0; i-- {
		lv := &s.levels[i]
		if lv.merge != nil {
			dst = append(dst, lv.merge.older, lv.merge.newer)
		}
		dst = append(dst, lv.waiting...)
	}
	return dst
}

// BatchCount returns the number of batches readers see.
func (s *Spine) BatchCount() int {
	n := 0
	for _, lv := range s.levels {
		if lv.merge != nil {
			n += 2
		}
		n += len(lv.waiting)
	}
	return n
}

// Len returns the number of updates in the batches readers see.
func (s *Spine) Len() int {
	n := 0
	for _, lv := range s.levels {
		if lv.merge != nil {
			n += lv.merge.older.Len() + lv.merge.newer.Len()
		}
		for _, b := range lv.waiting {
			n += b.Len()
		}
	}
	return n
}

// Bytes returns the heap bytes the spine holds: its batches and the
// output of merges in progress.
func (s *Spine) Bytes() int64 {
	var n int64
	for _, lv := range s.levels {
		if lv.merge != nil {
			n += lv.merge.older.Bytes() + lv.merge.newer.Bytes() + lv.merge.bytes()
		}
		for _, b := range lv.waiting {
			n += b.Bytes()
		}
	}
	return n
}

// Cursor returns a cursor over the spine's batches as they are now that
// presents times raised to the spine's since. Later inserts and merges do
// not affect it.
func (s *Spine) Cursor() *CursorList { return s.cursor(s.since) }

func (s *Spine) cursor(since uint64) *CursorList {
	return newCursorList(s.Batches(nil), since)
}

// cursorFrom is cursor over only the batches that may hold times at or
// after lower (their upper is past it): a suffix of the spine's, which
// tiles the times from its first batch's lower on.
func (s *Spine) cursorFrom(since, lower uint64) *CursorList {
	bs := s.Batches(nil)
	i := 0
	for i < len(bs) && bs[i].desc.Upper <= lower {
		i++
	}
	return newCursorList(bs[i:], since)
}

// Insert adds b, whose Lower must be the spine's upper, and then does a
// bounded amount of merge work.
//
// With k = ceil(log2(b.Len())), the size class of b, Insert first gives
// each merge in progress 8·effort·2^k fuel. It then merges every batch
// below level k into b (the roll-up: those levels hold smaller classes,
// about 2^(k+1) updates together, so it costs a small multiple of 2^k),
// and adds the result to level k, where it waits or starts the level's
// merge. An insert never finishes a merge that is short of fuel, so its
// work is 8·effort·2^k per merge in progress, at most one a level, plus
// its roll-up: O(log n) per update, and never a stall to pay for merges
// that earlier inserts left. At effort 1 every merge has finished by the
// time its level is needed again, so a level seldom holds a batch waiting.
func (s *Spine) Insert(b *Batch) error {
	if b.desc.Lower != s.upper {
		return fmt.Errorf("%w: batch %v inserted at spine upper %s", ErrNotContiguous, b.desc, timeString(s.upper))
	}
	s.upper = b.desc.Upper
	k := sizeClass(b.Len())
	s.applyFuel(s.fuelFor(k))
	if b.Len() == 0 && s.extendNewest(b.desc.Upper) {
		return nil
	}
	s.rollUp(k, b)
	return nil
}

// extendNewest moves the upper of the spine's newest batch to upper, in a
// copy that takes its place, and reports whether it could: the newest
// batch must be a waiting one, not a merge's input, and hold a time. An
// insert of an empty batch, which every frontier that moves without an
// update makes, then costs no merge and no batch more for readers.
//
// The copy's since is lowered to the old upper's last time when it was
// above: every update of the batch is at or before that time, so
// accumulations are as exact from it on as from the old since, and the
// times the batch holds stay at or above what its description claims.
func (s *Spine) extendNewest(upper uint64) bool {
	for i := range s.levels {
		lv := &s.levels[i]
		if k := len(lv.waiting); k > 0 {
			x := lv.waiting[k-1]
			if x.desc.Empty() {
				return false
			}
			d := x.desc
			lv.waiting[k-1] = x.withDescription(Description{Lower: d.Lower, Upper: upper, Since: min(d.Since, d.Upper-1)})
			return true
		}
		if lv.merge != nil {
			return false
		}
	}
	return false
}

// Exert spends up to fuel on merging when there is time to spare, and
// returns the fuel spent. It works on the lowest merge in progress first,
// as its output unblocks the level above. When none is in progress it
// starts one: the newest batch into the level of the next older one, or,
// for a lone batch that lags the spine's since, a merge with nothing that
// compacts it in place. It stops early when the spine is one batch
// compacted to since.
func (s *Spine) Exert(fuel int64) int64 {
	var used int64
	for used < fuel {
		used += s.Continue(fuel - used)
		if used < fuel && !s.startMerge() {
			break
		}
	}
	return used
}

// Continue spends up to fuel on the merges in progress, the lowest
// first, and on those their completions start, and returns the fuel
// spent. Unlike Exert it starts no merge of its own: it does earlier the
// work that later inserts would pay for, so an arrangement that stops
// receiving batches does not keep a merge's inputs and its half-built
// output for good.
func (s *Spine) Continue(fuel int64) int64 {
	var used int64
	for used < fuel {
		i := s.lowestMerge()
		if i < 0 {
			break
		}
		n := s.levels[i].merge.work(fuel - used)
		used += n
		s.work += n
		if s.levels[i].merge.done() {
			s.complete(i)
		}
	}
	return used
}

// MergeAll merges the whole spine into one batch compacted to its since,
// however much work that takes. It is for tests and for shutting down; a
// running trace uses Insert's fuel and Exert.
func (s *Spine) MergeAll() { s.Exert(math.MaxInt64) }

// fuelFor returns the fuel an insert of size class k gives each merge.
func (s *Spine) fuelFor(k int) int64 {
	return 8 * max(s.effort, 1) << k
}

// applyFuel gives fuel to every merge in progress, then moves the output
// of each that completed up a level. A merge started by a completion gets
// no fuel until the next insert.
func (s *Spine) applyFuel(fuel int64) {
	for i := range s.levels {
		if m := s.levels[i].merge; m != nil {
			s.work += m.work(fuel)
		}
	}
	for i := range s.levels {
		if m := s.levels[i].merge; m != nil && m.done() {
			s.complete(i)
		}
	}
}

// complete retires level i's finished merge: its output joins the level
// above as its newest batch (or stays, for an in-place compaction), and
// each of the two levels starts its next merge if it has two batches.
func (s *Spine) complete(i int) {
	lv := &s.levels[i]
	res := lv.merge.result
	lv.merge = nil
	if lv.inPlace {
		lv.inPlace = false
		lv.waiting = append([]*Batch{res}, lv.waiting...)
		s.settle(i)
		return
	}
	// Push before settling: a merge that settle starts may complete at
	// once and push its newer output up too.
	s.push(i+1, res)
	s.settle(i)
}

// push adds x to level i as its newest batch. x must be newer than every
// batch at or above level i and older than every batch below it.
func (s *Spine) push(i int, x *Batch) {
	lv := s.level(i)
	lv.waiting = append(lv.waiting, x)
	s.settle(i)
}

// settle starts a merge of level i's two oldest batches if it has two and
// none is in progress. A merge that needs no work (one side empty, nothing
// to compact) completes at once.
func (s *Spine) settle(i int) {
	lv := &s.levels[i]
	if lv.merge != nil || len(lv.waiting) < 2 {
		return
	}
	m := newMerger(lv.waiting[0], lv.waiting[1], s.since)
	lv.waiting = slices.Delete(lv.waiting, 0, 2)
	lv.merge = m
	if m.done() {
		s.complete(i)
	}
}

// rollUp merges every batch below level k, and then b, into one batch,
// which it adds to level k: an insert lands one batch, however many
// levels lie below its class. It merges from the newest back, so each step
// merges what was gathered so far with the next older batch, and the work
// stays near linear in what it gathers.
func (s *Spine) rollUp(k int, b *Batch) {
	acc := b
	for i := 0; i < k && i < len(s.levels); i++ {
		lv := &s.levels[i]
		for j := len(lv.waiting) - 1; j >= 0; j-- {
			acc = s.mergeNow(lv.waiting[j], acc)
		}
		if lv.merge != nil {
			s.work += lv.merge.work(math.MaxInt64)
			acc = s.mergeNow(lv.merge.result, acc)
		}
		*lv = level{}
	}
	s.push(k, acc)
}

// mergeNow merges older and newer completely.
func (s *Spine) mergeNow(older, newer *Batch) *Batch {
	m := newMerger(older, newer, s.since)
	s.work += m.work(math.MaxInt64)
	return m.result
}

// level returns level i, growing the spine to have it.
func (s *Spine) level(i int) *level {
	for len(s.levels) <= i {
		s.levels = append(s.levels, level{})
	}
	return &s.levels[i]
}

// lowestMerge returns the lowest level with a merge in progress, or -1.
func (s *Spine) lowestMerge() int {
	for i := range s.levels {
		if s.levels[i].merge != nil {
			return i
		}
	}
	return -1
}

// startMerge starts a merge for Exert when none is in progress, and
// reports whether it did: the newest batch joins the level of the next
// older one, where the two merge; or a lone batch that lags the spine's
// since merges with an empty batch, in place, to compact.
func (s *Spine) startMerge() bool {
	newest := -1
	for i := range s.levels {
		if len(s.levels[i].waiting) == 0 {
			continue
		}
		if newest < 0 {
			newest = i
			continue
		}
		x := s.levels[newest].waiting[0]
		s.levels[newest].waiting = nil
		s.push(i, x)
		return true
	}
	if newest < 0 {
		return false
	}
	lv := &s.levels[newest]
	b := lv.waiting[0]
	if b.Len() == 0 || b.desc.Since >= s.since || b.desc.advanceTo(s.since) <= b.desc.Lower {
		return false
	}
	empty := &Batch{desc: Description{Lower: b.desc.Upper, Upper: b.desc.Upper}}
	*lv = level{merge: newMerger(b, empty, s.since), inPlace: true}
	return true
}

// sizeClass returns ceil(log2(n)), and 0 for n <= 1: the level a batch of
// n updates belongs at.
func sizeClass(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}
