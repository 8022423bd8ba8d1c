package coord

import "testing"

// TestCopyDefaults: COPY FROM fills the columns its data leaves out with
// their defaults, evaluated per row as PostgreSQL 15 evaluates them:
// gen_random_uuid() and random() give each row its own value even when
// the rows are equal, now() is the statement's time, and a serial column
// the data gives does not call nextval. The same statements give the same
// answers in PostgreSQL 15.
func TestCopyDefaults(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE k (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), x text, r float8 DEFAULT random(), at timestamptz DEFAULT now(), n serial)")
	if err := env.copyIn(s, "COPY k (x) FROM STDIN", "a\na\na\n"); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT count(DISTINCT id), count(DISTINCT r), count(DISTINCT at), count(*), min(n), max(n) FROM k"); got != "3,3,1,3,1,3" {
		t.Errorf("defaults of equal rows: %s", got)
	}
	if got := env.query(s, "SELECT count(*) FROM k WHERE at <= now() AND at > now() - interval '1 minute' AND r >= 0 AND r < 1"); got != "3" {
		t.Errorf("defaults' values: %s", got)
	}
	if err := env.copyIn(s, "COPY k (x, n) FROM STDIN (FORMAT csv)", "b,100\nb,101\n"); err != nil {
		t.Fatal(err)
	}
	if err := env.copyIn(s, "COPY k (x) FROM STDIN", "c\n"); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT n FROM k WHERE x <> 'a'"); got != "100 101 4" {
		t.Errorf("serial after rows that gave it: %s", got)
	}
	if got := env.query(s, "SELECT count(DISTINCT id), count(*) FROM k"); got != "6,6" {
		t.Errorf("keys: %s", got)
	}
}
