package planner

import (
	"testing"
	"time"

	"freshet/sqlerr"
)

// TestParseSubscribe reads the SUBSCRIBE forms and FETCH's timeout, and
// refuses their bad shapes with PostgreSQL's SQLSTATEs.
func TestParseSubscribe(t *testing.T) {
	cat := newTestCatalog(t)
	u := func(n uint64) *uint64 { return &n }
	for _, tt := range []struct {
		sql  string
		want Subscribe
	}{
		{"SUBSCRIBE t", Subscribe{Snapshot: true}},
		{"subscribe to t;", Subscribe{Snapshot: true}},
		{"SUBSCRIBE (SELECT k FROM t) WITH (PROGRESS, SNAPSHOT = false)", Subscribe{Progress: true}},
		{"SUBSCRIBE t AS OF 5 UP TO 9", Subscribe{Snapshot: true, AsOf: u(5), UpTo: u(9)}},
		{"SUBSCRIBE t AS OF AT LEAST 5", Subscribe{Snapshot: true, AsOf: u(5)}},
		{"COPY (SUBSCRIBE t WITH (PROGRESS = true)) TO STDOUT", Subscribe{Snapshot: true, Progress: true}},
		{"COPY (SUBSCRIBE t) TO STDOUT WITH (FORMAT text)", Subscribe{Snapshot: true}},
		{"DECLARE c CURSOR FOR SUBSCRIBE t", Subscribe{Snapshot: true, Cursor: "c"}},
		{`DECLARE "C" NO SCROLL CURSOR WITHOUT HOLD FOR SUBSCRIBE t`, Subscribe{Snapshot: true, Cursor: "C"}},
	} {
		stmts, err := Plan(cat, tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		got, ok := stmts[0].(*Subscribe)
		if !ok {
			t.Fatalf("%s: planned %T", tt.sql, stmts[0])
		}
		if got.Query == nil || got.Snapshot != tt.want.Snapshot || got.Progress != tt.want.Progress || got.Cursor != tt.want.Cursor ||
			!sameTime(got.AsOf, tt.want.AsOf) || !sameTime(got.UpTo, tt.want.UpTo) {
			t.Errorf("%s: got %+v, want %+v", tt.sql, *got, tt.want)
		}
	}
	stmts, err := Plan(cat, "FETCH 3 FROM c WITH (timeout = '1.5s')")
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := stmts[0].(*Fetch); !ok || f.Count != 3 || f.Name != "c" || f.Timeout == nil || *f.Timeout != 1500*time.Millisecond {
		t.Fatalf("FETCH with a timeout: %+v", stmts[0])
	}
	for sql, code := range map[string]string{
		"SUBSCRIBE":                                  sqlerr.SyntaxError,
		"SUBSCRIBE nosuch":                           sqlerr.UndefinedTable,
		"SUBSCRIBE (SELECT":                          sqlerr.SyntaxError,
		"SUBSCRIBE t WITH (FROBNICATE)":              sqlerr.SyntaxError,
		"SUBSCRIBE t WITH (SNAPSHOT = maybe)":        sqlerr.InvalidParameterValue,
		"SUBSCRIBE t AS OF 'yesterday'":              sqlerr.InvalidParameterValue,
		"SUBSCRIBE t UP TO":                          sqlerr.SyntaxError,
		"SUBSCRIBE t garbage":                        sqlerr.SyntaxError,
		"SUBSCRIBE (INSERT INTO t VALUES (1, 2))":    sqlerr.FeatureNotSupported,
		"COPY (SUBSCRIBE t) TO '/tmp/x'":             sqlerr.FeatureNotSupported,
		"COPY (SUBSCRIBE t) TO STDOUT (FORMAT csv)":  sqlerr.FeatureNotSupported,
		"DECLARE c CURSOR WITH HOLD FOR SUBSCRIBE t": sqlerr.FeatureNotSupported,
		"FETCH 1 c WITH (nap = '1s')":                sqlerr.SyntaxError,
		"FETCH 1 c WITH (timeout = 'soon')":          sqlerr.InvalidDatetimeFormat,
	} {
		_, err := Plan(cat, sql)
		if got := sqlerr.Code(err); got != code {
			t.Errorf("%s: got %v (%s), want %s", sql, err, got, code)
		}
	}
}

func sameTime(a, b *uint64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
