package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPsqlCopyCSV loads a CSV file with psql's \copy (which sends COPY
// FROM STDIN) into a table under a materialized view: quoted fields with
// commas, doubled quotes and line breaks, empty fields as NULL and "" as
// the empty string, then a file with a bad row, which writes nothing.
func TestPsqlCopyCSV(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is required (apt-get install postgresql-client)")
	}
	s := startBinary(t)
	s.must("CREATE TABLE people (id int NOT NULL, name text, note text)")
	s.must("CREATE MATERIALIZED VIEW people_notes AS SELECT count(*) AS n, count(note) AS notes, sum(length(name)) AS chars FROM people")

	dir := t.TempDir()
	good := filepath.Join(dir, "people.csv")
	data := "id,name,note\n" +
		"1,\"Lovelace, Ada\",\"said \"\"hello\"\"\"\n" +
		"2,Bob,\n" +
		"3,\"multi\nline\",\"\"\n"
	if err := os.WriteFile(good, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s.must(`\copy people from '` + good + `' csv header`)
	s.expect("SELECT id, name, note, note IS NULL FROM people ORDER BY id",
		"1|Lovelace, Ada|said \"hello\"|f\n2|Bob||t\n3|multi\nline||f")
	s.expect("SELECT * FROM people_notes", "3|2|26")

	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("4,ok,x\n5,\"never closed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// PostgreSQL 15 counts the line break inside the quotes: line 3.
	out, err := s.psql(`\copy people from '` + bad + `' with (format csv)`)
	if err == nil || !strings.Contains(out, "unterminated CSV quoted field") || !strings.Contains(out, "COPY people, line 3") {
		t.Fatalf("bad CSV: %v\n%s", err, out)
	}
	s.expect("SELECT * FROM people_notes", "3|2|26")
}
