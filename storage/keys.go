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
// written with another version is refused at Open.
const formatVersion = 1

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

// appendUpdateValue appends the value of an update, its diff as a varint
// and then the row, to dst.
func appendUpdateValue(dst []byte, diff int64, row []byte) []byte {
	dst = binary.AppendVarint(dst, diff)
	return append(dst, row...)
}

// decodeUpdateValue returns the diff and row of an update value, and false
// if value is not one. row aliases value.
func decodeUpdateValue(value []byte) (diff int64, row []byte, ok bool) {
	diff, n := binary.Varint(value)
	if n <= 0 || diff == 0 {
		return 0, nil, false
	}
	return diff, value[n:], true
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
