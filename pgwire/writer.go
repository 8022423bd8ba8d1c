package pgwire

import (
	"io"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/sqlerr"
)

// resultWriter is the Writer of one statement's run: it encodes rows as
// DataRows in the formats the client chose, and runs COPY's
// sub-protocols.
type resultWriter struct {
	c *conn
	// cols are the columns of the current result; formats holds the
	// format code of each, or is nil for all text.
	cols    []Column
	formats []int16

	// values and scratch are reused from row to row: the DataRow's values,
	// and the bytes of its binary values.
	values  [][]byte
	scratch []byte
	spans   [][2]int

	// copyIn is the reader of a COPY FROM STDIN, if one started.
	copyIn *copyReader
	// copyOut reports that a COPY TO STDOUT started and awaits CopyDone.
	copyOut bool
}

func (w *resultWriter) Row(values [][]byte) error {
	if len(values) != len(w.cols) {
		return sqlerr.New(sqlerr.InternalError, "row has %d values for %d columns", len(values), len(w.cols))
	}
	w.values = append(w.values[:0], values...)
	if w.scratch == nil {
		// Never nil: an empty binary value sliced out of it must stay an
		// empty value, not become NULL.
		w.scratch = make([]byte, 0, 256)
	}
	w.scratch = w.scratch[:0]
	w.spans = w.spans[:0]
	for i, v := range values {
		if v == nil || w.formats == nil || w.formats[i] != pgproto3.BinaryFormat {
			continue
		}
		start := len(w.scratch)
		var out []byte
		var err error
		if out, err = w.c.formats.appendBinary(w.scratch, w.cols[i].TypeOID, v); err != nil {
			return err
		}
		w.scratch = out
		w.spans = append(w.spans, [2]int{i, start})
	}
	// The binary values are sliced out only now: appending may have moved
	// the scratch buffer.
	for k, s := range w.spans {
		end := len(w.scratch)
		if k+1 < len(w.spans) {
			end = w.spans[k+1][1]
		}
		w.values[s[0]] = w.scratch[s[1]:end]
	}
	return w.c.send(&pgproto3.DataRow{Values: w.values})
}

func (w *resultWriter) Notice(n *sqlerr.Error) error {
	if n == nil {
		return nil
	}
	notice := *n
	switch notice.Severity {
	case "", sqlerr.SeverityError, sqlerr.SeverityFatal, sqlerr.SeverityPanic:
		// sqlerr.New makes ERRORs; a notice never is one.
		notice.Severity = sqlerr.SeverityNotice
	}
	return w.c.send((*pgproto3.NoticeResponse)(errorResponse(&notice)))
}

func (w *resultWriter) Flush() error { return w.c.flush() }

func (w *resultWriter) CopyIn(f CopyFormat) (io.Reader, error) {
	if w.copyIn != nil || w.copyOut {
		return nil, sqlerr.New(sqlerr.InternalError, "COPY started twice in one statement")
	}
	format, codes := copyFormat(f)
	if err := w.c.send(&pgproto3.CopyInResponse{OverallFormat: format, ColumnFormatCodes: codes}); err != nil {
		return nil, err
	}
	// The client sends nothing until it has the CopyInResponse.
	if err := w.c.flush(); err != nil {
		return nil, err
	}
	w.copyIn = &copyReader{c: w.c}
	return w.copyIn, nil
}

func (w *resultWriter) CopyOut(f CopyFormat) (io.Writer, error) {
	if w.copyIn != nil || w.copyOut {
		return nil, sqlerr.New(sqlerr.InternalError, "COPY started twice in one statement")
	}
	format, codes := copyFormat(f)
	if err := w.c.send(&pgproto3.CopyOutResponse{OverallFormat: format, ColumnFormatCodes: codes}); err != nil {
		return nil, err
	}
	w.copyOut = true
	return copyWriter{w.c}, nil
}

// copyFormat returns the overall and per-column format codes of
// CopyInResponse and CopyOutResponse.
func copyFormat(f CopyFormat) (byte, []uint16) {
	var code uint16
	if f.Binary {
		code = pgproto3.BinaryFormat
	}
	codes := make([]uint16, max(f.Columns, 0))
	for i := range codes {
		codes[i] = code
	}
	return byte(code), codes
}

// complete sends what ends a successful statement: CopyDone after COPY TO
// STDOUT, then the command tag.
func (w *resultWriter) complete(tag string) error {
	if w.copyOut {
		w.copyOut = false
		if err := w.c.send(&pgproto3.CopyDone{}); err != nil {
			return err
		}
	}
	return w.c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
}

// finish is called when the statement returns, with its error. After a
// successful COPY FROM STDIN that did not read all its data, the rest is
// read and dropped, so that the reply follows the client's CopyDone.
// After a failed one nothing is drained: the client learns of the error
// at once, and the main loop drops what it still sends, as PostgreSQL
// does.
func (w *resultWriter) finish(err error) error {
	if err == nil && w.copyIn != nil {
		err = w.copyIn.drain()
	}
	w.copyIn = nil
	return err
}

// copyWriter sends each Write as one CopyData message.
type copyWriter struct{ c *conn }

func (cw copyWriter) Write(p []byte) (int, error) {
	if err := cw.c.send(&pgproto3.CopyData{Data: p}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// copyReader reads the client's side of COPY FROM STDIN.
type copyReader struct {
	c *conn
	// data is what is left of the last CopyData, whose body is body.
	data, body []byte
	// err ends the stream: io.EOF after CopyDone, or the error of a
	// CopyFail, a protocol violation or a lost connection.
	err error
}

func (r *copyReader) Read(p []byte) (int, error) {
	for len(r.data) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.receive()
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// receive reads the next message of the copy sub-protocol.
func (r *copyReader) receive() {
	f, err := r.c.next()
	if err != nil {
		if err == io.EOF {
			// The client closed the connection, which does not end the data
			// the way CopyDone does.
			err = errClientGone
		}
		r.err = err
		return
	}
	// Reading stopped the COPY's watcher: what follows (the rows' parse,
	// after CopyDone the commit) is watched again.
	r.c.watch.arm()
	// Every byte of the last CopyData was read: its body goes back for
	// another to be read into.
	if r.body != nil {
		recycleCopyData(r.body)
		r.data, r.body = nil, nil
	}
	switch f.typ {
	case 'd':
		r.data, r.body = f.body, f.body
	case 'c':
		r.err = io.EOF
	case 'f':
		var m pgproto3.CopyFail
		if err := m.Decode(f.body); err != nil {
			r.err = protocolViolation("invalid message format")
			return
		}
		r.err = sqlerr.New(sqlerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
	case 'H', 'S':
		// PostgreSQL ignores Flush and Sync during COPY FROM STDIN.
	default:
		r.err = protocolViolation("unexpected message type 0x%02X during COPY from stdin", f.typ)
	}
}

// drain reads the copy data up to its end. It returns the error that
// ended it, other than CopyDone.
func (r *copyReader) drain() error {
	for r.err == nil {
		r.receive()
	}
	r.data = nil
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// queryWriter is the QueryWriter of a simple Query message.
type queryWriter struct {
	resultWriter
	// completed counts the statements that completed.
	completed int
}

func (w *queryWriter) Describe(columns []Column) error {
	w.cols = columns
	w.formats = nil
	return w.c.send(rowDescription(columns, nil))
}

func (w *queryWriter) Complete(tag string) error {
	w.completed++
	w.cols, w.formats = nil, nil
	return w.complete(tag)
}

// rowDescription returns the RowDescription of columns with the given
// format codes (nil: text, as for Describe of a statement).
func rowDescription(columns []Column, formats []int16) *pgproto3.RowDescription {
	fields := make([]pgproto3.FieldDescription, len(columns))
	for i, col := range columns {
		size := col.TypeSize
		if size == 0 {
			size = typeSize(col.TypeOID)
		}
		fields[i] = pgproto3.FieldDescription{
			Name:                 []byte(col.Name),
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.ColumnNumber),
			DataTypeOID:          col.TypeOID,
			DataTypeSize:         size,
			TypeModifier:         col.TypeModifier,
		}
		if formats != nil {
			fields[i].Format = formats[i]
		}
	}
	return &pgproto3.RowDescription{Fields: fields}
}
