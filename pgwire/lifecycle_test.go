package pgwire

import (
	"bufio"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// dialStarted opens a raw connection to ts and completes its startup.
func dialStarted(t *testing.T, ts *testServer) *transcriptConn {
	t.Helper()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	tc := &transcriptConn{nc: nc, br: bufio.NewReader(nc)}
	got, err := tc.run(transcriptChunk{cmd: "startup"})
	if err != nil || len(got) != 1 || !strings.Contains(got[0], "ReadyForQuery") {
		t.Fatalf("startup: %q, %v", got, err)
	}
	return tc
}

// send sends messages written as in transcripts.
func (tc *transcriptConn) send(t *testing.T, lines ...string) {
	t.Helper()
	if _, err := tc.run(transcriptChunk{cmd: "send", input: lines}); err != nil {
		t.Fatal(err)
	}
}

// startEventful starts a server whose fake backend reports its events,
// and a connection to it past its startup.
func startEventful(t *testing.T) (*fakeBackend, *testServer, *transcriptConn) {
	t.Helper()
	b := newFakeBackend()
	b.events = make(chan string, 64)
	ts := startServer(t, b)
	return b, ts, dialStarted(t, ts)
}

// wantSleepEnded waits for a sleep of b's to end and checks its cause.
func wantSleepEnded(t *testing.T, b *fakeBackend, cause error) {
	t.Helper()
	if e := waitEvent(t, b.events, "sleep ended"); e != "sleep ended: "+cause.Error() {
		t.Errorf("got %q", e)
	}
}

// TestClientGoneCancelsQuery closes the client's socket while its query
// runs: the server notices and cancels the query's context, and closes
// the session.
func TestClientGoneCancelsQuery(t *testing.T) {
	b, _, tc := startEventful(t)
	tc.send(t, `{"Type":"Query","String":"select pg_sleep(60)"}`)
	waitEvent(t, b.events, "sleeping")
	tc.nc.Close()
	wantSleepEnded(t, b, errClientGone)
	waitEvent(t, b.events, "closed")
}

// TestShutdown shuts the server down with an idle and a busy connection:
// the idle one is told FATAL 57P01, the busy one's query is canceled,
// every session is closed, and Serve returns nil promptly.
func TestShutdown(t *testing.T) {
	b := newFakeBackend()
	b.events = make(chan string, 64)
	ts := startServer(t, b)
	idle := dialStarted(t, ts)
	busy := dialStarted(t, ts)
	busy.send(t, `{"Type":"Query","String":"select pg_sleep(60)"}`)
	waitEvent(t, b.events, "sleeping")

	start := time.Now()
	if err := ts.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	if e := waitEvent(t, b.events, "sleep ended"); !strings.Contains(e, "terminating connection due to administrator command") {
		t.Errorf("busy session: %q", e)
	}
	got, err := idle.run(transcriptChunk{cmd: "eof"})
	want := `{"Type":"ErrorResponse","Severity":"FATAL","SeverityUnlocalized":"FATAL","Code":"57P01","Message":"terminating connection due to administrator command"}`
	if err != nil || len(got) != 2 || got[0] != want || got[1] != "EOF" {
		t.Errorf("idle connection got %q, %v", got, err)
	}
	got, err = busy.run(transcriptChunk{cmd: "eof"})
	if err != nil || len(got) == 0 || got[len(got)-1] != "EOF" || !strings.Contains(strings.Join(got, "\n"), `"Code":"57P01"`) {
		t.Errorf("busy connection got %q, %v", got, err)
	}
	if _, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		t.Error("the listener still accepts after shutdown")
	}
	b.mu.Lock()
	open := len(b.mu.sessions)
	b.mu.Unlock()
	if open != 0 {
		t.Errorf("%d sessions not closed", open)
	}
}

// waitReadAhead waits until the server's watchers have read n bytes
// ahead in all.
func waitReadAhead(t *testing.T, ts *testServer, n int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for ts.srv.readAhead.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("watchers read %d bytes ahead, want %d", ts.srv.readAhead.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// cancelAll cancels the running statement of every session of b.
func cancelAll(b *fakeBackend) {
	b.mu.Lock()
	keys := slices.Collect(maps.Keys(b.mu.sessions))
	b.mu.Unlock()
	for _, k := range keys {
		b.Cancel(k)
	}
}

// TestPipelinedBehindLongQuery sends a query behind a long one, in two
// writes, the first cutting its header: the watcher reads both parts
// while the first query runs; the first is then canceled, and the second
// is read from what the watcher kept and answered after it.
func TestPipelinedBehindLongQuery(t *testing.T) {
	b, ts, tc := startEventful(t)
	tc.send(t, `{"Type":"Query","String":"select pg_sleep(60)"}`)
	waitEvent(t, b.events, "sleeping")
	q, err := encodeFrontend(`{"Type":"Query","String":"select 42"}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.nc.Write(q[:3]); err != nil {
		t.Fatal(err)
	}
	waitReadAhead(t, ts, 3)
	if _, err := tc.nc.Write(q[3:]); err != nil {
		t.Fatal(err)
	}
	waitReadAhead(t, ts, int64(len(q)))
	cancelAll(b)
	got, err := tc.run(transcriptChunk{cmd: "until", input: []string{"ReadyForQuery", "ReadyForQuery"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"Type":"RowDescription","Fields":[{"Name":"pg_sleep","TableOID":0,"TableAttributeNumber":0,"DataTypeOID":2278,"DataTypeSize":-1,"TypeModifier":-1,"Format":0}]}`,
		`{"Type":"ErrorResponse","Severity":"ERROR","SeverityUnlocalized":"ERROR","Code":"57014","Message":"canceling statement due to user request"}`,
		`{"Type":"ReadyForQuery","TxStatus":"I"}`,
		`{"Type":"RowDescription","Fields":[{"Name":"?column?","TableOID":0,"TableAttributeNumber":0,"DataTypeOID":23,"DataTypeSize":4,"TypeModifier":-1,"Format":0}]}`,
		`{"Type":"DataRow","Values":[{"text":"42"}]}`,
		`{"Type":"CommandComplete","CommandTag":"SELECT 1"}`,
		`{"Type":"ReadyForQuery","TxStatus":"I"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestClientGoneBehindPipelinedQuery: a client sends a query behind a
// long one and then closes its side. The watcher reads the query and then
// the end, and cancels the running query.
func TestClientGoneBehindPipelinedQuery(t *testing.T) {
	b, ts, tc := startEventful(t)
	tc.send(t, `{"Type":"Query","String":"select pg_sleep(60)"}`)
	waitEvent(t, b.events, "sleeping")
	tc.send(t, `{"Type":"Query","String":"select 42"}`)
	if err := tc.nc.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	wantSleepEnded(t, b, errClientGone)
	if ts.srv.readAhead.Load() == 0 {
		t.Error("the query behind the long one was not read while it ran")
	}
	waitEvent(t, b.events, "closed")
}

// TestClientGoneDuringCopyCommit: a client closes its connection while
// its COPY FROM STDIN commits, after the data: the commit is watched as
// the statement before the data was, and canceled.
func TestClientGoneDuringCopyCommit(t *testing.T) {
	b, _, tc := startEventful(t)
	tc.send(t, `{"Type":"Query","String":"copy t from stdin slowly"}`)
	if got, err := tc.run(transcriptChunk{cmd: "until", input: []string{"CopyInResponse"}}); err != nil {
		t.Fatalf("%q: %v", got, err)
	}
	tc.send(t, `{"Type":"CopyData","Data":"1\tone\n"}`, `{"Type":"CopyDone"}`)
	waitEvent(t, b.events, "sleeping")
	tc.nc.Close()
	wantSleepEnded(t, b, errClientGone)
	waitEvent(t, b.events, "closed")
}
