package planner

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// TestFastInsertMatchesParser: every statement parseFastInsert reads
// gets the tree PostgreSQL's parser gives, locations included, and the
// same statement text; what it leaves to the parser is left whole.
// Statements are drawn at random (seeded) from pieces near the edges of
// what it reads: numbers at the 32-bit bounds, signs, strings with
// quotes and backslashes, keywords as names, comments, odd spacing.
func TestFastInsertMatchesParser(t *testing.T) {
	fixed := []string{
		"INSERT INTO t VALUES (1)",
		"insert into t values (1, -2, 3.5, -4.25, 'a''b', NULL, true, FALSE);",
		"INSERT INTO s.t (a, b) VALUES (2147483647, -2147483648), (2147483648, -2147483649)",
		"  INSERT INTO t(a,b)VALUES(1,2),(3,4) ; ",
		"INSERT INTO t VALUES ('x' 'y')",
		"INSERT INTO t VALUES ('x'\n'y')",
		"INSERT INTO t VALUES (- 5, -  1.5)",
		"INSERT INTO t VALUES (1e5)",
		"INSERT INTO t VALUES (1.)",
		"INSERT INTO t VALUES (.5)",
		"INSERT INTO t VALUES (0x10)",
		"INSERT INTO t VALUES (1_000)",
		"INSERT INTO t VALUES (12abc)",
		"INSERT INTO T VALUES (1)",
		"INSERT INTO \"t\" VALUES (1)",
		"INSERT INTO t VALUES (1) -- c",
		"INSERT INTO t VALUES (E'a\\nb')",
		"INSERT INTO t VALUES ('a\\b')",
		"INSERT INTO user VALUES (1)",
		"INSERT INTO t (select) VALUES (1)",
		"INSERT INTO t (name, type) VALUES ('n', 'x')",
		"INSERT INTO t VALUES (DEFAULT)",
		"INSERT INTO t VALUES (1) RETURNING *",
		"INSERT INTO t VALUES (1); SELECT 1",
		"INSERT INTO t VALUES (1),",
		"INSERT INTO t VALUES ()",
		"INSERT INTO t VALUES ('unterminated)",
		"INSERT INTO t VALUES (00012, 007.50, 0)",
		"INSERT INTO t VALUES (99999999999999999999999999)",
		"INSERT INTO a.b.c VALUES (1)",
		"INSERT INTO t VALUES ('é', 'ü''x')",
		"INSERT INTO tbl_1 (col_2) VALUES (1)",
		"INSERT INTO t VALUES ('\xff\xfe')",
		"INSERT INTO t VALUES ('a\x00b')",
		"INSERT INTO t VALUES (1, 2), (3)",
		"INSERT INTO t VALUES (00000000001, -000000000012, 0000000000000000002147483647, 00000000002147483648)",
		"INSERT INTO t VALUES (-2147483648, -2147483647, - 2147483648, -1.5, - 1.5)",
		"INSERT INTO t VALUES ('', '''', 'a''''b', 'plain')",
	}
	rng := rand.New(rand.NewPCG(20261204, 1))
	t.Logf("seed 20261204")
	// Each list's last entries are what is left to the parser; they are
	// drawn one time in twenty.
	pieces := []string{"0", "1", "-1", "- 7", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"3.25", "-0.5", "'s'", "''", "'it''s'", "'a\\'", "NULL", "null", "TRUE", "false",
		"10.", "1e3", "'x' 'y'", "DEFAULT", "x"}
	names := []string{"t", "orders", "s.t", "a_b", "x1", "name", "type", "T", "\"q\"", "values", "user"}
	spaces := []string{"", " ", "  ", "\n", "\t", " /* c */ "}
	pick := func(list []string, bad int) string {
		if rng.IntN(20) == 0 {
			return list[len(list)-bad+rng.IntN(bad)]
		}
		return list[rng.IntN(len(list)-bad)]
	}
	sp := func() string { return pick(spaces, 1) }
	var random []string
	for range 3000 {
		var b strings.Builder
		fmt.Fprintf(&b, "%sINSERT INTO %s%s", sp(), pick(names, 3), sp())
		if rng.IntN(2) == 0 {
			b.WriteString("(")
			for i := range 1 + rng.IntN(3) {
				if i > 0 {
					b.WriteString("," + sp())
				}
				b.WriteString(pick(names, 3))
			}
			b.WriteString(")" + sp())
		}
		b.WriteString("VALUES" + sp())
		// Rows as wide as the first, and one time in ten of another
		// width, which is left to the parser.
		width := 1 + rng.IntN(4)
		for r := range 1 + rng.IntN(3) {
			if r > 0 {
				b.WriteString("," + sp())
			}
			b.WriteString("(")
			w := width
			if rng.IntN(10) == 0 {
				w = 1 + rng.IntN(4)
			}
			for i := range w {
				if i > 0 {
					b.WriteString("," + sp())
				}
				b.WriteString(pick(pieces, 5))
			}
			b.WriteString(")" + sp())
		}
		if rng.IntN(3) == 0 {
			b.WriteString(";" + sp())
		}
		random = append(random, b.String())
	}
	read := 0
	for _, sql := range append(fixed, random...) {
		got, ok := parseFastInsert(sql)
		if !ok {
			continue
		}
		read++
		tree, err := pg.Parse(sql)
		if err != nil {
			t.Fatalf("%q: read here, but the parser refuses it: %v", sql, err)
		}
		if len(tree.Stmts) != 1 {
			t.Fatalf("%q: read here as one statement, the parser finds %d", sql, len(tree.Stmts))
		}
		raw := tree.Stmts[0]
		if here := got.fast.tree(); !proto.Equal(here, raw.Stmt) {
			t.Fatalf("%q:\n here   %v\n parser %v", sql, here, raw.Stmt)
		}
		end := len(sql)
		if raw.StmtLen > 0 {
			end = int(raw.StmtLocation + raw.StmtLen)
		}
		if want := strings.TrimSpace(sql[raw.StmtLocation:end]); got.Text != want {
			t.Fatalf("%q: text %q, the parser's %q", sql, got.Text, want)
		}
	}
	if read < 500 {
		t.Fatalf("only %d of the statements were read here", read)
	}
	t.Logf("%d statements read here and checked against the parser", read)
}

// FuzzFastInsert: whatever parseFastInsert reads, the parser reads as the
// same tree.
func FuzzFastInsert(f *testing.F) {
	for _, s := range []string{"INSERT INTO t VALUES (1, 'a', -2.5, NULL)", "insert into s.t (a) values (true), (-3);"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		got, ok := parseFastInsert(sql)
		if !ok {
			return
		}
		tree, err := pg.Parse(sql)
		if err != nil || len(tree.Stmts) != 1 {
			t.Fatalf("%q: read here, the parser gives %v, %v", sql, tree, err)
		}
		if here := got.fast.tree(); !proto.Equal(here, tree.Stmts[0].Stmt) {
			t.Fatalf("%q:\n here   %v\n parser %v", sql, here, tree.Stmts[0].Stmt)
		}
	})
}
