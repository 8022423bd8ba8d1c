package coord

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// copyFrom runs COPY table FROM STDIN in text format: one row per line,
// columns separated by the delimiter, \N for NULL, backslash escapes;
// all rows commit at one time.
func (s *Session) copyFrom(ctx context.Context, st *planner.Copy, w pgwire.Writer) (result, error) {
	if st.Options.Format != "text" && st.Options.Format != "" {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "COPY FROM with format %s is not supported", st.Options.Format)
	}
	r, err := w.CopyIn(pgwire.CopyFormat{Columns: len(st.Columns)})
	if err != nil {
		return result{}, err
	}
	delim := st.Options.Delimiter
	if delim == "" {
		delim = "\t"
	}
	// A timestamptz field without an offset is read in the session's
	// time zone.
	zone := s.zone()
	null := st.Options.Null
	if st.Options.Null == "" {
		null = `\N`
	}
	var writes []TableWrite
	br := bufio.NewReader(r)
	line := 0
	for {
		text, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return result{}, err
		}
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		if text == `\.` || (text == "" && err == io.EOF) {
			break
		}
		line++
		fields := strings.Split(text, delim)
		if len(fields) != len(st.Columns) {
			return result{}, sqlerr.New(sqlerr.BadCopyFileFormat, "%s", copyFieldError(len(fields), len(st.Columns))).
				WithDetail("COPY %s, line %d", st.Table.Name.Name, line)
		}
		row := make([]repr.Datum, len(st.Table.Columns))
		for i := range st.Table.Columns {
			if d := s.engine.defaultOf(uint64(st.Table.ID), i); d != nil {
				d, err := s.bindScalar(d)
				if err != nil {
					return result{}, err
				}
				v, err := d.Eval(nil)
				if err != nil {
					return result{}, err
				}
				row[i] = v
			}
		}
		for fi, ci := range st.Columns {
			col := st.Table.Columns[ci]
			if fields[fi] == null {
				row[ci] = repr.Null
				continue
			}
			v, err := repr.ParseTextIn(col.Type, unescapeCopy(fields[fi]), zone)
			if err != nil {
				return result{}, sqlerr.Wrapf(err, "", "%s", sqlerr.From(err).Message).
					WithDetail("COPY %s, line %d, column %s", st.Table.Name.Name, line, col.Name)
			}
			row[ci] = v
		}
		for i, c := range st.Table.Columns {
			if !c.Nullable && row[i].IsNull() {
				return result{}, sqlerr.New(sqlerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, st.Table.Name.Name)
			}
		}
		writes = append(writes, TableWrite{Table: uint64(st.Table.ID), Row: repr.PackRow(row...), Diff: 1, Shape: st.Table.Shape})
		if err == io.EOF {
			break
		}
	}
	if s.tx.status == pgwire.TxInBlock {
		if err := s.engine.checkBlockWrite(&s.tx.keys, s.tx.writes, writes); err != nil {
			return result{}, err
		}
		s.tx.writes = append(s.tx.writes, writes...)
		s.tx.noteName(uint64(st.Table.ID), st.Table.Name.Name)
	} else if len(writes) > 0 {
		if _, err := s.engine.Write(ctx, writes); err != nil {
			return result{}, namedTableError(err, map[uint64]string{uint64(st.Table.ID): st.Table.Name.Name})
		}
	}
	return result{tag: fmt.Sprintf("COPY %d", len(writes))}, nil
}

func copyFieldError(got, want int) string {
	if got < want {
		return "missing data for column"
	}
	return "extra data after last expected column"
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
// character or a line break, or reads as the NULL string (so that by
// default the empty string is told from NULL), its quotes doubled. Timestamps with time zone are in the session's
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
	field := func(b []byte, v []byte, isNull bool) []byte {
		if csv {
			return appendCopyCSV(b, v, isNull, delim, null, quote, escape)
		}
		return appendCopyText(b, v, isNull, delim, null)
	}
	var line []byte
	if opts.Header {
		line = line[:0]
		for i, c := range st.Query.Columns {
			if i > 0 {
				line = append(line, delim...)
			}
			line = field(line, []byte(c.Name), false)
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
			line = field(line, v, v == nil)
		}
		_, err := out.Write(append(line, '\n'))
		return err
	})
	if err != nil {
		return result{}, err
	}
	return result{tag: fmt.Sprintf("COPY %d", n)}, nil
}

// appendCopyCSV appends one field of a CSV COPY row: NULL as null, and a
// value quoted when it holds the delimiter, the quote, a line break, or
// reads as null, its quotes and escapes escaped.
func appendCopyCSV(b, v []byte, isNull bool, delim, null, quote, escape string) []byte {
	if isNull {
		return append(b, null...)
	}
	needs := string(v) == null || strings.ContainsAny(string(v), delim+quote+"\r\n")
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
