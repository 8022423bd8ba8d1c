package coord

import (
	"context"
	"slices"
	"testing"
	"time"

	"freshet/catalog"
	"freshet/pgwire"
)

// TestConsoleEventsFollowSubscriptions: the console's state comes from
// subscriptions over the introspection relations. The first call answers
// with the objects as they are; the next waits for a version past the
// one it has, and a change the engine makes (a new table, rows written)
// reaches it through the subscriptions, with nothing read. The feed's
// own subscriptions are not among the transient dataflows it shows, and
// once nobody asks for it the feed ends and the introspection tables are
// no longer written on the timer.
func TestConsoleEventsFollowSubscriptions(t *testing.T) {
	defer func(d time.Duration) { consoleIdle = d }(consoleIdle)
	consoleIdle = 2 * time.Second
	ctx := context.Background()
	sup, err := Supervise(ctx, Config{Workers: 2, DataDir: t.TempDir(), introspectEvery: 10 * time.Millisecond}, AuthTrust)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	ps, err := sup.NewSession(ctx, pgwire.Startup{User: "u", Database: catalog.DefaultDatabase})
	if err != nil {
		t.Fatal(err)
	}
	s := ps.(*Session)
	env := &sqlEnv{t: t, e: sup.Engine()}
	env.exec(s, "CREATE TABLE t (k int)")
	env.exec(s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t")

	names := func(st *ConsoleState) []string {
		var out []string
		for _, o := range st.Objects {
			out = append(out, o.Name)
		}
		return out
	}
	st, v, err := sup.ConsoleEvents(ctx, 0, hangLimit)
	if err != nil || st == nil || v == 0 {
		t.Fatalf("first state: %v, version %d, %v", st, v, err)
	}
	if got := names(st); !slices.Equal(got, []string{"t", "m"}) {
		t.Fatalf("first state's objects: %v", got)
	}
	if len(st.Transient) != 0 {
		t.Fatalf("the feed shows dataflows: %+v", st.Transient)
	}

	env.exec(s, "CREATE TABLE later (x int)")
	env.exec(s, "INSERT INTO t VALUES (1), (2), (3)")
	deadline := time.Now().Add(hangLimit)
	for {
		next, nv, err := sup.ConsoleEvents(ctx, v, hangLimit)
		if err != nil || nv <= v {
			t.Fatalf("next state: version %d after %d, %v", nv, v, err)
		}
		st, v = next, nv
		var records int64
		for _, o := range st.Objects {
			if o.Name == "t" {
				records = o.Records
			}
		}
		if slices.Equal(names(st), []string{"t", "m", "later"}) && records == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the state never showed later and t's 3 records: %+v", st.Objects)
		}
	}

	// Nobody asks: the feed ends, and nothing follows the tables.
	e := sup.Engine()
	for e.intro.following.Load() != 0 {
		if time.Now().After(deadline.Add(consoleIdle)) {
			t.Fatalf("%d still follow the introspection tables", e.intro.following.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConsoleEventsGiveUpOnAFeedThatKeepsEnding: a call whose feed ends
// starts one more, and if that ends too it fails (the console's page
// then gets a 503 and asks again) rather than start feeds until its
// request ends.
func TestConsoleEventsGiveUpOnAFeedThatKeepsEnding(t *testing.T) {
	defer func(d time.Duration) { consoleIdle = d }(consoleIdle)
	// Every feed is idle at its first check, a second after it starts.
	consoleIdle = -1
	ctx := context.Background()
	sup, err := Supervise(ctx, Config{Workers: 1, DataDir: t.TempDir()}, AuthTrust)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	ctx, cancel := context.WithTimeout(ctx, hangLimit)
	defer cancel()
	// No version is past this one, so the call waits on the feed.
	_, _, err = sup.ConsoleEvents(ctx, 1<<62, hangLimit)
	if err != errFeedIdle {
		t.Fatalf("a call whose feeds keep ending: %v, want %v", err, errFeedIdle)
	}
}
