package sqllogic

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Script is a parsed sqllogictest file.
type Script struct {
	// File is the name given to Parse.
	File string
	// Records are the file's records in order, control records included.
	Records []Record
}

// Count returns the number of statement and query records in the script,
// whatever their conditions, halts included.
func (s *Script) Count() (statements, queries int) {
	for i := range s.Records {
		switch s.Records[i].Kind {
		case Statement:
			statements++
		case Query:
			queries++
		}
	}
	return statements, queries
}

// ParseError is a line of a file that is not valid sqllogictest.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ParseFile reads and parses the file at path; records carry path as
// their File.
func ParseFile(path string) (*Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// maxLine is the longest line Parse accepts. The corpus's longest lines
// are SQL of a few kilobytes.
const maxLine = 16 << 20

// Parse parses a sqllogictest script read from r. file names it in
// records and errors. Lines may end in "\n" or "\r\n".
func Parse(file string, r io.Reader) (*Script, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	p := &parser{file: file, lines: lines}
	s := &Script{File: file}
	for {
		rec, ok, err := p.record()
		if err != nil {
			return nil, err
		}
		if !ok {
			return s, nil
		}
		s.Records = append(s.Records, rec)
	}
}

// parser walks the lines of one file. A record is a run of non-blank
// lines; comment lines are dropped wherever they are and do not end a
// record.
type parser struct {
	file  string
	lines []string
	// next is the index of the next line to read; line numbers are
	// index+1.
	next int
	// header is the line of the current record's header.
	header int
}

func isBlank(line string) bool   { return strings.TrimSpace(line) == "" }
func isComment(line string) bool { return strings.HasPrefix(line, "#") }

// control returns the fields of a control line (a condition or a record
// header) with any trailing "# comment" removed.
func control(line string) []string {
	return strings.Fields(uncomment(line))
}

// uncomment removes a trailing "# comment" from a control line.
func uncomment(line string) string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		return line[:i]
	}
	return line
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// lineInRecord returns the next non-comment line of the current record
// and its number, or ok=false at a blank line or the end of the file
// (which it does not consume).
func (p *parser) lineInRecord() (line string, num int, ok bool) {
	for p.next < len(p.lines) {
		l := p.lines[p.next]
		if isComment(l) {
			p.next++
			continue
		}
		if isBlank(l) {
			return "", 0, false
		}
		p.next++
		return l, p.next, true
	}
	return "", 0, false
}

// record parses the next record, or returns ok=false at the end of the
// file.
func (p *parser) record() (rec Record, ok bool, err error) {
	for p.next < len(p.lines) && (isBlank(p.lines[p.next]) || isComment(p.lines[p.next])) {
		p.next++
	}
	line, num, ok := p.lineInRecord()
	if !ok {
		return Record{}, false, nil
	}
	rec = Record{File: p.file, Line: num}
	for {
		f := control(line)
		if len(f) == 0 || (f[0] != "skipif" && f[0] != "onlyif") {
			break
		}
		if len(f) != 2 {
			return rec, false, p.errorf(num, "%s wants one engine name, got %q", f[0], line)
		}
		rec.Conditions = append(rec.Conditions, Condition{Only: f[0] == "onlyif", Engine: f[1], Line: num})
		condNum := num
		if line, num, ok = p.lineInRecord(); !ok {
			return rec, false, p.errorf(condNum, "%s is not followed by a record", f[0])
		}
	}
	p.header = num
	f := control(line)
	if len(f) == 0 {
		return rec, false, p.errorf(p.header, "expected a record, got %q", line)
	}
	switch f[0] {
	case "statement":
		err = p.statement(&rec, line, f)
	case "query":
		err = p.query(&rec, line, f)
	case "hash-threshold":
		rec.Kind = HashThreshold
		if len(f) != 2 {
			return rec, false, p.errorf(p.header, "hash-threshold wants one number, got %q", line)
		}
		if rec.Threshold, err = strconv.Atoi(f[1]); err != nil || rec.Threshold < 0 {
			return rec, false, p.errorf(p.header, "bad hash-threshold %q", f[1])
		}
		err = p.end(&rec)
	case "halt":
		rec.Kind = Halt
		if len(f) != 1 {
			return rec, false, p.errorf(p.header, "halt takes no arguments, got %q", line)
		}
		err = p.end(&rec)
	default:
		return rec, false, p.errorf(p.header, "unknown record type %q", f[0])
	}
	return rec, err == nil, err
}

// end checks that a one-line record is followed by a blank line or the
// end of the file.
func (p *parser) end(rec *Record) error {
	if line, num, ok := p.lineInRecord(); ok {
		return p.errorf(num, "unexpected %q after %s", line, rec.Kind)
	}
	return nil
}

// sqlLines reads the SQL of a record: lines up to a blank line, the end
// of the file, or, if stopAtDashes, a "----" line (consumed; reported by
// dashes).
func (p *parser) sqlLines(rec *Record, stopAtDashes bool) (dashes bool, err error) {
	var sql []string
	for {
		line, _, ok := p.lineInRecord()
		if !ok {
			break
		}
		if stopAtDashes && strings.TrimRight(line, " \t") == "----" {
			dashes = true
			break
		}
		sql = append(sql, line)
	}
	if len(sql) == 0 {
		return false, p.errorf(p.header, "%s without SQL", rec.Kind)
	}
	rec.SQL = strings.Join(sql, "\n")
	return dashes, nil
}

func (p *parser) statement(rec *Record, line string, f []string) error {
	rec.Kind = Statement
	if len(f) < 2 {
		return p.errorf(p.header, "statement wants ok or error, got %q", line)
	}
	switch f[1] {
	case "ok":
		if len(f) != 2 {
			return p.errorf(p.header, "unexpected %q after statement ok", strings.Join(f[2:], " "))
		}
	case "error":
		rec.ExpectError = true
		// The pattern is the rest of the line, inner spaces kept.
		rest := strings.TrimSpace(uncomment(line))
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "statement"))
		rec.ErrorPattern = strings.TrimSpace(strings.TrimPrefix(rest, "error"))
		if _, err := regexp.Compile(rec.ErrorPattern); err != nil {
			return p.errorf(p.header, "bad error pattern: %v", err)
		}
	default:
		return p.errorf(p.header, "statement wants ok or error, got %q", f[1])
	}
	_, err := p.sqlLines(rec, false)
	return err
}

var sortModes = map[string]SortMode{"nosort": NoSort, "rowsort": RowSort, "valuesort": ValueSort}

// hashLine is an expected block stored as a hash.
var hashLine = regexp.MustCompile(`^(\d+) values hashing to ([0-9a-f]{32})$`)

func (p *parser) query(rec *Record, line string, f []string) error {
	rec.Kind = Query
	if len(f) < 2 || len(f) > 4 {
		return p.errorf(p.header, "query wants <types> [<sortmode>] [<label>], got %q", line)
	}
	for i := 0; i < len(f[1]); i++ {
		switch t := ColumnType(f[1][i]); t {
		case Integer, Real, Text:
			rec.Types = append(rec.Types, t)
		default:
			return p.errorf(p.header, "unknown column type %q in %q", f[1][i], f[1])
		}
	}
	if len(f) > 2 {
		mode, ok := sortModes[f[2]]
		if !ok {
			return p.errorf(p.header, "unknown sort mode %q", f[2])
		}
		rec.Sort = mode
	}
	if len(f) > 3 {
		rec.Label = f[3]
	}
	dashes, err := p.sqlLines(rec, true)
	if err != nil || !dashes {
		return err
	}
	var values []string
	for {
		line, num, ok := p.lineInRecord()
		if !ok {
			break
		}
		if rec.Expected.Line == 0 {
			rec.Expected.Line = num
		}
		values = append(values, line)
	}
	if len(values) == 1 {
		if m := hashLine.FindStringSubmatch(values[0]); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return p.errorf(rec.Expected.Line, "bad value count %q", m[1])
			}
			rec.Expected.Hashed, rec.Expected.Count, rec.Expected.Hash = true, n, m[2]
			return nil
		}
	}
	rec.Expected.Values = values
	return nil
}
