package storage

import (
	"encoding/binary"

	"freshet/internal/prefault"
)

// Blocks are a transaction's updates encoded ahead of its commit, as the
// tables' logs store them, by a caller that can do so while it reads
// them: the committer then copies the blocks into its batch, with no
// pass over the updates of its own. A bulk COPY's rows are added on a
// goroutine beside the one parsing them, a chunk at a time. The zero
// value holds no updates.
//
// Blocks is an Updates; a Txn takes it as its Updates.
type Blocks struct {
	// chunks hold the blocks' values back to back; a block lies in one.
	chunks [][]byte
	blocks []encodedBlock
	cut    blocking
	n      int
	// size is what Txn.size counts for the updates.
	size int
	// zero is whether some update's diff is 0, which validate refuses;
	// zeroTable is the first such update's table.
	zero      bool
	zeroTable uint64
}

// encodedBlock is one table log value, chunks[chunk][start:end], and the
// table it is of.
type encodedBlock struct {
	table             uint64
	chunk, start, end int
}

// blocksChunk is the size of the chunks blocks are encoded into.
const blocksChunk = 1 << 20

// Add appends an update. row is copied.
func (b *Blocks) Add(table uint64, row []byte, diff int64) {
	open := b.cut.next(table, row) || len(b.blocks) == 0
	need := 1 + binary.MaxVarintLen64 + binary.MaxVarintLen32 + len(row)
	if len(b.chunks) == 0 || cap(b.chunks[len(b.chunks)-1])-len(b.chunks[len(b.chunks)-1]) < need {
		b.newChunk(need, open)
	}
	c := len(b.chunks) - 1
	if open {
		b.blocks = append(b.blocks, encodedBlock{table: table, chunk: c, start: len(b.chunks[c])})
		b.chunks[c] = append(b.chunks[c], blockMark)
	}
	b.chunks[c] = appendBlockUpdate(b.chunks[c], diff, row)
	b.blocks[len(b.blocks)-1].end = len(b.chunks[c])
	b.n++
	b.size += 12 + len(row)
	if diff == 0 && !b.zero {
		b.zero, b.zeroTable = true, table
	}
}

// newChunk starts a chunk with room for need bytes more than the block
// that is open, which moves to it, unless open says a new one starts.
func (b *Blocks) newChunk(need int, open bool) {
	var moved []byte
	if !open {
		last := &b.blocks[len(b.blocks)-1]
		moved = b.chunks[last.chunk][last.start:last.end]
		b.chunks[last.chunk] = b.chunks[last.chunk][:last.start]
		last.chunk, last.start, last.end = len(b.chunks), 0, len(moved)
	}
	chunk := make([]byte, 0, max(blocksChunk, len(moved)+need))
	prefault.Slice(chunk)
	b.chunks = append(b.chunks, append(chunk, moved...))
}

// value returns bl's value.
func (b *Blocks) value(bl encodedBlock) []byte { return b.chunks[bl.chunk][bl.start:bl.end] }

// Len returns the number of updates.
func (b *Blocks) Len() int { return b.n }

// Each calls fn for every update, in order, its row aliasing the block.
func (b *Blocks) Each(fn func(table uint64, row []byte, diff int64)) {
	var err error
	for _, bl := range b.blocks {
		eachUpdate(b.value(bl), func(diff int64, row []byte) error {
			fn(bl.table, row, diff)
			return nil
		}, &err)
	}
}
