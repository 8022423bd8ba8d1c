package repr

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Row is one row: its datums encoded one after another, each tagged with
// its type family, canonically and order-preservingly (encode.go has the
// format). A Row does not record its column types; whoever holds rows
// knows them, and decoding takes them.
//
// Invariants, for rows with the same column types:
//   - Equal values have equal bytes: 1.0 and 1.00 as numeric, -0.0 and
//     0.0 as float, NaN and NaN, 5::int2 and 5::int8, 'a ' and 'a' as
//     char(n). So equality, hashing and grouping work on bytes.
//   - bytes.Compare orders rows as ORDER BY every column ASC NULLS LAST
//     (PostgreSQL's default), with text in the C collation, and agrees
//     with Compare on the decoded datums.
//   - Each datum's encoding is self-delimiting, so the concatenation of
//     two rows is the row of their columns side by side.
//
// A Row is immutable once built: it may share memory with other rows
// (batches keep rows in one arena), so never write into it.
type Row []byte

// Compare returns -1, 0 or +1 as r sorts before, with or after o.
func (r Row) Compare(o Row) int { return bytes.Compare(r, o) }

// Equal reports whether r and o hold equal values.
func (r Row) Equal(o Row) bool { return bytes.Equal(r, o) }

// Hash returns a hash of r's bytes. It is deterministic across processes
// and platforms, because workers route rows by it: changing the function
// changes which worker owns which key. It is not a cryptographic hash.
func (r Row) Hash() uint64 { return hashBytes(r) }

// Datums decodes r into datums of the given column types. It reports an
// assertion failure (XX000) if r does not hold exactly one datum of each
// type: rows are built by this package, so that is a bug.
func (r Row) Datums(types []Type) ([]Datum, error) {
	return r.DecodeInto(make([]Datum, 0, len(types)), types)
}

// DecodeInto decodes r like Datums, appending to dst[:0] so that a
// caller can reuse one slice for many rows.
func (r Row) DecodeInto(dst []Datum, types []Type) ([]Datum, error) {
	dst = dst[:0]
	it := r.Iter()
	for _, t := range types {
		d, err := it.Next(t)
		if err != nil {
			return dst, err
		}
		dst = append(dst, d)
	}
	if !it.Done() {
		return dst, errCorrupt("row has more datums than its %d types", len(types))
	}
	return dst, nil
}

// String returns the row's datums in text form, for logs and test
// failures; it needs no types, so it shows encoded values, not typed
// ones (an int2 and an int8 look alike).
func (r Row) String() string {
	var b []byte
	b = append(b, '(')
	it := r.Iter()
	for !it.Done() {
		if len(b) > 1 {
			b = append(b, ',')
		}
		d, err := it.Next(familyType(it.rest[0]))
		if err != nil {
			return string(append(b, "<corrupt>)"...))
		}
		b = append(b, d.String()...)
	}
	return string(append(b, ')'))
}

// RowIter decodes a row's datums one at a time, without allocating for
// any type but numeric and the string types.
type RowIter struct {
	rest []byte
}

// Iter returns an iterator over r's datums.
func (r Row) Iter() RowIter { return RowIter{rest: r} }

// Done reports whether every datum has been read.
func (it *RowIter) Done() bool { return len(it.rest) == 0 }

// Next decodes the next datum as a value of type t. The type supplies
// what the bytes do not hold: the integer width, float4 or float8, the
// string kind and char(n) padding, and the numeric display scale.
func (it *RowIter) Next(t Type) (Datum, error) {
	d, n, err := decodeDatum(it.rest, t)
	if err != nil {
		return Null, err
	}
	it.rest = it.rest[n:]
	return d, nil
}

// NextRaw returns the encoding of the next datum without decoding it, to
// copy columns from row to row with RowPacker.PushEncoded.
func (it *RowIter) NextRaw() ([]byte, error) {
	n, err := datumLen(it.rest)
	if err != nil {
		return nil, err
	}
	raw := it.rest[:n:n]
	it.rest = it.rest[n:]
	return raw, nil
}

// RowPacker builds rows in a buffer that it reuses from row to row.
// The zero value is ready to use.
type RowPacker struct {
	buf []byte
}

// Push appends d to the row being built.
func (p *RowPacker) Push(d Datum) { p.buf = AppendDatum(p.buf, d) }

// PushNull appends NULL to the row being built.
func (p *RowPacker) PushNull() { p.buf = append(p.buf, tagNull) }

// IsNullEncoding reports whether b, one datum's encoding as a row holds
// it, is NULL's.
func IsNullEncoding(b []byte) bool { return len(b) == 1 && b[0] == tagNull }

// PushEncoded appends datums already encoded, such as a whole Row or a
// datum from RowIter.NextRaw.
func (p *RowPacker) PushEncoded(b []byte) { p.buf = append(p.buf, b...) }

// Bytes returns the row built so far. It aliases the packer's buffer:
// it is valid only until the next call on the packer.
func (p *RowPacker) Bytes() Row { return p.buf }

// Finish returns a copy of the row built so far, in its own memory, and
// resets the packer for the next row.
func (p *RowPacker) Finish() Row {
	r := make(Row, len(p.buf))
	copy(r, p.buf)
	p.buf = p.buf[:0]
	return r
}

// AppendTo appends the row built so far to arena, resets the packer, and
// returns the grown arena and the row, which aliases the arena's end.
// Batches use it to keep many rows in one allocation.
func (p *RowPacker) AppendTo(arena []byte) ([]byte, Row) {
	start := len(arena)
	arena = append(arena, p.buf...)
	p.buf = p.buf[:0]
	return arena, Row(arena[start:len(arena):len(arena)])
}

// Reset discards the row being built.
func (p *RowPacker) Reset() { p.buf = p.buf[:0] }

// PackRow returns the row of the given datums.
func PackRow(datums ...Datum) Row {
	var p RowPacker
	for _, d := range datums {
		p.Push(d)
	}
	return p.Finish()
}

// hashBytes is a 64-bit multiply-rotate hash over 8-byte words with a
// final avalanche. Its output is part of the data layout (see Row.Hash).
func hashBytes(b []byte) uint64 {
	const (
		k1 = 0x9e3779b97f4a7c15
		k2 = 0xc2b2ae3d27d4eb4f
	)
	h := uint64(len(b)) * k1
	for len(b) >= 8 {
		h = bits.RotateLeft64(h^binary.LittleEndian.Uint64(b)*k2, 29) * k1
		b = b[8:]
	}
	if len(b) > 0 {
		var tail uint64
		for i, c := range b {
			tail |= uint64(c) << (8 * i)
		}
		h = bits.RotateLeft64(h^tail*k2, 29) * k1
	}
	h ^= h >> 32
	h *= k2
	h ^= h >> 29
	h *= k1
	h ^= h >> 32
	return h
}

// Prefix returns the row of r's first n datums. A table that gained
// columns (ALTER TABLE … ADD COLUMN) holds rows wider than the plans
// made before the change read: those plans take each row's prefix, the
// columns they know, which the encoding makes a prefix of the bytes.
// A row of n datums or fewer is returned whole; a corrupt row is
// returned whole too, for decoding to report.
func (r Row) Prefix(n int) Row {
	rest := []byte(r)
	for i := 0; i < n; i++ {
		if len(rest) == 0 {
			return r
		}
		l, err := datumLen(rest)
		if err != nil {
			return r
		}
		rest = rest[l:]
	}
	return r[: len(r)-len(rest) : len(r)-len(rest)]
}
