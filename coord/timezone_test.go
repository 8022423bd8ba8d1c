package coord

import (
	"context"
	"testing"

	"freshet/catalog"
	"freshet/pgwire"
)

// TestSessionTimeZone: a zone the client sends at startup is the
// session's; timestamptz text parameters, COPY fields and results are
// read and printed in it; and a table's column default keeps the zone
// of its CREATE TABLE across a restart.
func TestSessionTimeZone(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	ctx := context.Background()
	ps0, err := env.b.NewSession(ctx, pgwire.Startup{User: "u", Database: catalog.DefaultDatabase,
		Params: map[string]string{"TimeZone": "Asia/Tokyo"}})
	if err != nil {
		t.Fatal(err)
	}
	s := ps0.(*Session)
	if got := env.query(s, "SHOW TimeZone"); got != "Asia/Tokyo" {
		t.Fatalf("TimeZone from the startup message: %s", got)
	}
	env.exec(s, "CREATE TABLE ev (id int, ts timestamptz, d timestamptz DEFAULT '2024-01-01 00:00')")
	ps, err := s.Parse(ctx, "INSERT INTO ev (id, ts) VALUES (1, $1)", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ps.Bind(ctx, [][]byte{[]byte("2024-01-01 09:00")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Execute(ctx, 0, &recorder{}); err != nil {
		t.Fatal(err)
	}
	want := "1,2024-01-01 09:00:00+09,2024-01-01 00:00:00+09"
	if got := env.query(s, "SELECT id, ts, d FROM ev"); got != want {
		t.Fatalf("in Tokyo: %q, want %q", got, want)
	}
	if err := s.Query(ctx, "COPY ev (id, ts) FROM STDIN", &recorder{copyData: "3\t2024-01-01 12:00\n"}); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT ts AT TIME ZONE 'UTC' FROM ev WHERE id = 3"); got != "2024-01-01 03:00:00" {
		t.Fatalf("a COPY field without an offset, in Tokyo: %q is 03:00 UTC", got)
	}
	env.exec(s, "DELETE FROM ev WHERE id = 3")
	env.exec(s, "SET TIME ZONE 'UTC'")
	if got := env.query(s, "SELECT ts, d FROM ev"); got != "2024-01-01 00:00:00+00,2023-12-31 15:00:00+00" {
		t.Fatalf("in UTC: %q", got)
	}
	env.restart()
	s = env.session()
	env.exec(s, "INSERT INTO ev (id, ts) VALUES (2, '2024-06-01 00:00+00')")
	if got := env.query(s, "SELECT d FROM ev WHERE id = 2"); got != "2023-12-31 15:00:00+00" {
		t.Fatalf("default after a restart: %q (want Tokyo's midnight)", got)
	}
}
