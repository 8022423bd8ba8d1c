package coord

import (
	"bytes"
	"io"
	"sync/atomic"

	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
)

// A segment is a stretch of a text COPY's data that holds whole lines:
// it is cut after a line break, which in the text format always ends a
// row (a line break inside a value is written \n). Segments can
// therefore be parsed apart from each other, each knowing nothing of the
// others but where its first line falls; copySegments parses them on
// goroutines of their own. The word is not arrange.Chunk's: a chunk is a
// worker's share of rows that the split sends, a segment is text.

// copySegmentSize is the size a segment is read to before it is cut; a
// segment is larger only to hold a line longer than this. A variable,
// so that tests make COPYs of a few lines span many segments.
var copySegmentSize = 256 << 10

// textSegment is a segment: data holds whole lines, each ended by a line
// break, but for the last line of the data (last) that may lack one.
type textSegment struct {
	data []byte
	last bool
}

// segmentReader cuts a text COPY's data into segments as it reads it.
// The zero value is not usable; see newSegmentReader.
type segmentReader struct {
	r io.Reader
	// buf is the next segment's buffer, which holds what was read after
	// the last segment's last line break; nil before the first.
	buf []byte
	// free holds buffers of copySegmentSize whose segments are parsed,
	// for the next segments.
	free [][]byte
	// err is the error that ended the data: io.EOF at its end.
	err error
}

func newSegmentReader(r io.Reader) *segmentReader {
	return &segmentReader{r: r}
}

// next returns the next segment, and after the last one (the one whose
// last is set) io.EOF. A read that fails ends the data at the last line
// break before it, as a failed read ends the line it was reading in
// textCopySource: the segment of the lines before it comes first, then
// the error.
func (sr *segmentReader) next() (textSegment, error) {
	if sr.err != nil {
		return textSegment{}, sr.err
	}
	buf := sr.buf
	if buf == nil {
		// The first segment starts at the size of textCopySource's
		// buffer and grows: a COPY that fits it, which copyRows reads
		// again, holds no more.
		buf = make([]byte, 0, min(copySegmentSize, copyReadSize))
	}
	for {
		if len(buf) == cap(buf) {
			if i := bytes.LastIndexByte(buf, '\n'); i >= 0 && cap(buf) >= copySegmentSize {
				return sr.cut(buf, i+1), nil
			}
			// The first segment, or a line longer than a segment: the
			// segment grows to hold it.
			grown := make([]byte, len(buf), 2*cap(buf))
			copy(grown, buf)
			buf = grown
		}
		n, err := sr.r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			sr.err, sr.buf = err, nil
			if err == io.EOF {
				return textSegment{data: buf, last: true}, nil
			}
			// The partial line after the last line break is dropped.
			return textSegment{data: buf[:bytes.LastIndexByte(buf, '\n')+1]}, nil
		}
	}
}

// cut returns buf's first n bytes as a segment, and starts the next
// segment's buffer with the rest, copied: a segment's buffer is the
// parse's alone.
func (sr *segmentReader) cut(buf []byte, n int) textSegment {
	rest := buf[n:]
	sr.buf = append(sr.buffer(len(rest)), rest...)
	return textSegment{data: buf[:n]}
}

// buffer returns an empty buffer for a segment that starts with n bytes
// carried over.
func (sr *segmentReader) buffer(n int) []byte {
	if k := len(sr.free); k > 0 && n <= copySegmentSize/2 {
		buf := sr.free[k-1]
		sr.free = sr.free[:k-1]
		return buf
	}
	return make([]byte, 0, max(copySegmentSize, 2*n))
}

// recycle takes back the buffer of a segment that is parsed. Only
// buffers of copySegmentSize are kept, and so never more than the
// segments in flight: one that grew for a long line goes.
func (sr *segmentReader) recycle(seg textSegment) {
	if cap(seg.data) == copySegmentSize {
		sr.free = append(sr.free, seg.data[:0])
	}
}

// segmentRows is what a segment's parse made of it.
type segmentRows struct {
	// parts hold the segment's rows, in order, up to the end marker or
	// the first error.
	parts []*packedInserts
	// lines counts the lines read, the end marker's excluded.
	lines int
	// end reports whether the segment holds the end marker \., which
	// ends the data.
	end bool
	// stopped reports whether the parse was stopped before its end.
	stopped bool
	// err is the first line's error, at line (from the segment's first
	// line, 1) and field, as encodeCopyRow places it; line is 0 for an
	// error without a place.
	err         error
	line, field int
}

// segmentParser parses segments of one text COPY into packed parts. A
// parser is used by one goroutine at a time; its row builder and fields
// are reused from one segment to the next. Like its builder, it shares
// no cache line with other memory: it writes its fields for every line.
type segmentParser struct {
	_      linePad
	st     *planner.Copy
	zone   *repr.Zone
	fields textFields
	rows   *copyRowBuilder
	_      linePad
}

func newSegmentParser(st *planner.Copy, zone *repr.Zone, defaults []expr.Scalar) *segmentParser {
	p := &segmentParser{st: st, zone: zone, fields: newTextFields(st.Options), rows: newCopyRowBuilder(st, defaults)}
	p.fields.fields = ownLines[[]byte](len(st.Columns) + 1)[:0]
	return p
}

// parse turns seg's lines into packed parts exactly as copyRows turns
// them into rows, and stops, with stopped set, once stop is set.
// It is a pure function of seg, and of the rows' defaults, which are
// the same for every row (perStatement).
func (p *segmentParser) parse(seg textSegment, stop *atomic.Bool) segmentRows {
	var out segmentRows
	data := seg.data
	// Every line break ends a line: the segment's lines are known, and
	// its first part is sized for them all.
	left := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		left++
	}
	var part *packedInserts
	for ; len(data) > 0; left-- {
		if stop.Load() {
			out.stopped = true
			break
		}
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		text := lineText(raw)
		if isEndMarker(text) {
			out.end = true
			break
		}
		if len(text) == 0 && raw[len(raw)-1] != '\n' {
			// A last line without a line break that is empty but for
			// \r is no line, as in textCopySource.
			break
		}
		out.lines++
		size, fi, err := encodeCopyRow(p.st, p.rows, p.fields.split(text), p.zone)
		if err != nil {
			out.err, out.line, out.field = err, out.lines, fi
			if fi == noCopyPlace {
				out.line = 0
			}
			break
		}
		if part == nil || part.full(size) {
			if part != nil {
				out.parts = append(out.parts, part)
			}
			part = sizedCopyPart(p.st, part, size, left)
		}
		part.Data = p.rows.appendRow(part.Data)
		part.Ends = append(part.Ends, uint32(len(part.Data)))
	}
	if part != nil {
		out.parts = append(out.parts, part)
	}
	return out
}
