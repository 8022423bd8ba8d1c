package coord

import (
	"sync"

	"freshet/arrange"
	"freshet/internal/prefault"
	"freshet/storage"
)

// splitWrites splits a bulk write to one table by worker, and encodes
// it as the table's log stores it, while the write is still being read,
// on a goroutine of its own: its commit then only copies the encoded
// blocks, and its feed only sends what is ready. A COPY of a million
// rows otherwise spent a third of its time after its commit, doing this
// on the session's goroutine while the other core waited.
//
// The parts given to add must be the write's writes, all to table, in
// order; the split is a pure function of their rows, which must not
// change after add. feedLocked uses it only for a write that is exactly
// those parts.
type splitWrites struct {
	table   uint64
	workers int
	in      chan []TableWrite
	done    chan struct{}
	once    sync.Once

	// Written by the goroutine, read after done.
	rows int
	// msgs are, per worker, the messages its input is sent, each of at
	// most splitMessage updates; their times are set when they are sent.
	msgs [][][]arrange.Update
	// blocks are the rows as the table's log stores them.
	blocks storage.Blocks
}

// splitMessage bounds a message's updates: a worker takes one apart
// while the next is filled, and no message is a slice of tens of
// megabytes that the collector scans whole.
const splitMessage = 16 << 10

func newSplitWrites(table uint64, workers int) *splitWrites {
	s := &splitWrites{
		table:   table,
		workers: workers,
		in:      make(chan []TableWrite, 8),
		done:    make(chan struct{}),
		msgs:    make([][][]arrange.Update, workers),
	}
	go s.run()
	return s
}

func (s *splitWrites) run() {
	defer close(s.done)
	open := make([][]arrange.Update, s.workers)
	for part := range s.in {
		for i := range part {
			w := &part[i]
			if w.Diff == 0 {
				continue
			}
			// The hash the table's arrangement exchanges its input by,
			// as in feedLocked: each worker's rows stay where they are.
			k := int(arrange.KeyHash(w.Row) % uint64(s.workers))
			if len(open[k]) == cap(open[k]) {
				if open[k] != nil {
					s.msgs[k] = append(s.msgs[k], open[k])
				}
				open[k] = make([]arrange.Update, 0, splitMessage)
				prefault.Slice(open[k])
			}
			open[k] = append(open[k], arrange.Update{Key: w.Row, Diff: w.Diff})
			s.blocks.Add(s.table, w.Row, w.Diff)
			s.rows++
		}
	}
	for k, m := range open {
		if len(m) > 0 {
			s.msgs[k] = append(s.msgs[k], m)
		}
	}
}

// add gives the goroutine the next part of the write.
func (s *splitWrites) add(part []TableWrite) { s.in <- part }

// finish waits until every part given is split, and returns s. It may
// be called more than once; add may not be called after it.
func (s *splitWrites) finish() *splitWrites {
	s.once.Do(func() { close(s.in) })
	<-s.done
	return s
}

// sendLocked sends the split write to t's inputs at time ts.
func (s *splitWrites) sendLocked(e *Engine, t *table, ts uint64) {
	for k, msgs := range s.msgs {
		for _, m := range msgs {
			for i := range m {
				m[i].Time = ts
			}
			if err := t.inputs[k].Send(ts, m...); err != nil {
				// As in feedLocked: the table's dataflow ended.
				e.log.Warn("write to an ended table", "table", s.table, "error", err)
			}
		}
		s.msgs[k] = nil
	}
}
