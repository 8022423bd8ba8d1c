package pgwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

var seed = flag.Uint64("seed", 1, "seed of TestRandomClients")

// TestRandomClients sends seeded streams of random, malformed, truncated
// and well-formed-but-senseless messages on many connections, while a
// well-behaved client keeps querying. The server must answer or drop
// each bad connection, never crash, never hang (each connection closes
// once its client stops sending), never panic in pgwire itself, and keep
// serving the good client.
func TestRandomClients(t *testing.T) {
	t.Logf("seed %d; replay with: go test ./pgwire -run TestRandomClients -seed %d", *seed, *seed)
	rec := &recordingHandler{}
	b := newFakeBackend()
	ts := startServer(t, b, func(s *Server) { s.Logger = slog.New(rec) })

	rng := rand.New(rand.NewPCG(*seed, 0))
	const connections = 160
	scripts := make([][]byte, connections)
	for i := range scripts {
		scripts[i] = randomScript(rng)
	}

	stop := make(chan struct{})
	healthy := make(chan error, 1)
	go func() { healthy <- goodClient(ts, stop) }()

	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, script := range scripts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := badClient(ts.addr, script); err != nil {
				t.Errorf("connection %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-healthy; err != nil {
		t.Errorf("the well-behaved client failed: %v", err)
	}
	for _, msg := range rec.messages() {
		if strings.Contains(msg, "panic serving connection") {
			t.Errorf("pgwire panicked: %s", msg)
		}
	}
	// The server still serves.
	if err := goodClient(ts, nil); err != nil {
		t.Errorf("after the random clients: %v", err)
	}
}

// badClient sends script, closes its side, and reads until the server
// closes the connection.
func badClient(addr string, script []byte) error {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	// The server may close first: write errors are expected.
	nc.Write(script)
	nc.(*net.TCPConn).CloseWrite()
	_, err = io.Copy(io.Discard, nc)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return err
	}
	return nil
}

// goodClient runs queries until stop is closed (once if stop is nil),
// checking every answer.
func goodClient(ts *testServer, stop chan struct{}) error {
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	tc := &transcriptConn{nc: nc, br: bufio.NewReader(nc)}
	if _, err := tc.run(transcriptChunk{cmd: "startup"}); err != nil {
		return err
	}
	for {
		got, err := tc.run(transcriptChunk{cmd: "send", input: []string{
			`{"Type":"Parse","Query":"select * from generate_series(1, 3)"}`,
			`{"Type":"Bind","ResultFormatCodes":[1]}`, `{"Type":"Execute"}`, `{"Type":"Sync"}`,
			`{"Type":"Query","String":"select 'x'; select 2"}`,
		}})
		if err == nil {
			got, err = tc.run(transcriptChunk{cmd: "until", input: []string{"ReadyForQuery", "ReadyForQuery"}})
		}
		if err != nil {
			return err
		}
		if n := strings.Count(strings.Join(got, "\n"), `"Type":"DataRow"`); n != 5 || len(got) != 14 {
			return &unexpectedError{got}
		}
		select {
		case <-stop:
			return nil
		default:
		}
		if stop == nil {
			return nil
		}
	}
}

type unexpectedError struct{ got []string }

func (e *unexpectedError) Error() string { return "unexpected answer:\n" + strings.Join(e.got, "\n") }

var randomSQL = []string{
	"select 1", "select $1", "select $1::int4, $2::timestamptz", "select $1::numeric", "select $1::bytea",
	"select $1::interval", "select $1::int4[]", "select * from generate_series(1, 1000)", "select * from types",
	"select 1/0", "select boom", "select panic()", "begin", "commit", "rollback", "set application_name = 'r'",
	"copy t from stdin", "copy t to stdout", "do notice", "", "select 1; select 2", "select pg_sleep(0)", "nonsense",
}

var randomOIDs = []uint32{0, 16, 17, 20, 21, 23, 25, 700, 701, 1007, 1082, 1114, 1184, 1186, 1700, 2950, 3802, 99999}

// randomScript returns the bytes of one random client.
func randomScript(rng *rand.Rand) []byte {
	var out []byte
	if rng.IntN(4) == 0 {
		// A random startup phase.
		switch rng.IntN(5) {
		case 0:
			out = binary.BigEndian.AppendUint32(out, 8)
			out = binary.BigEndian.AppendUint32(out, codeSSLRequest)
		case 1:
			out = binary.BigEndian.AppendUint32(out, 16)
			out = binary.BigEndian.AppendUint32(out, codeCancelRequest)
			out = binary.BigEndian.AppendUint64(out, rng.Uint64()%4)
		case 2:
			out = binary.BigEndian.AppendUint32(out, uint32(rng.IntN(64)))
		}
		return appendRandomBytes(rng, out, rng.IntN(100))
	}
	params := map[string]string{"user": "u", "database": "freshet"}
	if rng.IntN(10) == 0 {
		params["database"] = "nosuch"
	}
	out, _ = (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: params}).Encode(out)
	// Some clients garble nothing, some little, some much.
	garble := pick(rng, []int{0, 0, 200, 30})
	for range rng.IntN(25) {
		for _, msg := range randomMessages(rng) {
			start := len(out)
			out, _ = msg.Encode(out)
			if garble == 0 {
				continue
			}
			switch rng.IntN(garble) {
			case 0:
				// Truncate the message: everything after it is misframed.
				out = out[:start+rng.IntN(len(out)-start+1)]
			case 1:
				out[start+rng.IntN(len(out)-start)] = byte(rng.Uint32())
			case 2:
				if len(out)-start >= 5 {
					binary.BigEndian.PutUint32(out[start+1:], rng.Uint32()>>rng.IntN(32))
				}
			case 3:
				out = appendRandomBytes(rng, out, rng.IntN(20))
			}
		}
	}
	return out
}

func appendRandomBytes(rng *rand.Rand, out []byte, n int) []byte {
	for range n {
		out = append(out, byte(rng.Uint32()))
	}
	return out
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// randomMessages returns a few messages: mostly a simple query or an
// extended batch that makes some sense, sometimes a stray message.
func randomMessages(rng *rand.Rand) []pgproto3.FrontendMessage {
	names := []string{"", "", "a", "b"}
	switch rng.IntN(6) {
	case 0:
		return []pgproto3.FrontendMessage{&pgproto3.Query{String: pick(rng, randomSQL)}}
	case 1, 2, 3:
		sql := pick(rng, randomSQL)
		var oids []uint32
		for range rng.IntN(3) {
			oids = append(oids, pick(rng, randomOIDs))
		}
		stmt := pick(rng, names)
		batch := []pgproto3.FrontendMessage{&pgproto3.Parse{Name: stmt, Query: sql, ParameterOIDs: oids}}
		nparams := strings.Count(sql, "$")
		if rng.IntN(8) == 0 {
			nparams = rng.IntN(3)
		}
		bind := &pgproto3.Bind{DestinationPortal: pick(rng, names), PreparedStatement: stmt}
		for range nparams {
			format := int16(rng.IntN(2))
			if rng.IntN(20) == 0 {
				format = 2
			}
			bind.ParameterFormatCodes = append(bind.ParameterFormatCodes, format)
			var p []byte
			switch {
			case rng.IntN(6) == 0:
			case format == 0:
				p = []byte(pick(rng, []string{"1", "-7", "abc", "", "2024-02-29", "1 day", "{1,2}", "1e5", "NaN"}))
			default:
				p = appendRandomBytes(rng, []byte{}, pick(rng, []int{0, 1, 2, 4, 8, 12, 16, rng.IntN(40)}))
			}
			bind.Parameters = append(bind.Parameters, p)
		}
		if rng.IntN(2) == 0 {
			bind.ResultFormatCodes = []int16{int16(rng.IntN(2))}
		}
		batch = append(batch, bind)
		if rng.IntN(2) == 0 {
			batch = append(batch, &pgproto3.Describe{ObjectType: pick(rng, []byte("SP")), Name: pick(rng, names)})
		}
		for range 1 + rng.IntN(2) {
			batch = append(batch, &pgproto3.Execute{Portal: bind.DestinationPortal, MaxRows: pick(rng, []uint32{0, 0, 1, 2, 1 << 31})})
		}
		if rng.IntN(10) > 0 {
			batch = append(batch, &pgproto3.Sync{})
		}
		return batch
	case 4:
		return []pgproto3.FrontendMessage{pick(rng, []pgproto3.FrontendMessage{
			&pgproto3.Describe{ObjectType: pick(rng, []byte("SPX")), Name: pick(rng, names)},
			&pgproto3.Close{ObjectType: pick(rng, []byte("SPX")), Name: pick(rng, names)},
			&pgproto3.Execute{Portal: pick(rng, names), MaxRows: 1},
			&pgproto3.Sync{}, &pgproto3.Flush{},
			&pgproto3.CopyData{Data: []byte("1\tx\n")}, &pgproto3.CopyDone{}, &pgproto3.CopyFail{Message: "no"},
			&pgproto3.FunctionCall{Function: 1},
		})}
	}
	if rng.IntN(10) == 0 {
		return []pgproto3.FrontendMessage{&pgproto3.Terminate{}}
	}
	return []pgproto3.FrontendMessage{&pgproto3.Sync{}}
}

// recordingHandler is a slog.Handler that keeps the messages logged.
type recordingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	return nil
}

func (h *recordingHandler) messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.msgs...)
}
