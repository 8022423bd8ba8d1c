package coord

import (
	"sync"

	"freshet/arrange"
	"freshet/catalog"
)

// A restart arranges each table's log into the batches its dataflow's
// workers start from, without the dataflow: the log is read once, its
// rows dealt out in chunks by the hash the table's arrangement shards
// by, and then each worker's rows are arranged into one batch, a
// goroutine a worker, all at once. A log read back in row order (a table
// loaded in the order of its first column) arranges as one sorted run,
// written into columns sized from the chunks, with no sort and no copy
// beside the batch; any other order is sorted in chunks and merged, as
// the arrangement would. Reading and arranging are not overlapped: on a
// machine with fewer cores than workers plus one they would only take
// turns, and arranging after the read knows each batch's size.

// replayChunkRows and replayChunkBytes bound a chunk of rows dealt to a
// worker at a restart.
const (
	replayChunkRows  = 4096
	replayChunkBytes = 256 << 10
)

// replayChunk is rows of a table's log bound for one worker: row i is
// rows[ends[i-1]:ends[i]] (from 0 for the first), and its diff diffs[i],
// or 1 while diffs is nil (a log of inserts).
type replayChunk struct {
	rows  []byte
	ends  []uint32
	diffs []int64
}

func (c *replayChunk) add(row []byte, diff int64) {
	if diff != 1 && c.diffs == nil {
		c.diffs = make([]int64, len(c.ends), replayChunkRows)
		for i := range c.diffs {
			c.diffs[i] = 1
		}
	}
	c.rows = append(c.rows, row...)
	c.ends = append(c.ends, uint32(len(c.rows)))
	if c.diffs != nil {
		c.diffs = append(c.diffs, diff)
	}
}

func (c *replayChunk) full() bool {
	return len(c.ends) >= replayChunkRows || len(c.rows) >= replayChunkBytes
}

// replayShard is the rows of a table's log dealt to one worker.
type replayShard struct {
	chunks      []*replayChunk
	rows, bytes int
}

// arrange builds the shard's batch, every update at time at, releasing
// each chunk once staged.
func (s *replayShard) arrange(at uint64) *arrange.Batch {
	b := arrange.NewBatcher(0)
	b.Expect(s.rows, s.bytes, 0)
	for i, c := range s.chunks {
		from := uint32(0)
		for j, end := range c.ends {
			d := int64(1)
			if c.diffs != nil {
				d = c.diffs[j]
			}
			b.Stage(c.rows[from:end], nil, at, d)
			from = end
		}
		s.chunks[i] = nil
		for b.Busy() {
			b.Work(replayWork)
		}
	}
	return b.Seal(at + 1)
}

// replayWork is how many updates a batcher merges at a time while a
// replay arranges: the merges have the worker's goroutine to themselves.
const replayWork = 1 << 20

// replayed is a table's log arranged at a restart: a batch per worker,
// and the log's count of updates and their net diff, its rows.
type replayed struct {
	batches       []*arrange.Batch
	updates, rows int64
}

// replayLog arranges table o's log at time at into a batch per worker,
// each holding the rows whose hash is the worker's, and counts into tk,
// if not nil, the values of the rows' unique keys.
func (e *Engine) replayLog(o *catalog.Object, at uint64, tk *tableKeys) (replayed, error) {
	n := e.workers
	r := replayed{batches: make([]*arrange.Batch, n)}
	shards := make([]replayShard, n)
	var raw [][]byte
	var buf []byte
	if err := e.store.ScanTable(o.ID, func(_ uint64, row []byte, diff int64) error {
		r.updates++
		r.rows += diff
		if tk != nil {
			var err error
			if raw, err = keyValues(row, len(o.Columns), raw); err != nil {
				return err
			}
			for _, k := range tk.keys {
				buf = countRow(k, raw, diff, buf)
			}
		}
		s := &shards[arrange.KeyHash(row)%uint64(n)]
		if len(s.chunks) == 0 || s.chunks[len(s.chunks)-1].full() {
			s.chunks = append(s.chunks, &replayChunk{
				rows: make([]byte, 0, max(replayChunkBytes, len(row))),
				ends: make([]uint32, 0, replayChunkRows),
			})
		}
		s.chunks[len(s.chunks)-1].add(row, diff)
		s.rows++
		s.bytes += len(row)
		return nil
	}); err != nil {
		return replayed{}, err
	}
	var wg sync.WaitGroup
	for w := range shards {
		wg.Go(func() { r.batches[w] = shards[w].arrange(at) })
	}
	wg.Wait()
	return r, nil
}
