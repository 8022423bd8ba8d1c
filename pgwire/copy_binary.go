package pgwire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"freshet/sqlerr"
)

// PostgreSQL's binary COPY format, the data of COPY … (FORMAT binary):
//
//	header   the 11-byte signature, an int32 of flags (bit 16: the rows
//	         carry OIDs; bits 17-31 are critical, bits 0-15 are not), an
//	         int32 length and that many bytes of header extension
//	tuple    an int16 field count, then per field an int32 length (-1
//	         for NULL) and the value in its type's binary format
//	trailer  an int16 -1
//
// All integers are big-endian. A reader accepts the end of the data in
// place of the trailer, at a tuple boundary, as PostgreSQL does.
//
// BinaryCopy converts each value between that format and the text format
// in which values cross the Session interface, with the same per-type
// conversions as the binary values of the extended protocol (format.go).

// copySignature starts every binary COPY stream.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// copyFlagOIDs is the header flag of rows that carry their OIDs, which
// PostgreSQL 12 and later no longer write or read.
const copyFlagOIDs = 1 << 16

// BinaryCopy reads and writes the binary COPY format for rows of fixed
// column types. It is not safe for concurrent use.
type BinaryCopy struct {
	oids []uint32
	f    formats
}

// NewBinaryCopy returns the BinaryCopy of rows whose columns have the
// type OIDs oids, in order; in reports that it will read (COPY FROM).
// lookup describes the OIDs the catalog gave out (an enum's, the array's
// over one), as Session.LookupType does. It fails with 42883, as the
// extended protocol does for a binary result or parameter, if a
// column's type has no binary format here.
func NewBinaryCopy(oids []uint32, in bool, lookup TypeLookup) (*BinaryCopy, error) {
	c := &BinaryCopy{oids: append([]uint32(nil), oids...)}
	for _, oid := range oids {
		c.f.learn(oid, lookup)
		if c.f.canBinary(oid) {
			continue
		}
		if in {
			return nil, errNoBinaryInput(c.f.typeName(oid))
		}
		return nil, errNoBinaryOutput(c.f.typeName(oid))
	}
	return c, nil
}

// AppendHeader appends the header PostgreSQL writes: the signature, no
// flags and no header extension.
func (c *BinaryCopy) AppendHeader(buf []byte) []byte {
	buf = append(buf, copySignature...)
	return binary.BigEndian.AppendUint64(buf, 0)
}

// AppendRow appends one tuple of vals, the row's values in text format
// (nil for NULL), one per column.
func (c *BinaryCopy) AppendRow(buf []byte, vals [][]byte) ([]byte, error) {
	if len(vals) != len(c.oids) {
		return nil, sqlerr.AssertionFailedf("COPY row has %d values for %d columns", len(vals), len(c.oids))
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(vals)))
	for i, v := range vals {
		if v == nil {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		out, err := c.f.appendBinary(buf, c.oids[i], v)
		if err != nil {
			return nil, err
		}
		buf = out
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// AppendTrailer appends the end-of-data marker.
func (c *BinaryCopy) AppendTrailer(buf []byte) []byte {
	return binary.BigEndian.AppendUint16(buf, 0xFFFF)
}

// NewReader returns a reader of the binary COPY data in r.
func (c *BinaryCopy) NewReader(r io.Reader) *BinaryCopyReader {
	return &BinaryCopyReader{c: c, r: bufio.NewReaderSize(r, 64<<10), field: -1}
}

// BinaryCopyReader reads the tuples of one binary COPY stream.
type BinaryCopyReader struct {
	c *BinaryCopy
	r *bufio.Reader
	// header reports that the header was read; done, that the trailer
	// or the end of the data was.
	header, done bool
	// tuple is the number of tuples started, from 1; field is the index
	// of the field being read, -1 outside a field.
	tuple, field int
	vals         [][]byte
	// raw holds the current field's bytes.
	raw bytes.Buffer
}

// Tuple returns the number of the tuple last read, from 1, or 0 if none
// was started: PostgreSQL's "line" of an error's context.
func (r *BinaryCopyReader) Tuple() int { return r.tuple }

// Field returns the index of the field whose reading failed, or -1 if
// the last error was not in a field.
func (r *BinaryCopyReader) Field() int { return r.field }

// Next returns the values of the next tuple in text format, nil for
// NULL, one per column, and io.EOF after the last. The values are valid
// until the next call. Malformed data fails with 22P04
// (bad_copy_file_format), a value that does not decode with 22P03
// (invalid_binary_representation), each in PostgreSQL's words.
func (r *BinaryCopyReader) Next() ([][]byte, error) {
	r.field = -1
	if r.done {
		return nil, io.EOF
	}
	if !r.header {
		if err := r.readHeader(); err != nil {
			return nil, err
		}
		r.header = true
	}
	var n [2]byte
	if got, err := io.ReadFull(r.r, n[:]); err != nil {
		if got == 0 && err == io.EOF || err == io.ErrUnexpectedEOF {
			// PostgreSQL takes the end of the data, even one byte
			// into a field count, for the end of the tuples.
			r.done = true
			return nil, io.EOF
		}
		return nil, err
	}
	r.tuple++
	count := int16(binary.BigEndian.Uint16(n[:]))
	if count == -1 {
		r.done = true
		// Nothing may follow the trailer.
		if _, err := r.r.ReadByte(); err == nil {
			return nil, badCopy("received copy data after EOF marker")
		} else if err != io.EOF {
			return nil, err
		}
		return nil, io.EOF
	}
	if int(count) != len(r.c.oids) {
		return nil, badCopy("row field count is %d, expected %d", count, len(r.c.oids))
	}
	r.vals = r.vals[:0]
	r.raw.Reset()
	for i, oid := range r.c.oids {
		r.field = i
		v, err := r.readField(oid)
		if err != nil {
			return nil, err
		}
		r.vals = append(r.vals, v)
	}
	r.field = -1
	return r.vals, nil
}

func (r *BinaryCopyReader) readHeader() error {
	var sig [len(copySignature)]byte
	if _, err := io.ReadFull(r.r, sig[:]); err != nil || string(sig[:]) != copySignature {
		if err := notEOF(err); err != nil {
			return err
		}
		return badCopy("COPY file signature not recognized")
	}
	flags, err := r.int32()
	if err != nil {
		return orBadCopy(err, "invalid COPY file header (missing flags)")
	}
	if flags&copyFlagOIDs != 0 {
		return badCopy("invalid COPY file header (WITH OIDS)")
	}
	if flags>>17 != 0 {
		return badCopy("unrecognized critical flags in COPY file header")
	}
	ext, err := r.int32()
	if err != nil || ext < 0 {
		return orBadCopy(err, "invalid COPY file header (missing length)")
	}
	if _, err := r.r.Discard(int(ext)); err != nil {
		return orBadCopy(err, "invalid COPY file header (wrong length)")
	}
	return nil
}

// readField reads one field and returns its value in text format, nil
// for NULL. The bytes grow the reader's buffer as they arrive, so that a
// length larger than the data allocates no more than the data.
func (r *BinaryCopyReader) readField(oid uint32) ([]byte, error) {
	size, err := r.int32()
	if err != nil {
		return nil, orBadCopy(err, "unexpected EOF in COPY data")
	}
	if size == -1 {
		return nil, nil
	}
	if size < 0 {
		return nil, badCopy("invalid field size")
	}
	r.raw.Reset()
	if n, err := io.CopyN(&r.raw, r.r, int64(size)); n != int64(size) {
		return nil, orBadCopy(err, "unexpected EOF in COPY data")
	}
	text, err := r.c.f.binaryToText(oid, r.raw.Bytes())
	if err != nil {
		return nil, err
	}
	// The text of a string type is the buffer itself, which the next
	// field overwrites.
	return append([]byte{}, text...), nil
}

func (r *BinaryCopyReader) int32() (int32, error) {
	var b [4]byte
	if _, err := io.ReadFull(r.r, b[:]); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b[:])), nil
}

func badCopy(format string, args ...any) error {
	return sqlerr.New(sqlerr.BadCopyFileFormat, format, args...)
}

// notEOF returns err unless it is the end of the data, which the caller
// reports as malformed data.
func notEOF(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// orBadCopy returns err if it is not the end of the data (a failed
// connection, a CopyFail), and 22P04 with msg otherwise.
func orBadCopy(err error, msg string) error {
	if err := notEOF(err); err != nil {
		return err
	}
	return badCopy("%s", msg)
}
