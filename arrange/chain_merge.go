package arrange

// chainMerge merges chains into one, a piece at a time, so that the
// batcher's owner can spread a large merge over several runs. Updates
// that meet with the same (key, val, time) are summed, and zero sums
// dropped, so the output is consolidated as its inputs are.
//
// It merges any number of chains in one pass: a tournament over the
// inputs' next updates picks the least with one comparison per level of
// the tournament, so an update is copied once however many chains meet,
// where merging them two at a time would copy it once a round.
//
// A final merge (a seal's last) sends the updates with time < upper to
// build and keeps the others in out; any other merge writes out only.
// Input chunks go back to the batcher as soon as they are read.
type chainMerge struct {
	in []chainReader
	// heads holds each input's next update, where the tournament reads
	// it.
	heads []mergeHead
	// tree is the tournament over in. With k inputs, input i is leaf
	// k+i of a binary tree whose inner nodes are 1 … k-1 (the children
	// of node j are 2j and 2j+1); tree[j] is the input that lost the
	// match at inner node j, and tree[0] the input that won them all,
	// whose next update orders first. An input read to its end loses to
	// every other. tie[j] reports that the match at node j was between
	// equal updates.
	tree []int
	tie  []bool
	// live counts the inputs not yet read to their end.
	live int
	// read holds input chunks read to their end that may still hold the
	// update being summed; they are released once it is written.
	read []*chunk

	out chain
	// at is where out goes in the list of chains its inputs were taken
	// from, once the merge is done.
	at int
	// hint bounds the merge's output: its inputs' sizes.
	hint sizeHint

	final bool
	upper uint64
	build *Builder
}

// chainReader reads a chain from its front.
type chainReader struct {
	chunks []*chunk
	// i is the next update of chunks[0].
	i int
}

// mergeHead is an input's next update and the arena of its bytes; done
// marks an input read to its end.
type mergeHead struct {
	s     staged
	arena []byte
	done  bool
}

// newChainMerge returns a merge of chains, any of which may be empty.
// Its output's level is one above the highest of theirs.
func newChainMerge(chains ...chain) *chainMerge {
	k := len(chains)
	m := &chainMerge{
		in:    make([]chainReader, k),
		heads: make([]mergeHead, k),
		tree:  make([]int, max(k, 1)),
		tie:   make([]bool, max(k, 1)),
		out:   chain{least: Done},
	}
	for i, c := range chains {
		m.in[i].chunks = c.chunks
		m.skipEmpty(&m.in[i])
		if len(m.in[i].chunks) > 0 {
			m.live++
		}
		m.setHead(i)
		m.out.level = max(m.out.level, c.level+1)
		m.hint.upds += c.n
		m.hint.keyBytes += c.keyBytes
		m.hint.valBytes += c.valBytes
	}
	m.hint.keys, m.hint.vals = m.hint.upds, m.hint.upds
	if k == 0 {
		return m
	}
	// Play the tournament from the leaves up: win[j] is the winner at
	// node j, for inner nodes and leaves alike.
	win := make([]int, 2*k)
	for i := range k {
		win[k+i] = i
	}
	for j := k - 1; j >= 1; j-- {
		a, b := win[2*j], win[2*j+1]
		c := m.compare(b, a)
		if c < 0 || c == 0 && b < a {
			a, b = b, a
		}
		win[j], m.tree[j], m.tie[j] = a, b, c == 0 && !m.heads[a].done
	}
	m.tree[0] = win[1]
	return m
}

// done reports whether every input is read.
func (m *chainMerge) done() bool { return m.live == 0 }

// setHead reads input i's next update into its head.
func (m *chainMerge) setHead(i int) {
	r, h := &m.in[i], &m.heads[i]
	if len(r.chunks) == 0 {
		*h = mergeHead{done: true}
		return
	}
	c := r.chunks[0]
	h.s, h.arena = c.recs[r.i], c.arena
}

// compare orders inputs a and b by their next updates; an input read
// to its end orders after every other.
func (m *chainMerge) compare(a, b int) int {
	ha, hb := &m.heads[a], &m.heads[b]
	switch {
	case ha.done || hb.done:
		if ha.done == hb.done {
			return 0
		}
		if ha.done {
			return 1
		}
		return -1
	case ha.s.prefix < hb.s.prefix:
		return -1
	case ha.s.prefix > hb.s.prefix:
		return 1
	}
	return compareStaged(ha.arena, ha.s, hb.arena, hb.s)
}

// advance moves input w, the tournament's winner, past its next update
// and replays w's matches up the tournament. It reports whether that
// update was equal to another input's, which then wins the tournament
// now. A chunk read to its end waits in read.
func (m *chainMerge) advance(w int) (equal bool) {
	r := &m.in[w]
	r.i++
	if r.i >= len(r.chunks[0].recs) {
		m.read = append(m.read, m.popChunk(r))
	}
	m.setHead(w)
	// w won every match on its way up, so a match there between equal
	// updates was one with w's update.
	for j := (w + len(m.in)) / 2; j >= 1; j /= 2 {
		equal = equal || m.tie[j]
		l := m.tree[j]
		c := m.compare(l, w)
		if c < 0 || c == 0 && l < w {
			m.tree[j], w = w, l
		}
		m.tie[j] = c == 0 && !m.heads[w].done
	}
	m.tree[0] = w
	return equal
}

// step merges until every input is read or fuel, in updates read, is
// spent, and returns the fuel left.
func (m *chainMerge) step(b *Batcher, fuel int) int {
	for fuel > 0 && m.live > 1 {
		w := m.tree[0]
		h := m.heads[w]
		fuel--
		// The inputs are consolidated, so updates equal to h come from
		// other inputs, and win the tournament one after another.
		for equal := m.advance(w); equal; {
			w = m.tree[0]
			h.s.diff += m.heads[w].s.diff
			b.n-- // two updates became one
			fuel--
			equal = m.advance(w)
		}
		if h.s.diff != 0 {
			m.emit(b, h.arena, &h.s)
		} else {
			b.n--
		}
		if len(m.read) > 0 {
			m.releaseRead(b)
		}
	}
	// At most one input is left: the rest of it follows in order.
	for fuel > 0 && m.live == 1 {
		r := &m.in[m.tree[0]]
		c := r.chunks[0]
		if !m.final && r.i == 0 {
			// A whole chunk moves into the output as it is.
			m.out.add(m.popChunk(r))
			fuel--
		} else {
			for fuel > 0 && r.i < len(c.recs) {
				m.emit(b, c.arena, &c.recs[r.i])
				r.i++
				fuel--
			}
			if r.i < len(c.recs) {
				m.setHead(m.tree[0])
				break
			}
			b.release(m.popChunk(r))
		}
		m.setHead(m.tree[0])
	}
	m.releaseRead(b)
	return fuel
}

// emit writes one update of the merged output.
func (m *chainMerge) emit(b *Batcher, arena []byte, s *staged) {
	if m.final && s.time < m.upper {
		m.build.Push(s.keyIn(arena), s.valIn(arena), s.time, s.diff)
		b.n--
		return
	}
	var c *chunk
	if k := len(m.out.chunks); k > 0 && !m.out.chunks[k-1].full(b.chunkLimit()) {
		c = m.out.chunks[k-1]
	} else {
		c = b.newChunk()
		m.out.chunks = append(m.out.chunks, c)
	}
	held := c.size()
	c.pushStaged(arena, s)
	b.held += c.size() - held // only an update larger than the room left grows a chunk
	m.out.n++
	m.out.keyBytes += int(s.keyLen)
	m.out.valBytes += int(s.valLen)
	m.out.least = min(m.out.least, s.time)
}

// releaseRead gives the chunks read to their end back to the batcher.
func (m *chainMerge) releaseRead(b *Batcher) {
	for i, c := range m.read {
		b.release(c)
		m.read[i] = nil
	}
	m.read = m.read[:0]
}

// popChunk takes r's front chunk off it and returns it, moving empty
// chunks behind it to read, and counts r out of live once it is read to
// its end.
func (m *chainMerge) popChunk(r *chainReader) *chunk {
	c := r.chunks[0]
	r.chunks[0] = nil
	r.chunks = r.chunks[1:]
	r.i = 0
	m.skipEmpty(r)
	if len(r.chunks) == 0 {
		m.live--
	}
	return c
}

// skipEmpty moves empty chunks at r's front to read.
func (m *chainMerge) skipEmpty(r *chainReader) {
	for len(r.chunks) > 0 && len(r.chunks[0].recs) == 0 {
		m.read = append(m.read, r.chunks[0])
		r.chunks[0] = nil
		r.chunks = r.chunks[1:]
	}
}
