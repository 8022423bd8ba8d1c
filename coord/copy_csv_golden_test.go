package coord

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"freshet/sqlerr"
)

// TestCopyCSVGolden copies each document of testdata/copy_csv_pg15.json
// and copy_csv_options_pg15.json into a table of two text columns with
// COPY … FROM STDIN in CSV (with the case's options, if any) and
// compares the rows, or the error's SQLSTATE, message and line, with
// what PostgreSQL 15 gave for the same bytes through psql's \copy. The
// documents are random strings over letters, delimiters, quotes,
// escapes, NULL strings, line breaks (LF and CRLF) and backslashes, and
// a few written by hand; the options are NULL, DELIMITER, QUOTE,
// ESCAPE, HEADER [MATCH], FORCE_NOT_NULL and FORCE_NULL.
func TestCopyCSVGolden(t *testing.T) {
	type csvCase struct {
		Options string
		Doc     string
		Code    string
		Msg     string
		Line    *int
		Rows    [][]*string
	}
	var cases []csvCase
	for _, name := range []string{"testdata/copy_csv_pg15.json", "testdata/copy_csv_options_pg15.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var more []csvCase
		if err := json.Unmarshal(b, &more); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, more...)
	}
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE tcsv (b text, c text)")
	lineRe := regexp.MustCompile(`^COPY tcsv, line (\d+)$`)
	for i, c := range cases {
		env.exec(s, "TRUNCATE tcsv")
		sql := "COPY tcsv FROM STDIN csv"
		if c.Options != "" {
			sql = "COPY tcsv FROM STDIN WITH (FORMAT csv, " + c.Options + ")"
		}
		err := env.copyIn(s, sql, c.Doc)
		if c.Code != "" {
			e := sqlerr.From(err)
			line := -1
			if m := lineRe.FindStringSubmatch(e.Detail); m != nil {
				line, _ = strconv.Atoi(m[1])
			}
			want := -1
			if c.Line != nil {
				want = *c.Line
			}
			if err == nil || e.Code != c.Code || e.Message != c.Msg || line != want {
				t.Errorf("case %d %s %q: %v (%s, detail %q), PostgreSQL %s %q at line %d", i, c.Options, c.Doc, err, e.Code, e.Detail, c.Code, c.Msg, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d %s %q: %v, PostgreSQL copied %d rows", i, c.Options, c.Doc, err, len(c.Rows))
			continue
		}
		r := &recorder{}
		// Each row as a JSON array, which tells NULL from 'NULL' and
		// keeps commas inside values apart from the separator.
		if err := s.Query(context.Background(), "SELECT json_build_array(b, c) FROM tcsv", r); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, row := range c.Rows {
			line := "["
			for k, v := range row {
				if k > 0 {
					line += ", "
				}
				j, _ := json.Marshal(v)
				line += string(j)
			}
			want = append(want, line+"]")
		}
		if got := sortedCopy(r.rows); !slices.Equal(got, sortedCopy(want)) {
			t.Errorf("case %d %s %q: rows %q, PostgreSQL %q", i, c.Options, c.Doc, got, sortedCopy(want))
		}
	}
}
