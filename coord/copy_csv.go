package coord

import (
	"bufio"
	"io"

	"freshet/planner"
	"freshet/sqlerr"
)

// csvCopySource reads COPY FROM's CSV format with PostgreSQL 15's rules
// (copyfromparse.c): a record ends at a line break outside quotes; a
// quoted field may hold the delimiter, line breaks and the quote, doubled
// or behind the escape character; an unquoted field that reads as the
// NULL string is NULL, a quoted one never is (so by default `,,` is NULL
// and `,"",` the empty string); `\.` alone on a line ends the data.
//
// The line number counts records, plus, as PostgreSQL counts them, the
// line breaks inside quotes once the data's line ending is known (after
// the first record).
type csvCopySource struct {
	br                   *bufio.Reader
	delim, quote, escape byte
	null                 string
	line                 int
	eol                  csvEOL
	done                 bool
	record               []byte // the last record read, reused
	fieldBuf             []byte // the fields' dequoted bytes, reused
	fieldEnds            []int
	fieldNull            []bool
	fields               [][]byte // the last record's fields, reused
}

// csvEOL is the line ending the data uses, fixed by its first record as
// PostgreSQL fixes it; a record that ends otherwise is an error.
type csvEOL uint8

const (
	eolUnknown csvEOL = iota
	eolNL
	eolCR
	eolCRNL
)

func newCSVCopySource(r io.Reader, opts planner.CopyOptions) *csvCopySource {
	return &csvCopySource{br: bufio.NewReaderSize(r, copyReadSize), delim: opts.Delimiter[0], quote: opts.Quote[0],
		escape: opts.Escape[0], null: opts.Null}
}

func (c *csvCopySource) where() (int, int) { return c.line, -1 }

func (c *csvCopySource) next() ([][]byte, error) {
	if err := c.skip(); err != nil {
		return nil, err
	}
	return c.split()
}

// skip reads the next record into c.record without splitting it, as
// PostgreSQL reads a header line it does not match: a quote left open
// there takes the rest of the data and is no error.
func (c *csvCopySource) skip() error {
	if c.done {
		return io.EOF
	}
	if c.atEndMarker() {
		c.done = true
		return io.EOF
	}
	ok, err := c.readRecord()
	if err != nil || !ok {
		c.done = true
		if err == nil {
			err = io.EOF
		}
		return err
	}
	return nil
}

// atEndMarker reports whether the next record is the end marker `\.`
// followed by a line break, and consumes it if so. `\.` followed by
// anything else (the end of the data included) is data, as in
// PostgreSQL's CSV mode.
func (c *csvCopySource) atEndMarker() bool {
	b, _ := c.br.Peek(4)
	if len(b) < 3 || b[0] != '\\' || b[1] != '.' {
		return false
	}
	switch {
	case b[2] == '\n' && c.eol != eolCR && c.eol != eolCRNL:
	case b[2] == '\r' && len(b) == 4 && b[3] == '\n' && (c.eol == eolUnknown || c.eol == eolCRNL):
	case b[2] == '\r' && c.eol != eolNL && c.eol != eolCRNL:
	default:
		return false
	}
	return true
}

// readRecord reads one record's bytes, without its line break, into
// c.record; it reports false at the end of the data. It tracks quotes as
// PostgreSQL's CopyReadLineText does: the quote toggles, and inside
// quotes an escape (when it differs from the quote) protects the
// character after it.
func (c *csvCopySource) readRecord() (bool, error) {
	c.record = c.record[:0]
	c.line++
	inQuote, lastWasEsc := false, false
	// An escape that is the quote needs no tracking: the quote toggles.
	escape := int(c.escape)
	if c.escape == c.quote {
		escape = -1
	}
	for {
		ch, err := c.br.ReadByte()
		if err == io.EOF {
			return len(c.record) > 0, nil
		}
		if err != nil {
			return false, err
		}
		if inQuote && int(ch) == escape {
			lastWasEsc = !lastWasEsc
		}
		if ch == c.quote && !lastWasEsc {
			inQuote = !inQuote
		}
		if int(ch) != escape {
			lastWasEsc = false
		}
		counted := byte('\r')
		if c.eol == eolNL {
			counted = '\n'
		}
		if inQuote && ch == counted {
			c.line++
		}
		if ch == '\r' && !inQuote {
			switch c.eol {
			case eolUnknown, eolCRNL:
				if b, _ := c.br.Peek(1); len(b) == 1 && b[0] == '\n' {
					c.br.ReadByte()
					c.eol = eolCRNL
					return true, nil
				}
				if c.eol == eolCRNL {
					return false, unquotedCR()
				}
				c.eol = eolCR
				return true, nil
			case eolNL:
				return false, unquotedCR()
			}
			return true, nil
		}
		if ch == '\n' && !inQuote {
			if c.eol == eolCR || c.eol == eolCRNL {
				return false, sqlerr.New(sqlerr.BadCopyFileFormat, "unquoted newline found in data").
					WithHint("Use quoted CSV field to represent newline.")
			}
			c.eol = eolNL
			return true, nil
		}
		c.record = append(c.record, ch)
	}
}

func unquotedCR() error {
	return sqlerr.New(sqlerr.BadCopyFileFormat, "unquoted carriage return found in data").
		WithHint("Use quoted CSV field to represent carriage return.")
}

// split cuts c.record into its fields, as PostgreSQL's
// CopyReadAttributesCSV does. The fields alias c's buffers and are valid
// until the next record is read.
func (c *csvCopySource) split() ([][]byte, error) {
	c.fieldBuf, c.fieldEnds, c.fieldNull = c.fieldBuf[:0], c.fieldEnds[:0], c.fieldNull[:0]
	rec := c.record
	i := 0
	for {
		start, sawQuote, foundDelim := i, false, false
		end := len(rec)
	field:
		for {
			// Outside quotes: up to the delimiter, a quote or the end.
			for {
				if i >= len(rec) {
					break field
				}
				ch := rec[i]
				i++
				if ch == c.delim {
					foundDelim, end = true, i-1
					break field
				}
				if ch == c.quote {
					sawQuote = true
					break
				}
				c.fieldBuf = append(c.fieldBuf, ch)
			}
			// Inside quotes: up to the closing quote.
			for {
				if i >= len(rec) {
					return nil, sqlerr.New(sqlerr.BadCopyFileFormat, "unterminated CSV quoted field")
				}
				ch := rec[i]
				i++
				if ch == c.escape && i < len(rec) && (rec[i] == c.escape || rec[i] == c.quote) {
					c.fieldBuf = append(c.fieldBuf, rec[i])
					i++
					continue
				}
				if ch == c.quote {
					break
				}
				c.fieldBuf = append(c.fieldBuf, ch)
			}
		}
		c.fieldEnds = append(c.fieldEnds, len(c.fieldBuf))
		c.fieldNull = append(c.fieldNull, !sawQuote && string(rec[start:end]) == c.null)
		if !foundDelim {
			break
		}
	}
	c.fields = c.fields[:0]
	from := 0
	for k, to := range c.fieldEnds {
		switch {
		case c.fieldNull[k]:
			c.fields = append(c.fields, nil)
		case from == to:
			// Never nil, which would read as NULL, even when empty.
			c.fields = append(c.fields, []byte{})
		default:
			c.fields = append(c.fields, c.fieldBuf[from:to:to])
		}
		from = to
	}
	return c.fields, nil
}
