package arrange

// chainMerge merges two chains into one, a piece at a time, so that the
// batcher's owner can spread a large merge over several runs. Updates
// that meet with the same (key, val, time) are summed, and zero sums
// dropped, so the output is consolidated as its inputs are.
//
// A final merge (a seal's last) sends the updates with time < upper to
// build and keeps the others in out; any other merge writes out only.
// Input chunks go back to the batcher as soon as they are read.
type chainMerge struct {
	x, y chainReader
	out  chain
	// at is where out goes in the list of chains its inputs were taken
	// from, once the merge is done.
	at int
	// hint bounds the merge's output: its inputs' sizes.
	hint sizeHint

	final bool
	upper uint64
	build *Builder
}

// chainReader reads a chain from its front, releasing chunks it has
// read.
type chainReader struct {
	chunks []*chunk
	// i is the next update of chunks[0].
	i int
}

// newChainMerge returns a merge of x and y, either of which may be
// empty.
func newChainMerge(x, y chain) *chainMerge {
	return &chainMerge{
		x:   chainReader{chunks: x.chunks},
		y:   chainReader{chunks: y.chunks},
		out: chain{least: Done},
		hint: sizeHint{
			keys: x.n + y.n, vals: x.n + y.n, upds: x.n + y.n,
			keyBytes: x.keyBytes + y.keyBytes, valBytes: x.valBytes + y.valBytes,
		},
	}
}

// done reports whether both inputs are read.
func (m *chainMerge) done() bool { return len(m.x.chunks) == 0 && len(m.y.chunks) == 0 }

// step merges until both inputs are read or fuel, in updates read, is
// spent, and returns the fuel left.
func (m *chainMerge) step(b *Batcher, fuel int) int {
	for fuel > 0 && len(m.x.chunks) > 0 && len(m.y.chunks) > 0 {
		xc, yc := m.x.chunks[0], m.y.chunks[0]
		xr, yr := xc.recs, yc.recs
		i, j := m.x.i, m.y.i
		for fuel > 0 && i < len(xr) && j < len(yr) {
			fuel--
			switch c := compareStaged(xc.arena, xr[i], yc.arena, yr[j]); {
			case c < 0:
				m.emit(b, xc.arena, &xr[i])
				i++
			case c > 0:
				m.emit(b, yc.arena, &yr[j])
				j++
			default:
				s := xr[i]
				s.diff += yr[j].diff
				b.n-- // two updates became one
				if s.diff != 0 {
					m.emit(b, xc.arena, &s)
				} else {
					b.n--
				}
				i++
				j++
			}
		}
		m.x.i, m.y.i = i, j
		m.x.skipRead(b)
		m.y.skipRead(b)
	}
	// At most one input is left: the rest of it follows in order.
	for fuel > 0 {
		r := &m.x
		if len(r.chunks) == 0 {
			r = &m.y
		}
		if len(r.chunks) == 0 {
			break
		}
		c := r.chunks[0]
		if !m.final && r.i == 0 {
			// A whole chunk moves into the output as it is.
			m.out.add(c)
			r.chunks[0] = nil
			r.chunks = r.chunks[1:]
			fuel--
			continue
		}
		for fuel > 0 && r.i < len(c.recs) {
			m.emit(b, c.arena, &c.recs[r.i])
			r.i++
			fuel--
		}
		r.skipRead(b)
	}
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

// skipRead releases the front chunk if it has been read.
func (r *chainReader) skipRead(b *Batcher) {
	for len(r.chunks) > 0 && r.i >= len(r.chunks[0].recs) {
		b.release(r.chunks[0])
		r.chunks[0] = nil
		r.chunks = r.chunks[1:]
		r.i = 0
	}
}
