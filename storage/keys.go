package storage

import (
	"encoding/binary"
	"math"
)

// Key prefixes: the first byte of every key says which space it is in.
// doc.go has the whole layout.
const (
	prefixInternal byte = 0x01
	prefixMeta     byte = 0x02
	prefixCatalog  byte = 0x03
	prefixTable    byte = 0x04
)

// Names of storage's own records in the internal space. Each holds a
// big-endian uint64.
const (
	// internalFormat is the version of this key layout; see formatVersion.
	internalFormat = "format"
	// internalNextSeq bounds the seqs keys hold: none holds it or more.
	// The committer raises it seqAhead past the seqs it needs, so it is
	// written once in many batches; a restart starts from it.
	internalNextSeq = "next-seq"
	// internalTimestampUpper is the timestamp oracle's persisted upper.
	internalTimestampUpper = "timestamp-upper"
)

// seqAhead is how far past the seqs a batch uses the committer raises
// the persisted bound: about a thousand 1,000-row INSERTs between
// writes of it. A restart skips what was not used; seqs are 64 bits.
const seqAhead = 1 << 20

// formatVersion is the key layout this package reads and writes. A store
// written with another version is refused at Open, but for version 1,
// whose single-update values version 2 still reads (doc.go): Open
// records such a store as version 2, so that a server of version 1
// refuses it rather than misread its blocks.
const (
	formatVersion       = 2
	formatSingleUpdates = 1
)

// updateKeyLen is the length of an update key: prefix, table, time, seq.
const updateKeyLen = 1 + 8 + 8 + 8

func internalKey(name string) []byte {
	return append([]byte{prefixInternal}, name...)
}

func metaKey(name string) []byte {
	return append([]byte{prefixMeta}, name...)
}

func catalogKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixCatalog}, id)
}

// catalogBounds returns the key range of all catalog records.
func catalogBounds() (lower, upper []byte) {
	return []byte{prefixCatalog}, []byte{prefixCatalog + 1}
}

// appendUpdateKey appends the key of the update of table at time with
// seq to dst.
func appendUpdateKey(dst []byte, table, time, seq uint64) []byte {
	dst = append(dst, prefixTable)
	dst = binary.BigEndian.AppendUint64(dst, table)
	dst = binary.BigEndian.AppendUint64(dst, time)
	return binary.BigEndian.AppendUint64(dst, seq)
}

// decodeUpdateKey returns the table, time and seq of an update key, and
// false if key is not one.
func decodeUpdateKey(key []byte) (table, time, seq uint64, ok bool) {
	if len(key) != updateKeyLen || key[0] != prefixTable {
		return 0, 0, 0, false
	}
	return binary.BigEndian.Uint64(key[1:]), binary.BigEndian.Uint64(key[9:]), binary.BigEndian.Uint64(key[17:]), true
}

// tableBounds returns the key range of table's update log.
func tableBounds(table uint64) (lower, upper []byte) {
	lower = binary.BigEndian.AppendUint64([]byte{prefixTable}, table)
	if table == math.MaxUint64 {
		return lower, []byte{prefixTable + 1}
	}
	return lower, binary.BigEndian.AppendUint64([]byte{prefixTable}, table+1)
}

// tableBoundsThrough returns the key range of table's updates at times
// <= time.
func tableBoundsThrough(table, time uint64) (lower, upper []byte) {
	lower, upper = tableBounds(table)
	if time == math.MaxUint64 {
		return lower, upper
	}
	return lower, appendUpdateKey(nil, table, time+1, 0)
}

// A table log's value is a block of updates: blockMark, then for each
// update its diff as a varint, its row's length as a uvarint and the row.
// A block holds consecutive updates of one table in one Txn, at most
// blockUpdates of them and about blockBytes of rows, so that a bulk
// load writes, flushes and compacts one key for hundreds of rows rather
// than one a row. Version 1 wrote one update a value: its diff as a
// varint, then the row. A varint starts with a zero byte only when it is
// 0, which no diff is, so the first byte tells the two apart.
const (
	blockMark    byte = 0x00
	blockUpdates      = 512
	blockBytes        = 32 << 10
)

// eachBlock splits src's updates into blocks: it calls update for every
// update and end after the last of each block, where blocking puts the
// blocks' ends.
func eachBlock(src Updates, update func(table uint64, row []byte, diff int64), end func()) {
	var b blocking
	src.Each(func(tb uint64, row []byte, diff int64) {
		if b.next(tb, row) {
			end()
		}
		update(tb, row, diff)
	})
	if b.open {
		end()
	}
}

// blocking is where blocks end. A block ends before an update of
// another table, after blockUpdates updates, or after the update that
// takes its rows to blockBytes (a block always holds at least one).
type blocking struct {
	open   bool
	table  uint64
	n, has int
}

// next takes the next update, of table tb with row, and reports whether
// the block open before it ends there.
func (b *blocking) next(tb uint64, row []byte) (ended bool) {
	if b.open && (tb != b.table || b.n == blockUpdates || b.has >= blockBytes) {
		ended, b.open = true, false
	}
	if !b.open {
		b.open, b.table, b.n, b.has = true, tb, 0, 0
	}
	b.n++
	b.has += len(row)
	return ended
}

// appendBlockUpdate appends one update of a block to dst.
func appendBlockUpdate(dst []byte, diff int64, row []byte) []byte {
	dst = binary.AppendVarint(dst, diff)
	dst = binary.AppendUvarint(dst, uint64(len(row)))
	return append(dst, row...)
}

// eachUpdate calls fn for every update a table log value holds, a block
// or a version 1 single update, in order, and returns false if the value
// does not decode (then fn may have been called for the updates before
// the fault). rows alias value. It stops, returning true, at the first
// error of fn, which it stores in *err.
func eachUpdate(value []byte, fn func(diff int64, row []byte) error, err *error) bool {
	if len(value) == 0 {
		return false
	}
	if value[0] != blockMark {
		diff, n := binary.Varint(value)
		if n <= 0 || diff == 0 {
			return false
		}
		*err = fn(diff, value[n:])
		return true
	}
	rest := value[1:]
	if len(rest) == 0 {
		return false
	}
	for len(rest) > 0 {
		diff, n := binary.Varint(rest)
		if n <= 0 || diff == 0 {
			return false
		}
		rest = rest[n:]
		size, m := binary.Uvarint(rest)
		if m <= 0 || size > uint64(len(rest)-m) {
			return false
		}
		row := rest[m : m+int(size)]
		rest = rest[m+int(size):]
		if *err = fn(diff, row); *err != nil {
			return true
		}
	}
	return true
}

func encodeUint64(v uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, v)
}

func decodeUint64(value []byte) (uint64, bool) {
	if len(value) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(value), true
}
