package sqllogic

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// corpusDir is the third-party corpus, vendored byte for byte with the
// README that states its source and licence, so a plain clone runs it.
const corpusDir = "testdata/corpus"

// corpusRow is a row of the README's file table: "| sqlite/x.test |
// bytes | statements | queries (remark) |".
var corpusRow = regexp.MustCompile(`^\|\s*(sqlite/\S+)\s*\|\s*[\d,]+\s*\|\s*([\d,]+)\s*\|\s*([\d,]+)`)

// readCorpusTable returns the statement and query counts per file that
// the corpus README lists.
func readCorpusTable(t *testing.T) map[string][2]int {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "README.md"))
	if err != nil {
		t.Fatalf("the sqllogictest corpus README is missing (expected at %s): %v", corpusDir, err)
	}
	defer f.Close()
	counts := map[string][2]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := corpusRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		num := func(s string) int {
			n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
			if err != nil {
				t.Fatalf("README row %q: %v", sc.Text(), err)
			}
			return n
		}
		counts[m[1]] = [2]int{num(m[2]), num(m[3])}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestCorpusCounts parses every file of the shared corpus and checks its
// statement and query counts (before conditions) against the README's
// table, and the totals against the README's text.
func TestCorpusCounts(t *testing.T) {
	dir := filepath.Join(corpusDir, "sqlite")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the sqllogictest corpus is missing: want it at %s: %v", dir, err)
	}
	want := readCorpusTable(t)
	if len(want) != 18 {
		t.Errorf("README's table lists %d files, want 18", len(want))
	}
	seen := map[string]bool{}
	var totalQueries, skipped int
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".test") {
			return err
		}
		rel, err := filepath.Rel(corpusDir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		s, err := ParseFile(path)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		stmts, queries := s.Count()
		totalQueries += queries
		skipped += skippedByConditions(s, DefaultEngine)
		w, ok := want[rel]
		switch {
		case !ok:
			t.Errorf("%s is not in the README's table", rel)
		case stmts != w[0] || queries != w[1]:
			t.Errorf("%s: parsed %d statements and %d queries, README says %d and %d", rel, stmts, queries, w[0], w[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f := range want {
		if !seen[f] {
			t.Errorf("%s is in the README's table but not in %s", f, dir)
		}
	}
	if totalQueries != 29660 {
		t.Errorf("parsed %d queries in all, README says 29,660", totalQueries)
	}
	if skipped != 980 {
		t.Errorf("%d statements and queries are skipped by conditions as engine postgresql, README says 980", skipped)
	}
}

// skippedByConditions counts the statements and queries of s that their
// conditions exclude on engine, halts ignored.
func skippedByConditions(s *Script, engine string) int {
	n := 0
	for i := range s.Records {
		r := &s.Records[i]
		if _, skip := r.Skipped(engine); skip && (r.Kind == Statement || r.Kind == Query) {
			n++
		}
	}
	return n
}
