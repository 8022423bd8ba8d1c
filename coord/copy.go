package coord

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"freshet/expr"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// copyFrom runs COPY table FROM STDIN in the text or binary format; all
// rows commit at one time, or none if any fails.
func (s *Session) copyFrom(ctx context.Context, st *planner.Copy, w pgwire.Writer) (result, error) {
	format := pgwire.CopyFormat{Columns: len(st.Columns)}
	var bc *pgwire.BinaryCopy
	switch st.Options.Format {
	case "text", "", "csv":
	case "binary":
		oids := make([]uint32, len(st.Columns))
		for i, ci := range st.Columns {
			oids[i] = st.Table.Columns[ci].Type.OID()
		}
		var err error
		if bc, err = pgwire.NewBinaryCopy(oids, true, s.LookupType); err != nil {
			return result{}, err
		}
		format.Binary = true
	default:
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "COPY FROM with format %s is not supported", st.Options.Format)
	}
	r, err := w.CopyIn(format)
	if err != nil {
		return result{}, err
	}
	var src copySource
	switch {
	case bc != nil:
		src = binaryCopySource{bc.NewReader(r)}
	case st.Options.Format == "csv":
		src = newCSVCopySource(r, st.Options)
	default:
		src = newTextCopySource(r, st.Options)
	}
	if st.Options.Header {
		if err := s.copyHeader(st, src); err != nil {
			return result{}, err
		}
	}
	// A timestamptz field without an offset is read in the session's
	// time zone.
	zone := s.zone()
	var rowNumber int64
	defaults, err := s.copyDefaults(st, &rowNumber)
	if err != nil {
		return result{}, err
	}
	out := &copyParts{s: s, st: st}
	defer out.finish()
	// A text COPY's lines are parsed in segments, on as many cores as
	// there are, unless a default must be drawn per row in their order.
	// CSV's quoted values may hold line breaks, so its lines are not
	// its rows; binary is read one row at a time.
	if text, ok := src.(*textCopySource); ok && perStatement(defaults) {
		err = s.copySegments(ctx, st, text, zone, defaults, &rowNumber, out)
	} else {
		err = copyRows(st, src, zone, defaults, &rowNumber, out)
	}
	if err != nil {
		return result{}, err
	}
	out.end()
	parts, n, split := out.parts, out.n, out.split
	if s.tx.status == pgwire.TxInBlock {
		if err := s.engine.checkBlockWrite(&s.tx.keys, s.tx.writes, parts); err != nil {
			return result{}, err
		}
		// A block's writes are one slice, which grows with its
		// statements.
		s.tx.writes = slices.Grow(s.tx.writes, n)
		for w := range parts.all() {
			s.tx.writes = append(s.tx.writes, *w)
		}
		s.tx.noteName(uint64(st.Table.ID), st.Table.Name.Name)
	} else if n > 0 {
		if split != nil {
			if err := split.finish(); err != nil {
				return result{}, err
			}
		}
		if _, err := s.engine.writeSplit(ctx, parts, split); err != nil {
			return result{}, namedTableError(err, map[uint64]string{uint64(st.Table.ID): st.Table.Name.Name})
		}
	}
	return result{tag: fmt.Sprintf("COPY %d", n)}, nil
}

// copyRows reads src's rows one at a time and gathers them in out: the
// path of every format where the text is not parsed in segments
// (copySegments). *rowNumber counts the rows, for the defaults that
// draw a value per row.
func copyRows(st *planner.Copy, src copySource, zone *repr.Zone, defaults []expr.Scalar, rowNumber *int64, out *copyParts) error {
	rows := newCopyRowBuilder(st, defaults)
	for ; ; *rowNumber++ {
		fields, err := src.next()
		if err == io.EOF {
			return nil
		}
		line, col := src.where()
		if err != nil {
			if col >= 0 {
				return copyError(err, "COPY %s, line %d, column %s", st.Table.Name.Name, line, st.Table.Columns[st.Columns[col]].Name)
			}
			return copyLineError(st, err, line, -1)
		}
		size, fi, err := encodeCopyRow(st, rows, fields, zone)
		if err != nil {
			if fi == noCopyPlace {
				line = 0
			}
			return copyLineError(st, err, line, fi)
		}
		out.row(rows, size)
	}
}

// encodeCopyRow checks that fields, a row of COPY st's data, has a
// field per column, and encodes it with rows for their appendRow. It
// returns the row's size, or an error and the index of the field it is
// about: -1 for the line as a whole, noCopyPlace for an error about the
// row's values together (a default's, a NOT NULL column's), which
// PostgreSQL reports without the line.
func encodeCopyRow(st *planner.Copy, rows *copyRowBuilder, fields [][]byte, zone *repr.Zone) (int, int, error) {
	if len(fields) != len(st.Columns) {
		return 0, -1, sqlerr.New(sqlerr.BadCopyFileFormat, "%s", copyFieldError(st, len(fields)))
	}
	forceNulls(st.Options, fields)
	size, fi, err := rows.encode(fields, zone)
	if err != nil && fi < 0 {
		fi = noCopyPlace
	}
	return size, fi, err
}

// noCopyPlace is the field of an error that has no place in the data.
const noCopyPlace = -2

// copyLineError returns err, an error of line (from 1) of COPY st's
// data, with its place as the detail: the column of field, or the line
// alone for field -1; err as it is for line 0 (no place).
func copyLineError(st *planner.Copy, err error, line, field int) error {
	switch {
	case line > 0 && field >= 0:
		return copyError(err, "COPY %s, line %d, column %s", st.Table.Name.Name, line, st.Table.Columns[st.Columns[field]].Name)
	case line > 0:
		return copyError(err, "COPY %s, line %d", st.Table.Name.Name, line)
	}
	return err
}

// copyError returns err, with its SQLSTATE and message, and the place in
// the COPY data where it happened as its detail (PostgreSQL's context).
func copyError(err error, format string, args ...any) error {
	return sqlerr.From(err).WithDetail(format, args...)
}

// copySource reads the rows of COPY FROM STDIN's data in one format.
type copySource interface {
	// next returns the next row's fields in text format, nil for NULL,
	// and io.EOF after the last row. The fields may alias the source's
	// buffers: they are valid until the next call.
	next() ([][]byte, error)
	// where returns the number of the row last read, from 1 (0 before
	// the first), and the index of the field whose reading failed, or
	// -1.
	where() (line, field int)
	// skip reads the next row and drops it, without reading its fields
	// (a header line HEADER does not match); io.EOF after the last.
	skip() error
}

// textCopySource reads COPY's text format: one row per line, fields
// separated by the delimiter, the NULL string for NULL, backslash
// escapes, and an optional end marker \. on a line of its own.
type textCopySource struct {
	textFields
	br   *bufio.Reader
	line int
	done bool
	long []byte // a line longer than br's buffer, reused
}

// copyReadSize is the size of the buffer COPY FROM reads its data
// through.
const copyReadSize = 64 << 10

func newTextCopySource(r io.Reader, opts planner.CopyOptions) *textCopySource {
	return &textCopySource{br: bufio.NewReaderSize(r, copyReadSize), textFields: newTextFields(opts)}
}

// next returns the fields of the next line. They alias the reader's
// buffer and are valid until the next call.
func (t *textCopySource) next() ([][]byte, error) {
	if t.done {
		return nil, io.EOF
	}
	text, err := t.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		t.long = append(t.long[:0], text...)
		for err == bufio.ErrBufferFull {
			text, err = t.br.ReadSlice('\n')
			t.long = append(t.long, text...)
		}
		text = t.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	t.done = err == io.EOF
	text = lineText(text)
	if isEndMarker(text) || (len(text) == 0 && err == io.EOF) {
		t.done = true
		return nil, io.EOF
	}
	t.line++
	return t.split(text), nil
}

// reread makes t read data, all that is left of its input, which it has
// already read once.
func (t *textCopySource) reread(data []byte) {
	t.br.Reset(bytes.NewReader(data))
	t.done = false
}

// lineText returns a line of text format without its line break: \n,
// \r\n, or none for a last line without one.
func lineText(line []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
}

// isEndMarker reports whether text, a line without its line break, is
// the end marker \., which ends the data.
func isEndMarker(text []byte) bool { return string(text) == `\.` }

// textFields splits the lines of COPY's text format into fields.
type textFields struct {
	delim, null string
	fields      [][]byte // the last line's fields, reused
}

func newTextFields(opts planner.CopyOptions) textFields {
	f := textFields{delim: opts.Delimiter, null: opts.Null}
	if f.delim == "" {
		f.delim = "\t"
	}
	if f.null == "" {
		f.null = `\N`
	}
	return f
}

// split returns the fields of text, a line without its line break, nil
// for NULL. They alias text, or the field's unescaped copy, and are
// valid until the next call.
func (t *textFields) split(text []byte) [][]byte {
	t.fields = t.fields[:0]
	// A line with no backslash has no escapes to undo in any field.
	escaped := bytes.IndexByte(text, '\\') >= 0
	for {
		var (
			p, rest []byte
			more    bool
		)
		if len(t.delim) == 1 {
			// The usual one-byte delimiter, found without bytes.Index's
			// general search.
			if i := bytes.IndexByte(text, t.delim[0]); i >= 0 {
				p, rest, more = text[:i], text[i+1:], true
			} else {
				p = text
			}
		} else {
			p, rest, more = bytes.Cut(text, []byte(t.delim))
		}
		switch {
		case string(p) == t.null:
			t.fields = append(t.fields, nil)
		case escaped && bytes.IndexByte(p, '\\') >= 0:
			t.fields = append(t.fields, []byte(unescapeCopy(string(p))))
		case p == nil:
			// Never nil, which would read as NULL, even when empty.
			t.fields = append(t.fields, []byte{})
		default:
			t.fields = append(t.fields, p)
		}
		if !more {
			return t.fields
		}
		text = rest
	}
}

func (t *textCopySource) where() (int, int) { return t.line, -1 }

func (t *textCopySource) skip() error {
	_, err := t.next()
	return err
}

// binaryCopySource reads COPY's binary format.
type binaryCopySource struct{ r *pgwire.BinaryCopyReader }

func (b binaryCopySource) next() ([][]byte, error) { return b.r.Next() }
func (b binaryCopySource) where() (int, int)       { return b.r.Tuple(), b.r.Field() }
func (b binaryCopySource) skip() error {
	_, err := b.next()
	return err
}

// copyFieldError is PostgreSQL's message for a row of got fields where
// COPY st expects one per column.
func copyFieldError(st *planner.Copy, got int) string {
	if got < len(st.Columns) {
		return fmt.Sprintf("missing data for column \"%s\"", st.Table.Columns[st.Columns[got]].Name)
	}
	return "extra data after last expected column"
}

// copyHeader reads the header line of COPY FROM … HEADER and, for HEADER
// MATCH, checks that it names the columns in order, with PostgreSQL's
// errors.
func (s *Session) copyHeader(st *planner.Copy, src copySource) error {
	var fields [][]byte
	var err error
	if st.Options.HeaderMatch {
		fields, err = src.next()
	} else {
		err = src.skip()
	}
	if err == io.EOF {
		return nil
	}
	line, _ := src.where()
	if err == nil && st.Options.HeaderMatch {
		if len(fields) != len(st.Columns) {
			err = sqlerr.New(sqlerr.BadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", len(fields), len(st.Columns))
		}
		for i := 0; err == nil && i < len(fields); i++ {
			name := st.Table.Columns[st.Columns[i]].Name
			switch {
			case fields[i] == nil:
				err = sqlerr.New(sqlerr.BadCopyFileFormat, "column name mismatch in header line field %d: got null value (\"%s\"), expected \"%s\"", i+1, st.Options.Null, name)
			case string(fields[i]) != name:
				err = sqlerr.New(sqlerr.BadCopyFileFormat, "column name mismatch in header line field %d: got \"%s\", expected \"%s\"", i+1, fields[i], name)
			}
		}
	}
	if err != nil {
		return copyError(err, "COPY %s, line %d", st.Table.Name.Name, line)
	}
	return nil
}

// forceNulls applies CSV's FORCE_NOT_NULL (a NULL field reads as the
// NULL string) and FORCE_NULL (a field equal to the NULL string, quoted
// or not, is NULL) to a row's fields, as PostgreSQL's NextCopyFrom does.
func forceNulls(opts planner.CopyOptions, fields [][]byte) {
	if opts.ForceNotNull == nil && opts.ForceNull == nil {
		return
	}
	for i := range fields {
		switch {
		case fields[i] == nil && opts.ForceNotNull != nil && opts.ForceNotNull[i]:
			fields[i] = []byte(opts.Null)
		case fields[i] != nil && opts.ForceNull != nil && opts.ForceNull[i] && string(fields[i]) == opts.Null:
			fields[i] = nil
		}
	}
}

// unescapeCopy undoes COPY text format's backslash escapes.
func unescapeCopy(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// copyTo runs COPY table | (query) TO STDOUT in the text or CSV format,
// a row per CopyData message, with PostgreSQL's escapes: in text, a
// backslash before the delimiter, backslash and control characters, \N
// for NULL; in CSV, a field quoted when it holds the delimiter, the quote
// character or a line break, reads as the NULL string (so that by
// default the empty string is told from NULL) or its column is in
// FORCE_QUOTE, its quotes doubled. Timestamps with time zone are in the session's
// zone, as in a query's result.
func (s *Session) copyTo(ctx context.Context, st *planner.CopyTo, w pgwire.Writer) (result, error) {
	// The planner filled in the format's defaults and checked the
	// options (planner.copyOptions).
	opts := st.Options
	csv := opts.Format == "csv"
	delim, null, quote, escape := opts.Delimiter, opts.Null, opts.Quote, opts.Escape
	if csv && (len(quote) != 1 || len(escape) != 1) {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "COPY quote and escape must be a single one-byte character")
	}
	if opts.Format == "binary" {
		return s.copyToBinary(ctx, st, w)
	}
	// The rows are written as the query produces them: a COPY of a
	// table streams (selectRows).
	query, err := s.selectRows(ctx, st.Query)
	if err != nil {
		return result{}, err
	}
	out, err := w.CopyOut(pgwire.CopyFormat{Columns: len(st.Query.Columns)})
	if err != nil {
		return result{}, err
	}
	single := len(st.Query.Columns) == 1
	field := func(b []byte, v []byte, isNull, force bool) []byte {
		if csv {
			return appendCopyCSV(b, v, isNull, force, single, delim, null, quote, escape)
		}
		return appendCopyText(b, v, isNull, delim, null)
	}
	forced := func(i int) bool {
		return opts.ForceQuoteAll || (opts.ForceQuote != nil && opts.ForceQuote[i])
	}
	var line []byte
	if opts.Header {
		line = line[:0]
		for i, c := range st.Query.Columns {
			if i > 0 {
				line = append(line, delim...)
			}
			line = field(line, []byte(c.Name), false, false)
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return result{}, err
		}
	}
	n, err := query.stream(ctx, func(vals [][]byte) error {
		line = line[:0]
		for i, v := range vals {
			if i > 0 {
				line = append(line, delim...)
			}
			line = field(line, v, v == nil, forced(i))
		}
		_, err := out.Write(append(line, '\n'))
		return err
	})
	if err != nil {
		return result{}, err
	}
	return result{tag: fmt.Sprintf("COPY %d", n)}, nil
}

// copyDefaults returns, per column of st's table, the default that COPY
// FROM evaluates for each row, nil for a column the data gives or one
// without a default. They are bound once for the statement, as INSERT's
// are (bindScalars), and draw random values per row, numbered by *row,
// since every row's defaults are evaluated over the same empty row.
func (s *Session) copyDefaults(st *planner.Copy, row *int64) ([]expr.Scalar, error) {
	given := make([]bool, len(st.Table.Columns))
	for _, ci := range st.Columns {
		given[ci] = true
	}
	var cols []int
	var scalars []expr.Scalar
	for i := range st.Table.Columns {
		if d := s.engine.defaultOf(uint64(st.Table.ID), i); d != nil && !given[i] {
			cols, scalars = append(cols, i), append(scalars, d)
		}
	}
	out := make([]expr.Scalar, len(st.Table.Columns))
	if len(scalars) == 0 {
		return out, nil
	}
	bound, err := s.bindScalars(scalars, row, "a column default")
	if err != nil {
		return nil, err
	}
	for k, i := range cols {
		out[i] = bound[k]
	}
	return out, nil
}

// copyToBinary runs COPY … TO STDOUT (FORMAT binary): the header with
// the first row, a row per CopyData message, the trailer in the last.
func (s *Session) copyToBinary(ctx context.Context, st *planner.CopyTo, w pgwire.Writer) (result, error) {
	oids := make([]uint32, len(st.Query.Columns))
	for i, c := range st.Query.Columns {
		oids[i] = c.Type.OID()
	}
	bc, err := pgwire.NewBinaryCopy(oids, false, s.LookupType)
	if err != nil {
		return result{}, err
	}
	query, err := s.selectRows(ctx, st.Query)
	if err != nil {
		return result{}, err
	}
	out, err := w.CopyOut(pgwire.CopyFormat{Binary: true, Columns: len(st.Query.Columns)})
	if err != nil {
		return result{}, err
	}
	buf := bc.AppendHeader(nil)
	n, err := query.stream(ctx, func(vals [][]byte) error {
		var err error
		if buf, err = bc.AppendRow(buf, vals); err != nil {
			return err
		}
		_, err = out.Write(buf)
		buf = buf[:0]
		return err
	})
	if err != nil {
		return result{}, err
	}
	if _, err := out.Write(bc.AppendTrailer(buf)); err != nil {
		return result{}, err
	}
	return result{tag: fmt.Sprintf("COPY %d", n)}, nil
}

// appendCopyCSV appends one field of a CSV COPY row: NULL as null, and a
// value quoted when its column is forced (FORCE_QUOTE), when it holds the
// delimiter, the quote or a line break, when it reads as null, or when
// it is `\.` alone on its line (single: the COPY has one column), which
// would read as the end of the data; its quotes and escapes escaped.
func appendCopyCSV(b, v []byte, isNull, force, single bool, delim, null, quote, escape string) []byte {
	if isNull {
		return append(b, null...)
	}
	needs := force || string(v) == null || (single && string(v) == `\.`) ||
		strings.ContainsAny(string(v), delim+quote+"\r\n")
	if !needs {
		return append(b, v...)
	}
	b = append(b, quote...)
	for _, c := range v {
		if c == quote[0] || c == escape[0] {
			b = append(b, escape...)
		}
		b = append(b, c)
	}
	return append(b, quote...)
}

// appendCopyText appends one field of a text COPY row: NULL as null, and
// backslashes, control characters and the delimiter escaped.
func appendCopyText(b, v []byte, isNull bool, delim, null string) []byte {
	if isNull {
		return append(b, null...)
	}
	for _, c := range v {
		switch c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\v':
			b = append(b, '\\', 'v')
		default:
			if c == delim[0] {
				b = append(b, '\\')
			}
			b = append(b, c)
		}
	}
	return b
}
