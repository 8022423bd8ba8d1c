package coord

import (
	"sync"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/internal/prefault"
	"freshet/sqlerr"
)

// A restart arranges each table's log into the batches its dataflow's
// workers start from, without the dataflow: the log is read once, in as
// many parts as there are workers at once (storage.ScanTableParts), each
// part dealing its rows out in chunks by the hash the table's
// arrangement shards by; then each worker's chunks, joined in the log's
// order, are arranged into one batch, a goroutine a worker, all at once.
// A log of inserts read back in row order (a table loaded in the order
// of its first column) is copied into its batches as it is
// (arrange.KeysBatch), with no sort and no comparison but each row's
// with the one before; one in row order but for a few rows at its end
// (ids inserted again since) has those sorted and merged in as it is
// copied (arrange.KeysBatchMerged); any other log is staged in a
// batcher, sorted in chunks and merged, as the arrangement would. Reading and arranging are not
// overlapped: on a machine with no more cores than workers they would
// only take turns, and arranging after the read knows each batch's size.

// replayChunkRows and replayChunkBytes bound a chunk of rows dealt to a
// worker at a restart.
const (
	replayChunkRows  = 4096
	replayChunkBytes = 256 << 10
)

// replayChunk is rows of a table's log bound for one worker: row i is
// rows[ends[i-1]:ends[i]] (from 0 for the first), and its diff diffs[i],
// or 1 while diffs is nil (a log of inserts).
//
// A chunk being filled is written for every row by the goroutine reading
// its part of the log; it is padded so that no other goroutine's chunk
// shares a cache line with it (as replayShard and the parts' state are).
type replayChunk struct {
	_     [64]byte
	rows  []byte
	ends  []uint32
	diffs []int64
	_     [64]byte
}

// newReplayChunk returns the k-th chunk (from 0) of a shard, for a row
// of size n, the shard's rows so far averaging avg bytes (0: none yet):
// chunks start small and double up to the bounds, so that a small
// table's shards, and the last chunk of each, hold little more than
// their rows. A chunk's bytes are sized for its rows at avg, and an
// eighth more, so that it fills both at about once; one of full size is
// then mapped in whole (prefault), as all but a shard's last are
// filled, and holds at least prefault.Min bytes (rows of a byte or two
// leave some of it unwritten).
func newReplayChunk(k, n, avg int) *replayChunk {
	shift := min(k, 6)
	rows := replayChunkRows >> (6 - shift)
	bytes := replayChunkBytes >> (6 - shift)
	if avg > 0 {
		bytes = min(bytes, rows*avg*9/8)
	}
	if k >= 6 {
		// A full chunk of short rows is still worth mapping in whole,
		// not faulted in a page at a time.
		bytes = max(bytes, prefault.Min)
	}
	c := &replayChunk{
		rows: make([]byte, 0, max(bytes, n)),
		ends: make([]uint32, 0, rows),
	}
	if k >= 6 {
		prefault.Slice(c.rows)
		prefault.Slice(c.ends)
	}
	return c
}

func (c *replayChunk) add(row []byte, diff int64) {
	if diff != 1 && c.diffs == nil {
		c.diffs = make([]int64, len(c.ends), cap(c.ends))
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

// fits reports whether the chunk has room for a row of n bytes, so that
// adding it never grows (copies) the chunk.
func (c *replayChunk) fits(n int) bool {
	return len(c.ends) < cap(c.ends) && len(c.rows)+n <= cap(c.rows)
}

// replayShard is the rows of a table's log dealt to one worker.
type replayShard struct {
	_           [64]byte
	chunks      []*replayChunk
	rows, bytes int
	_           [64]byte
}

// deal adds a row of the log to the shard.
func (s *replayShard) deal(row []byte, diff int64) {
	if len(s.chunks) == 0 || !s.chunks[len(s.chunks)-1].fits(len(row)) {
		avg := 0
		if s.rows > 0 {
			avg = s.bytes/s.rows + 1
		}
		s.chunks = append(s.chunks, newReplayChunk(len(s.chunks), len(row), avg))
	}
	s.chunks[len(s.chunks)-1].add(row, diff)
	s.rows++
	s.bytes += len(row)
}

// join appends the rows of t, dealt after s's, to s.
func (s *replayShard) join(t *replayShard) {
	s.chunks = append(s.chunks, t.chunks...)
	s.rows += t.rows
	s.bytes += t.bytes
}

// arrange builds the shard's batch, every update at time at. A shard of
// inserts whose rows came in order (a table loaded in the order of its
// rows) is copied into the batch as it is (arrange.KeysBatch); any other
// is staged in a batcher, each chunk released once staged.
func (s *replayShard) arrange(at uint64) *arrange.Batch {
	if b, ok := s.inOrder(at); ok {
		return b
	}
	if b, ok := s.mostlyInOrder(at); ok {
		return b
	}
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

// inOrder returns the batch of the shard's rows if they are inserts in
// strictly increasing order, releasing each chunk once copied.
func (s *replayShard) inOrder(at uint64) (*arrange.Batch, bool) {
	rows, ends, ok := s.insertPieces()
	if !ok {
		return nil, false
	}
	b, ok := arrange.KeysBatch(rows, ends, at, func(i int) { s.chunks[i] = nil })
	if ok {
		s.chunks = nil
	}
	return b, ok
}

// mostlyInOrder returns the batch of the shard's rows if they are
// inserts in order but for a few at the end (arrange.KeysBatchMerged):
// rows written since the log was last in order, whose ids the table
// already held.
func (s *replayShard) mostlyInOrder(at uint64) (*arrange.Batch, bool) {
	rows, ends, ok := s.insertPieces()
	if !ok {
		return nil, false
	}
	b, ok := arrange.KeysBatchMerged(rows, ends, at)
	if ok {
		s.chunks = nil
	}
	return b, ok
}

// insertPieces returns the shard's chunks as the pieces of rows and ends
// KeysBatch takes, or false if any holds an update that is not an
// insert.
func (s *replayShard) insertPieces() (rows [][]byte, ends [][]uint32, ok bool) {
	rows = make([][]byte, len(s.chunks))
	ends = make([][]uint32, len(s.chunks))
	for i, c := range s.chunks {
		if c.diffs != nil {
			return nil, nil, false
		}
		rows[i], ends[i] = c.rows, c.ends
	}
	return rows, ends, true
}

// replayWork is how many updates a batcher merges at a time while a
// replay arranges: the merges have the worker's goroutine to themselves.
const replayWork = 1 << 20

// replayed is a table's log arranged at a restart: a batch per worker,
// and the log's count of updates and their net diff, its rows.
type replayed struct {
	batches       []*arrange.Batch
	updates, rows int64
	// dealt is the bytes of rows dealt into chunks, garbage once the
	// batches are built.
	dealt int64
}

// replayLog arranges table o's log at time at into a batch per worker,
// each holding the rows whose hash is the worker's, and counts into tk,
// if not nil, the values of the rows' unique keys. It reads the log in
// as many parts as there are workers at once, each dealing its rows out
// into shards of its own, which it then joins, in the log's order, for
// each worker.
func (e *Engine) replayLog(o *catalog.Object, at uint64, tk *tableKeys) (replayed, error) {
	return replayLogParts(e.workers, o, at, tk, func(n int, fn func(int, uint64, []byte, int64) error) (int, error) {
		return e.store.ScanTableParts(o.ID, n, fn)
	})
}

// replayLogParts is replayLog for n workers of a log that scan reads in
// up to n parts (as storage.ScanTableParts).
func replayLogParts(n int, o *catalog.Object, at uint64, tk *tableKeys, scan func(n int, fn func(part int, ts uint64, row []byte, diff int64) error) (int, error)) (replayed, error) {
	// Each part's state is written for every row by its own goroutine:
	// apart, and padded, so that no two parts write one cache line.
	type part struct {
		_             [64]byte
		shards        []replayShard
		updates, rows int64
		keys          []*uniqueKey
		raw           [][]byte
		buf           []byte
		_             [64]byte
	}
	parts := make([]*part, n)
	for i := range parts {
		parts[i] = &part{shards: make([]replayShard, n)}
		if tk != nil {
			for _, k := range tk.keys {
				parts[i].keys = append(parts[i].keys, newUniqueKey(k.def))
			}
		}
	}
	read, err := scan(n, func(i int, _ uint64, row []byte, diff int64) error {
		p := parts[i]
		p.updates++
		p.rows += diff
		if len(p.keys) > 0 {
			var err error
			if p.raw, err = keyValues(row, len(o.Columns), p.raw); err != nil {
				return err
			}
			for _, k := range p.keys {
				p.buf = countRow(k, p.raw, diff, p.buf)
			}
		}
		p.shards[arrange.KeyHash(row)%uint64(n)].deal(row, diff)
		return nil
	})
	if err != nil {
		return replayed{}, err
	}
	r := replayed{batches: make([]*arrange.Batch, n)}
	shards := make([]replayShard, n)
	for _, p := range parts[:read] {
		r.updates += p.updates
		r.rows += p.rows
		for w := range p.shards {
			r.dealt += int64(p.shards[w].bytes)
			shards[w].join(&p.shards[w])
		}
		// The shards' chunks are the workers' now: each is let go once
		// arranged.
		p.shards = nil
		// A value's rows may be in several parts: its counts add up.
		for i, k := range p.keys {
			for v, c := range k.counts {
				tk.keys[i].count(v, c)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for w := range shards {
		wg.Go(func() {
			// A bug here would otherwise take the server down at every
			// start; it fails the restart with an error instead.
			defer func() {
				if v := recover(); v != nil {
					errs[w] = sqlerr.AssertionFailedf("arranging the log of table %q: %v", o.Name, v)
				}
			}()
			r.batches[w] = shards[w].arrange(at)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return replayed{}, err
		}
	}
	return r, nil
}
