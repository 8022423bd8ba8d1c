package coord

import (
	"context"
	"strings"
	"testing"
)

// INSERT, UPDATE and DELETE … RETURNING answer their rows with their own
// command tags, over the extended protocol too, and a RETURNING list
// that fails writes nothing.
func TestReturning(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE r (id int PRIMARY KEY, v text)")
	if got, want := env.query(s, "INSERT INTO r VALUES (1, 'a'), (2, 'b') RETURNING id || v"), "1a 2b"; got != want {
		t.Fatalf("INSERT RETURNING: %q, want %q", got, want)
	}
	env.failsWith(s, "INSERT INTO r VALUES (3, 'c') RETURNING 1 / 0", "22012")
	if got := env.query(s, "SELECT count(*) FROM r"); got != "2" {
		t.Fatalf("a failed RETURNING wrote: %q rows", got)
	}
	ctx := context.Background()
	ps, err := s.Parse(ctx, "DELETE FROM r WHERE id = $1 RETURNING v", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cols := ps.Columns(); len(cols) != 1 || cols[0].Name != "v" {
		t.Fatalf("described columns: %+v", cols)
	}
	p, err := ps.Bind(ctx, [][]byte{[]byte("2")})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	done, err := p.Execute(ctx, 0, rec)
	if err != nil || done.Tag != "DELETE 1" || strings.Join(rec.rows, " ") != "b" {
		t.Fatalf("DELETE RETURNING: tag %q rows %q err %v", done.Tag, rec.rows, err)
	}
}
