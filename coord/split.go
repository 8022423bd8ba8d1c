package coord

import (
	"math"
	"sync"

	"freshet/arrange"
	"freshet/internal/prefault"
	"freshet/sqlerr"
	"freshet/storage"
)

// splitWrites is a write split by worker ahead of its feed: per run of
// writes to one table, per worker, the chunks its input is sent, so
// that feeding the write under the engine's lock only sends them. A write is split while its commit builds its
// batch and syncs (splitDuring), which the session would otherwise wait
// on idle; a bulk COPY is split while it is still being read, on a
// goroutine of its own (splitWhileRead), which also encodes its rows as
// the table's log stores them, so that the commit only copies them.
//
// The split is a pure function of the writes' rows, which must not
// change after they are split; feedLocked uses it only for the write it
// was made from. Invariant: for a split made while read, the goroutine
// alone touches runs, rows, blocks and err until done is closed.
type splitWrites struct {
	workers int
	runs    []splitRun
	// rows counts the updates split: the writes whose diff is not 0.
	rows int

	// Set when the write is split while it is read.
	read   bool
	blocks storage.Blocks
	in     chan writePart
	done   chan struct{}
	once   sync.Once
	err    error // the goroutine's panic, as an error
}

// splitRun is a run of writes to one table: per worker, the chunks its
// input is sent, in the order written, each one record (arrange.Chunk):
// updates of writes one by one, at most splitMessage, or the rows of a
// packed part of a COPY that hash to the worker. Their time is the one
// they are sent at.
type splitRun struct {
	table  uint64
	chunks [][]arrange.Chunk
	open   [][]arrange.Update // per worker, the updates of the chunk being filled
	room   int                // the first chunk of updates' capacity
}

// splitMessage bounds a chunk's updates, so that no chunk is a slice of
// tens of megabytes that the collector scans whole and a worker holds
// until it has taken all of it apart.
const splitMessage = 16 << 10

// splitDuring splits writes by worker: while the write's commit is under
// way (commitSplitting), or, for a write fed unsplit, as it is fed.
func splitDuring(writes writeSet, workers int) *splitWrites {
	s := &splitWrites{workers: workers}
	var (
		table uint64
		run   int
	)
	for pi, part := range writes {
		if part.packed != nil {
			s.addPacked(part.packed)
			run = 0
			continue
		}
		for k := range part.writes {
			w := &part.writes[k]
			if w.Diff != 0 && (run == 0 || w.Table != table) {
				table, run = w.Table, writes.run(pi, k)
			}
			s.add(w, run)
		}
	}
	s.closeRun()
	return s
}

// splitWhileRead starts a goroutine that splits the parts given to
// addPart, and encodes them into blocks, until finish.
func splitWhileRead(workers int) *splitWrites {
	s := &splitWrites{
		workers: workers,
		read:    true,
		in:      make(chan writePart, 8),
		done:    make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		defer func() {
			// A fault here fails the COPY, as it would on the session's
			// goroutine, and not the server.
			if r := recover(); r != nil {
				s.err = sqlerr.AssertionFailedf("splitting the COPY's rows: %v", r)
				for range s.in {
				}
			}
		}()
		for part := range s.in {
			if p := part.packed; p != nil {
				s.addPacked(p)
				for i := range p.Len() {
					s.blocks.Add(p.table, p.Row(i), 1)
				}
				continue
			}
			for i := range part.writes {
				if w := &part.writes[i]; w.Diff != 0 {
					// A part's size guesses the run's, for the first
					// messages; they grow from there.
					s.add(w, len(part.writes))
					s.blocks.Add(w.Table, w.Row, w.Diff)
				}
			}
		}
		s.closeRun()
	}()
	return s
}

// runFor returns the run that writes to table go to: the last, or a new
// one if the last is of another table; run sizes a new run's first
// chunks of updates.
func (s *splitWrites) runFor(table uint64, run int) *splitRun {
	if len(s.runs) == 0 || s.runs[len(s.runs)-1].table != table {
		s.closeRun()
		s.runs = append(s.runs, splitRun{
			table:  table,
			chunks: make([][]arrange.Chunk, s.workers),
			open:   make([][]arrange.Update, s.workers),
			// An even share of the run and some, so that most
			// workers' rows fill one chunk.
			room: min(splitMessage, run/s.workers+run/8+1),
		})
	}
	return &s.runs[len(s.runs)-1]
}

// add splits one write; run is how many writes the run of writes to its
// table holds, or a guess, which sizes the run's first chunks.
func (s *splitWrites) add(w *TableWrite, run int) {
	if w.Diff == 0 {
		return
	}
	r := s.runFor(w.Table, run)
	// The hash the table's arrangement shards its rows by: each
	// worker's rows stay where they are.
	k := int(arrange.KeyHash(w.Row) % uint64(s.workers))
	if m := r.open[k]; len(m) == cap(m) {
		size := r.room
		if m != nil {
			r.chunks[k] = append(r.chunks[k], arrange.Chunk{Updates: m})
			size = min(splitMessage, max(size, 2*cap(m)))
		}
		r.open[k] = make([]arrange.Update, 0, size)
		prefault.Slice(r.open[k])
	}
	r.open[k] = append(r.open[k], arrange.Update{Key: w.Row, Diff: w.Diff})
	s.rows++
}

// addPacked splits a packed part: per worker, chunks that pick the
// part's rows that hash to it, at most splitMessage a chunk, so that a
// worker takes no more of them apart at once than of updates.
func (s *splitWrites) addPacked(p *packedInserts) {
	n := p.Len()
	if n == 0 {
		return
	}
	r := s.runFor(p.table, n)
	// The run's updates so far go first.
	r.flush()
	// A worker's share, and room for its spread: a share's deviation
	// is about its square root.
	share := n / s.workers
	room := share + 4*int(math.Sqrt(float64(share))) + 16
	picks := make([][]uint32, s.workers)
	for k := range picks {
		picks[k] = make([]uint32, 0, min(room, n))
		prefault.Slice(picks[k])
	}
	for i := range n {
		k := arrange.KeyHash(p.Row(i)) % uint64(s.workers)
		picks[k] = append(picks[k], uint32(i))
	}
	for k, pick := range picks {
		for len(pick) > 0 {
			m := min(len(pick), splitMessage)
			r.chunks[k] = append(r.chunks[k], arrange.Chunk{Rows: p.Rows, Pick: pick[:m:m]})
			pick = pick[m:]
		}
	}
	s.rows += n
}

// flush ends the run's chunks of updates being filled.
func (r *splitRun) flush() {
	for k, m := range r.open {
		if len(m) > 0 {
			r.chunks[k] = append(r.chunks[k], arrange.Chunk{Updates: m})
			r.open[k] = nil
		}
	}
}

// closeRun ends the last run: its chunks being filled join its chunks.
func (s *splitWrites) closeRun() {
	if len(s.runs) == 0 {
		return
	}
	r := &s.runs[len(s.runs)-1]
	r.flush()
	r.open = nil
}

// addPart gives the goroutine the next part of the write.
func (s *splitWrites) addPart(part writePart) { s.in <- part }

// finish waits until every part given to a split made while read is
// split, and returns the goroutine's fault, if any. It may be called
// more than once; addPart may not be called after it.
func (s *splitWrites) finish() error {
	s.once.Do(func() { close(s.in) })
	<-s.done
	return s.err
}

// sendLocked sends run r to t's inputs at time ts, a chunk a send: a
// worker takes one send apart at a time between its checks of its
// run's time.
func (r *splitRun) sendLocked(e *Engine, t *table, ts uint64) {
	for k, chunks := range r.chunks {
		for _, c := range chunks {
			if err := t.inputs[k].Send(ts, c); err != nil {
				// The table's dataflow ended (it was dropped meanwhile):
				// the write has nowhere to go, and nothing reads it any
				// more.
				e.log.Warn("write to an ended table", "table", r.table, "error", err)
			}
		}
		// The chunks now belong to the dataflow.
		r.chunks[k] = nil
	}
}
