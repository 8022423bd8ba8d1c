package pgwire

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// message frames a client message of type typ.
func message(typ byte, body []byte) []byte {
	out := []byte{typ}
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)+4))
	return append(out, body...)
}

// panicLog records whether the server logged a recovered panic.
type panicLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *panicLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(p))
	return len(p), nil
}

func (l *panicLog) panicked() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, "panic") {
			return s
		}
	}
	return ""
}

// FuzzConnection serves one connection whose client sends arbitrary
// bytes, either from the first byte or after a valid startup, and then
// hangs up. Whatever it sends, the server must never panic (a recovered
// panic is logged, and counts as a failure here) and must end the
// connection; a malformed message gets an error, never an allocation of
// the size it declares.
func FuzzConnection(f *testing.F) {
	startup := func() []byte {
		body := binary.BigEndian.AppendUint32(nil, protocol30)
		for _, kv := range []string{"user", "u", "database", "freshet", ""} {
			body = append(body, kv...)
			body = append(body, 0)
		}
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(body)+4)), body...)
	}()
	f.Add([]byte{}, false)
	f.Add(startup, false)
	f.Add(message('Q', []byte("SELECT 1\x00")), true)
	f.Add(append(message('P', []byte("s\x00SELECT $1\x00\x00\x01\x00\x00\x00\x17")), message('S', nil)...), true)
	f.Add(message('B', []byte("\x00s\x00\x00\x01\x00\x01\x00\x01\xff\xff\xff\xf0")), true)
	f.Add(message('Q', nil), true)
	f.Add([]byte{'Q', 0x7f, 0xff, 0xff, 0xff}, true)
	f.Add([]byte{0, 0, 0, 8, 4, 210, 22, 47}, false)                          // SSLRequest
	f.Add([]byte{0, 0, 0, 16, 4, 210, 22, 46, 0, 0, 0, 1, 0, 0, 0, 2}, false) // CancelRequest
	f.Fuzz(func(t *testing.T, data []byte, afterStartup bool) {
		log := &panicLog{}
		srv := &Server{Backend: newFakeBackend(), Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelError})),
			StartupTimeout: 5 * time.Second, MaxMessageSize: 1 << 20}
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			srv.serveConn(context.Background(), server)
		}()
		// The server's replies are read and thrown away, so it never
		// blocks on a write.
		go io.Copy(io.Discard, client)
		in := data
		if afterStartup {
			in = append(append([]byte(nil), startup...), data...)
		}
		client.SetWriteDeadline(time.Now().Add(5 * time.Second))
		client.Write(in)
		client.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the connection never ended for input %q", in)
		}
		if p := log.panicked(); p != "" {
			t.Fatalf("the server panicked on input %q: %s", in, p)
		}
	})
}
