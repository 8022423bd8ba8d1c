package sqllogic

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// describe writes a record on one line, for comparing parses.
func describe(r *Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", r.Line)
	for _, c := range r.Conditions {
		fmt.Fprintf(&b, " [%s@%d]", c, c.Line)
	}
	switch r.Kind {
	case Statement:
		b.WriteString(" statement ")
		if r.ExpectError {
			b.WriteString("error")
			if r.ErrorPattern != "" {
				fmt.Fprintf(&b, " /%s/", r.ErrorPattern)
			}
		} else {
			b.WriteString("ok")
		}
	case Query:
		fmt.Fprintf(&b, " query %s %s", string(r.Types), r.Sort)
		if r.Label != "" {
			b.WriteString(" " + r.Label)
		}
	case HashThreshold:
		fmt.Fprintf(&b, " hash-threshold %d", r.Threshold)
	case Halt:
		b.WriteString(" halt")
	}
	if r.SQL != "" {
		fmt.Fprintf(&b, " | %q", r.SQL)
	}
	if r.Kind == Query {
		if r.Expected.Hashed {
			fmt.Fprintf(&b, " | %s @%d", r.Expected.String(), r.Expected.Line)
		} else {
			fmt.Fprintf(&b, " | %q", r.Expected.Values)
			if r.Expected.Line != 0 {
				fmt.Fprintf(&b, " @%d", r.Expected.Line)
			}
		}
	}
	return b.String()
}

// TestParseConstructs parses testdata/constructs.slt, which has every
// construct of the format once.
func TestParseConstructs(t *testing.T) {
	s, err := ParseFile("testdata/constructs.slt")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`3 hash-threshold 8`,
		`5 statement ok | "CREATE TABLE t1(a INTEGER, b TEXT)"`,
		`8 statement error | "INSERT INTO nowhere VALUES(1)"`,
		`11 statement error /42P01/ | "SELECT * FROM nowhere;"`,
		`16 statement ok | "INSERT INTO t1\nVALUES(1, 'x')"`,
		`21 query I nosort | "SELECT a FROM t1" | []`,
		`24 query IT nosort | "SELECT a, b FROM t1" | ["1" "x"] @27`,
		`30 query II rowsort | "SELECT 10, 9\nUNION ALL SELECT 9, 10" | ["10" "9" "9" "10"] @34`,
		`39 query T valuesort label-7 | "SELECT b FROM t1" | ["(empty)" "NULL"] @42`,
		`45 query R rowsort label-7 | "SELECT a FROM t1 WHERE a > 8" | 30 values hashing to 0123456789abcdef0123456789abcdef @48`,
		`50 query I nosort | "SELECT a FROM t1 WHERE false" | []`,
		`54 [skipif mysql@54] [skipif mssql@55] [onlyif postgresql@56] query I rowsort | "SELECT 1" | []`,
		`60 [onlyif sqlite@60] halt`,
		`63 [skipif sqlite@63] halt`,
		`66 statement ok | "DROP TABLE t1"`,
	}
	var got []string
	for i := range s.Records {
		if s.Records[i].File != "testdata/constructs.slt" {
			t.Errorf("record %d: File = %q", i, s.Records[i].File)
		}
		got = append(got, describe(&s.Records[i]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parse:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if stmts, queries := s.Count(); stmts != 5 || queries != 7 {
		t.Errorf("Count() = %d, %d; want 5, 7", stmts, queries)
	}
	if got := s.Records[4].Pos(); got != "testdata/constructs.slt:16" {
		t.Errorf("Pos() = %q", got)
	}
}

// TestParseCRLF: files with "\r\n" line ends parse like "\n" files (part
// of the corpus has them).
func TestParseCRLF(t *testing.T) {
	src := "hash-threshold 8\r\n\r\nstatement ok\r\nSELECT 1\r\n\r\nquery I nosort\r\nSELECT 1\r\n----\r\n1\r\n"
	s, err := Parse("crlf.slt", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range s.Records {
		got = append(got, describe(&s.Records[i]))
	}
	want := `1 hash-threshold 8; 3 statement ok | "SELECT 1"; 6 query I nosort | "SELECT 1" | ["1"] @9`
	if strings.Join(got, "; ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "; "), want)
	}
}

// TestParseHashLine: only an expected block of exactly one well-formed
// hash line is a hash; anything else is values.
func TestParseHashLine(t *testing.T) {
	const h = "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		block  string
		hashed bool
	}{
		{"3 values hashing to " + h, true},
		{"3 values hashing to " + strings.ToUpper(h), false},
		{"3 values hashing to " + h + "\nx", false},
		{"three values hashing to " + h, false},
		{"3 values hashing to " + h[:31], false},
	} {
		s, err := Parse("h.slt", strings.NewReader("query I\nSELECT 1\n----\n"+tc.block+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		e := s.Records[0].Expected
		if e.Hashed != tc.hashed {
			t.Errorf("%q: Hashed = %v, want %v", tc.block, e.Hashed, tc.hashed)
		}
		if e.Hashed && (e.Count != 3 || e.Hash != h || e.Values != nil) {
			t.Errorf("%q: parsed %+v", tc.block, e)
		}
	}
}

// TestParseErrors: malformed records are errors that name the line.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
		msg  string
	}{
		{"statement maybe\nSELECT 1\n", 1, "statement wants ok or error"},
		{"statement\nSELECT 1\n", 1, "statement wants ok or error"},
		{"statement ok now\nSELECT 1\n", 1, `unexpected "now"`},
		{"statement error (\nSELECT 1\n", 1, "bad error pattern"},
		{"statement ok\n\nSELECT 1\n", 1, "statement without SQL"},
		{"# c\n\nquery X\nSELECT 1\n", 3, "unknown column type"},
		{"query\nSELECT 1\n", 1, "query wants <types>"},
		{"query I sideways\nSELECT 1\n", 1, `unknown sort mode "sideways"`},
		{"query I nosort label-1 extra\nSELECT 1\n", 1, "query wants <types>"},
		{"query I\n----\n1\n", 1, "query without SQL"},
		{"skipif\nstatement ok\nSELECT 1\n", 1, "skipif wants one engine name"},
		{"onlyif sqlite mysql\nhalt\n", 1, "onlyif wants one engine name"},
		{"skipif mysql\n\nstatement ok\nSELECT 1\n", 1, "skipif is not followed by a record"},
		{"skipif mysql\nskipif mssql\n", 2, "skipif is not followed by a record"},
		{"skipif mysql\nfrobnicate\n", 2, `unknown record type "frobnicate"`},
		{"hash-threshold x\n", 1, `bad hash-threshold "x"`},
		{"hash-threshold -1\n", 1, "bad hash-threshold"},
		{"hash-threshold\n", 1, "hash-threshold wants one number"},
		{"halt now\n", 1, "halt takes no arguments"},
		{"halt\nSELECT 1\n", 2, `unexpected "SELECT 1" after halt`},
		{"hash-threshold 8\n# c\nhalt\n", 3, "after hash-threshold"},
	} {
		_, err := Parse("bad.slt", strings.NewReader(tc.src))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want a *ParseError", tc.src, err)
			continue
		}
		if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("%q: got %v, want line %d and %q", tc.src, err, tc.line, tc.msg)
		}
		if want := fmt.Sprintf("bad.slt:%d: ", tc.line); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %q does not start with %q", tc.src, err.Error(), want)
		}
	}
}

// TestParseEmpty: a file of comments and blank lines has no records.
func TestParseEmpty(t *testing.T) {
	s, err := Parse("empty.slt", strings.NewReader("# nothing\n\n   \n# here\n"))
	if err != nil || len(s.Records) != 0 {
		t.Fatalf("got %v, %v", s, err)
	}
}
