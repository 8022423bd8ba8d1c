package coord

import (
	"sync"

	"freshet/arrange"
	"freshet/internal/prefault"
	"freshet/sqlerr"
	"freshet/storage"
)

// splitWrites is a write split by worker ahead of its feed: per run of
// writes to one table, per worker, the messages its input is sent, so
// that feeding the write under the engine's lock only stamps them with
// its time and sends them. A write is split while its commit builds its
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
	in     chan []TableWrite
	done   chan struct{}
	once   sync.Once
	err    error // the goroutine's panic, as an error
}

// splitRun is a run of writes to one table: per worker, the messages
// its input is sent, each of at most splitMessage updates. Their times
// are set when they are sent.
type splitRun struct {
	table uint64
	msgs  [][][]arrange.Update
	open  [][]arrange.Update // per worker, the message being filled
	room  int                // the first message's capacity
}

// splitMessage bounds a message's updates, so that no message is a
// slice of tens of megabytes that the collector scans whole and a
// worker holds until it has taken all of it apart.
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
		for k := range part {
			w := &part[k]
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
		in:      make(chan []TableWrite, 8),
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
			for i := range part {
				if w := &part[i]; w.Diff != 0 {
					// A part's size guesses the run's, for the first
					// messages; they grow from there.
					s.add(w, len(part))
					s.blocks.Add(w.Table, w.Row, w.Diff)
				}
			}
		}
		s.closeRun()
	}()
	return s
}

// add splits one write; run is how many writes the run of writes to its
// table holds, or a guess, which sizes the run's first messages.
func (s *splitWrites) add(w *TableWrite, run int) {
	if w.Diff == 0 {
		return
	}
	if len(s.runs) == 0 || s.runs[len(s.runs)-1].table != w.Table {
		s.closeRun()
		s.runs = append(s.runs, splitRun{
			table: w.Table,
			msgs:  make([][][]arrange.Update, s.workers),
			open:  make([][]arrange.Update, s.workers),
			// An even share of the run and some, so that most
			// workers' rows fill one message.
			room: min(splitMessage, run/s.workers+run/8+1),
		})
	}
	r := &s.runs[len(s.runs)-1]
	// The hash the table's arrangement exchanges its input by: each
	// worker's rows stay where they are.
	k := int(arrange.KeyHash(w.Row) % uint64(s.workers))
	if m := r.open[k]; len(m) == cap(m) {
		size := r.room
		if m != nil {
			r.msgs[k] = append(r.msgs[k], m)
			size = min(splitMessage, max(size, 2*cap(m)))
		}
		r.open[k] = make([]arrange.Update, 0, size)
		prefault.Slice(r.open[k])
	}
	r.open[k] = append(r.open[k], arrange.Update{Key: w.Row, Diff: w.Diff})
	s.rows++
}

// closeRun ends the last run: its open messages join its messages.
func (s *splitWrites) closeRun() {
	if len(s.runs) == 0 {
		return
	}
	r := &s.runs[len(s.runs)-1]
	for k, m := range r.open {
		if len(m) > 0 {
			r.msgs[k] = append(r.msgs[k], m)
		}
	}
	r.open = nil
}

// addPart gives the goroutine the next part of the write.
func (s *splitWrites) addPart(part []TableWrite) { s.in <- part }

// finish waits until every part given to a split made while read is
// split, and returns the goroutine's fault, if any. It may be called
// more than once; addPart may not be called after it.
func (s *splitWrites) finish() error {
	s.once.Do(func() { close(s.in) })
	<-s.done
	return s.err
}

// sendLocked sends run r to t's inputs at time ts.
func (r *splitRun) sendLocked(e *Engine, t *table, ts uint64) {
	for k, msgs := range r.msgs {
		for _, m := range msgs {
			for i := range m {
				m[i].Time = ts
			}
			if err := t.inputs[k].Send(ts, m...); err != nil {
				// The table's dataflow ended (it was dropped meanwhile):
				// the write has nowhere to go, and nothing reads it any
				// more.
				e.log.Warn("write to an ended table", "table", r.table, "error", err)
			}
		}
		// The messages now belong to the dataflow.
		r.msgs[k] = nil
	}
}
