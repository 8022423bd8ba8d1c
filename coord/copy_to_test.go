package coord

import (
	"context"
	"slices"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// COPY TO STDOUT in the text and CSV formats, with their escapes, a
// header, other NULL strings, delimiters and quotes, and timestamps in
// the session's time zone: each output is what PostgreSQL 15 sends for
// the same table.
func TestCopyTo(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE cp (id int, s text, ts timestamptz, n numeric(5,2))")
	env.exec(s, `INSERT INTO cp VALUES (1, 'plain', '2024-01-01 00:00+00', 1.5), (2, E'tab\there, new\nline \\ back', NULL, NULL), (3, '', '2024-06-01 12:00+00', -2), (4, 'say "hi", ok', NULL, 0)`)
	for _, tc := range []struct{ sql, want string }{
		{"COPY (SELECT * FROM cp ORDER BY id) TO STDOUT",
			"1\tplain\t2024-01-01 00:00:00+00\t1.50\n2\ttab\\there, new\\nline \\\\ back\t\\N\t\\N\n3\t\t2024-06-01 12:00:00+00\t-2.00\n4\tsay \"hi\", ok\t\\N\t0.00\n"},
		{"COPY (SELECT id, s FROM cp WHERE id > 1 ORDER BY id DESC) TO STDOUT",
			"4\tsay \"hi\", ok\n3\t\n2\ttab\\there, new\\nline \\\\ back\n"},
		{"COPY (SELECT * FROM cp ORDER BY id) TO STDOUT WITH (FORMAT csv)",
			"1,plain,2024-01-01 00:00:00+00,1.50\n2,\"tab\there, new\nline \\ back\",,\n3,\"\",2024-06-01 12:00:00+00,-2.00\n4,\"say \"\"hi\"\", ok\",,0.00\n"},
		{"COPY (SELECT * FROM cp ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER, NULL 'NULL', DELIMITER ';')",
			"id;s;ts;n\n1;plain;2024-01-01 00:00:00+00;1.50\n2;\"tab\there, new\nline \\ back\";NULL;NULL\n3;;2024-06-01 12:00:00+00;-2.00\n4;\"say \"\"hi\"\", ok\";NULL;0.00\n"},
		{"COPY (SELECT id, s FROM cp ORDER BY id) TO STDOUT WITH (FORMAT csv, QUOTE '''')",
			"1,plain\n2,'tab\there, new\nline \\ back'\n3,''\n4,'say \"hi\", ok'\n"},
	} {
		r := &recorder{}
		if err := s.Query(context.Background(), tc.sql, r); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := r.copied.String(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
	}
	env.exec(s, "SET TIME ZONE 'Asia/Tokyo'")
	r := &recorder{}
	if err := s.Query(context.Background(), "COPY (SELECT ts FROM cp ORDER BY id) TO STDOUT WITH (NULL '-')", r); err != nil {
		t.Fatal(err)
	}
	if got, want := r.copied.String(), "2024-01-01 09:00:00+09\n-\n2024-06-01 21:00:00+09\n-\n"; got != want {
		t.Errorf("in Tokyo: %q, want %q", got, want)
	}
	env.failsWith(s, "COPY cp TO STDOUT WITH (QUOTE '\"')", "0A000", "COPY quote available only in CSV mode")
}

// TestCopyToForceQuote: CSV's FORCE_QUOTE quotes every non-NULL value of
// the columns it names (or of all, with *), never a NULL or the header,
// and a lone `\.` is quoted when it is a whole line. Outputs and errors
// are PostgreSQL 15's for the same statements.
func TestCopyToForceQuote(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE fq (a int, b text, c text)")
	env.exec(s, `INSERT INTO fq VALUES (1, 'x', NULL), (2, '', 'y,z'), (3, '\.', 'q"r')`)
	for _, tc := range []struct{ sql, want string }{
		{"COPY fq TO STDOUT (FORMAT csv, FORCE_QUOTE (b))", "1,\"x\",\n2,\"\",\"y,z\"\n3,\"\\.\",\"q\"\"r\"\n"},
		{"COPY fq TO STDOUT (FORMAT csv, FORCE_QUOTE *, HEADER)", "a,b,c\n\"1\",\"x\",\n\"2\",\"\",\"y,z\"\n\"3\",\"\\.\",\"q\"\"r\"\n"},
		{"COPY fq (a, c) TO STDOUT (FORMAT csv)", "1,\n2,\"y,z\"\n3,\"q\"\"r\"\n"},
		{"COPY fq (b) TO STDOUT (FORMAT csv)", "x\n\"\"\n\"\\.\"\n"},
		{"COPY (SELECT b AS bee FROM fq ORDER BY a) TO STDOUT (FORMAT csv, FORCE_QUOTE (bee))", "\"x\"\n\"\"\n\"\\.\"\n"},
	} {
		r := &recorder{}
		if err := s.Query(context.Background(), tc.sql, r); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		// A table's COPY has no order: compare its lines sorted, the
		// header first.
		header := strings.Contains(tc.sql, "HEADER")
		if got, want := sortedLines(r.copied.String(), header), sortedLines(tc.want, header); got != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, want)
		}
	}
	for _, tc := range []struct{ sql, code, msg string }{
		{"COPY fq (a, b) TO STDOUT (FORMAT csv, FORCE_QUOTE (c))", "42P10", `FORCE_QUOTE column "c" not referenced by COPY`},
		{"COPY fq (a, b) TO STDOUT (FORMAT csv, FORCE_QUOTE (nope))", "42703", `column "nope" of relation "fq" does not exist`},
		{"COPY fq TO STDOUT (FORCE_QUOTE (b))", "0A000", "COPY force quote available only in CSV mode"},
		{"COPY fq TO STDOUT (FORMAT binary, FORCE_QUOTE (b))", "0A000", "COPY force quote available only in CSV mode"},
		{"COPY fq FROM STDIN (FORMAT csv, FORCE_QUOTE (b))", "0A000", "COPY force quote only available using COPY TO"},
		{"COPY (SELECT b AS bee FROM fq) TO STDOUT (FORMAT csv, FORCE_QUOTE (b))", "42703", `column "b" does not exist`},
		{"COPY fq TO STDOUT (FORMAT csv, FORCE_QUOTE b)", "42601", `argument to option "force_quote" must be a list of column names`},
		{"COPY fq TO STDOUT (FORMAT csv, FORCE_QUOTE (b), FORCE_QUOTE (c))", "42601", "conflicting or redundant options"},
		{"COPY fq TO STDOUT (FORMAT csv, FORCE_QUOTE (b, b))", "42701", `column "b" specified more than once`},
	} {
		env.failsWith(s, tc.sql, tc.code, tc.msg)
	}
}

// TestCopyUUIDBytea reads uuid and bytea from COPY FROM STDIN in the
// text format (bytea in both input formats, behind COPY's own escapes)
// and writes them with COPY TO STDOUT in text and CSV: what PostgreSQL
// 15 reads and sends for the same data.
func TestCopyUUIDBytea(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE cpu (id uuid, b bytea)")
	data := "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t\\\\x0102ff\n" +
		"{00000000-0000-0000-0000-000000000001}\tab\\\\\\\\c\\\\001\n" +
		"00000000-0000-0000-0000-000000000002\t\\N\n"
	if err := s.Query(context.Background(), "COPY cpu FROM STDIN", &recorder{copyData: data}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sql, want string }{
		{"COPY (SELECT * FROM cpu ORDER BY id) TO STDOUT",
			"00000000-0000-0000-0000-000000000001\t\\\\x61625c6301\n" +
				"00000000-0000-0000-0000-000000000002\t\\N\n" +
				"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t\\\\x0102ff\n"},
		{"COPY (SELECT * FROM cpu ORDER BY id) TO STDOUT WITH (FORMAT csv)",
			"00000000-0000-0000-0000-000000000001,\\x61625c6301\n" +
				"00000000-0000-0000-0000-000000000002,\n" +
				"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,\\x0102ff\n"},
	} {
		r := &recorder{}
		if err := s.Query(context.Background(), tc.sql, r); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := r.copied.String(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
	}
	err := s.Query(context.Background(), "COPY cpu FROM STDIN", &recorder{copyData: "x\t\\N\n"})
	if sqlerr.Code(err) != sqlerr.InvalidTextRepresentation || !strings.Contains(err.Error(), `invalid input syntax for type uuid: "x"`) {
		t.Errorf("COPY of a bad uuid: %v", err)
	}
}

// sortedLines sorts the lines of a COPY's output, after the first if it
// is a header.
func sortedLines(s string, header bool) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if header {
		slices.Sort(lines[1:])
	} else {
		slices.Sort(lines)
	}
	return strings.Join(lines, "\n")
}
